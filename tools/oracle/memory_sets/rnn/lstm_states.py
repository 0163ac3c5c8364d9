# LSTM with given states, unbatched input, h/c in the loss, and inference
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
u = nn.LSTM(4, 20)
h0 = torch.randn(1, 20, requires_grad=True)
c0 = torch.randn(1, 20)
o1, (h1, c1) = u(torch.randn(9, 4), (h0, c0))
o1.shape, h1.shape, o1.grad_fn.name()
o1.sum().backward()
h0.grad[0, :4], u.weight_hh_l0.grad[0, :4]
del o1, h1, c1
m = nn.LSTM(3, 5)
x = torch.randn(6, 2, 3, requires_grad=True)
out, (h, c) = m(x)
(out.sum() + h.sum() * 2 + c.sum()).backward()
x.grad[0, 0], m.weight_ih_l0.grad[0]
with torch.no_grad():
    o2, (h2, c2) = m(torch.randn(6, 2, 3))
o2.requires_grad, h2.shape
