# A hand-written RNN filling a preallocated output, manual SGD under no_grad, masked writes
import torch
import torch.nn as nn
import torch.nn.functional as F

# a hand-written RNN that fills a preallocated output, then trains a step
_ = torch.manual_seed(0)
W_xh = torch.randn(4, 8, requires_grad=True)
W_hh = torch.randn(8, 8, requires_grad=True)
xs = torch.randn(5, 3, 4)
h = torch.zeros(3, 8)
outputs = torch.zeros(5, 3, 8)
for t in range(5):
    h = torch.tanh(xs[t] @ W_xh + h @ W_hh)
    outputs[t] = h
outputs.grad_fn.name()
loss = outputs.pow(2).mean()
loss.backward()
W_xh.grad.norm()
W_hh.grad.shape
with torch.no_grad():
    W_xh -= 0.1 * W_xh.grad
    W_xh.grad.zero_()
W_xh.requires_grad
x = torch.arange(12.).view(3, 4)
x.requires_grad_()
y = x * 1
y[:, 0] = 0
y[y > 5] = 5
y.sum().backward()
x.grad
z = torch.ones(2, 3, requires_grad=True)
q = z.clone()
q[0].mul_(2)
q.sum().backward()
z.grad
m = torch.randn(4, 4, requires_grad=True)
n = m.relu()
n.diagonal().fill_(1)
n.sum().backward()
m.grad
p = torch.randn(3, requires_grad=True)
r = p.exp()
r[0] = 1
r.backward(torch.ones(3))
p.grad
