import torch

# 自动求导: 非标量 backward, retain_graph, detach, 高阶导数
x = torch.arange(4.0, requires_grad=True)
y = 2 * torch.dot(x, x)
y.backward()
print(x.grad, x.grad == 4 * x)
x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)
x.grad.zero_()
y = x * x
y.sum().backward()
print(x.grad)
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c
a = torch.tensor(0.5, requires_grad=True)
d = f(a)
d.backward()
print(a.grad == d / a, a.grad)
t = torch.tensor([1.0, 2.0], requires_grad=True)
out = (t ** 3).sum()
g, = torch.autograd.grad(out, t, create_graph=True)
print(g)
g2, = torch.autograd.grad(g.sum(), t)
print(g2)
w = torch.randn(3, requires_grad=True)
loss = (w * 3).sum()
loss.backward(retain_graph=True)
loss.backward()
print(w.grad)
v = torch.ones(2, 2, requires_grad=True)
r = v + 2
r.retain_grad()
s = (r * r * 3).mean()
s.backward()
print(r.grad, v.grad)
