# What counts as "still reachable"? Names, containers, objects and modules do;
# a class attribute, a function's default argument and a dict key are not walked.
import torch
import torch.nn as nn


class Config:
    table = torch.zeros(100)


cfg = Config()


class Holder:
    def __init__(self):
        self.w = torch.zeros(50)


hold = Holder()


def scale(t, factor=torch.ones(25)):
    return t * factor[0]


cache = {"a": torch.zeros(10)}
keyed = {torch.zeros(10): "key"}


class WithExtras(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.plain = torch.zeros(30)
        self.extras = [torch.zeros(40)]
        self.register_buffer("buf", torch.zeros(5))


m = WithExtras()
x = torch.randn(3, 4)
y = m.lin(x).relu()
del x
s = y.sum()
del y
big = torch.zeros(1000)
v = big[:10]
del big
meta = torch.zeros(1000, device="meta")
r = scale(v)
del s
