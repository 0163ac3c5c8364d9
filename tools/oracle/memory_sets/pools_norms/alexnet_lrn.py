import torch
import torch.nn as nn
import torch.nn.functional as F

# AlexNet's first block: conv, ReLU, local response normalization, overlapping max pooling
_ = torch.manual_seed(3)
features = nn.Sequential(
    nn.Conv2d(3, 8, kernel_size=5, stride=2, padding=2),
    nn.ReLU(inplace=True),
    nn.LocalResponseNorm(size=5, alpha=1e-4, beta=0.75, k=2.0),
    nn.MaxPool2d(kernel_size=3, stride=2),
)
features
images = torch.randn(2, 3, 32, 32)
out = features(images)
out.shape
lrn = features[2]
act = torch.relu(torch.randn(2, 8, 6, 6, requires_grad=True))
n = lrn(act)
n.grad_fn.name()
n.sum().backward()
F.local_response_norm(torch.arange(12.).reshape(1, 4, 3), 2)
# LRN on a 5-D input goes through avg_pool3d
v = F.local_response_norm(torch.randn(1, 6, 2, 3, 3), 3)
v.shape
F.local_response_norm(torch.randn(4, 5), 2)
# a 3-D stack: BatchNorm3d, MaxPool3d, AvgPool3d, AdaptiveAvgPool3d
bn = nn.BatchNorm3d(4)
bn
vol = torch.randn(2, 4, 4, 6, 6, requires_grad=True)
h = bn(vol)
bn.running_mean
mp = nn.MaxPool3d((1, 2, 2))
mp
p = mp(h)
p.shape
p.grad_fn.name()
ap = nn.AvgPool3d(2, stride=1, padding=1, count_include_pad=False)
ap
q = ap(p)
q.shape
gap = nn.AdaptiveAvgPool3d((1, 2, 2))
r = gap(q)
r.sum().backward()
vol.grad.abs().sum()
F.max_pool3d(vol.detach(), 2, return_indices=True)[1][0, 0, 0]
F.adaptive_max_pool3d(vol.detach(), (1, 1, 2))
bn(torch.randn(2, 4, 5, 5))
F.max_pool3d(vol.detach(), (2, 2))
