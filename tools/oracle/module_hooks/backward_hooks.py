# Full backward hooks (grad_input, grad_output) and backward pre-hooks, as the PyTorch
# docs describe them, on built-in layers and a script module.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
x = torch.randn(5, 3, requires_grad=True)
log = []


def bhook(module, grad_input, grad_output):
    log.append((type(module).__name__,
                [None if g is None else tuple(g.shape) for g in grad_input],
                [None if g is None else tuple(g.shape) for g in grad_output]))


hs = [m.register_full_backward_hook(bhook) for m in net]
out = net(x)
out.grad_fn.name()
out.sum().backward()
log
x.grad
for h in hs:
    h.remove()

# a backward pre-hook scaling grad_output
net.zero_grad()
x.grad = None


def pre(module, grad_output):
    print("pre", type(module).__name__, grad_output[0].shape)
    return (grad_output[0] * 10,)


ph = net[2].register_full_backward_pre_hook(pre)
net(x).sum().backward()
x.grad
net[2].bias.grad
ph.remove()

# a backward hook replacing grad_input
x.grad = None


def zero_input_grad(module, grad_input, grad_output):
    return (torch.zeros_like(grad_input[0]),)


zh = net[0].register_full_backward_hook(zero_input_grad)
net(x).sum().backward()
x.grad
zh.remove()

# the input does not require grad: grad_input is (None,)
inp = torch.randn(2, 3)
calls = []
h = net[0].register_full_backward_hook(lambda m, gi, go: calls.append((gi, go[0].shape)))
net(inp).sum().backward()
calls
h.remove()
