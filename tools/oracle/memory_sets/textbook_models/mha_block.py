import torch
import torch.nn as nn

# Transformer 块: nn.MultiheadAttention + 前馈 + 残差
_ = torch.manual_seed(0)
class Block(nn.Module):
    def __init__(self, d_model=16, nhead=4):
        super().__init__()
        self.attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)
        self.ln1 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))
        self.ln2 = nn.LayerNorm(d_model)
    def forward(self, x, mask=None):
        a, w = self.attn(x, x, x, attn_mask=mask)
        x = self.ln1(x + a)
        return self.ln2(x + self.ff(x)), w
blk = Block()
x = torch.randn(2, 5, 16)
mask = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
y, w = blk(x, mask)
print(y.shape, w.shape)
print(w[0])
print(sum(p.numel() for p in blk.parameters()))
y.sum().backward()
print(blk.attn.in_proj_weight.grad.shape, blk.attn.out_proj.weight.grad.norm())
blk.eval()
with torch.no_grad():
    y2, _ = blk(x, mask)
print(torch.allclose(y, y2))
