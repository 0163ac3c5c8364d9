# 博客: 计算模型每一层输出的显存占用 (element_size * nelement), 参数显存, 无GPU时
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1),
    nn.BatchNorm2d(8),
    nn.ReLU(inplace=True),
    nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d((1, 1)),
    nn.Flatten(),
    nn.Linear(16, 10),
)
x = torch.randn(4, 3, 16, 16)
total_out = 0
for name, layer in model.named_children():
    x = layer(x)
    mem = x.element_size() * x.nelement()
    total_out += mem
    print(f"{name:>2} {layer.__class__.__name__:<18} {str(tuple(x.shape)):<18} {mem / 1024:.2f} KB")

print("输出总占用: %.2f KB" % (total_out / 1024))
param_mem = sum(p.nelement() * p.element_size() for p in model.parameters())
buffer_mem = sum(b.nelement() * b.element_size() for b in model.buffers())
print(f"参数: {param_mem} B, buffer: {buffer_mem} B, 合计 {(param_mem + buffer_mem) / 1024 ** 2:.4f} MB")
type_size = 4
print('Model {} : params: {:4f}M'.format(model._get_name(), sum(p.numel() for p in model.parameters()) * type_size / 1000 / 1000))
if torch.cuda.is_available():
    print(torch.cuda.memory_allocated() / 1024 ** 2)
else:
    print("没有 GPU, 只统计 CPU 上的张量大小")

half = model.half()
next(half.parameters()).dtype, next(half.parameters()).element_size()
sum(p.nelement() * p.element_size() for p in half.parameters())
d = model.double()
sum(p.nelement() * p.element_size() for p in d.parameters())
torch.tensor([1, 2, 3], dtype=torch.int8).element_size(), torch.tensor([True]).element_size()
torch.empty(2, 3, dtype=torch.bfloat16).element_size()
torch.empty(10, 10).untyped_storage().nbytes()
