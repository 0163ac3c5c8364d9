# "How much memory does my model need?" Count the parameters by the formula first,
# then check with numel() and element_size(): 4 bytes per float32 parameter.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
fc1 = nn.Linear(100, 200)
fc2 = nn.Linear(200, 10)
# Linear: in * out weights + out biases
print(100 * 200 + 200, fc1.weight.numel() + fc1.bias.numel())
print(200 * 10 + 10, sum(p.numel() for p in fc2.parameters()))
conv = nn.Conv2d(3, 16, 3)
# Conv2d: Cin * Cout * K * K + Cout
print(3 * 16 * 3 * 3 + 16, sum(p.numel() for p in conv.parameters()))
bn = nn.BatchNorm2d(16)
# BatchNorm: weight and bias are parameters, running stats are buffers
print(2 * 16, sum(p.numel() for p in bn.parameters()), sum(b.numel() for b in bn.buffers()))
model = nn.Sequential(fc1, nn.ReLU(), fc2)
n_params = sum(p.numel() for p in model.parameters())
n_params
param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
param_bytes
param_bytes / 1024
fc1.weight.element_size(), fc1.weight.nbytes
x = torch.randn(4, 100)
x.numel() * x.element_size()
h = fc1(x)
h.nbytes
