# What shows that checkpointing recomputes: with dropout inside, the gradients match the
# plain ones only when the generator's state is preserved; without it the recomputation
# draws new masks from the global generator during backward (so later draws move too).
# Reading a saved tensor of a non-reentrant graph recomputes it.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

_ = torch.manual_seed(0)
lin = nn.Linear(4, 4)


def f(x):
    h = F.dropout(lin(x), p=0.5, training=True)
    return torch.sigmoid(h) * 2


x = torch.randn(3, 4, requires_grad=True)
_ = torch.manual_seed(7)
plain = f(x)
plain.sum().backward()
g_plain = x.grad.clone()
for reentrant in (True, False):
    for preserve in (True, False):
        x.grad = None
        _ = torch.manual_seed(7)
        out = checkpoint(f, x, use_reentrant=reentrant, preserve_rng_state=preserve)
        same_out = torch.equal(out, plain)
        out.sum().backward()
        print(reentrant, preserve, same_out, torch.allclose(x.grad, g_plain), torch.rand(1).item())

_ = torch.manual_seed(3)
y = checkpoint(f, x, use_reentrant=False)
s = y.grad_fn.next_functions[0][0]
s.name()
r = s._saved_result
r.shape, bool((r > 0).all()), bool((r < 1).all())
after = torch.rand(2)
z = checkpoint(lambda t: t.exp() * t, x, use_reentrant=False)
z.grad_fn._saved_self is x
torch.equal(z.grad_fn._saved_self, x)
z.sum().backward(retain_graph=True)
g1 = x.grad.clone()
z.sum().backward()
torch.allclose(x.grad, 2 * g1)
