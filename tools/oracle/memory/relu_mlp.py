# The example: Linear(100, 200) -> ReLU -> Linear(200, 10) on a 64x100 batch.
# What lives after the forward pass, and what backward() frees.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 10))
x = torch.randn(64, 100)
out = model(x)
out.grad_fn.name()
loss = out.sum()
loss.backward()
model[0].weight.grad.shape
out = model(x)
loss = out.sum()
loss.backward()
del out
del loss
