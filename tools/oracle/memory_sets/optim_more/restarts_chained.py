import torch
import torch.nn as nn
from torch.optim import lr_scheduler

# 带热重启的余弦退火：每个 batch 用小数 epoch 调用 step
model = nn.Linear(10, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.001)
iters = 4
for epoch in range(4):
    for i in range(iters):
        opt.step()
        sched.step(epoch + i / iters)
    print(epoch, sched.get_last_lr(), sched.T_cur, sched.T_i)
sched.state_dict()
# 不带参数的 step：按整数 epoch 前进
sched2 = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3)
for _ in range(7):
    opt.step()
    sched2.step()
    print(sched2.get_last_lr())
sched2.step(-1)
# ChainedScheduler：每次同时调用多个调度器
opt2 = torch.optim.SGD(model.parameters(), lr=1.0)
chain = lr_scheduler.ChainedScheduler([
    lr_scheduler.ConstantLR(opt2, factor=0.1, total_iters=2),
    lr_scheduler.ExponentialLR(opt2, gamma=0.9),
])
for _ in range(5):
    opt2.step()
    chain.step()
    print(chain.get_last_lr())
chain.state_dict()['_schedulers'][0]
# MultiplicativeLR 与 PolynomialLR
opt3 = torch.optim.SGD(model.parameters(), lr=0.5)
mult = lr_scheduler.MultiplicativeLR(opt3, lr_lambda=lambda epoch: 0.95)
for _ in range(3):
    opt3.step()
    mult.step()
mult.get_last_lr()
mult.state_dict()
poly = lr_scheduler.PolynomialLR(opt3, total_iters=4, power=2.0)
for _ in range(6):
    opt3.step()
    poly.step()
    print(poly.get_last_lr(), poly.last_epoch)
lr_scheduler.MultiplicativeLR(opt3, lr_lambda=0.9)
lr_scheduler.CosineAnnealingWarmRestarts(opt3, T_0=0)
lr_scheduler.LinearLR(opt3, start_factor=0)
lr_scheduler.ConstantLR(opt3, factor=1.5)
