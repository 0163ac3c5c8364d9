import torch
import torch.nn as nn
import torch.nn.functional as F

# 风格迁移网络中的残差块：Conv + InstanceNorm2d + ReLU
_ = torch.manual_seed(2)

class ResidualBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1)
        self.in1 = nn.InstanceNorm2d(ch, affine=True)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1)
        self.in2 = nn.InstanceNorm2d(ch, affine=True)

    def forward(self, x):
        y = F.relu(self.in1(self.conv1(x)))
        y = self.in2(self.conv2(y))
        return x + y

block = ResidualBlock(4)
block
x = torch.randn(2, 4, 6, 6)
out = block(x)
out.shape
out.grad_fn.name()
out.grad_fn.next_functions[1][0].name()
opt = torch.optim.Adam(block.parameters(), lr=1e-3)
target = torch.zeros(2, 4, 6, 6)
loss = F.mse_loss(out, target)
loss.backward()
block.in1.weight.grad
opt.step()
# 不带仿射参数、跟踪运行统计量的 InstanceNorm
norm = nn.InstanceNorm1d(3, track_running_stats=True)
norm
seq = torch.randn(5, 3, 10)
z = norm(seq)
norm.running_mean, norm.running_var, norm.num_batches_tracked
norm.eval()
z2 = norm(seq)
z2[0, 0, :4]
# 函数式接口
w = torch.ones(3, requires_grad=True)
b = torch.zeros(3, requires_grad=True)
h = F.instance_norm(seq, weight=w, bias=b)
(h * torch.linspace(-1, 1, 10)).sum().backward()
w.grad
# 错误：每个通道只有一个空间元素
F.instance_norm(torch.randn(4, 3, 1))
nn.InstanceNorm3d(2)(torch.randn(2, 2, 3, 4, 5)).shape
nn.InstanceNorm2d(3, affine=True)(torch.randn(2, 4, 5, 5))
