# A Transformer encoder layer's memory: attention weights, dropout masks and two LayerNorms
# all stay alive until backward.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
mha = nn.MultiheadAttention(16, 2, batch_first=True)
q = torch.randn(2, 5, 16)
o, w = mha(q, q, q)
w.shape
o2, _ = mha(q, q, q, need_weights=False)
del o, w, o2
layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True)
sum(p.numel() for p in layer.parameters())
y = layer(q)
y.sum().backward()
layer.eval()
with torch.no_grad():
    z = layer(q)
z.shape
