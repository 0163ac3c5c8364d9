import torch
import torch.nn as nn
import torch.nn.functional as F

# 3D CNN for short video clips (C3D-style): Conv3d -> BatchNorm3d -> ReLU -> MaxPool3d
_ = torch.manual_seed(5)
net = nn.Sequential(
    nn.Conv3d(1, 16, kernel_size=3, padding=1),
    nn.BatchNorm3d(16),
    nn.ReLU(),
    nn.MaxPool3d(2),
    nn.Conv3d(16, 16, kernel_size=(1, 3, 3), padding=(0, 1, 1), bias=False),
    nn.AdaptiveAvgPool3d(1),
    nn.Flatten(),
    nn.Linear(16, 4),
)
net
clips = torch.randn(2, 1, 4, 8, 8)
logits = net(clips)
logits.shape
conv = net[0]
conv.weight.shape, conv.bias.shape
labels = torch.tensor([1, 3])
loss = F.cross_entropy(logits, labels)
loss.backward()
conv.weight.grad.shape
(net[4].weight.grad.abs().sum() > 0).item()
h = conv(clips)
h.grad_fn.name()
h.grad_fn._saved_weight.shape, h.grad_fn._saved_stride, h.grad_fn._saved_padding
F.conv3d(clips, conv.weight, stride=2).shape
# 错误：通道数不对、padding 维数不对
conv(torch.randn(2, 3, 4, 8, 8))
F.conv3d(clips, conv.weight, padding=(1, 1))
# 转置卷积：把体数据放大一倍（3D U-Net 的解码器）
up = nn.ConvTranspose3d(16, 16, kernel_size=2, stride=2)
up
feat = torch.randn(1, 16, 2, 4, 4, requires_grad=True)
vol = up(feat)
vol.shape
vol.grad_fn.name()
vol.mean().backward()
feat.grad.shape
up(feat, output_size=(5, 9, 9)).shape
up(feat, output_size=(6, 8, 8))
# 一维转置卷积做音频上采样
up1 = nn.ConvTranspose1d(16, 16, kernel_size=4, stride=2, padding=1)
up1
wave = torch.randn(3, 16, 25)
up1(wave).shape
nn.ConvTranspose1d(16, 8, 3, padding_mode='reflect')
