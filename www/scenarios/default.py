# A tensor is a view of a flat storage: shape, strides and an offset.
a = torch.tensor([[4, 1, 6], [0, 8, 8], [1, 2, 1], [0, 5, 7], [0, 0, 7]])
a.shape
a.stride()
# transpose makes a new view of the SAME storage: only the strides swap.
b = a.transpose(0, 1)
b.stride(), a.stride()
a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
# A write through one view shows in every view of that storage.
a[0, 0] = 10
b[0, 0]
# A slice is a view with an offset into the storage.
c = a[1:3, 1:3]
c.storage_offset(), c.stride()
c[0, 0] = 77
# In-place ops write the storage; every alias sees it.
c.zero_()
a
# clone and contiguous copy into NEW storage.
d = a.clone()
d[0, 0] = 55
e = b.contiguous()
e.is_contiguous(), b.is_contiguous()
# view needs compatible strides; reshape copies when it must.
b.view(15)
f = b.reshape(15)
f.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
# Memory formats: the same NCHW tensor laid out as NHWC.
x = torch.arange(2 * 3 * 2 * 2, dtype=torch.float32).reshape(2, 3, 2, 2)
y = x.to(memory_format=torch.channels_last)
x.stride(), y.stride()
y.is_contiguous(), y.is_contiguous(memory_format=torch.channels_last)
# dtypes: the same values, different bytes per element.
h = x.half()
x.element_size(), h.element_size()
x.nbytes, h.nbytes
