import torch
from torch import nn

net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Sequential(nn.Linear(8, 8), nn.Tanh()), nn.Linear(8, 2))
for name, module in net.named_modules():
    print(repr(name), type(module).__name__)
len(list(net.children())), len(list(net.modules()))
net.state_dict()['0.weight'].shape
list(net.state_dict().keys())
net.train(False)
net.training, net[2].training
net.requires_grad_(False)
all(not p.requires_grad for p in net.parameters())
net.requires_grad_(True)
x = torch.randn(5, 4)
net(x).sum().backward()
net[0].weight.grad.abs().sum() > 0
net.zero_grad(set_to_none=False)
net[0].weight.grad.abs().sum()
net.zero_grad()
net[0].weight.grad is None
net.to(torch.float64)
net[3].bias.dtype
vec = nn.utils.parameters_to_vector(net.parameters())
vec.shape, vec.dtype
best_state = {k: v.clone() for k, v in net.state_dict().items()}
sum(v.numel() for v in best_state.values())
with torch.no_grad():
    for p in net.parameters():
        p.mul_(0.5)
torch.equal(net[0].weight, best_state['0.weight'] * 0.5)
net.load_state_dict(best_state)
torch.equal(net[0].weight, best_state['0.weight'])
