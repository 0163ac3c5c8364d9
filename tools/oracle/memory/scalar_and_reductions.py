# Small ops, small costs: Python scalars, dtype promotion, comparisons and reductions.
import torch

x = torch.randn(8, 6)
i = torch.arange(48).reshape(8, 6)
d = x.double()
h = x.half()
a = x + 1
b = 2.5 * x
c = i * 2
e = i * 0.5
f = d + 1
g = h * 3
m = x > 0
n = i == 3
w = torch.where(m, x, 0.0)
s = x.sum()
mu = x.mean(dim=0)
sd = x.std()
vr = x.var(dim=1)
nm = x.norm()
mx = x.max(dim=1)
am = x.argmax()
cat = torch.cat([x, x], dim=1)
st = torch.stack([x, x])
sel = x[m]
idx = x[[1, 3, 5]]
x.add_(1)
x.mul_(0.5)
x[x < 0] = 0.0
t = x.t().contiguous()
