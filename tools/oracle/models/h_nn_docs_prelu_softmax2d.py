# torch.nn docs: Softmax2d and PReLU examples, PReLU in a Sequential
import torch
import torch.nn as nn
_ = torch.manual_seed(0)
sm = nn.Softmax2d()
sm
x = torch.randn(1, 3, 2, 2)
y = sm(x)
y.sum(1)
sm(torch.randn(2, 2))
p = nn.PReLU()
p
p(torch.tensor([-1.0, 2.0]))
list(p.named_parameters())
p3 = nn.PReLU(3, init=0.1)
p3
z = p3(torch.randn(2, 3, 2))
out = p(torch.randn(4, requires_grad=True)).sum()
out.backward()
p.weight.grad
net = nn.Sequential(nn.Linear(4, 4), nn.PReLU(), nn.Linear(4, 2))
net
sum(q.numel() for q in net.parameters())
