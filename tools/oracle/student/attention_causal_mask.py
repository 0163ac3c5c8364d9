import torch
B, T, C = 2, 5, 8
n_head = 2
x = torch.randn(B, T, C)
q, k, v = torch.randn(B, T, 3 * C).split(C, dim=2)
q.shape, q.stride(), q.storage_offset(), k.storage_offset(), v.storage_offset()
q.is_contiguous()
q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
q.shape, q.stride()
att = (q @ q.transpose(-2, -1)) * (1.0 / (C // n_head) ** 0.5)
att.shape
mask = torch.tril(torch.ones(T, T)).view(1, 1, T, T)
att = att.masked_fill(mask[:, :, :T, :T] == 0, -1e9)
att = torch.softmax(att, dim=-1)
att[0, 0].sum(dim=-1)
y = att @ q
y.shape, y.is_contiguous()
y = y.transpose(1, 2).contiguous().view(B, T, C)
y.shape, y.stride()
try:
    att.transpose(1, 2).view(B, T, -1)
except RuntimeError as e:
    print(e)
