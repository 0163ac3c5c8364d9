# y[index] = value on tensors autograd tracks: CopySlices, masked_fill_, index_fill_, index_put_, and their gradients
import torch
_ = torch.manual_seed(0)
w = torch.randn(2, 3, requires_grad=True)
v = torch.randn(3, requires_grad=True)
y = w * 2
y[0] = 5
y.grad_fn.name()
y.sum().backward()
w.grad
y = w * 2
y[0] = v * 3
y.sum().backward()
w.grad, v.grad
y = w * 2
y[:, 1] = v[:2]
(y * y).sum().backward()
v.grad
y = w * 2
y[w.detach() > 0] = 0
y.grad_fn.name()
y.sum().backward()
w.grad
y = w * 2
y[[0, 1]] = 5
y.grad_fn.name()
y.pow(2).sum().backward()
y = w * 2
y[[0, 1]] = v
y.grad_fn.name()
y.sum().backward()
v.grad
h = torch.zeros(4, 3)
for t in range(4):
    h[t] = torch.tanh(v * t)
h.grad_fn.name()
h.sum().backward()
v.grad
