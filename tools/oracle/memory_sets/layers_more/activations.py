import torch
import torch.nn as nn
import torch.nn.functional as F

# 比较几种"收缩"类激活函数
_ = torch.manual_seed(0)
x = torch.linspace(-2, 2, 9, requires_grad=True)
y_hard = F.hardshrink(x, lambd=0.5)
y_soft = F.softshrink(x, 0.5)
y_tanh = F.tanhshrink(x)
y_sign = F.softsign(x)
print(y_hard)
print(y_soft)
print(y_tanh)
print(y_sign)
print(y_hard.grad_fn.name(), y_soft.grad_fn.name())
loss = (y_hard + y_soft + y_tanh + y_sign).sum()
loss.backward()
print(x.grad)

# 模块形式
act = nn.Sequential(nn.Linear(6, 8), nn.Softsign(), nn.Linear(8, 8), nn.Tanhshrink(), nn.Linear(8, 4), nn.Hardshrink(0.1))
print(act)
inp = torch.randn(5, 6)
out = act(inp)
print(out.shape, out.grad_fn.name())
out.pow(2).mean().backward()
print(act[0].weight.grad.norm())

th = nn.Threshold(0.1, 20.0)
print(th)
z = torch.randn(3, 4, requires_grad=True)
t = th(z)
print(t)
t.sum().backward()
print(z.grad)
t2 = F.threshold(z.detach(), 0.0, -1.0)
print(t2)
zz = z.detach().clone()
F.threshold_(zz, 0.5, 0.0)
print(zz)

# GLU 门控线性单元
glu = nn.GLU(dim=1)
print(glu)
h = torch.randn(4, 6, requires_grad=True)
g = glu(h)
print(g.shape, g.grad_fn.name())
print(g.grad_fn._saved_dim)
g.sum().backward()
print(h.grad)
try:
    F.glu(torch.randn(3, 5))
except RuntimeError as e:
    print(e)
try:
    F.softshrink(x, -1.0)
except RuntimeError as e:
    print(e)

ss = nn.Softshrink(1)
print(ss, ss(torch.tensor([-3.0, -0.5, 0.2, 1.5])))
print(F.hardshrink(torch.randn(2, 3, dtype=torch.float64), 0.3).dtype)
