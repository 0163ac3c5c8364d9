import numpy as np
arr = np.arange(6).reshape(2, 3)
arr
arr.T
arr[:, 1:]
t = torch.from_numpy(arr)
t
t.dtype
t.stride()
arr[0, 0] = 100
t
t2 = torch.tensor(arr)
arr[0, 1] = -1
t2
t3 = torch.as_tensor(arr)
t3.data_ptr() == t.data_ptr()
t4 = torch.as_tensor(arr, dtype=torch.float32)
t4
tt = torch.from_numpy(arr.T)
tt.stride()
tt.is_contiguous()
z = np.zeros((2, 2), dtype=np.float32)
tz = torch.from_numpy(z)
tz.add_(3)
z
torch.from_numpy(np.ones(3)).dtype
back = t.numpy()
back is arr
back[1, 1] = 55
arr
