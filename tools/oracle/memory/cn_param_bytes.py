# 教程：模型显存占用 = 参数 + 梯度 + 优化器状态 + 中间激活
# 先用公式算参数量，再用 numel() 和 element_size() 验证
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
emb = nn.Embedding(1000, 32)
# Embedding 的参数量：词表大小 × 向量维度
print(1000 * 32, emb.weight.numel())
lin = nn.Linear(32, 64)
ln = nn.LayerNorm(64)
head = nn.Linear(64, 5, bias=False)
model = nn.ModuleList([emb, lin, ln, head])
total = sum(p.numel() for p in model.parameters())
total
# float32 每个参数 4 字节
total * 4
sum(p.nbytes for p in model.parameters())
# 单位换算：1 MB = 1024 * 1024 字节
round(total * 4 / 1024 / 1024, 4)
idx = torch.randint(0, 1000, (2, 6))
e = emb(idx)
h = ln(lin(e))
y = head(h)
e.nbytes, h.nbytes, y.nbytes
# 训练时还要存梯度，Adam 还要两份状态，大约是参数的 4 倍
total * 4 * 4
