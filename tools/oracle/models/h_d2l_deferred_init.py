# 《动手学深度学习》5.3 延后初始化 (LazyLinear)
import torch
from torch import nn

_ = torch.manual_seed(0)
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
net[0].weight
print(net)
X = torch.rand(2, 20)
Y = net(X)
net[0].weight.shape
net[2].weight.shape
print(net)
type(net[0]).__name__
[(name, param.shape) for name, param in net.named_parameters()]
sum(p.numel() for p in net.parameters())
