# 手写注意力：Q K^T / sqrt(d)，掩码，softmax，再乘 V
# 注意力矩阵的大小是 序列长度 × 序列长度，这是长序列显存爆炸的原因
import math
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
d = 16
wq = nn.Linear(d, d)
wk = nn.Linear(d, d)
wv = nn.Linear(d, d)
x = torch.randn(2, 5, d)
q = wq(x)
k = wk(x)
v = wv(x)
scores = q @ k.transpose(-2, -1) / math.sqrt(d)
scores.shape
# 因果掩码：上三角为 True（用 -1e9 代替 -inf）
mask = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
scores = scores.masked_fill(mask, -1e9)
attn = torch.softmax(scores, dim=-1)
out = attn @ v
out.sum().backward()
wq.weight.grad.shape
# 注意力矩阵占用的字节数
attn.numel() * attn.element_size()
