import torch
import torch.nn as nn

_ = torch.manual_seed(0)
net = nn.Sequential(nn.Linear(10, 20), nn.GELU(), nn.LayerNorm(20), nn.Linear(20, 2))
x = torch.randn(5, 10)
with torch.autocast("cpu", dtype=torch.float16):
    y = net(x)
    print(y.dtype)
    print(net[1](net[0](x)).dtype)
y.float().pow(2).mean().backward()
print(net[0].weight.grad.dtype, net[2].weight.grad.dtype)
