# Writes through views in model-style code: F.relu(inplace=True) on a slice, t_(), a view's setitem, two slices written in place, a number tensor filled from a tracked one
import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)
x = torch.randn(4, 6, requires_grad=True)
h = x * 2
F.relu(h[:, :3], inplace=True)
h.grad_fn.name()
h.sum().backward()
x.grad
a = torch.randn(3, 3, requires_grad=True)
b = a + 0
b.t_()
b.grad_fn.name()
c = a * 1
d = c.view(-1)
d[2] = 0
c.grad_fn.name(), d.grad_fn.name()
(c * 2).sum().backward()
a.grad
e = torch.randn(2, 4, requires_grad=True)
f = e.transpose(0, 1)
f.add_(1)
g = e.detach()
g[0, 0] = 100
e[0, 0]
k = torch.randn(5, requires_grad=True)
parts = k * 1
first, rest = parts[:2], parts[2:]
first.mul_(10)
rest.add_(1)
parts.sum().backward()
k.grad
v = torch.zeros(3)
v[1] = k[0]
v.requires_grad, v.grad_fn.name()
v.sum().backward()
k.grad
