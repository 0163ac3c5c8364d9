# A nanoGPT-style causal self-attention block: one c_attn projection split into q, k, v, heads
# as (B, nh, T, hs), and the fused kernel with is_causal=True against the manual masked softmax.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size, flash=True):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head = n_head
        self.n_embd = n_embd
        self.flash = flash
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.flash:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


_ = torch.manual_seed(0)
attn = CausalSelfAttention(32, 4, 16)
x = torch.randn(2, 10, 32)
y = attn(x)
y.shape
y.grad_fn.name()
loss = y.pow(2).mean()
loss.backward()
attn.c_attn.weight.grad.norm()
attn.zero_grad()
attn.flash = False
y2 = attn(x)
torch.allclose(y, y2, atol=1e-5)
y2.pow(2).mean().backward()
attn.c_attn.weight.grad.norm()
del y, y2, loss
with torch.no_grad():
    attn.flash = True
    z = attn(x)
z.shape
