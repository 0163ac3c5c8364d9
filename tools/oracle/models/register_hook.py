# Hooks: Tensor.register_hook on gradients, forward hooks collecting activations, a full
# backward hook, and removing a hook with its handle.
import torch
import torch.nn as nn

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x.register_hook(lambda grad: grad * 2)  # double the gradient
y = (x ** 2).sum()
y.backward()
x.grad

h.remove()
x.grad = None
(x ** 2).sum().backward()
x.grad

grads = {}


def save_grad(name):
    def hook(grad):
        grads[name] = grad
    return hook


a = torch.randn(3, requires_grad=True)
b = a * 3
hb = b.register_hook(save_grad("b"))
b.sum().backward()
gb = grads["b"]

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2))
activation = {}


def get_activation(name):
    def hook(model, input, output):
        activation[name] = output.detach()
    return hook


handle = model[0].register_forward_hook(get_activation("fc1"))
inp = torch.randn(2, 4)
out = model(inp)
act = activation["fc1"]
act.shape, act.requires_grad


def print_grad_shapes(module, grad_input, grad_output):
    print(type(module).__name__, [g.shape if g is not None else None for g in grad_input],
          [g.shape for g in grad_output])


bh = model[2].register_full_backward_hook(print_grad_shapes)
out.sum().backward()  # out was computed before the hook was registered: nothing printed
out = model(inp)
out.sum().backward()

handle.remove()
bh.remove()
activation.clear()
out = model(inp)
len(activation)


def pre_hook(module, args):
    print("pre-forward", args[0].shape)
    return (args[0] * 0,)


ph = model.register_forward_pre_hook(pre_hook)
zero_out = model(inp)
ph.remove()
