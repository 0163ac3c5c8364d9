# A custom forward with F.relu_ and nn.ReLU(inplace=True): in-place activations save memory;
# the in-place op on a leaf that requires grad fails.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim)
        self.fc2 = nn.Linear(dim, dim)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        h = self.fc1(x)
        F.relu_(h)          # in-place on an intermediate: fine
        h = self.fc2(h)
        return self.act(h) + x


_ = torch.manual_seed(0)
block = Block(4)
x = torch.randn(3, 4, requires_grad=True)
y = block(x)
y.grad_fn.name()
y.grad_fn.next_functions[0][0].name()
y.sum().backward()
g = x.grad
gw = block.fc1.weight.grad

# 直接对叶子节点 in-place
w = torch.randn(3, requires_grad=True)
F.relu_(w)
F.relu(w, inplace=True)
w2 = w.clone()
r = F.relu_(w2)
r is w2, r.grad_fn.name()

with torch.no_grad():
    F.relu_(w)
w
