# 博客: Transformer 参数量计算 (nn.MultiheadAttention, nn.TransformerEncoderLayer; small sizes)
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
embed_dim, num_heads = 16, 4
mha = nn.MultiheadAttention(embed_dim, num_heads)
mha
for name, p in mha.named_parameters():
    print(name, tuple(p.shape), p.numel())

# 4 * d^2 + 4 * d
print(sum(p.numel() for p in mha.parameters()), 4 * embed_dim ** 2 + 4 * embed_dim)
query = torch.randn(5, 2, embed_dim)
attn_output, attn_weights = mha(query, query, query)
attn_output.shape, attn_weights.shape
attn_weights.sum(-1)

enc = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.0)
print(enc)
n = sum(p.numel() for p in enc.parameters())
n
[name for name, _ in enc.named_parameters()]
src = torch.rand(5, 2, 16)
out = enc(src)
out.shape
