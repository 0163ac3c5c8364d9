# Views share storage, copies do not: what each operation costs in bytes.
import torch

a = torch.arange(24, dtype=torch.float32).reshape(4, 6)
v1 = a.view(6, 4)
v2 = a.t()
v3 = a[1:3]
v4 = a.unsqueeze(0).expand(3, 4, 6)
c1 = v2.contiguous()
c2 = v2.reshape(24)
c3 = a.reshape(24)
c4 = a.clone()
c5 = v4.contiguous()
c6 = torch.cat([a, a])
c7 = torch.stack([a, a], dim=0)
c8 = a[[0, 2]]
c9 = a[a > 10]
c10 = a.float()
c11 = a.double()
v1.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
c4.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
s = a.sum(0)
m = a.mean()
mx = a.max(dim=1)
