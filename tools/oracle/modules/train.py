import torch
import torch.nn as nn
import torch.nn.functional as F
_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
x = torch.randn(5, 4)
y = torch.randn(5, 2)
out = model(x)
out
loss = F.mse_loss(out, y)
loss
loss.backward()
model[0].weight.grad
model[2].bias.grad
with torch.no_grad():
    for p in model.parameters():
        p -= 0.1 * p.grad
model.zero_grad()
model[0].weight.grad is None
loss2 = nn.MSELoss()(model(x), y)
loss2
crit = nn.CrossEntropyLoss()
logits = model(x)
target = torch.tensor([0, 1, 1, 0, 1])
l3 = crit(logits, target)
l3
l3.backward()
model[2].weight.grad
bn = nn.BatchNorm1d(4)
h = bn(x)
h
bn.running_mean
bn.num_batches_tracked
bn.eval()
bn(x)
conv = nn.Conv2d(1, 2, 3, padding=1)
img = torch.randn(1, 1, 4, 4)
c = conv(img)
c.shape
pool = nn.MaxPool2d(2)
pool(c).shape
emb = nn.Embedding(10, 3)
emb(torch.tensor([1, 2, 3]))
drop = nn.Dropout(0.5)
drop(torch.ones(8))
drop.eval()
drop(torch.ones(8))
ln = nn.LayerNorm(4)
ln(x)
