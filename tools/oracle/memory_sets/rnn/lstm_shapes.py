# LSTM on CPU runs through oneDNN: one MkldnnRnnLayerBackward0 per layer and direction
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
lstm = nn.LSTM(8, 16)
x = torch.randn(5, 2, 8)
out, (h, c) = lstm(x)
out.grad_fn.name(), h.grad_fn.name(), c.grad_fn.name()
out.mean().backward()
lstm.weight_ih_l0.grad.shape, lstm.bias_hh_l0.grad.abs().sum() > 0
del out, h, c
deep = nn.LSTM(6, 12, num_layers=2)
y, (hn, cn) = deep(torch.randn(4, 3, 6))
y.shape, hn.shape
y.sum().backward()
deep.weight_ih_l1.grad[0, :4], deep.weight_hh_l0.grad[1, :4]
bi = nn.LSTM(6, 10, bidirectional=True, batch_first=True)
z, (hz, cz) = bi(torch.randn(3, 7, 6))
z.shape, hz.shape, z.grad_fn.name()
z.pow(2).sum().backward()
bi.weight_hh_l0_reverse.grad[0, :5], bi.bias_ih_l0.grad[:3]
nb = nn.LSTM(5, 8, bias=False)
w, _ = nb(torch.randn(4, 2, 5))
w.sum().backward()
nb.weight_hh_l0.grad[0, :4]
big = nn.LSTM(32, 64, batch_first=True)
seq = torch.randn(8, 20, 32)
o, (ho, co) = big(seq)
o.mean().backward()
big.weight_ih_l0.grad.abs().sum()
