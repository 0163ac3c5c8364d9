# torch.nn.utils in a training loop: clip_grad_norm_ (each gradient's norm, the total, the
# clip coefficient clamped to 1), clip_grad_value_, and flattening parameters into one vector.
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 10)
y = torch.randn(8, 5)
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    total = clip_grad_norm_(model.parameters(), max_norm=0.5)
    opt.step()
total
loss
norm2 = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01, norm_type=1)
norm3 = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.01, norm_type=float('inf'))
norm2, norm3
torch.nn.utils.clip_grad_value_(model.parameters(), 0.001)
model[0].bias.grad
v = torch.nn.utils.parameters_to_vector(model.parameters())
v.shape
torch.nn.utils.vector_to_parameters(v * 2, model.parameters())
model[2].bias
torch.nn.utils.clip_grad_norm_([], 1.0)
model[0].weight.grad[0, 0] = float('nan')
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
