import torch
import torch.nn as nn
_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 10))
x = torch.randn(64, 100)
with torch.autocast("cpu", dtype=torch.bfloat16):
    y = model(x)
loss = y.float().pow(2).mean()
loss.backward()
