import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(42)
rrelu = nn.RReLU(0.1, 0.3)
print(rrelu)
x = torch.randn(4, 5, requires_grad=True)
# 训练模式:负半轴的斜率随机采样
y = rrelu(x)
print(y)
print(y.grad_fn.name())
y.sum().backward()
print(x.grad)

# 评估模式:斜率固定为 (lower + upper) / 2
rrelu.eval()
x.grad = None
y2 = rrelu(x)
print(y2)
y2.sum().backward()
print(x.grad)

out = F.rrelu(torch.randn(3, 3), training=True)
print(out)
out_eval = F.rrelu(torch.randn(3, 3))
print(out_eval)
w = torch.randn(2, 6)
F.rrelu(w, 0.2, 0.4, training=True, inplace=True)
print(w)

inplace_act = nn.RReLU(inplace=True)
print(inplace_act)
a = torch.randn(3, 4, requires_grad=True)
b = a * 2
c = inplace_act(b)
print(c is b, c.grad_fn.name())
c.mean().backward()
print(a.grad)
try:
    F.rrelu(torch.randn(2), 0.5, 0.1, training=True)
except RuntimeError as e:
    print(e)

net = nn.Sequential(nn.Linear(8, 16), nn.RReLU(), nn.Linear(16, 2))
data = torch.randn(10, 8)
target = torch.randint(0, 2, (10,))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(net(data), target)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
