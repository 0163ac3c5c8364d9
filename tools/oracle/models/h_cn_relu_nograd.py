# 博客: 推理时 torch.no_grad() 下在 forward 中用 F.relu_ / inplace 省显存
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 4)

    def forward(self, x):
        x = F.relu_(self.fc1(x))
        x = F.relu(self.fc2(x), inplace=True)
        x = F.leaky_relu_(x, 0.1)
        return F.softmax(self.fc3(x), dim=-1)


_ = torch.manual_seed(0)
net = Net().eval()
x = torch.randn(2, 8)
with torch.no_grad():
    out = net(x)

out
out.requires_grad
out.sum(dim=-1)
y = net(x)
y.requires_grad, y.grad_fn.name()
with torch.inference_mode():
    z = net(x)

z.requires_grad, z.is_inference()
torch.equal(z, out)
a = torch.randn(3, requires_grad=True)
F.relu_(a)
with torch.no_grad():
    F.relu_(a)

a
b = a * 2
F.relu_(b)
b.grad_fn.name()
t = torch.tensor([-1.0, 0.5, 2.0])
torch.relu_(t)
t
t.clamp_(min=0.6)
F.hardtanh_(t, -1.0, 1.0)
F.elu_(torch.tensor([-1.0, 1.0]))
