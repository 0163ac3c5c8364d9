import torch
import torch.nn as nn
# 估算模型显存: 参数、梯度、优化器状态
_ = torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
n_params = sum(p.numel() for p in model.parameters())
n_buffers = sum(b.numel() for b in model.buffers())
print(n_params, n_buffers)
param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
print(f"{param_bytes / 1024:.2f} KB")
for name, m in model.named_children():
    print(name, type(m).__name__, sum(p.numel() for p in m.parameters()))
x = torch.randn(4, 3, 32, 32)
out = model(x)
print(out.shape)
opt = torch.optim.Adam(model.parameters())
out.sum().backward()
opt.step()
state_bytes = sum(v.numel() * v.element_size() for s in opt.state.values() for v in s.values() if torch.is_tensor(v))
print(state_bytes, 2 * param_bytes)
grad_bytes = sum(p.grad.numel() * 4 for p in model.parameters())
print(grad_bytes == param_bytes)
print(model[1].running_mean[:4], model[1].num_batches_tracked)
