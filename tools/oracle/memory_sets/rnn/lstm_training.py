# LSTM with dropout between layers, eval, frozen parameters, given states, autograd.grad and a second backward
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
m = nn.LSTM(4, 6, num_layers=2, dropout=0.5)
x = torch.randn(5, 2, 4)
out, (h, c) = m(x)
out.sum().backward()
m.weight_ih_l1.grad.abs().sum() > 0
m.eval()
out2, _ = m(x)
for p in m.parameters():
    p.requires_grad_(False)
out3, (h3, c3) = m(x)
out3.requires_grad
m.train()
for p in m.parameters():
    p.requires_grad_(True)
h0 = torch.zeros(2, 2, 6, requires_grad=True)
o4, (h4, c4) = m(x, (h0, torch.zeros(2, 2, 6)))
g, = torch.autograd.grad(h4.sum(), [h0])
g.shape
o4.sum().backward()
o4.sum().backward()
