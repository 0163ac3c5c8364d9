import torch
import torch.nn as nn
import torch.nn.functional as F

# 回归任务里常见的稳健损失：SmoothL1 / Huber
_ = torch.manual_seed(0)
pred = torch.randn(8, 3, requires_grad=True)
target = torch.randn(8, 3)
loss_fn = nn.SmoothL1Loss()
loss_fn
loss = loss_fn(pred, target)
loss
loss.grad_fn.name()
loss.backward()
pred.grad
pred.grad = None
huber = nn.HuberLoss(delta=0.5, reduction='sum')
huber, huber.delta, huber.reduction
out = huber(pred, target)
out.backward()
pred.grad.sum()
F.smooth_l1_loss(pred, target, beta=0.2, reduction='none')
F.huber_loss(pred, target, reduction='none').shape
nn.SmoothL1Loss(size_average=False)(pred, target)
nn.HuberLoss(delta='1.0')
# 泊松回归：计数数据
rate_log = torch.randn(6, requires_grad=True)
counts = torch.tensor([0., 1., 3., 2., 5., 1.])
poisson = nn.PoissonNLLLoss()
poisson
p_loss = poisson(rate_log, counts)
p_loss
p_loss.backward()
rate_log.grad
F.poisson_nll_loss(rate_log.exp(), counts, log_input=False, full=True)
F.poisson_nll_loss(rate_log, counts, reduction='none')
F.poisson_nll_loss(rate_log, counts, reduction='avg')
# 高斯负对数似然：网络同时预测均值和方差
mu = torch.randn(5, 2, requires_grad=True)
var = torch.rand(5, 2) + 0.1
y = torch.randn(5, 2)
gnll = nn.GaussianNLLLoss()
g_loss = gnll(mu, y, var)
g_loss
g_loss.backward()
mu.grad
shared_var = torch.rand(5, 1) + 0.5
F.gaussian_nll_loss(mu, y, shared_var, full=True, reduction="sum")
F.gaussian_nll_loss(mu, y, var[:, 0])
F.gaussian_nll_loss(mu, y, -var)
F.gaussian_nll_loss(mu, y, torch.ones(3, 2))
