import torch
from torch import nn
import torch.nn.functional as F

# 各种损失模块的构造参数、旧式 size_average/reduce 参数以及 double 精度
criteria = nn.ModuleDict({
    'smooth': nn.SmoothL1Loss(beta=0.5),
    'kl': nn.KLDivLoss(reduction='batchmean', log_target=True),
    'poisson': nn.PoissonNLLLoss(log_input=False, full=True),
    'svm': nn.MultiMarginLoss(p=2, margin=0.5, weight=torch.tensor([1.0, 0.5, 2.0])),
})
criteria
criteria['svm'].weight, criteria['svm'].p, criteria['svm'].margin
list(criteria['svm'].state_dict().keys())
legacy = nn.SoftMarginLoss(size_average=False)
legacy.reduction
nn.HingeEmbeddingLoss(reduce=False).reduction
nn.MultiLabelMarginLoss(reduction='sum')
x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
t = torch.randn(4, 3, dtype=torch.float64)
s = criteria['smooth'](x, t)
s
s.backward()
x.grad
rates = torch.rand(6, dtype=torch.float64) * 3 + 0.1
counts = torch.tensor([0., 1., 2., 4., 3., 7.], dtype=torch.float64)
criteria['poisson'](rates, counts)
F.poisson_nll_loss(rates.log(), counts, full=True, reduction='sum')
logits = torch.randn(4, 3, requires_grad=True)
y = torch.tensor([0, 2, 1, 2])
m = criteria['svm'](logits, y)
m
m.backward()
logits.grad
F.multi_margin_loss(logits.detach().double(), y, margin=2)
log_p = F.log_softmax(torch.randn(3, 5), dim=-1)
log_q = F.log_softmax(torch.randn(3, 5), dim=-1)
criteria['kl'](log_p, log_q)
F.kl_div(log_p, log_q.exp(), size_average=False)
emb1 = torch.randn(6, requires_grad=True)
emb2 = torch.randn(6)
F.cosine_embedding_loss(emb1, emb2, torch.tensor(1))
F.cosine_embedding_loss(emb1, emb2, torch.tensor([1, -1]))
F.soft_margin_loss(logits, torch.ones(4, 3), reduction='none')
F.multilabel_margin_loss(logits, torch.tensor([[0, 1, -1], [2, -1, 0], [1, 2, 0], [-1, 0, 0]]), reduction='sum')
F.huber_loss(x, t, delta=-1.0)
F.smooth_l1_loss(x, t, beta=-0.5)
