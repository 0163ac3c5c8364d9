import torch
import torch.nn as nn
import torch.nn.functional as F

# 相似度与距离:句向量检索的小例子
_ = torch.manual_seed(0)
queries = torch.randn(4, 16, requires_grad=True)
keys = torch.randn(4, 16, requires_grad=True)
cos = nn.CosineSimilarity(dim=1, eps=1e-6)
print(cos)
sim = cos(queries, keys)
print(sim, sim.grad_fn.name())
pdist = nn.PairwiseDistance(p=2)
print(pdist)
dist = (queries - keys).norm(dim=1)
print(dist, dist.grad_fn.name())
loss = (1 - sim).mean() + dist.mean()
loss.backward()
print(queries.grad.norm(), keys.grad.norm())

# 所有 query 对所有 key 的相似度 (广播)
sim_all = F.cosine_similarity(queries.detach().unsqueeze(1), keys.detach().unsqueeze(0), dim=-1)
print(sim_all.shape)
print(sim_all.argmax(dim=1))
print(nn.PairwiseDistance(p=1, keepdim=True))

# 三元组损失的手写版本
anchor = torch.randn(8, 32, requires_grad=True)
positive = anchor.detach() + 0.1 * torch.randn(8, 32)
negative = torch.randn(8, 32)
d_ap = (anchor - positive).pow(2).sum(dim=1).sqrt()
d_an = (anchor - negative).pow(2).sum(dim=1).sqrt()
triplet = F.relu(d_ap - d_an + 1.0).mean()
print(triplet)
triplet.backward()
print(anchor.grad.abs().sum())

# Softmax2d:每个像素位置上对通道做 softmax (语义分割)
seg = nn.Sequential(nn.Conv2d(3, 5, 3, padding=1), nn.Softmax2d())
print(seg)
pic = torch.randn(2, 3, 6, 6)
probs = seg(pic)
print(probs.shape, probs.grad_fn.name())
print(probs.sum(dim=1)[0, 0])
probs[:, 1].mean().backward()
print(seg[0].bias.grad)
try:
    nn.Softmax2d()(torch.randn(4, 5))
except ValueError as e:
    print(e)
try:
    cos(torch.randn(3, 4), torch.randn(2, 4))
except RuntimeError as e:
    print(e)
