# channels_last: the same NCHW shape, the channels stored innermost
import torch
x = torch.arange(16, dtype=torch.float32).reshape(1, 4, 2, 2)
x.stride()
y = x.to(memory_format=torch.channels_last)
y.shape == x.shape
y.stride()
y.is_contiguous()
y.is_contiguous(memory_format=torch.channels_last)
y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
