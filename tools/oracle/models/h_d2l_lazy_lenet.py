# d2l.ai 7.6 / 8: LeNet and the deferred-initialization layers (LazyConv2d, LazyLinear, LazyBatchNorm2d)
import torch
from torch import nn


def init_cnn(module):  #@save
    """Initialize weights for CNNs."""
    if type(module) == nn.Linear or type(module) == nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


_ = torch.manual_seed(0)
net = nn.Sequential(
    nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.LazyLinear(120), nn.Sigmoid(),
    nn.LazyLinear(84), nn.Sigmoid(),
    nn.LazyLinear(10))
net[0]
net[0].weight
X = torch.randn(1, 1, 28, 28)
for layer in net:
    X = layer(X)
    print('output shape:\t', X.shape)

net[0].weight.shape, net[3].weight.shape, net[7].weight.shape
net[0].in_channels, net[7].in_features
sum(p.numel() for p in net.parameters())
bn = nn.LazyBatchNorm2d()
bn.running_mean
Y = bn(torch.randn(2, 3, 4, 4))
bn.running_mean, bn.num_features
bn.weight.shape
