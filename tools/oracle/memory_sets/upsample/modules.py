import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(2)
decoder = nn.Sequential(
    nn.Upsample(scale_factor=2, mode='nearest'),
    nn.Conv2d(4, 8, kernel_size=1),
    nn.PixelShuffle(2),
)
decoder
print(nn.Upsample(size=(3, 4), mode='bilinear'), nn.Upsample(scale_factor=(2, 3)))
print(nn.UpsamplingNearest2d(scale_factor=2), nn.UpsamplingBilinear2d(size=5))
print(nn.PixelUnshuffle(3))
up = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
up.scale_factor, up.mode, up.align_corners, up.name
x = torch.randn(1, 4, 3, 3, requires_grad=True)
y = decoder(x)
y.shape
y.grad_fn.name()
y.grad_fn._saved_upscale_factor
y.sum().backward()
x.grad
p = torch.arange(32.).reshape(1, 8, 2, 2).requires_grad_()
ps = F.pixel_shuffle(p, 2)
ps
ps.stride()
pu = F.pixel_unshuffle(ps, 2)
pu.grad_fn.name()
torch.equal(pu, p)
(pu * torch.arange(32.).reshape(1, 8, 2, 2)).sum().backward()
p.grad
torch.pixel_shuffle(torch.arange(18.).reshape(2, 9, 1, 1), 3)
cl = torch.randn(1, 4, 2, 3).to(memory_format=torch.channels_last)
F.pixel_shuffle(cl, 2).stride()
F.pixel_unshuffle(torch.randn(2, 1, 4, 6), 2).shape
bil = nn.UpsamplingBilinear2d(scale_factor=2)
bil(torch.arange(4.).reshape(1, 1, 2, 2))
