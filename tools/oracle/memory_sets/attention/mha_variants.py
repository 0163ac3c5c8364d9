# nn.MultiheadAttention as tutorials call it: self-attention packs q, k, v into one projection;
# need_weights=False takes scaled_dot_product_attention; cross-attention projects twice.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
mha = nn.MultiheadAttention(embed_dim=16, num_heads=4)
x = torch.randn(6, 2, 16)
out, weights = mha(x, x, x)
out.shape, weights.shape
out.grad_fn.name()
out2, none = mha(x, x, x, need_weights=False)
none is None
torch.allclose(out, out2, atol=1e-6)
out3, w3 = mha(x, x, x, average_attn_weights=False)
w3.shape
memory = torch.randn(9, 2, 16)
cross, cw = mha(x, memory, memory)
cross.shape, cw.shape
del out, weights, out2, out3, w3, cross, cw
mha_bf = nn.MultiheadAttention(16, 2, batch_first=True, bias=False)
xb = torch.randn(2, 6, 16)
yb, wb = mha_bf(xb, xb, xb)
yb.stride()
yb.sum().backward()
mha_bf.in_proj_weight.grad.abs().sum()
mha_kv = nn.MultiheadAttention(16, 2, kdim=8, vdim=12, batch_first=True)
[n for n, _ in mha_kv.named_parameters()]
kx = torch.randn(2, 7, 8)
vx = torch.randn(2, 7, 12)
yk, wk = mha_kv(xb, kx, vx)
yk.shape, wk.shape
u = torch.randn(5, 16)
yu, wu = mha(u, u, u)
yu.shape, wu.shape
mha.train()
drop = nn.MultiheadAttention(16, 2, dropout=0.5, batch_first=True)
yd, wd = drop(xb, xb, xb)
wd.sum(dim=-1)
yd2, _ = drop(xb, xb, xb, need_weights=False)
yd2.sum().backward()
