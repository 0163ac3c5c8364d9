# In-place ops whose backward reads the values they overwrite keep a clone of them
import torch

_ = torch.manual_seed(0)
w = torch.randn(6, requires_grad=True)
a = w * 2
a.sin_()
a.grad_fn.name()
a.sum().backward()
w.grad
b = w * 3
b.clamp_(min=0.5)
b.grad_fn.name()
b.sum().backward()
w.grad
c = w.abs() + 1
c.pow_(2)
c.sum().backward()
w.grad
m = torch.ones(6)
m.mul_(w)
m.sum().backward()
w.grad
s = w * 3
s.mul_(w)
s.grad_fn._saved_self.grad_fn.name()
s.sum().backward()
w.grad
r = w * 2
r.mul_(5)
r.relu_()
r.sum().backward()
with torch.no_grad():
    q = w * 2
    q.sin_()
q.requires_grad
