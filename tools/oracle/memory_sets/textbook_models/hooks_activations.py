import torch
import torch.nn as nn
# 用 forward hook 记录每层输出的形状和大小
_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 2))
sizes = []
def hook(module, inp, out):
    sizes.append((module.__class__.__name__, tuple(out.shape), out.numel() * out.element_size()))
handles = [m.register_forward_hook(hook) for m in model]
y = model(torch.randn(16, 20))
for s in sizes:
    print(s)
print(sum(s[2] for s in sizes))
for h in handles:
    h.remove()
sizes.clear()
model(torch.randn(2, 20))
print(len(sizes))
grads = {}
def save_grad(name):
    def hook(grad):
        grads[name] = grad
    return hook
x = torch.randn(4, 20, requires_grad=True)
h1 = model[0](x)
_ = h1.register_hook(save_grad('h1'))
out = model[1:](h1)
out.sum().backward()
print(grads['h1'].shape, grads['h1'].abs().sum() > 0)
def bhook(module, grad_input, grad_output):
    print(module, [g.shape for g in grad_output])
_ = model[4].register_full_backward_hook(bhook)
model(torch.randn(3, 20)).sum().backward()
