import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)
x = torch.randn(1, 4, 5, 5, requires_grad=True)
skip = torch.randn(1, 2, 10, 10)
up = F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=False)
up.grad_fn.name()
up.grad_fn._saved_scales_h
up.grad_fn._saved_output_size
up.grad_fn._saved_align_corners
up.grad_fn._saved_self_sym_sizes
up.shape, up.stride()
cat = torch.cat([up, skip], dim=1)
conv = nn.Conv2d(6, 3, kernel_size=1)
out = conv(cat)
loss = out.relu().sum()
loss.backward()
x.grad
feat = torch.randn(2, 3, 40, 36, requires_grad=True)
big = F.interpolate(feat, scale_factor=2, mode='bilinear', align_corners=False)
big.shape
big[1, 2, 40:44, 30:34]
g = torch.randn(2, 3, 80, 72)
big.backward(g)
feat.grad[0, 1, :3, :3]
wide = torch.randn(1, 9, 6, 7, requires_grad=True)
w2 = F.interpolate(wide, size=(11, 13), mode='bilinear', align_corners=True)
w2[0, :, 5, 6]
(w2 * torch.arange(143.).reshape(11, 13)).sum().backward()
wide.grad[0, 8]
