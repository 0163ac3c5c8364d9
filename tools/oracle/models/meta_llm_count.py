# 博客：不占内存统计大模型参数量——在 meta device 上构建一个 LLaMA 风格的模型
import torch
import torch.nn as nn


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)


class TransformerBlock(nn.Module):
    def __init__(self, dim, n_heads, hidden_dim):
        super().__init__()
        self.attention = Attention(dim, n_heads)
        self.feed_forward = FeedForward(dim, hidden_dim)
        self.attention_norm = RMSNorm(dim)
        self.ffn_norm = RMSNorm(dim)


class Transformer(nn.Module):
    def __init__(self, vocab_size=32000, dim=4096, n_layers=32, n_heads=32, hidden_dim=11008):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList([TransformerBlock(dim, n_heads, hidden_dim) for _ in range(n_layers)])
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)


# 7B 模型：在 meta 上构建，不分配内存
with torch.device("meta"):
    model = Transformer()

n_params = sum(p.numel() for p in model.parameters())
print(f"参数量: {n_params / 1e9:.2f}B")
print(f"fp16 权重大小: {n_params * 2 / 1024**3:.2f} GB")

emb = model.tok_embeddings.weight
emb.shape, emb.device
wq = model.layers[0].attention.wq.weight
w1 = model.layers[0].feed_forward.w1.weight
w1.shape, w1.stride(), w1.untyped_storage().nbytes()

# 每层的参数量
per_layer = sum(p.numel() for p in model.layers[0].parameters())
print("每层:", per_layer, "32 层:", per_layer * 32)
print("embedding:", 32000 * 4096, "lm head:", model.output.weight.numel())

# 按模块统计
for name, child in model.named_children():
    print(name, sum(p.numel() for p in child.parameters()))

# 转成 bf16 也不占内存
model = model.to(torch.bfloat16)
out_w = model.output.weight
out_w.dtype, out_w.element_size() * out_w.numel() / 1024**2
len(model.state_dict())
