import torch
# 张量的存储: stride, storage_offset, contiguous
a = torch.arange(12).reshape(3, 4)
print(a.stride(), a.storage_offset(), a.is_contiguous())
b = a.t()
print(b.stride(), b.is_contiguous())
print(a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr())
c = b.contiguous()
print(c.stride(), c.untyped_storage().data_ptr() == a.untyped_storage().data_ptr())
d = a[1:, 2:]
print(d, d.storage_offset(), d.stride())
d[0, 0] = 100
print(a)
e = a.view(4, 3)
e[0] = -1
print(a)
try:
    b.view(12)
except RuntimeError as err:
    print(err)
f = b.reshape(12)
print(f.untyped_storage().data_ptr() == a.untyped_storage().data_ptr())
g = a.unsqueeze(0).expand(2, 3, 4)
print(g.stride(), g.shape)
try:
    g.add_(1)
except RuntimeError as err:
    print(err)
h = a.flatten()
print(h.data_ptr() == a.data_ptr())
x = torch.zeros(2, 3, 4)
y = x.permute(2, 0, 1)
print(y.shape, y.stride(), y.is_contiguous())
print(x.element_size(), x.nelement(), x.element_size() * x.nelement())
print(len(x.untyped_storage()), x.untyped_storage().nbytes())
z = x.transpose(0, 1).contiguous()
print(z.stride())
n = x.narrow(2, 1, 2)
print(n.stride(), n.storage_offset())
s = torch.arange(10.)
print(s[::2].stride(), s[1::3].storage_offset())
print(s.as_strided((3, 3), (1, 2), 1))
