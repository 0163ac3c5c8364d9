# In-place operations (the trailing underscore) write into the existing storage:
# no new memory, but the Python scalar still costs a tiny temporary.
import torch

x = torch.randn(16, 16)
y = x + 1
x.add_(1)
x.mul_(0.5)
x.relu_()
x.clamp_(max=1.0)
x.zero_()
z = x.add(1)
x += 2
x *= 3
x = x * 3
w = torch.randn(10, requires_grad=True)
v = w * 2
v.add_(1)
v.exp_()
v.sum().backward()
i = torch.arange(100)
i.add_(5)
i.mul_(2)
f = i * 0.5
m = x > 5
x.masked_fill_(m, 0.0)
x[x < 1] = -1.0
