# PyTorch docs, "Module hooks": forward hooks see (module, args, output) and may replace the
# output; forward pre-hooks see (module, args) and may replace the arguments.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
lin = nn.Linear(3, 2)
x = torch.randn(4, 3)
seen = []


def record(module, args, output):
    seen.append((type(module).__name__, len(args), tuple(args[0].shape), tuple(output.shape)))


h = lin.register_forward_hook(record)
y = lin(x)
seen
type(h).__name__


def double(module, args, output):
    return output * 2


h2 = lin.register_forward_hook(double)
y2 = lin(x)
torch.allclose(y2, y * 2)
len(lin._forward_hooks)
h2.remove()
len(lin._forward_hooks)
y3 = lin(x)
torch.equal(y3, y)
h.remove()
h.remove()
len(seen)


def add_one(module, args):
    return args[0] + 1


p = lin.register_forward_pre_hook(add_one)
y4 = lin(x)
torch.allclose(y4, lin.weight @ (x + 1).T + lin.bias[:, None].T.T if False else (x + 1) @ lin.weight.T + lin.bias)
p.remove()


def as_tuple(module, args):
    print("pre", [tuple(a.shape) for a in args])
    return (args[0] * 0,)


p = lin.register_forward_pre_hook(as_tuple)
lin(x)
p.remove()
