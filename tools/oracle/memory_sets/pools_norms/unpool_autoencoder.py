import torch
import torch.nn as nn
import torch.nn.functional as F

# SegNet-style encoder/decoder: max pooling remembers where the maxima were,
# MaxUnpool2d puts them back.
_ = torch.manual_seed(1)
pool = nn.MaxPool2d(2, stride=2, return_indices=True)
unpool = nn.MaxUnpool2d(2, stride=2)
pool, unpool
img = torch.randn(2, 3, 8, 8, requires_grad=True)
enc, indices = pool(img)
enc.shape, indices.shape
dec = unpool(enc, indices)
dec.shape
dec.grad_fn.name()
(dec[0, 0] != 0).sum()
loss = (dec - img).pow(2).mean()
loss.backward()
img.grad[0, 0, :2]
# output_size when the input size was odd
odd = torch.randn(1, 1, 5, 5)
o, i = F.max_pool2d(odd, 2, return_indices=True)
F.max_unpool2d(o, i, 2, output_size=odd.size()).shape
F.max_unpool2d(o, i, 2).shape
# wrong output_size
F.max_unpool2d(o, i, 2, output_size=(8, 8))
# indices must be int64
F.max_unpool2d(o, i.int(), 2)
u1 = nn.MaxUnpool1d(2)
s = torch.tensor([[[1., 5., 2., 8., 3., 0.]]])
so, si = F.max_pool1d(s, 2, return_indices=True)
u1(so, si)
