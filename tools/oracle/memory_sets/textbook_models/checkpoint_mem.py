import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
# 梯度检查点: 用计算换显存
_ = torch.manual_seed(0)
layers = nn.Sequential(*[nn.Sequential(nn.Linear(64, 64), nn.ReLU()) for _ in range(8)])
x = torch.randn(32, 64, requires_grad=True)
out = layers(x)
print(out.grad_fn.name())
out.sum().backward()
g_plain = x.grad.clone()
x.grad = None
out = checkpoint_sequential(layers, 4, x, use_reentrant=False)
out.sum().backward()
print(torch.allclose(g_plain, x.grad))
x.grad = None
def run(inp):
    return layers[0](inp)
y = checkpoint(run, x, use_reentrant=False)
print(y.shape, y.requires_grad)
y.sum().backward()
print(x.grad.shape)
