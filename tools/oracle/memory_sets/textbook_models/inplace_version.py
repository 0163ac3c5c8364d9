import torch
# 原地操作与版本计数
x = torch.ones(3, requires_grad=True)
y = x * 2
z = y.exp()
print(y._version)
y.add_(1)
print(y._version)
try:
    z.sum().backward()
except RuntimeError as e:
    print(e)
a = torch.randn(3, requires_grad=True)
b = a.sigmoid()
b.mul_(2)
try:
    b.sum().backward()
except RuntimeError as e:
    print(e)
c = torch.randn(3, requires_grad=True)
try:
    c.add_(1)
except RuntimeError as e:
    print(e)
with torch.no_grad():
    c.add_(1)
print(c._version, c.requires_grad)
d = c.detach()
d.zero_()
print(c, c._version)
w = torch.ones(2, 2, requires_grad=True)
v = w[0]
print(v._base is w, v.grad_fn.name())
t = torch.tensor([1., 2., 3.])
u = t.view(3)
u += 1
print(t._version, u._version, t)
