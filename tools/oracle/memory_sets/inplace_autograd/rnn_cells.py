# nn.GRUCell / LSTMCell / RNNCell: ATen's cells add and activate their gates in place
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
gru = nn.GRUCell(5, 7)
x = torch.randn(3, 5)
h = gru(x)
h.grad_fn.name()
h2 = gru(x, h)
h2.sum().backward()
gru.weight_hh.grad.shape
lstm = nn.LSTMCell(5, 6)
hx, cx = lstm(x)
hx.grad_fn.name(), cx.grad_fn.name()
hx2, cx2 = lstm(x, (hx, cx))
(hx2.sum() + cx2.sum()).backward()
rnn = nn.RNNCell(5, 4, nonlinearity="relu")
hr = rnn(x)
hr.sum().backward()
u = rnn(torch.randn(5))
u.shape
gates = torch.randn(2, 9, requires_grad=True) * 1
p0, p1, p2 = gates.unsafe_chunk(3, 1)
p0.grad_fn.name(), p0._base is None
p0.add_(1)
p0.grad_fn.name()
p0.sigmoid_().sum().backward()
