import torch
import torch.nn as nn
import torch.nn.functional as F

# 用 unfold 实现卷积 (im2col + matmul)
_ = torch.manual_seed(0)
inp = torch.randn(2, 3, 6, 6, requires_grad=True)
weight = torch.randn(4, 3, 3, 3, requires_grad=True)
cols = F.unfold(inp, kernel_size=3, padding=1)
print(cols.shape, cols.grad_fn.name())
print(cols.grad_fn._saved_kernel_size, cols.grad_fn._saved_padding, cols.grad_fn._saved_self_sym_argsize_minus_1)
out_unf = weight.view(4, -1) @ cols
out = out_unf.view(2, 4, 6, 6)
ref = F.conv2d(inp, weight, padding=1)
print((out - ref).abs().max() < 1e-5)
out.sum().backward()
print(inp.grad[0, 0])
print(weight.grad.shape)

# 切成不重叠的 patch (ViT 风格)
images = torch.randn(4, 3, 8, 8)
unfold = nn.Unfold(kernel_size=4, stride=4)
print(unfold)
patches = unfold(images)
print(patches.shape)
tokens = patches.transpose(1, 2)
print(tokens.shape, tokens.is_contiguous())
fold = nn.Fold(output_size=(8, 8), kernel_size=4, stride=4)
print(fold)
back = fold(patches)
print(torch.equal(back, images))

# 重叠 patch:fold 会把重叠部分相加
m = nn.Unfold(kernel_size=(2, 3), padding=1, stride=2)
fm = nn.Fold(output_size=(5, 6), kernel_size=(2, 3), padding=1, stride=2)
print(m, fm)
x = torch.randn(1, 2, 5, 6, requires_grad=True)
y = fm(m(x))
print(y.grad_fn.name(), y.grad_fn._saved_stride)
divisor = fm(m(torch.ones_like(x)))
print(divisor[0, 0])
rec = y / divisor
rec.sum().backward()
print(x.grad)

single = F.unfold(torch.randn(2, 7, 7), 3, dilation=2, stride=2)
print(single.shape)
small = F.unfold(torch.randn(1, 2, 6, 6), 2, stride=3)
print(small.shape, small.untyped_storage().nbytes())
cols2 = torch.randn(12, 12, requires_grad=True)
img2 = F.fold(cols2, (4, 5), 2)
print(img2)
img2.pow(2).sum().backward()
print(cols2.grad)

try:
    F.fold(cols2, (4, 5), 3)
except RuntimeError as e:
    print(e)
try:
    F.fold(torch.randn(10, 12), (4, 5), 2)
except RuntimeError as e:
    print(e)
try:
    F.unfold(torch.randn(3, 4), 2)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.fold(torch.randn(2, 3, 4, 5), (4, 5), 2)
except RuntimeError as e:
    print(e)
