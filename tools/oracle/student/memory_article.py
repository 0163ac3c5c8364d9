import torch
t = torch.zeros(4, 4)
s = t.storage()
len(s)
t.untyped_storage().nbytes()
u = t[1]
u.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
u.storage_offset()
u.fill_(1)
t
v = t.view(2, 8)
v[0, 5] = 7
t[1, 1]
t.is_contiguous(), t.t().is_contiguous(), t[:, 1].is_contiguous(), t[1].is_contiguous()
t[:, :2].stride(), t[:, :2].is_contiguous()
t.unsqueeze(1).stride()
t.expand(2, 4, 4).stride()
t.expand(2, 4, 4).is_contiguous()
t.expand(2, 4, 4).contiguous().untyped_storage().nbytes()
k = t.T.contiguous()
k.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
t.flatten().untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
t.t().flatten().untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
torch.empty(0).untyped_storage().nbytes()
torch.zeros(3, dtype=torch.float16).untyped_storage().nbytes()
torch.zeros(3, dtype=torch.bool).element_size()
a = torch.arange(10)
b = a[2:7:2]
b, b.stride(), b.storage_offset(), b.shape
b.contiguous().stride()
c = a.view(2, 5)[:, 1:4]
c.stride(), c.storage_offset(), c.is_contiguous()
c.reshape(-1).untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
a.view(5, 2).t().reshape(10).is_contiguous()
a.as_strided((3, 3), (1, 1))
a.as_strided((3, 3), (1, 1)).is_contiguous()
a[::-1] if False else a.flip(0).stride()
