import torch
import torch.nn as nn
_ = torch.manual_seed(0)
lin = nn.Linear(3, 2)
lin.weight
lin.bias
lin
print(lin)
type(lin)
type(lin).__name__
isinstance(lin, nn.Module)
isinstance(lin.weight, nn.Parameter)
isinstance(lin.weight, torch.Tensor)
lin.in_features, lin.out_features
lin.weight.shape
lin.weight.requires_grad
lin.weight.is_leaf
[n for n, _ in lin.named_parameters()]
len(list(lin.parameters()))
lin.training
lin.eval()
lin.training
lin.train()
x = torch.ones(4, 3)
lin2 = nn.Linear(3, 2, bias=False)
lin2
lin2.bias
sd = lin.state_dict()
list(sd.keys())
sd['weight'].requires_grad
nn.Linear(3)
nn.Linear(3, 2, bias=False).bias is None
