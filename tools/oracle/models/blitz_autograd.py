# Deep Learning with PyTorch: A 60 Minute Blitz -- A Gentle Introduction to torch.autograd
# (the resnet18 of the tutorial replaced by a small Sequential; no torchvision).
import torch
from torch import nn, optim

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3*a**3 - b**2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
# check if collected gradients are correct
print(9*a**2 == a.grad)
print(-2*b == b.grad)

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)

a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 12), nn.ReLU(), nn.Linear(12, 8))
# Freeze all the parameters in the network
for param in model.parameters():
    param.requires_grad = False

# Replace the last layer (resnet18's `model.fc`): its parameters require gradients by default
model[2] = nn.Linear(12, 10)
[n for n, p in model.named_parameters() if p.requires_grad]

# Optimize only the classifier
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
data = torch.rand(2, 16)
out = model(data)
out.sum().backward()
model[0].weight.grad is None, model[2].weight.grad.shape
optimizer.step()
w = model[2].weight
momentum = optimizer.state[w]["momentum_buffer"]
