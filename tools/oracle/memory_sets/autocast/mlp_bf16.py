import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
x = torch.randn(16, 32)
y = torch.randint(0, 10, (16,))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model(x)
    loss = F.cross_entropy(out, y)
print(out.dtype, loss.dtype)
print(out.grad_fn.name(), out.grad_fn.next_functions[0][0].name())
loss.backward()
print(model[0].weight.grad.dtype, model[0].weight.grad.shape)
opt.step()
opt.zero_grad()
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    out2 = model(x)
    loss2 = F.cross_entropy(out2, y)
loss2.backward()
print(round(loss2.item(), 2))
