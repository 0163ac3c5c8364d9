# PyTorch's "Automatic Differentiation with torch.autograd" tutorial, seeded: a one-layer
# network, binary_cross_entropy_with_logits, backward(), .grad, no_grad and detach, plus the
# plain binary_cross_entropy of probabilities.
import torch
_ = torch.manual_seed(0)
x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(loss, loss.item())
print(type(z.grad_fn).__name__, type(loss.grad_fn).__name__)
loss.backward()
print(w.grad)
print(b.grad)
z = torch.matmul(x, w)+b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)
z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)
p = torch.sigmoid(torch.randn(4, requires_grad=True))
t = torch.tensor([0., 1., 1., 0.])
bce = torch.nn.functional.binary_cross_entropy(p, t)
print(bce, bce.item(), torch.nn.functional.binary_cross_entropy(p, t, reduction="none"))
logits = torch.randn(6, requires_grad=True)
l2 = torch.nn.functional.binary_cross_entropy_with_logits(logits, torch.tensor([1., 0., 1., 1., 0., 0.]), reduction="sum")
l2.backward()
print(l2, logits.grad)
