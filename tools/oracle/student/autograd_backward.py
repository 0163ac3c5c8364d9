# backward() as the autograd tutorials use it: gradients of + - * / ** exp sigmoid tanh relu
# sqrt log matmul sum mean views and losses, accumulation, zero_(), a hand-written training
# loop under no_grad, and PyTorch's errors (a second backward, a non-scalar output).
import torch
import torch.nn.functional as F
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3*a**3 - b**2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(a.grad, b.grad)
print(9*a**2 == a.grad)
print(-2*b == b.grad)
x = torch.ones(5)
y = torch.zeros(3)
w = torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, -0.8, 0.9], [-1.0, 1.1, 1.2], [0.3, 0.2, 0.1]], requires_grad=True)
bb = torch.tensor([0.5, -0.5, 0.25], requires_grad=True)
z = torch.matmul(x, w) + bb
loss = F.mse_loss(z, y)
loss.backward()
print(loss, w.grad, bb.grad)
W = torch.ones(2, 3, requires_grad=True)
s = W.sum()
s.backward()
print(W.grad)
m = (W * 2).mean()
m.backward()
print(W.grad)
W.grad.zero_()
print(W.grad)
u = torch.tensor([1., 2., 3.], requires_grad=True)
v = (u.exp() + u.sigmoid() * u.tanh()).sum()
v.backward()
print(u.grad)
p = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
q = (p.t() @ p).relu().sqrt().log().sum()
q.backward()
print(p.grad)
try:
    q.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:60])
logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]], requires_grad=True)
ce = F.cross_entropy(logits, torch.tensor([0, 1]))
ce.backward()
print(ce, logits.grad)
xs = torch.linspace(-1, 1, 5)
k = torch.tensor(0.5, requires_grad=True)
c = torch.tensor(0.0, requires_grad=True)
for step in range(3):
    pred = k * xs + c
    l = ((pred - 2 * xs) ** 2).mean()
    l.backward()
    with torch.no_grad():
        k -= 0.1 * k.grad
        c -= 0.1 * c.grad
    k.grad.zero_()
    c.grad.zero_()
    print(step, l.item(), k, c)
r = torch.tensor([1., 2., 3., 4.], requires_grad=True)
h = r.view(2, 2)[0] * r[1:3].unsqueeze(0).expand(2, 2).sum(0)
h.sum().backward()
print(r.grad)
e = torch.tensor([1., 2.], requires_grad=True)
try:
    (e * 2).backward()
except RuntimeError as err:
    print(err)

