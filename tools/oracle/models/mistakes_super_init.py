# Deliberate mistakes in an nn.Module: forgetting super().__init__(), misspelling forward,
# registering a plain list of layers.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)


net = Net()


class Net2(nn.Module):
    def __init__(self):
        self.w = nn.Parameter(torch.zeros(2))


Net2()


class Net3(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def foward(self, x):  # typo
        return self.fc(x)


net3 = Net3()
net3(torch.ones(1, 3))


class Net4(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(3, 3) for _ in range(2)]   # not registered!
        self.good = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])

    def forward(self, x):
        for l in self.good:
            x = l(x)
        return x


_ = torch.manual_seed(0)
net4 = Net4()
len(list(net4.parameters()))
[n for n, _ in net4.named_parameters()]
print(net4)
net4(torch.ones(1, 3)).shape

net4.fc = "not a module"
net4.good = nn.Linear(1, 1)
net4.good = [1, 2]
net4.good.weight = torch.zeros(1, 1)
