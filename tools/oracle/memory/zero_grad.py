# zero_grad(): set_to_none=True (the default) frees the gradients;
# set_to_none=False keeps the buffers and fills them with zeros.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
model = nn.Linear(50, 20)
x = torch.randn(4, 50)
model(x).sum().backward()
model.weight.grad.sum()
model.zero_grad(set_to_none=False)
model.weight.grad.abs().sum()
model(x).sum().backward()
model.zero_grad()
model.weight.grad is None
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(x).pow(2).mean().backward()
opt.step()
opt.zero_grad(set_to_none=False)
opt.zero_grad()
w = torch.randn(10, requires_grad=True)
(w * w).sum().backward()
w.grad = None
