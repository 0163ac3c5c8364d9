# d2l "Layers and Modules": a MySequential on _modules, and _parameters / _buffers as dicts.
import torch
from torch import nn
from torch.nn import functional as F

_ = torch.manual_seed(0)


class MySequential(nn.Module):
    def __init__(self, *args):
        super().__init__()
        for idx, module in enumerate(args):
            self._modules[str(idx)] = module

    def forward(self, X):
        for block in self._modules.values():
            X = block(X)
        return X


net = MySequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 10))
X = torch.rand(2, 20)
net(X).shape
print(net)
len(list(net.parameters()))
net._modules.keys()
type(net._modules)
list(net._modules)
'1' in net._modules
lin = nn.Linear(2, 3)
lin._parameters.keys()
type(lin._parameters)
lin._buffers
lin._modules
bn = nn.BatchNorm1d(3)
list(bn._buffers.keys())
list(bn._parameters)
[n for n, _ in bn.named_buffers()]
del net._modules['1']
print(net)
net._modules['extra'] = nn.Tanh()
[n for n, _ in net.named_children()]
