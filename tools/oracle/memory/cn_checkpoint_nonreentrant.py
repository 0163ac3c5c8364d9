# 梯度检查点（use_reentrant=False）：用计算换显存
# 先不用检查点训练一步，再用检查点训练一步，对比梯度
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

_ = torch.manual_seed(0)
layer1 = nn.Linear(16, 32)
layer2 = nn.Linear(32, 16)
x = torch.randn(4, 16)
# 普通前向
h = torch.relu(layer1(x))
y = layer2(h).sum()
y.backward()
g1 = layer1.weight.grad.clone()
layer1.zero_grad()
layer2.zero_grad()
del h, y


def block(t):
    return torch.relu(layer1(t))


# 检查点前向：block 内部的激活不保存
h = checkpoint(block, x, use_reentrant=False)
z = layer2(h).sum()
z.backward()
torch.allclose(g1, layer1.weight.grad)
