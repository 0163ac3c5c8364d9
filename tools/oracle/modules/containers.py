import torch
import torch.nn as nn
from collections import OrderedDict
_ = torch.manual_seed(2)
seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1), nn.Sigmoid())
seq
seq[0]
seq[-1]
seq[1:3]
len(seq)
[type(m).__name__ for m in seq]
seq2 = nn.Sequential(OrderedDict([("conv", nn.Conv2d(1, 4, 3)), ("relu", nn.ReLU()), ("pool", nn.MaxPool2d(2))]))
seq2
seq2.conv
seq2.append(nn.Flatten())
len(seq2)
ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
ml
ml.append(nn.ReLU())
ml
len(ml)
ml[1]
md = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.ReLU()})
md
list(md.keys())
md["a"]
"b" in md
pl = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), nn.Parameter(torch.zeros(3))])
pl
len(pl)
pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(2))})
pd
seq[10]
nn.Sequential(1)
