# Masks as transformer tutorials pass them: a causal mask (bool or float), a key padding mask
# for padded batches, both merged, and a TransformerEncoder that detects a causal mask.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
x = torch.randn(2, 4, 8)
causal = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)
out, w = mha(x, x, x, attn_mask=causal)
w[0]
pad = torch.tensor([[False, False, False, True], [False, False, True, True]])
out2, w2 = mha(x, x, x, key_padding_mask=pad)
w2[1]
out3, _ = mha(x, x, x, attn_mask=causal, key_padding_mask=pad, need_weights=False)
out3.shape
out4, _ = mha(x, x, x, attn_mask=nn.Transformer.generate_square_subsequent_mask(4), need_weights=False, is_causal=True)
torch.allclose(out4, out, atol=1e-6)
out.sum().backward()
mha.in_proj_weight.grad.abs().sum()
layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
y = enc(x, mask=nn.Transformer.generate_square_subsequent_mask(4))
y.shape
y2 = enc(x, src_key_padding_mask=pad)
y2[0, 0]
mha(x, x, x, attn_mask=torch.ones(3, 3, dtype=torch.bool))
mha(x, x, x, is_causal=True)
