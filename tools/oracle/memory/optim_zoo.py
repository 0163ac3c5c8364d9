# Optimizer state, compared: how many extra tensors each optimizer keeps per parameter.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5))
x = torch.randn(8, 10)
model(x).pow(2).mean().backward()
sgd = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
sgd.step()
sgd.step()
rms = torch.optim.RMSprop(model.parameters(), lr=0.01)
rms.step()
ada = torch.optim.Adagrad(model.parameters(), lr=0.01)
ada.step()
ams = torch.optim.Adam(model.parameters(), lr=0.01, amsgrad=True)
ams.step()
[len(o.state[model[0].weight]) for o in (sgd, rms, ada, ams)]
sched = torch.optim.lr_scheduler.StepLR(sgd, step_size=1, gamma=0.5)
sched.step()
sgd.param_groups[0]["lr"]
del sgd, rms, ada, ams, sched
# gradient clipping: the norms are small 0-d temporaries
norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
model.zero_grad()
