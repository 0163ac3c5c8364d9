# A 20-layer MLP of width 256, batch 64: forward, backward and one Adam step.
# Traced by benches/models.rs.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
layers = []
for i in range(20):
    layers.append(nn.Linear(256, 256))
    layers.append(nn.ReLU())
model = nn.Sequential(*layers)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 256)
target = torch.randn(64, 256)
loss = nn.functional.mse_loss(model(x), target)
loss.backward()
opt.step()
opt.zero_grad()
loss.item()
