# F.scaled_dot_product_attention on the CPU: the fused flash kernel (one node that keeps q, k, v,
# the output and the logsumexp) against the math fallback (dropout, a transposed last dim).
import torch
import torch.nn.functional as F

_ = torch.manual_seed(0)
q = torch.randn(2, 2, 5, 8, requires_grad=True)
k = torch.randn(2, 2, 5, 8, requires_grad=True)
v = torch.randn(2, 2, 5, 8, requires_grad=True)
o = F.scaled_dot_product_attention(q, k, v)
o.grad_fn.name()
o.stride()
o2 = F.scaled_dot_product_attention(q, k, v, is_causal=True)
m = torch.ones(5, 5, dtype=torch.bool).tril()
o3 = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
o4 = F.scaled_dot_product_attention(q, k, v, dropout_p=0.1)
o4.grad_fn.name()
o5 = F.scaled_dot_product_attention(q.transpose(2, 3), k.transpose(2, 3), v.transpose(2, 3))
o6 = F.scaled_dot_product_attention(q, k, v, dropout_p=0.1, is_causal=True)
o9 = F.scaled_dot_product_attention(q[0], k[0], v[0])
o9.grad_fn.name()
(o + o2 + o3 + o4 + o6).sum().backward()
q.grad
k.grad
v.grad
q.grad = None
k.grad = None
v.grad = None
(o5.sum() + o9.sum()).backward()
q.grad
k.grad
x = torch.randn(3, 4, requires_grad=True)
y = F.scaled_dot_product_attention(x, x, x)
y.grad_fn.name()
y.sum().backward()
x.grad
o3.grad_fn._saved_logsumexp.stride()
o3.grad_fn._saved_attn_mask
o11 = F.scaled_dot_product_attention(q, k, v, scale=0.3)
o11.grad_fn._saved_scale
with torch.no_grad():
    o12 = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(2, 1, 5, 5))
o12.shape
k2 = torch.randn(2, 2, 7, 8)
v2 = torch.randn(2, 2, 7, 4)
o13 = F.scaled_dot_product_attention(q, k2, v2)
o13.grad_fn.name()
o13.shape
F.scaled_dot_product_attention(q, k.double(), v)
F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=True)
