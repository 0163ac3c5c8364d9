# Looking at the autograd graph: grad_fn.name(), next_functions, leaves and AccumulateGrad,
# retain_grad, is_leaf.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
c = a * b
d = c.sum()
e = d * 2 + torch.exp(a).mean()

a.grad_fn is None, a.is_leaf, c.is_leaf
c.grad_fn.name()
e.grad_fn.name()
[(f.name() if f is not None else None, i) for f, i in e.grad_fn.next_functions]
[(f.name() if f is not None else None, i) for f, i in c.grad_fn.next_functions]
acc = c.grad_fn.next_functions[0][0]
acc.variable is a


def walk(fn, depth=0):
    if fn is None:
        return
    print("  " * depth + fn.name())
    for nxt, _ in fn.next_functions:
        walk(nxt, depth + 1)


walk(e.grad_fn)

c.retain_grad()
e.backward()
a.grad
b.grad
c.grad
d.grad
d.requires_grad, d.is_leaf

# views and in-place ops in the graph
x = torch.randn(2, 3, requires_grad=True)
y = x.t()
y.grad_fn.name()
z = x.view(6)
z.grad_fn.name(), z._base is x
w = x * 1
w[0] = 0
w.grad_fn.name()
v = x.detach()
v.requires_grad, v.grad_fn is None
