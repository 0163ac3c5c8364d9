# Full backward hooks on a module with two arguments (one without grad), a non-tensor
# argument, and a module returning a tuple.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)


class Mix(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, a, b, scale):
        return a * self.w + b * scale


class Split(nn.Module):
    def forward(self, x):
        return x * 2, x.sum()


mix = Mix()
a = torch.randn(2, 3, requires_grad=True)
b = torch.randn(2, 3)


def show(module, grad_input, grad_output):
    print(type(module).__name__, len(grad_input),
          [None if g is None else tuple(g.shape) for g in grad_input],
          [None if g is None else tuple(g.shape) for g in grad_output])


h = mix.register_full_backward_hook(show)
out = mix(a, b, 3.0)
out.grad_fn.name()
out.sum().backward()
a.grad
h.remove()

split = Split()
hs = split.register_full_backward_hook(show)
x = torch.randn(4, requires_grad=True)
p, q = split(x)
(p.sum() + q).backward()
x.grad
hs.remove()

pre = []
hp = split.register_full_backward_pre_hook(lambda m, go: pre.append(len(go)))
p, q = split(x)
(p.sum() * q).backward()
pre
hp.remove()
