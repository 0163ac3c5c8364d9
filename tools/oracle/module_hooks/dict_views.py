# Dict views as notebooks print them: dict_keys, dict_values, dict_items, odict_* for an
# OrderedDict (state_dict), ModuleDict's views.
import torch
import torch.nn as nn
from collections import OrderedDict

d = {"a": 1, "b": 2}
d.keys()
d.values()
d.items()
print(d.keys(), d.values())
list(d.keys()), len(d.keys()), "a" in d.keys(), 3 in d.values()
type(d.keys()).__name__
k = d.keys()
k[0]
sorted(d.items(), key=lambda kv: -kv[1])
{}.keys()
o = OrderedDict([("x", 1), ("y", 2)])
o.keys()
o.items()
_ = torch.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 2))
sd = net.state_dict()
sd.keys()
type(sd.keys()).__name__
heads = nn.ModuleDict({"cls": nn.Linear(4, 2), "reg": nn.Linear(4, 1)})
heads.keys()
heads.values()
heads.items()
for name, m in heads.items():
    print(name, m.out_features)
pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(2))})
pd.keys()
bool({}.keys()), bool(d.keys())
", ".join(d.keys())
max(d.values()), sum(d.values())
