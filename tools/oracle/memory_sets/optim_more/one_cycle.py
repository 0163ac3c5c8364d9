import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import OneCycleLR, CyclicLR

# fastai 风格的 one-cycle 训练：学习率先升后降，动量(beta1)反向变化
_ = torch.manual_seed(1)
model = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 3))
data = torch.randn(24, 5)
labels = torch.randint(0, 3, (24,))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
epochs, steps_per_epoch = 3, 4
sched = OneCycleLR(opt, max_lr=0.01, epochs=epochs, steps_per_epoch=steps_per_epoch, pct_start=0.25)
opt.param_groups[0]['initial_lr'], opt.param_groups[0]['max_lr'], opt.param_groups[0]['min_lr']
for epoch in range(epochs):
    for i in range(steps_per_epoch):
        xb, yb = data[i * 6:(i + 1) * 6], labels[i * 6:(i + 1) * 6]
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        sched.step()
        g = opt.param_groups[0]
        print(epoch, i, g['lr'], g['betas'])
print(opt)
# 错误示范：超过 total_steps 继续 step
sched.step()
# 线性退火 + 三阶段
opt2 = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
sched2 = OneCycleLR(opt2, max_lr=0.1, total_steps=10, anneal_strategy='linear', three_phase=True)
for _ in range(10):
    opt2.step()
    sched2.step()
    print(sched2.get_last_lr(), opt2.param_groups[0]['momentum'])
sched2.state_dict()['_schedule_phases']
# CyclicLR 三角形策略
opt3 = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
clr = CyclicLR(opt3, base_lr=0.001, max_lr=0.006, step_size_up=3, mode='triangular2')
for _ in range(14):
    opt3.step()
    clr.step()
    print(clr.get_last_lr(), opt3.param_groups[0]['momentum'])
clr.state_dict()
CyclicLR(opt3, base_lr=0.001, max_lr=0.006, mode='sawtooth')
OneCycleLR(opt3, max_lr=0.1)
OneCycleLR(torch.optim.Adagrad(model.parameters()), max_lr=0.1, total_steps=5)
