import torch
import numpy as np
data = [[1, 2],[3, 4]]
x_data = torch.tensor(data)
x_data
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
x_np
x_ones = torch.ones_like(x_data)
x_ones
x_rand = torch.rand_like(x_data, dtype=torch.float)
x_rand
x_rand_int = torch.rand_like(x_data)
tensor = torch.rand(3,4)
tensor.shape, tensor.dtype, tensor.device
tensor = torch.ones(4, 4)
tensor[:,1] = 0
t1 = torch.cat([tensor, tensor, tensor], dim=1)
t1.shape
t2 = torch.stack([tensor, tensor])
t2.shape
y1 = tensor @ tensor.T
z1 = tensor * tensor
agg = tensor.sum()
agg
agg.item()
tensor.add_(5)
tensor.t_()
n = tensor.numpy()
n[0, 0] = 100
tensor
