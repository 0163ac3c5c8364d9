# Tensor._base for views, and the names of autograd nodes (CopySlices, AccumulateGrad).
import torch

x = torch.randn(2, 3, requires_grad=True)
z = x.view(6)
z._base is x, x._base
t = x.t()
t._base is x
tt = t.t()
tt._base is x
s = x.sum()
s._base
d = x.detach()
d._base
n = torch.arange(12.0).view(3, 4).clone()
n._base
r = n[0]
r._base is n
r2 = r[1:]
r2._base is n
u = n.unsqueeze(0)
u._base is n
c = n.clone()
c._base
w = x * 1
w[0] = 0
w.grad_fn.name()
acc = (x * 2).grad_fn.next_functions[0][0]
acc.name()
