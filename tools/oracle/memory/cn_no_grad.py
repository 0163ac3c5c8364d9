# 推理时用 torch.no_grad()：不建计算图，不保存中间结果
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 40), nn.Tanh(), nn.Linear(40, 40), nn.Sigmoid(), nn.Linear(40, 5))
x = torch.randn(8, 20)
# 训练模式下前向：Tanh 和 Sigmoid 的输出都被保存
out = model(x)
out.requires_grad
del out
# 推理模式：只保留最终输出
with torch.no_grad():
    out = model(x)
out.requires_grad
model.eval()
with torch.no_grad():
    preds = model(x).argmax(dim=1)
preds.shape
# inference_mode 效果相同
with torch.inference_mode():
    out2 = model(x)
# 也可以把参数设为不需要梯度
for p in model.parameters():
    p.requires_grad_(False)
out3 = model(x)
out3.grad_fn is None
