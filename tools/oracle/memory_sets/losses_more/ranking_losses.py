import torch
import torch.nn as nn
import torch.nn.functional as F

# 排序与度量学习中的损失函数
_ = torch.manual_seed(2)
s1 = torch.randn(6, requires_grad=True)
s2 = torch.randn(6, requires_grad=True)
y = torch.tensor([1., -1., 1., 1., -1., -1.])
rank = nn.MarginRankingLoss(margin=0.5)
rank
r_loss = rank(s1, s2, y)
r_loss
r_loss.backward()
s1.grad, s2.grad
F.margin_ranking_loss(s1, s2, y, reduction='none')
F.margin_ranking_loss(s1, s2, y.view(2, 3))
# 铰链嵌入损失：距离与相似/不相似标签
dist = torch.rand(5, requires_grad=True) * 2
labels = torch.tensor([1., -1., -1., 1., -1.])
hinge = nn.HingeEmbeddingLoss(margin=1.5)
h_loss = hinge(dist, labels)
h_loss
h_loss.backward()
F.hinge_embedding_loss(dist, labels, reduction='sum')
# 余弦嵌入损失
a = torch.randn(4, 8, requires_grad=True)
b = torch.randn(4, 8, requires_grad=True)
sim = torch.tensor([1, -1, 1, -1])
cos_loss = nn.CosineEmbeddingLoss(margin=0.2)
c = cos_loss(a, b, sim)
c
c.backward()
a.grad.norm()
F.cosine_embedding_loss(a, b, sim, reduction='none')
F.cosine_embedding_loss(a, b, sim.view(2, 2))
# 三元组损失 (FaceNet)
anchor = torch.randn(5, 16, requires_grad=True)
positive = anchor.detach() + 0.1 * torch.randn(5, 16)
negative = torch.randn(5, 16)
triplet = nn.TripletMarginLoss(margin=1.0, p=2)
triplet
t_loss = triplet(anchor, positive, negative)
t_loss
t_loss.backward()
anchor.grad.abs().max()
F.triplet_margin_loss(anchor, positive, negative, p=1, swap=True, reduction='none')
nn.TripletMarginLoss(margin=0.0)
F.triplet_margin_loss(anchor, positive, negative[0])
# 软间隔损失
logits = torch.randn(3, 4, requires_grad=True)
signs = torch.tensor([[1., -1., 1., 1.], [-1., -1., 1., -1.], [1., 1., -1., 1.]])
sm = nn.SoftMarginLoss()
sm_loss = sm(logits, signs)
sm_loss
sm_loss.backward()
logits.grad
