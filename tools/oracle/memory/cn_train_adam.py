# 课程：Adam 优化器为什么更占显存？
# Adam 为每个参数保存 exp_avg 和 exp_avg_sq 两份状态（外加一个 step 计数）
import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 40), nn.ReLU(), nn.Linear(40, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(16, 20)
target = torch.randint(0, 10, (16,))
logits = model(x)
# 交叉熵会保存 log_softmax 的结果
loss = F.cross_entropy(logits, target)
loss.backward()
# 第一次 step：初始化状态
opt.step()
sorted(opt.state[model[0].weight].keys())
opt.zero_grad()
logits = model(x)
loss = F.cross_entropy(logits, target)
loss.backward()
opt.step()
opt.zero_grad(set_to_none=True)
# 参数、状态各占多少字节
sum(p.nbytes for p in model.parameters())
sum(s["exp_avg"].nbytes + s["exp_avg_sq"].nbytes for s in opt.state.values())
