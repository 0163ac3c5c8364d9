# Slicing with offsets: a view that starts in the middle of its storage
import torch
x = torch.arange(12).reshape(3, 4)
y = x[1:, 1:3]
y.storage_offset()
y.stride()
y.is_contiguous()
y.fill_(0)
x
z = y.contiguous()
z.storage_offset(), z.stride()
