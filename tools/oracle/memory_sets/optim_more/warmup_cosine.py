import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import LinearLR, CosineAnnealingLR, SequentialLR

# 预热 + 余弦退火：前 3 个 epoch 线性升温，之后余弦下降
_ = torch.manual_seed(42)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
X = torch.randn(32, 6)
y = torch.randint(0, 2, (32,))
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
warmup = LinearLR(optimizer, start_factor=0.1, end_factor=1.0, total_iters=3)
cosine = CosineAnnealingLR(optimizer, T_max=9, eta_min=1e-5)
# 错误示范：里程碑个数必须比调度器少一个
bad = SequentialLR(optimizer, schedulers=[warmup, cosine], milestones=[3, 6])
scheduler = SequentialLR(optimizer, schedulers=[warmup, cosine], milestones=[3])
print(scheduler.get_last_lr())
lrs = []
for epoch in range(12):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(X), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    lrs.append(scheduler.get_last_lr()[0])
    print(f"epoch {epoch:2d}  loss {loss.item():.4f}  lr {lrs[-1]}")
lrs
scheduler.last_epoch
# 子调度器的状态
sd = scheduler.state_dict()
sd['_milestones'], sd['last_epoch']
sd['_schedulers'][1]
optimizer.param_groups[0]['lr'], optimizer.param_groups[0]['initial_lr']
state = optimizer.state[model[0].weight]
sorted(state.keys())
state['step']
state['exp_avg_sq'].shape
# 错误示范：SequentialLR.step() 不接受 epoch 参数
scheduler.step(12)
