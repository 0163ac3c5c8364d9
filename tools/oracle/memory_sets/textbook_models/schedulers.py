import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR, MultiStepLR, CosineAnnealingLR, ExponentialLR

# 学习率调整策略
_ = torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = MultiStepLR(optimizer, milestones=[3, 6], gamma=0.1)
x = torch.randn(16, 3)
y = torch.randn(16, 1)
lrs = []
for epoch in range(8):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    scheduler.step()
    lrs.append(scheduler.get_last_lr()[0])
print(lrs)
print(optimizer.param_groups[0]['lr'])
opt2 = torch.optim.Adam(model.parameters(), lr=1e-3)
cos = CosineAnnealingLR(opt2, T_max=10, eta_min=1e-5)
for i in range(5):
    opt2.step()
    cos.step()
    print(i, round(cos.get_last_lr()[0], 8))
opt3 = torch.optim.SGD(model.parameters(), lr=1.0)
exp = ExponentialLR(opt3, gamma=0.9)
for i in range(3):
    opt3.step()
    exp.step()
print(exp.get_last_lr(), exp.state_dict()['last_epoch'])
print(scheduler.state_dict()['milestones'])
