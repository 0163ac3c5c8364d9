import torch
import torch.nn as nn
import torch.nn.functional as F

# 各种自适应优化器：它们在 state 里保存了什么（显存！）
_ = torch.manual_seed(3)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
x = torch.randn(16, 8)
target = torch.randn(16, 4)
loss = F.mse_loss(model(x), target)
loss.backward()
nadam = torch.optim.NAdam(model.parameters(), lr=2e-3, momentum_decay=4e-3)
nadam.step()
st = nadam.state[model[0].weight]
sorted(st.keys())
st['mu_product']
st['step']
nadam
radam = torch.optim.RAdam(model.parameters(), lr=1e-3, weight_decay=0.01, decoupled_weight_decay=True)
radam.step()
radam.step()
radam.state[model[2].bias]['exp_avg'].shape
adamax = torch.optim.Adamax(model.parameters(), lr=2e-3)
adamax.step()
adamax.state[model[2].weight]['exp_inf'].shape
adadelta = torch.optim.Adadelta(model.parameters(), lr=1.0, rho=0.9)
adadelta.step()
sorted(adadelta.state[model[0].bias].keys())
rprop = torch.optim.Rprop(model.parameters(), lr=0.01, etas=(0.5, 1.2), step_sizes=(1e-6, 50))
rprop.step()
rprop.step()
rprop.state[model[0].bias]['step_size']
asgd = torch.optim.ASGD(model.parameters(), lr=0.01, t0=1)
asgd.step()
asgd.step()
asgd.state[model[0].bias]['eta'], asgd.state[model[0].bias]['mu']
asgd.state_dict()['param_groups']
del nadam, radam, adamax, adadelta, rprop, asgd, st
# 训练循环：NAdam 解耦权重衰减
opt = torch.optim.NAdam(model.parameters(), lr=5e-3, weight_decay=1e-2, decoupled_weight_decay=True)
for step in range(5):
    opt.zero_grad()
    loss = F.mse_loss(model(x), target)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
opt.state_dict()['state'][1]['mu_product']
# 常见错误
torch.optim.NAdam(model.parameters(), lr=-1)
torch.optim.RAdam(model.parameters(), betas=(1.0, 0.999))
torch.optim.Adadelta(model.parameters(), rho=1.1)
torch.optim.Rprop(model.parameters(), etas=(1.2, 0.5))
torch.optim.Adamax(model.parameters(), weight_decay=-0.1)
