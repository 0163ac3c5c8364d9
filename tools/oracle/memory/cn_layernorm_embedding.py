# 小型文本模型：Embedding + LayerNorm + Linear，看保存了哪些张量
import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)
emb = nn.Embedding(20, 16)
norm = nn.LayerNorm(16)
proj = nn.Linear(16, 20)
tokens = torch.randint(0, 20, (2, 6))
e = emb(tokens)
h = norm(e)
logits = proj(h)
logits.shape
# 语言模型的损失：把 batch 和序列维度展平
loss = F.cross_entropy(logits.view(-1, 20), tokens.view(-1))
loss.backward()
emb.weight.grad.shape
# softmax 和 sigmoid 都保存输出
p = torch.softmax(logits, dim=-1)
s = torch.sigmoid(logits)
d = F.dropout(h, p=0.5, training=True)
