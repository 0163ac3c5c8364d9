# The same small regression with SGD, Adam, AdamW, RMSprop and Adagrad: a few steps each,
# the optimizer's repr, its state and state_dict().
import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)
x = torch.randn(10, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3


def train(opt_name, **kwargs):
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    opt = getattr(torch.optim, opt_name)(model.parameters(), **kwargs)
    for _ in range(5):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    print(f"{opt_name:8s} loss {loss.item():.4f}")
    return model, opt


m_sgd, sgd = train("SGD", lr=0.1, momentum=0.9)
m_adam, adam = train("Adam", lr=0.1, betas=(0.9, 0.999))
m_adamw, adamw = train("AdamW", lr=0.1, weight_decay=0.1)
m_rms, rms = train("RMSprop", lr=0.01, alpha=0.9)
m_ada, ada = train("Adagrad", lr=0.5)

sgd
adam
sgd.param_groups[0]["lr"], adam.defaults["betas"]
w_sgd = m_sgd.weight
buf = sgd.state[m_sgd.weight]["momentum_buffer"]
w_adam = m_adam.weight
exp_avg = adam.state[m_adam.weight]["exp_avg"]
exp_avg_sq = adam.state[m_adam.weight]["exp_avg_sq"]
adam.state[m_adam.weight]["step"]
w_adamw = m_adamw.weight
w_rms = m_rms.weight
sq = rms.state[m_rms.weight]["square_avg"]
w_ada = m_ada.weight
acc = ada.state[m_ada.weight]["sum"]
sorted(adam.state_dict()["state"][0].keys())
adam.state_dict()["param_groups"]
ada.state_dict()["param_groups"][0]["initial_accumulator_value"]

# change the learning rate by hand
for g in adam.param_groups:
    g["lr"] = 0.01
adam.param_groups[0]["lr"]

# two parameter groups
_ = torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
opt = torch.optim.SGD([
    {"params": net[0].parameters()},
    {"params": net[2].parameters(), "lr": 1e-3},
], lr=1e-2, momentum=0.9)
opt
len(opt.param_groups), [g["lr"] for g in opt.param_groups]
