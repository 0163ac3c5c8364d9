import torch
import torch.nn as nn
import torch.nn.functional as F

# L-BFGS 拟牛顿法：每次 step 都要传入一个闭包，它会多次重新计算损失和梯度
_ = torch.manual_seed(3)
X = torch.randn(32, 3)
true_w = torch.tensor([[1.5], [-2.0], [0.5]])
Y = X @ true_w + 0.1 * torch.randn(32, 1)
model = nn.Linear(3, 1)
optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=10, history_size=5)
optimizer
def closure():
    optimizer.zero_grad()
    loss = F.mse_loss(model(X), Y)
    loss.backward()
    return loss
# 常见错误：忘记传闭包
optimizer.step()
loss0 = optimizer.step(closure)
round(loss0.item(), 4)
optimizer.state[model.weight]['n_iter'], optimizer.state[model.weight]['func_evals']
len(optimizer.state[model.weight]['old_dirs'])
optimizer.state[model.weight]['d'].shape
for i in range(3):
    loss = optimizer.step(closure)
    print(i, round(loss.item(), 5), optimizer.state[model.weight]['n_iter'])
model.weight.detach().round(decimals=3)
# 带强 Wolfe 线搜索的版本
model2 = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
opt2 = torch.optim.LBFGS(model2.parameters(), lr=1, max_iter=8, line_search_fn='strong_wolfe')
def closure2():
    opt2.zero_grad()
    out = F.mse_loss(model2(X), Y)
    out.backward()
    return out
l1 = opt2.step(closure2)
l2 = opt2.step(closure2)
l2 < l1
s2 = opt2.state[model2[0].weight]
s2['func_evals'] >= s2['n_iter']
prev = s2['prev_flat_grad']
prev.shape, sum(p.numel() for p in model2.parameters())
# 错误：不支持的线搜索名字、不支持参数组
bad = torch.optim.LBFGS(model2.parameters(), line_search_fn='wolfe')
bad.step(closure2)
torch.optim.LBFGS([{'params': model2[0].parameters()}, {'params': model2[2].parameters(), 'lr': 0.1}])
torch.optim.LBFGS(model.parameters(), lr=-1.0)
sd = optimizer.state_dict()
sorted(sd['state'][0].keys())
sd['param_groups']
del opt2, s2, prev
