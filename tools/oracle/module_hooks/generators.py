# Module walks return generators: next(model.parameters()), a generator used up by list(),
# parameter counts with sum(...), named_* in loops and dicts, iter() over dict views.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Linear(3, 2))
first = next(model.parameters())
first.shape, first.dtype
next(model.parameters()).requires_grad
type(model.parameters()).__name__
g = model.parameters()
len(list(g)), len(list(g))
sum(p.numel() for p in model.parameters())
sum(p.numel() for p in model.parameters() if p.requires_grad)
params = dict(model.named_parameters())
list(params.keys())
[name for name, _ in model.named_buffers()]
[type(m).__name__ for m in model.modules()]
[name for name, _ in model.named_modules()]
[type(c).__name__ for c in model.children()]
next(model.named_children())[0]
len(model.parameters())
model.parameters()[0]
it = iter(model.named_parameters())
next(it)[0], next(it)[0]
opt = torch.optim.SGD(model.parameters(), lr=0.1)
len(opt.param_groups[0]["params"])
k = iter({"a": 1, "b": 2}.keys())
next(k), next(k)
half = nn.Linear(2, 2).half()
next(half.parameters()).dtype, next(half.parameters()).element_size()
