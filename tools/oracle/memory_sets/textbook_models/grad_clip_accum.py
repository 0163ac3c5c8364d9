import torch
import torch.nn as nn

# 梯度裁剪与梯度累积
_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 20), nn.Tanh(), nn.Linear(20, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(32, 10)
target = torch.randn(32, 1)
accum = 4
opt.zero_grad()
for i, (xb, yb) in enumerate(zip(data.split(8), target.split(8))):
    loss = nn.functional.mse_loss(model(xb), yb) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
        print('grad norm before clipping', total)
        opt.step()
        opt.zero_grad()
print([p.grad for p in model.parameters()])
loss = nn.functional.mse_loss(model(data), target)
loss.backward()
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.01)
print(model[0].weight.grad.abs().max())
grads = [p.grad.norm() for p in model.parameters()]
print(torch.stack(grads))
print(torch.nn.utils.parameters_to_vector(model.parameters()).shape)
