# What autograd records, as a notebook prints it: grad_fn of each op, requires_grad, is_leaf
# (PyTorch's autograd tutorials; no backward()).
import torch
import torch.nn.functional as F
a = torch.tensor([[1., -2., 3.], [-4., 5., -6.]], requires_grad=True)
b = torch.tensor([[0.5, 1., 1.5], [2., 2.5, 3.]], requires_grad=True)
m = torch.arange(12, dtype=torch.float32).reshape(3, 4).requires_grad_()
v = torch.tensor([1., 2., 3.], requires_grad=True)
print(a)
print(a + b, a - 1, 1 - a)
print(a * b, 3 * a, a / 2, 2 / a)
print(a ** 2, a ** b.detach(), -a)
print(a @ m, v @ v, a @ v, v @ m)
print(a.sum(), a.sum(0), a.sum(dim=1, keepdim=True), a.mean(), a.mean(0))
print(a.t(), a.T, a.transpose(0, 1), a.permute(1, 0))
print(a.view(3, 2), a.reshape(6), a.t().reshape(6), a.flatten())
print(a.unsqueeze(0), a.unsqueeze(0).squeeze(), a.unsqueeze(0).squeeze(0))
print(a[0], a[:, 0], a[0:1], a[:, 1:], a[0, 1], a[None], a[..., 0])
print(a[torch.tensor([1, 0])], a[a > 0])
print(a.exp(), a.abs(), a.relu(), F.relu(a), a.sigmoid(), a.tanh())
print(a.softmax(dim=1), F.log_softmax(a, dim=1))
print(a.max(), a.min(), a.amax(0), a.clamp(0, 1), a.clamp(min=0))
print(torch.cat([a, b]), torch.stack([a, b]), torch.where(a > 0, a, b))
print(a.double(), a.half(), a.to(torch.float64), a.float())
print(a.clone(), a.t().contiguous(), a.contiguous())
print(a.flip(0), a.repeat(2, 1), a.masked_fill(a > 0, 0.0), a.cumsum(1))
print(a.split(1)[0], a.chunk(3, 1)[1], a.unbind()[0], a.narrow(1, 0, 2), a.select(0, 1))
print(F.mse_loss(a, b), F.cross_entropy(a, torch.tensor([0, 2])))
print(torch.mm(a, m), torch.matmul(a, m), torch.dot(v, v), torch.outer(v, v))
print(a.sub(b), a.add(b, alpha=2), a.square(), a.pow(3), a.neg())
print(a.detach(), torch.zeros_like(a), a.argmax(), a > 0)
z = a * b
print(z.requires_grad, z.is_leaf, a.is_leaf, a.grad, z.grad_fn is None, a.grad_fn is None)
with torch.no_grad():
    y = a * 2
print(y, y.requires_grad, y.is_leaf)
x = torch.ones(3)
print(x * 2, (x * v).requires_grad, (x + 1).requires_grad)
c = a * 1
c[0] = 0
print(c)
d = a + 0
d.mul_(2)
print(d)
e = a.clone()
e.add_(1)
print(e, e.is_leaf)
