import torch
import torch.nn as nn
import torch.nn.functional as F

# 同一个模型上比较各优化器的选项：maximize、weight_decay、参数组
_ = torch.manual_seed(7)
model = nn.Sequential(nn.Linear(6, 10), nn.Tanh(), nn.Linear(10, 2))
inputs = torch.randn(12, 6)
goal = torch.randn(12, 2)
loss = F.mse_loss(model(inputs), goal)
loss.backward()
groups = [{'params': model[0].parameters(), 'lr': 0.01}, {'params': model[2].parameters()}]
o1 = torch.optim.Adamax(groups, lr=0.002, betas=(0.8, 0.99), weight_decay=0.1, maximize=True)
o1.step()
o1.step()
o1
o2 = torch.optim.NAdam(model.parameters(), lr=0.01, weight_decay=0.05, maximize=True)
o2.step()
o2.step()
o3 = torch.optim.NAdam(model.parameters(), lr=0.01, weight_decay=0.05, decoupled_weight_decay=True)
o3.step()
o4 = torch.optim.RAdam(model.parameters(), lr=0.01, weight_decay=0.1, maximize=True)
for _ in range(7):
    o4.step()
o4.state[model[2].bias]['step']
o5 = torch.optim.Adadelta(model.parameters(), lr=0.5, weight_decay=0.01, maximize=True)
o5.step()
o5.step()
o6 = torch.optim.Rprop(model.parameters(), lr=0.001, etas=(0.3, 1.5), step_sizes=(1e-4, 0.05), maximize=True)
o6.step()
o6.step()
o6.state[model[2].bias]['prev']
o7 = torch.optim.ASGD(model.parameters(), lr=0.05, lambd=0.001, alpha=0.5, t0=1, weight_decay=0.01, maximize=True)
o7.step()
o7.step()
o7.step()
o7.state[model[0].bias]['mu']
del o1, o2, o3, o4, o5, o6, o7
# 用闭包调用 step(closure)
opt = torch.optim.RAdam(model.parameters(), lr=0.01)
def closure():
    opt.zero_grad()
    out = F.mse_loss(model(inputs), goal)
    out.backward()
    return out
l0 = opt.step(closure)
round(l0.item(), 4)
# 保存并恢复优化器状态
sd = opt.state_dict()
opt2 = torch.optim.RAdam(model.parameters(), lr=0.01)
opt2.load_state_dict(sd)
opt2.state[model[0].weight]['step']
opt2.step(closure)
