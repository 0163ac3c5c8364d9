# 博客: 手算 Transformer 编码器的参数量, 以及 nn.MultiheadAttention 的用法 (batch_first, 自注意力权重)
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
d_model, nhead, dim_ff, num_layers = 32, 4, 64, 2
layer = nn.TransformerEncoderLayer(d_model=d_model, nhead=nhead, dim_feedforward=dim_ff, dropout=0.1, batch_first=True)
encoder = nn.TransformerEncoder(layer, num_layers=num_layers)
print(encoder)
attn = 4 * d_model * d_model + 4 * d_model
ffn = 2 * d_model * dim_ff + dim_ff + d_model
norms = 2 * 2 * d_model
print("每层:", attn + ffn + norms, sum(p.numel() for p in layer.parameters()))
print("总计:", num_layers * (attn + ffn + norms), sum(p.numel() for p in encoder.parameters()))
for name, p in encoder.layers[0].named_parameters():
    print(f"{name:<32} {str(tuple(p.shape)):<12} {p.numel()}")

encoder.eval()
x = torch.randn(2, 5, d_model)
with torch.no_grad():
    y = encoder(x)

y.shape
torch.equal(encoder.layers[0].linear1.weight, encoder.layers[1].linear1.weight)
encoder.layers[0].self_attn.in_proj_weight.shape

mha = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
q = torch.randn(2, 3, 8)
out, w = mha(q, q, q)
out.shape, w.shape
w.sum(dim=-1)
out2, w2 = mha(q, q, q, average_attn_weights=False)
w2.shape
out3, none = mha(q, q, q, need_weights=False)
none is None, torch.allclose(out3, out, atol=1e-6)
kv = nn.MultiheadAttention(8, 2, kdim=4, vdim=6)
[name for name, _ in kv.named_parameters()]
k = torch.randn(7, 2, 4)
v = torch.randn(7, 2, 6)
o, a = kv(torch.randn(3, 2, 8), k, v)
o.shape, a.shape
