# 自定义网络：继承 nn.Module，在 __init__ 里定义层，在 forward 里写前向
import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_hidden)
        self.fc3 = nn.Linear(d_hidden, d_out)
        self.scale = torch.ones(d_hidden)

    def forward(self, x):
        h = F.gelu(self.fc1(x))
        h = torch.tanh(self.fc2(h)) * self.scale
        return F.log_softmax(self.fc3(h), dim=1)


net = Net(32, 64, 4)
sum(p.numel() for p in net.parameters())
x = torch.randn(10, 32)
y = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3, 0, 1])
logp = net(x)
loss = F.nll_loss(logp, y)
loss.backward()
net.fc1.weight.grad.shape
with torch.no_grad():
    p = net(x).exp()
p.sum(1)
