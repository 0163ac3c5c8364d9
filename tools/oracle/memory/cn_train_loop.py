# 训练循环：跑 3 个迭代，观察每一轮内存是否稳定
import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 3))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.randn(48, 20)
labels = torch.randint(0, 3, (48,))
losses = []
for step in range(3):
    xb = data[step * 16:(step + 1) * 16]
    yb = labels[step * 16:(step + 1) * 16]
    opt.zero_grad()
    loss = F.cross_entropy(model(xb), yb)
    loss.backward()
    opt.step()
    losses.append(loss.item())
len(losses)
# 注意：直接把 loss 放进列表会让整张计算图一直存活
kept = []
for step in range(2):
    loss = F.cross_entropy(model(data[:16]), labels[:16])
    kept.append(loss)
len(kept)
kept.clear()
