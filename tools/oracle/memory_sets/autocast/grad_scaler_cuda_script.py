# 一段为 GPU 写的混合精度训练代码，在只有 CPU 的机器上运行
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Linear(10, 2).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scaler = torch.cuda.amp.GradScaler()
x = torch.randn(4, 10, device=device)
with torch.cuda.amp.autocast():
    out = model(x)
    loss = out.pow(2).mean()
print(out.dtype, scaler.is_enabled(), scaler.get_scale())
scaler.scale(loss).backward()
scaler.step(optimizer)
scaler.update()
print(scaler.state_dict())
print(model.weight.grad.dtype)
