import torch
import torch.nn as nn
import torch.nn.functional as F

# 打印新优化器和调度器的 state_dict，看看里面到底存了什么
_ = torch.manual_seed(11)
net = nn.Linear(3, 2)
data = torch.randn(5, 3)
def train_step(opt):
    opt.zero_grad()
    loss = net(data).pow(2).mean()
    loss.backward()
    opt.step()
    return loss
adamax = torch.optim.Adamax(net.parameters(), lr=0.01)
train_step(adamax)
adamax.state_dict()
nadam = torch.optim.NAdam(net.parameters(), lr=0.01, momentum_decay=0.004)
train_step(nadam)
print(nadam.state_dict())
rprop = torch.optim.Rprop(net.parameters())
train_step(rprop)
rprop.state_dict()['state'][1]
asgd = torch.optim.ASGD(net.parameters(), lr=0.1, t0=1)
train_step(asgd)
train_step(asgd)
asgd.state_dict()['state'][0]
adadelta = torch.optim.Adadelta(net.parameters())
train_step(adadelta)
adadelta
# 调度器：get_last_lr() 和 state_dict()
opt = torch.optim.RAdam(net.parameters(), lr=0.1)
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
warm.get_last_lr()
for _ in range(4):
    train_step(opt)
    warm.step()
    print(warm.get_last_lr())
warm.state_dict()
const = torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
const.state_dict()
const.get_last_lr()
opt_b = torch.optim.Adamax(net.parameters(), lr=0.05)
s1 = torch.optim.lr_scheduler.ConstantLR(opt_b, factor=0.1, total_iters=2)
s2 = torch.optim.lr_scheduler.PolynomialLR(opt_b, total_iters=4, power=2.0)
seq = torch.optim.lr_scheduler.SequentialLR(opt_b, schedulers=[s1, s2], milestones=[2])
for _ in range(5):
    train_step(opt_b)
    seq.step()
seq.get_last_lr()
seq.state_dict()
# 错误：start_factor 超出 (0, 1] 的范围
torch.optim.lr_scheduler.LinearLR(opt_b, start_factor=1.5)
torch.optim.lr_scheduler.PolynomialLR(opt_b, total_iters=4).state_dict()
