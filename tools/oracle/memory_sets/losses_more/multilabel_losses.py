import torch
import torch.nn as nn
import torch.nn.functional as F

# 多标签分类：每张图片可以同时属于多个类别
_ = torch.manual_seed(3)
model = nn.Linear(6, 4)
x = torch.randn(5, 6)
scores = model(x)
multi_hot = torch.tensor([[1., 0., 1., 0.], [0., 1., 0., 0.], [1., 1., 1., 0.], [0., 0., 0., 1.], [0., 1., 1., 0.]])
criterion = nn.MultiLabelSoftMarginLoss()
criterion
loss = criterion(scores, multi_hot)
loss
loss.backward()
model.weight.grad
class_weight = torch.tensor([1.0, 2.0, 0.5, 1.0])
weighted = nn.MultiLabelSoftMarginLoss(weight=class_weight)
weighted.weight
weighted(scores.detach(), multi_hot)
F.multilabel_soft_margin_loss(scores.detach(), multi_hot, reduction='none')
# 多类别铰链损失 (SVM)
model.zero_grad()
labels = torch.tensor([2, 0, 1, 3, 1])
svm = nn.MultiMarginLoss()
svm
svm_loss = svm(model(x), labels)
svm_loss
svm_loss.grad_fn.name()
svm_loss.backward()
model.bias.grad
logits = torch.randn(5, 4, requires_grad=True)
sq = F.multi_margin_loss(logits, labels, p=2, margin=0.5, weight=class_weight, reduction='none')
sq
sq.grad_fn._saved_p, sq.grad_fn._saved_margin
sq.sum().backward()
logits.grad
F.multi_margin_loss(logits, labels, reduction='sum')
nn.MultiMarginLoss(p=3)
F.multi_margin_loss(logits, labels[:3])
F.multi_margin_loss(logits, torch.tensor([0, 1, 2, 4, 1]))
# 多标签间隔损失：目标是类别索引，以 -1 结束
logits.grad = None
index_target = torch.tensor([[2, 0, -1, 0], [1, -1, 0, 0], [0, 1, 2, -1], [3, -1, 0, 0], [1, 2, -1, 0]])
mlm = nn.MultiLabelMarginLoss()
mlm_loss = mlm(logits, index_target)
mlm_loss
mlm_loss.grad_fn.name()
mlm_loss.backward()
logits.grad
F.multilabel_margin_loss(logits, index_target, reduction='none')
F.multilabel_margin_loss(logits, index_target[:2])
F.multilabel_margin_loss(logits, index_target + 2)
