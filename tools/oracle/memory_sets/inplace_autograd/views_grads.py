# Gradients through views as tutorials inspect them: retain_grad on a slice, hooks after a setitem, expand, repeat (its index temporaries)
import torch
_ = torch.manual_seed(0)
a = torch.randn(3, 4, requires_grad=True)
b = a[:, 1:3]
b.retain_grad()
c = b * 2
c.sum().backward()
b.grad
a.grad
x = torch.ones(5, requires_grad=True)
y = x.clone()
y[1:3] = 0
handle = y.register_hook(lambda g: g * 10)
y.sum().backward()
x.grad
z = torch.randn(2, 2, requires_grad=True)
s = z.expand(3, 2, 2)
s.sum().backward()
z.grad
p = torch.randn(4, requires_grad=True)
q = p.unsqueeze(0).repeat(3, 1)
q[0, 0] = 0
q.sum().backward()
p.grad
r = torch.randn(2,3,4)
s = r.repeat(2, 1, 1)
t = torch.randn(5).repeat(3)
u = torch.randn(5).repeat(2, 3, 1)
v = torch.randn(2, 3, requires_grad=True).repeat(1, 2)
