# Deliberate mistakes with backward: twice through the same graph, a non-scalar output,
# a tensor that does not require grad, forgetting zero_grad (gradients accumulate).
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
model = nn.Linear(3, 1)
x = torch.randn(4, 3)
loss = model(x).pow(2).mean()
loss.backward()
loss.backward()

out = model(x)
out.backward()
out.backward(torch.ones_like(out))

t = torch.ones(3)
t.sum().backward()

# forgetting zero_grad: the gradients add up
model.zero_grad()
for _ in range(3):
    loss = model(x).pow(2).mean()
    loss.backward()
    print(model.bias.grad)

g = model.bias.grad
model.zero_grad()
model.bias.grad is None

# retain_graph
y = (model(x) ** 2).sum()
y.backward(retain_graph=True)
y.backward()
gb = model.bias.grad

# an optimizer given the module instead of its parameters
torch.optim.SGD(model, lr=0.1)
torch.optim.SGD([], lr=0.1)
torch.optim.Adam(model.parameters(), lr=-1)

# .numpy() on a tensor that requires grad
model.weight.numpy()
model.weight.detach().numpy().shape
