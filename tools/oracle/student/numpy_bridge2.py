import numpy as np
import torch
a = np.arange(12, dtype=np.float32).reshape(3, 4)
a.strides
t = torch.from_numpy(a)
t.stride()
a[0, 0] = 100
t[0, 0]
b = a.T
b.strides, b.flags['C_CONTIGUOUS']
u = torch.from_numpy(b)
u.stride(), u.is_contiguous()
n = t.numpy()
n is a, np.shares_memory(n, a)
c = np.ascontiguousarray(b)
c.strides
torch.tensor(a).stride()
torch.as_tensor(a).data_ptr() == t.data_ptr()
a.dtype, t.dtype
np.zeros((2, 2), dtype=np.int64).strides
d = a[:, 1:3]
d.strides, torch.from_numpy(d).stride(), torch.from_numpy(d).storage_offset()
e = np.expand_dims(a, 0)
e.shape, e.strides
np.broadcast_to(a[0], (3, 4)).strides
torch.from_numpy(np.arange(5))[::2]
