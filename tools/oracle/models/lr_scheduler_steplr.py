# torch.optim.lr_scheduler: StepLR (and MultiStepLR, ExponentialLR) around a training loop.
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR, MultiStepLR, ExponentialLR

_ = torch.manual_seed(0)
model = nn.Linear(4, 2)
x = torch.randn(8, 4)
y = torch.randn(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = StepLR(optimizer, step_size=3, gamma=0.1)
loss_fn = nn.MSELoss()

for epoch in range(8):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(epoch, scheduler.get_last_lr(), round(optimizer.param_groups[0]["lr"], 6), round(loss.item(), 4))

w = model.weight
scheduler.state_dict()
scheduler.last_epoch

optimizer2 = torch.optim.Adam(model.parameters(), lr=1.0)
ms = MultiStepLR(optimizer2, milestones=[2, 4], gamma=0.5)
lrs = []
for epoch in range(6):
    optimizer2.step()
    ms.step()
    lrs.append(optimizer2.param_groups[0]["lr"])
lrs

optimizer3 = torch.optim.SGD(model.parameters(), lr=1.0)
ex = ExponentialLR(optimizer3, gamma=0.5)
for epoch in range(3):
    optimizer3.step()
    ex.step()
ex.get_last_lr()
optimizer3.param_groups[0]["initial_lr"]
