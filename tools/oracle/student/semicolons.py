# Notebook cells with several statements on a line (`;`), as students write them
import torch
a = torch.arange(6.); b = a.view(2, 3); c = b.t()
a[0] = 10; b
c.is_contiguous(), c.stride();
if a.sum() > 0: d = c.contiguous(); e = d.stride()
e
for i in range(2): a[i] += 1; print(i);
x = 1; y = x + 1
def f(v): w = v * 2; return w
f(a); f(b)
n = 0
while n < 3: n += 1; a[n] = n
a
z = torch.zeros(2, 3); z.add_(1); z.shape
