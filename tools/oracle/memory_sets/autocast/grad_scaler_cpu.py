import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
x = torch.randn(8, 20)
y = torch.randint(0, 3, (8,))
print(scaler.is_enabled(), scaler.get_scale())
for step in range(3):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(x)
        loss = F.cross_entropy(logits, y)
    scaled = scaler.scale(loss)
    scaled.backward()
    scaler.step(opt)
    scaler.update()
    print(step, round(loss.item(), 3), scaler.get_scale())
print(scaler.state_dict())
model[0].weight.grad.fill_(float("inf"))
scaler.scale(loss.detach() * 0 + 1)
scaler.step(opt)
scaler.update()
print(scaler.get_scale())
