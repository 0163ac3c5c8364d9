import torch
import torch.nn.functional as F

_ = torch.manual_seed(5)
img = torch.randn(2, 3, 50, 40)
a = F.interpolate(img, scale_factor=2, mode='nearest')
b = F.interpolate(img, scale_factor=1.5, mode='bilinear')
c = F.interpolate(img, size=(20, 30), mode='nearest-exact')
a.shape, b.shape, c.shape
b[1, 2, 10:13, 20:23]
c[0, 0, :2]
feat = torch.randn(1, 6, 8, 8)
d = F.interpolate(feat, scale_factor=2, mode='bilinear', align_corners=True)
d[0, :, 7, 7]
cl = feat.to(memory_format=torch.channels_last)
e = F.interpolate(cl, size=(90, 70), mode='bilinear')
e.stride()
e[0, :, 45, 33]
f = F.interpolate(cl, size=(90, 70), mode='nearest')
f.stride()
t = feat.transpose(2, 3)
g = F.interpolate(t, scale_factor=2, mode='nearest')
g.stride()
torch.equal(g, F.interpolate(t.contiguous(), scale_factor=2, mode='nearest'))
vol = torch.randn(1, 2, 3, 4, 5)
h = F.interpolate(vol, scale_factor=2, mode='nearest')
h.shape
h[0, 1, 3]
seq = torch.randn(4, 3, 100)
i = F.interpolate(seq, size=250, mode='linear')
i[3, 2, 100:104]
w = torch.randn(1, 5, 6, 6).to(memory_format=torch.channels_last).requires_grad_()
y = F.interpolate(w, scale_factor=2, mode='bilinear')
y.stride()
y.backward(torch.randn(1, 5, 12, 12))
w.grad.stride()
w.grad[0, 4]
v = torch.randn(1, 2, 30, 30, dtype=torch.float64, requires_grad=True)
z = F.interpolate(v, size=(100, 45), mode='bilinear', align_corners=True)
z.sum().backward()
v.grad[0, 1, :2]
