import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import ReduceLROnPlateau

# ReduceLROnPlateau: 验证集损失不再下降时降低学习率
_ = torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
x_train, y_train = torch.randn(40, 4), torch.randn(40, 1)
x_val, y_val = torch.randn(10, 4), torch.randn(10, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
sched = ReduceLROnPlateau(opt, mode='min', factor=0.5, patience=1, threshold=0.01, cooldown=1, min_lr=0.01)
print(sched.state_dict())
val_losses = [0.9, 0.85, 0.86, 0.87, 0.84, 0.845, 0.85, 0.7, 0.71, 0.72, 0.73, 0.74]
for epoch, fake_val in enumerate(val_losses):
    opt.zero_grad()
    loss = F.mse_loss(net(x_train), y_train)
    loss.backward()
    opt.step()
    sched.step(fake_val)
    print(epoch, sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter, sched.best)
with torch.no_grad():
    val_loss = F.mse_loss(net(x_val), y_val)
sched.step(val_loss)
sched.last_epoch
opt.param_groups[0]['lr']
buf = opt.state[net[0].weight]['momentum_buffer']
buf.shape
# mode='max' 适合监控准确率
acc_sched = ReduceLROnPlateau(opt, mode='max', patience=0, threshold=0.05, threshold_mode='abs')
for acc in [0.5, 0.52, 0.6, 0.61]:
    acc_sched.step(acc)
    print(acc_sched.get_last_lr(), acc_sched.best)
# 常见错误：忘记传入监控的指标
sched.step()
# factor 必须小于 1
ReduceLROnPlateau(opt, factor=1.5)
ReduceLROnPlateau(opt, mode='avg')
