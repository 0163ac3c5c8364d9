import torch
x = torch.tensor([[3.0, 1.0, 2.0, 5.0], [0.5, 4.0, 4.0, -1.0]], requires_grad=True)
v, i = torch.max(x, 1)
(v * torch.tensor([1.0, 2.0])).sum().backward()
x.grad
x.grad = None
v2, i2 = x.min(dim=0, keepdim=True)
v2.sum().backward()
x.grad
x.grad = None
s, j = x.sort(dim=1, descending=True)
(s * torch.arange(4.0)).sum().backward()
x.grad
x.grad = None
t = x.topk(2)
t.values.sum().backward()
x.grad
x.grad = None
md = x.median(dim=1)
md.values.sum().backward()
x.grad
x.grad = None
kv = x.kthvalue(2, dim=1)
(kv[0] * 3).sum().backward()
x.grad
x.grad = None
m = x.max()
m.backward()
x.grad
y = x * 2
vals, idx = y.max(dim=1)
vals.grad_fn._saved_indices
vals.grad_fn._saved_dim, vals.grad_fn._saved_keepdim, vals.grad_fn._saved_self_sym_sizes
del y
vals.sum().backward()
x.grad
labels = torch.tensor([3, 1])
outputs = torch.randn(2, 5)
_, predicted = torch.max(outputs, 1)
correct = (predicted == labels).sum().item()
acc = (outputs.argmax(dim=1) == labels).float().mean()
n_pos = (outputs > 0).sum(dim=1)
total = torch.tensor([1, 2, 3], dtype=torch.int32).sum()
d = outputs.sum(dtype=torch.float64)
