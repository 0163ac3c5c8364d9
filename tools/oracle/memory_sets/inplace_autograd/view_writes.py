# Writes through views of tensors autograd tracks: the base's node becomes CopySlices, the
# view's AsStridedBackward0, and the refusals (several views at once, no_grad views, leaves)
import torch

_ = torch.manual_seed(0)
w = torch.randn(2, 3, requires_grad=True)
y = w * 2
v = y[0]
v.mul_(3)
v.grad_fn.name()
y.grad_fn.name()
y.sum().backward()
w.grad
y2 = w * 2
t = y2.t()
t.add_(1)
y2.grad_fn.name(), t.grad_fn.name()
y2.sum().backward()
y3 = w * 1
a, b = y3.split(1, 0)
a.add_(1)
y4 = w * 1
u = y4.unbind(0)
u[0].zero_()
with torch.no_grad():
    nv = y4.view(6)
nv.add_(1)
w[0].add_(1)
y5 = w.exp()
y5.view(6).add_(1)
y5.sum().backward()
w.grad
y6 = w * 2
r = y6[1]
r[0] = 7.0
y6.grad_fn.name(), r.grad_fn.name()
(y6 * y6).sum().backward()
w.grad
y7 = w * 1
y7[0] += 5
y7[:, 1] *= 2
y7.sum().backward()
w.grad
s0 = (w * 2).split(1)[0]
s0[0] = 5.0
