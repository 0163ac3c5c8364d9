import torch
x = torch.arange(12).reshape(3, 4)
y = x[1:, 1:]
y.data_ptr() - x.data_ptr()
(y.data_ptr() - x.data_ptr()) // x.element_size()
y.storage_offset()
x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
z = x.t()
z.data_ptr() == x.data_ptr()
z.is_contiguous(), z.stride()
w = z.contiguous()
w.data_ptr() == x.data_ptr(), w.stride()
def same_storage(a, b):
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
same_storage(x, z), same_storage(x, w)
x.view(4, 3).stride()
try:
    z.view(12)
except RuntimeError as e:
    print("error:", e)
z.reshape(12).data_ptr() == x.data_ptr()
x.flatten().data_ptr() == x.data_ptr()
len(x.untyped_storage()), x.untyped_storage().nbytes()
x.storage().size()
x[::2].stride(), x[:, ::2].stride(), x[::2, ::3].storage_offset()
x.unfold(1, 2, 2).shape, x.unfold(1, 2, 2).stride()
torch.as_strided(x, (2, 2), (1, 4), 1)
x.expand_as if False else x[0].expand(3, 4).stride()
x.new_empty((2, 2)).stride()
