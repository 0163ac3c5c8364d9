# checkpoint(use_reentrant=False) and checkpoint_sequential: the output's node is the
# function's last op's, the gradients are the plain model's; keyword arguments reach the
# function.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
import torch.utils.checkpoint

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 5), nn.ReLU(), nn.Linear(5, 5), nn.Sigmoid(), nn.Linear(5, 2))
x = torch.randn(3, 5, requires_grad=True)
plain = model(x)
plain.sum().backward()
gx = x.grad.clone()
g0 = model[0].weight.grad.clone()


def run(x, *, power=1):
    return model(x) ** power


for segments in (1, 2, 3, 5):
    model.zero_grad()
    x.grad = None
    out = checkpoint_sequential(model, segments, x, use_reentrant=False)
    out.sum().backward()
    print(segments, out.grad_fn.name(), torch.allclose(x.grad, gx), torch.allclose(model[0].weight.grad, g0))

model.zero_grad()
x.grad = None
out = torch.utils.checkpoint.checkpoint(run, x, use_reentrant=False, power=2)
out.grad_fn.name()
out.sum().backward()
x.grad
model.zero_grad()
x.grad = None
seq = checkpoint_sequential(model, 2, x, use_reentrant=True)
seq.grad_fn.name(), seq.grad_fn.next_functions[0][0].name()
seq.sum().backward()
torch.allclose(x.grad, gx), torch.allclose(model[0].weight.grad, g0)
layers = [nn.Linear(5, 5), nn.Tanh(), nn.Linear(5, 1)]
o = checkpoint_sequential(layers, 2, x, use_reentrant=False)
o.grad_fn.name()
checkpoint_sequential(model, 0, x, use_reentrant=False)
checkpoint_sequential(model, 2, x, use_reentrant=False, foo=1)
