import torch
import torch.nn as nn
import torch.nn.functional as F

# 知识蒸馏：学生模型的 log-softmax 与教师模型的概率之间的 KL 散度
_ = torch.manual_seed(1)
student_logits = torch.randn(4, 10, requires_grad=True)
teacher_logits = torch.randn(4, 10)
T = 2.0
log_p = F.log_softmax(student_logits / T, dim=1)
q = F.softmax(teacher_logits / T, dim=1)
kl = nn.KLDivLoss(reduction='batchmean')
kl
loss = kl(log_p, q) * T * T
loss
loss.grad_fn.name()
loss.backward()
student_logits.grad.abs().sum()
F.kl_div(log_p, q)
F.kl_div(log_p, q, reduction='sum')
pointwise = F.kl_div(log_p, q, reduction='none')
pointwise.shape, pointwise.grad_fn.name()
log_q = F.log_softmax(teacher_logits / T, dim=1)
kl_log = nn.KLDivLoss(reduction='batchmean', log_target=True)
kl_log.log_target
torch.allclose(kl_log(log_p, log_q), kl(log_p, q))
F.kl_div(log_p, log_q, log_target=True, reduction='none').sum(dim=1)
F.kl_div(log_p, q, reduce=False).shape
F.kl_div(log_p, q, reduction='batch')
F.kl_div(log_p, torch.ones(4, 10, dtype=torch.long))
student_logits.grad = None
loss2 = F.kl_div(F.log_softmax(student_logits, dim=1), q, reduction='batchmean')
loss2.backward()
student_logits.grad[0]
