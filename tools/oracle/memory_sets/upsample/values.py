import torch
import torch.nn.functional as F

x = torch.arange(16.).reshape(1, 1, 4, 4)
F.interpolate(x, scale_factor=2, mode='nearest')
F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=False)
F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=True)
F.interpolate(x, size=(6, 6), mode='bilinear', align_corners=False)
F.interpolate(x, size=(6, 6), mode='bilinear', align_corners=True)
F.interpolate(x, size=(6, 6), mode='nearest')
F.interpolate(x, size=(3, 5), mode='nearest-exact')
F.interpolate(x, scale_factor=1.5, mode='bilinear')
F.interpolate(x, scale_factor=1.7, mode='bilinear', recompute_scale_factor=True)
F.interpolate(x, scale_factor=(0.5, 1.5), mode='nearest')
F.interpolate(x, scale_factor=0.75, mode='area')
y = F.interpolate(x, scale_factor=1.3, mode='nearest')
y
y.stride()
_ = torch.manual_seed(1)
s = torch.randn(2, 3, 5)
F.interpolate(s, scale_factor=2.5, mode='linear')
F.interpolate(s, size=7, mode='linear', align_corners=True)
F.interpolate(s, scale_factor=2, mode='nearest')
F.interpolate(s, size=8, mode='nearest-exact')
cl = torch.randn(1, 5, 4, 3).to(memory_format=torch.channels_last)
c2 = F.interpolate(cl, scale_factor=2, mode='bilinear')
c2.stride()
c2[0, :, 3, 2]
c3 = F.interpolate(cl, size=(5, 7), mode='nearest')
c3.stride()
c3[0, 4]
d = torch.randn(1, 2, 3, 3, dtype=torch.float64)
F.interpolate(d, scale_factor=1.5, mode='bilinear')
u = F.upsample(x, scale_factor=2)
u.shape
F.upsample_nearest(x, size=5)[0, 0, 0]
F.upsample_bilinear(x, scale_factor=0.5)
v = torch.arange(24.).reshape(1, 2, 3, 4).requires_grad_()
n = F.interpolate(v, size=(5, 9), mode='nearest')
n.grad_fn.name()
n.grad_fn._saved_scales_h
n.grad_fn._saved_output_size
n.backward(torch.arange(90.).reshape(1, 2, 5, 9))
v.grad
v.grad = None
e = F.interpolate(v, scale_factor=1.7, mode='nearest-exact')
e.grad_fn.name()
e.grad_fn._saved_scales_w
e.sum().backward()
v.grad
s.requires_grad_()
l1 = F.interpolate(s, scale_factor=2.5, mode='linear')
l1.grad_fn.name()
l1.grad_fn._saved_scales
l1.grad_fn._saved_align_corners
(l1 * l1).sum().backward()
s.grad
n1 = F.interpolate(s, size=4, mode='nearest')
n1.grad_fn.name()
n1.grad_fn._saved_self_sym_sizes
