import torch
import torch.nn as nn
import torch.nn.functional as F

# 全局池化分类头：比较 max 与 avg 两种全局池化
_ = torch.manual_seed(0)
feat = torch.randn(4, 8, 7, 7, requires_grad=True)
gmp = nn.AdaptiveMaxPool2d(1)
gap = nn.AdaptiveAvgPool2d((1, 1))
gmp, gap
a = gmp(feat)
b = gap(feat)
a.shape, b.shape
a.grad_fn.name(), b.grad_fn.name()
pooled = torch.cat([a, b], dim=1).flatten(1)
head = nn.Linear(16, 5)
logits = head(pooled)
target = torch.tensor([0, 3, 1, 4])
loss = F.cross_entropy(logits, target)
loss.backward()
feat.grad.abs().sum()
# 带索引的自适应最大池化
out, idx = F.adaptive_max_pool2d(feat.detach(), (2, 3), return_indices=True)
out.shape, idx.dtype
idx[0, 0]
pool1 = nn.AdaptiveMaxPool1d(4, return_indices=True)
seq = torch.randn(2, 3, 10)
v, i = pool1(seq)
i[1]
avg1 = nn.AdaptiveAvgPool1d(3)
avg1(seq)
p1 = nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False)
p1
p1(seq)
# 错误：AvgPool1d 需要 2D 或 3D 输入
p1(torch.randn(2, 3, 4, 5))
# LPPool：幂平均池化
lp = nn.LPPool2d(2, 2)
lp
x = torch.rand(1, 2, 4, 6, requires_grad=True)
y = lp(x)
y.grad_fn.name()
y.sum().backward()
x.grad[0, 0]
lp1 = nn.LPPool1d(3, 2, stride=1)
lp1(seq.abs())
F.lp_pool2d(x.detach(), float('inf'), 2)
F.lp_pool1d(seq, 0, 2)
