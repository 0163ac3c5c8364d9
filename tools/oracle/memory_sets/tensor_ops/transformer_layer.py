# nn.TransformerEncoderLayer and nn.Embedding as a tutorial builds a tiny encoder
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
emb = nn.Embedding(10, 8, padding_idx=0)
emb.weight[0]
tokens = torch.tensor([[1, 2, 0], [3, 4, 5]])
x = emb(tokens)
x.shape
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
sum(p.numel() for p in layer.parameters())
[n for n, _ in layer.named_parameters()]
layer.eval()
y = layer(x)
y.shape
enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
len(enc.layers)
out = enc(x, src_key_padding_mask=tokens == 0)
out.shape
