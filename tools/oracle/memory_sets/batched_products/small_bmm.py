# Batched products as attention tutorials write them: the scores of a small batch.
# ATen adds a small bmm (k*n*p < 400) in its own loop, in float, product by product.
import torch
_ = torch.manual_seed(0)
queries = torch.randn(2, 1, 2)
keys = torch.ones(2, 10, 2)
scores = torch.bmm(queries, keys.transpose(1, 2))
print(scores)
print(scores.double().sum().item())
q = torch.randn(4, 3, 5)
k = torch.randn(4, 7, 5)
s = torch.bmm(q, k.transpose(1, 2))
print(s.double().sum().item())
print(s[0, 0].tolist())
# 注意力权重 × 值
w = torch.softmax(s, dim=-1)
v = torch.randn(4, 7, 6)
out = torch.bmm(w, v)
print(out.double().sum().item())
print(out.shape, out.stride())
# a batched product past the small-loop limit goes to BLAS
big_a = torch.randn(2, 8, 16)
big_b = torch.randn(2, 16, 8)
big = torch.bmm(big_a, big_b)
print(big.shape)
# matmul of 3-d tensors is a bmm too
m = torch.matmul(torch.randn(3, 2, 4), torch.randn(3, 4, 5))
print(m.double().sum().item())
x = torch.randn(5, 2, 3, requires_grad=True)
y = torch.randn(5, 3, 4, requires_grad=True)
z = torch.bmm(x, y)
z.sum().backward()
print(x.grad.double().sum().item(), y.grad.double().sum().item())
torch.bmm(torch.randn(2, 3, 4), torch.randn(3, 4, 5))
