import torch
import torch.nn as nn
_ = torch.manual_seed(1)
class Net(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.fc1 = nn.Linear(4, hidden)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(hidden, 2)
        self.register_buffer("steps", torch.zeros(1))
    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))
net = Net()
print(net)
[name for name, p in net.named_parameters()]
[name for name, b in net.named_buffers()]
[name for name, m in net.named_modules()]
[name for name, m in net.named_children()]
sum(p.numel() for p in net.parameters())
sum(p.numel() for p in net.parameters() if p.requires_grad)
list(net.state_dict().keys())
net.fc1.weight.shape
net.fc2.bias
net.steps
net.requires_grad_(False)
net.fc1.weight.requires_grad
net.requires_grad_(True)
net.double()
net.fc1.weight.dtype
net.steps.dtype
net.float()
net.fc1.weight.dtype
net.half().fc2.bias.dtype
net.float()
net.foo
del net.act
net
net.act = nn.Tanh()
net
