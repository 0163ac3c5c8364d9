# Deliberate mistakes with convolutions and normalization: wrong in_channels, a kernel larger
# than the input, BatchNorm with the wrong number of features, a missing batch dimension.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
conv = nn.Conv2d(3, 16, kernel_size=3, padding=1)
gray = torch.randn(1, 1, 8, 8)
conv(gray)
rgb = torch.randn(1, 3, 8, 8)
conv(rgb).shape
conv(torch.randn(3, 8, 8)).shape  # unbatched input works
conv(torch.randn(8, 8))
conv(torch.randn(1, 8, 8, 3))  # channels last by mistake

big = nn.Conv2d(3, 4, kernel_size=7)
big(torch.randn(1, 3, 4, 4))

bn = nn.BatchNorm2d(8)
bn(conv(rgb))
bn16 = nn.BatchNorm2d(16)
y = bn16(conv(rgb))
y.shape

ln = nn.LayerNorm(8)
ln(torch.randn(2, 4))
gn = nn.GroupNorm(3, 16)

pool = nn.MaxPool2d(2)
pool(torch.randn(1, 3, 1, 1))
conv1d = nn.Conv1d(4, 2, 3)
conv1d(torch.randn(2, 3, 10))
nn.Conv2d(3, 6, 3, groups=2)
