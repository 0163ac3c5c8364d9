# One training step, step by step: forward, loss, backward, optimizer.step().
# SGD with momentum keeps one buffer per parameter.
import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(30, 50), nn.ReLU(), nn.Linear(50, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(16, 30)
y = torch.randn(16, 10)
pred = model(x)
loss = F.mse_loss(pred, y)
loss.backward()
opt.step()
opt.zero_grad()
pred = model(x)
loss = F.mse_loss(pred, y)
loss.backward()
opt.step()
len(opt.state)
opt.state[model[0].weight]["momentum_buffer"].shape
opt.zero_grad()
