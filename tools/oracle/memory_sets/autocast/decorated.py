import torch
import torch.nn as nn

_ = torch.manual_seed(1)
net = nn.Linear(16, 4)

@torch.autocast("cpu", dtype=torch.bfloat16)
def forward(x):
    return net(x)

x = torch.randn(8, 16)
y = forward(x)
print(y.dtype)
print(torch.is_autocast_enabled("cpu"))
loss = y.float().sum()
loss.backward()
print(net.weight.grad.dtype)
with torch.amp.autocast("cpu"):
    z = net(x)
with torch.cpu.amp.autocast():
    z2 = net(x)
print(z.dtype, z2.dtype)
