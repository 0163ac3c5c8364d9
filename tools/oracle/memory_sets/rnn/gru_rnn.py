# GRU and RNN on CPU run ATen's loop (no oneDNN): per step linear + cell ops
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
gru = nn.GRU(6, 8)
x = torch.randn(4, 3, 6)
y, h = gru(x)
y.grad_fn.name(), h.grad_fn.name()
y.sum().backward()
gru.weight_hh_l0.grad.shape
rnn = nn.RNN(6, 8, num_layers=2, nonlinearity="relu", batch_first=True)
z, hz = rnn(torch.randn(3, 4, 6))
z.shape, hz.shape
z.mean().backward()
with torch.no_grad():
    y2, h2 = gru(torch.randn(4, 3, 6))
y2.shape
