import torch
import torch.nn as nn
import torch.nn.functional as F

# 各种填充方式对比 (padding modes)
_ = torch.manual_seed(0)
x = torch.arange(1., 7.).reshape(1, 2, 3)
print(F.pad(x, (2, 1)))
print(F.pad(x, (2, 1), mode='reflect'))
print(F.pad(x, (2, 1), mode='replicate'))
print(F.pad(x, (2, 1), mode='circular'))
print(F.pad(x, (1, 1, 1, 0), value=-1.0))
print(F.pad(x, (-1, 1)))

zp = nn.ZeroPad2d((1, 2, 0, 1))
cp = nn.ConstantPad1d(2, 3.5)
rp = nn.ReflectionPad2d(1)
rep = nn.ReplicationPad1d((1, 2))
cir = nn.CircularPad2d(1)
print(zp, cp, rp, rep, cir)
print(nn.ZeroPad3d(1), nn.ConstantPad2d((1, 1, 2, 0), -1), nn.ReflectionPad3d((1, 0, 0, 1, 1, 1)))

img = torch.randn(2, 3, 4, 5, requires_grad=True)
a = zp(img)
b = rp(img)
c = cir(img)
d = nn.ReplicationPad2d(2)(img)
print(a.shape, b.shape, c.shape, d.shape)
print(a.grad_fn.name(), a.grad_fn._saved_pad)
print(b.grad_fn.name(), b.grad_fn._saved_padding)
print(d.grad_fn.name())
loss = a.sum() + (b * b).mean() + c.pow(2).sum() + d.abs().sum()
loss.backward()
print(img.grad)

seq = torch.randn(4, 8, 10, requires_grad=True)
r1 = nn.ReflectionPad1d(3)(seq)
r1.sum().backward()
print(seq.grad[0, 0])
vol = torch.randn(1, 2, 3, 3, 3, requires_grad=True)
p3 = nn.ReplicationPad3d((1, 0, 0, 1, 2, 0))(vol)
print(p3.shape, p3.grad_fn.name())
p3.backward(torch.ones_like(p3))
print(vol.grad.sum())
q3 = nn.ConstantPad3d(1, 0.5)(vol)
print(q3.shape)

# 常见错误
try:
    nn.ReflectionPad1d(5)(torch.randn(1, 2, 4))
except RuntimeError as e:
    print(e)
try:
    nn.CircularPad2d(1)(torch.randn(3, 4))
except ValueError as e:
    print(e)
try:
    F.pad(x, (1, 2, 3))
except RuntimeError as e:
    print(e)
try:
    F.pad(x, (1, 1), mode='reflect', value=2.0)
except RuntimeError as e:
    print(e)
