# with_kwargs, prepend and always_call on forward hooks; hooks on a script module.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x, scale=1.0):
        return self.lin(x) * scale


m = Scale()
x = torch.randn(3, 2)
order = []
h1 = m.register_forward_hook(lambda mod, a, o: order.append("first"))
h2 = m.register_forward_hook(lambda mod, a, o: order.append("prepended"), prepend=True)
_ = m(x)
order


def kw_pre(module, args, kwargs):
    print("kwargs", kwargs)
    return args, {"scale": 0.0}


p = m.register_forward_pre_hook(kw_pre, with_kwargs=True)
out = m(x, scale=3.0)
out.abs().sum()
p.remove()


def kw_hook(module, args, kwargs, output):
    print("scale", kwargs.get("scale"))
    return output + 1


hk = m.register_forward_hook(kw_hook, with_kwargs=True)
out2 = m(x, scale=2.0)
torch.allclose(out2, m.lin(x) * 2 + 1)
hk.remove()
h1.remove()
h2.remove()


def bad_pre(module, args, kwargs):
    return 5


p = m.register_forward_pre_hook(bad_pre, with_kwargs=True)
m(x)
p.remove()

inner = []
hi = m.lin.register_forward_hook(lambda mod, a, o: inner.append(tuple(o.shape)))
_ = m(x)
inner
hi.remove()
m.register_forward_hook(lambda mod, a, o: None, always_call=True).remove()
