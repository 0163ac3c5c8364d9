import torch.nn as nn
import torch.nn.functional as F
from torch import nn
x = torch.tensor([[-1.0, 2.0], [3.0, -4.0]])
y = F.relu(x)
y
x
z = F.relu(x, inplace=True)
z.data_ptr() == x.data_ptr()
x
v = torch.tensor([-2.0, 0.5, -0.1])
relu = nn.ReLU(inplace=True)
out = relu(v)
v
out is v
w = torch.tensor([-1, 1])
nn.ReLU()(w)
F.relu(x.t(), inplace=True).stride()
