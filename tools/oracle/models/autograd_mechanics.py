# PyTorch notes, "Autograd mechanics": saved tensors, no-grad and inference mode,
# in-place correctness checks.
import torch

x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self))  # True
print(x is y.grad_fn._saved_self)  # True

x = torch.randn(5, requires_grad=True)
y = x.exp()
print(y.equal(y.grad_fn._saved_result))  # True
print(y is y.grad_fn._saved_result)  # False

# Locally disabling gradient computation
x = torch.zeros(1, requires_grad=True)
with torch.no_grad():
    y = x * 2
y.requires_grad

is_train = False
with torch.set_grad_enabled(is_train):
    y = x * 2
y.requires_grad

_ = torch.set_grad_enabled(True)
y = x * 2
y.requires_grad

with torch.inference_mode():
    z = x * 2
z.requires_grad, z.is_inference()

# Setting requires_grad
_ = torch.manual_seed(0)
lin = torch.nn.Linear(3, 2)
lin.requires_grad_(False)
out = lin(torch.ones(1, 3))
out.requires_grad

# In-place operations with autograd
a = torch.randn(4, requires_grad=True)
b = a.sigmoid()
b.mul_(2)
b.sum().backward()

a = torch.randn(4, requires_grad=True)
a.add_(1)

with torch.no_grad():
    a.add_(1)
a

c = a.exp()
d = c * 2
c.add_(1)
c._version
d.sum().backward()
d.grad_fn.name()
