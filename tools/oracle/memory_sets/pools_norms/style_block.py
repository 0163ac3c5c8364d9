import torch
import torch.nn as nn
import torch.nn.functional as F

# 条件实例归一化（conditional instance norm）：冻结编码器，只为新风格训练 γ 和 β
_ = torch.manual_seed(2)
encoder = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
for p in encoder.parameters():
    p.requires_grad_(False)

norm = nn.InstanceNorm2d(16, affine=True)
norm
img = torch.randn(2, 3, 8, 8)
with torch.no_grad():
    feat = encoder(img)
y = norm(feat)
y.shape
y.grad_fn.name()
y.grad_fn.next_functions[0][0].name()
bn_node = y.grad_fn.next_functions[0][0]
bn_node._saved_input.shape, bn_node._saved_weight.shape
style_target = torch.randn(2, 16, 8, 8)
opt = torch.optim.Adam(norm.parameters(), lr=1e-2)
loss = F.mse_loss(F.relu(y), style_target)
loss.backward()
norm.weight.grad[:4]
opt.step()
opt.zero_grad()
# 不带仿射参数、跟踪运行统计量的 InstanceNorm
track = nn.InstanceNorm1d(3, track_running_stats=True)
track
seq = torch.randn(5, 3, 10)
z = track(seq)
track.running_mean, track.running_var, track.num_batches_tracked
track.eval()
z2 = track(seq)
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
nn.InstanceNorm2d(3)(torch.randn(3, 5, 5)).shape
