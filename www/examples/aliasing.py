# Aliasing through transpose: two views, one storage
import torch
a = torch.arange(6).reshape(2, 3)
a.stride()
b = a.t()
b.stride()
b.is_contiguous()
a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
b[0, 1] = 100
a
