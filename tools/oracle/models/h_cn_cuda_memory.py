# 博客: 用 torch.cuda.memory_allocated() 统计每层显存 (在没有 GPU 的机器上运行: 计数器都是 0)
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device, torch.cuda.device_count())
_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).to(device)
x = torch.randn(16, 64, device=device)
before = torch.cuda.memory_allocated()
for i, layer in enumerate(model):
    x = layer(x)
    now = torch.cuda.memory_allocated(device)
    print(f"layer {i} {layer.__class__.__name__:<8} out {tuple(x.shape)} 增量 {(now - before) / 1024 ** 2:.2f} MB, 按元素估计 {x.element_size() * x.nelement() / 1024:.1f} KB")
    before = now

print("峰值: %.2f MB" % (torch.cuda.max_memory_allocated() / 1024 ** 2))
print("缓存: %.2f MB" % (torch.cuda.memory_reserved() / 1024 ** 2))
torch.cuda.empty_cache()
torch.cuda.max_memory_reserved(), torch.cuda.memory_allocated(0)
params = sum(p.numel() for p in model.parameters())
print(f"参数 {params}, 约 {params * 4 / 1024 ** 2:.3f} MB (float32)")
