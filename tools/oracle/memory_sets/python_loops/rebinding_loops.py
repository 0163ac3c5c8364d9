# 循环里重新绑定变量：旧张量何时被释放？(When does the old tensor go, when a loop rebinds its name?)
import torch
x = torch.randn(3, requires_grad=True)
y = x * 2
# the autograd tutorial's loop: each `y * 2` frees the previous y (MulBackward0 keeps only the scalar)
while y.data.norm() < 1000:
    y = y * 2
print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)
h = torch.zeros(4, 4)
for step in range(3):
    h = torch.tanh(h @ torch.ones(4, 4) + step)
h
acts = []
for i in range(3):
    a = torch.full((2, 2), float(i))
    acts.append(a)
del a
total = torch.zeros(2, 2)
for t in acts:
    total = total + t
total
def scale_until(t, limit):
    while t.abs().max() < limit:
        t = t * 3
    return t
z = scale_until(torch.ones(5), 100)
z
size = z.shape
size.numel(), size.index(5), size.count(5)
(1, 2, 2, 3).count(2), (1, 2, 2, 3).index(2, 2)
size.index(7)
