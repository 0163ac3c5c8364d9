# nn.GRU over several layers and both directions, trained a step
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
gru = nn.GRU(4, 6, num_layers=2, bidirectional=True, batch_first=True)
x = torch.randn(2, 5, 4)
out, h = gru(x)
out.shape, h.shape
loss = out.pow(2).mean() + h.sum()
loss.backward()
opt = torch.optim.SGD(gru.parameters(), lr=0.1)
opt.step()
opt.zero_grad()
out2, h2 = gru(x, h.detach())
out2.sum().backward()
with torch.no_grad():
    y, hy = gru(x)
y.shape
