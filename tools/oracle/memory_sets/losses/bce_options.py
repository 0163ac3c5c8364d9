import torch
import torch.nn as nn
import torch.nn.functional as F

targets = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
scores = torch.tensor([[0.3, -1.2], [2.0, 0.1], [-0.5, 0.7]], requires_grad=True)
pw = torch.tensor([2.0, 1.0])
bce = F.binary_cross_entropy_with_logits(scores, targets, pos_weight=pw)
bce
bce.grad_fn.name()
bce.backward()
scores.grad
scores.grad = None
crit = nn.BCEWithLogitsLoss(weight=torch.tensor([0.5, 2.0]), pos_weight=torch.tensor([3.0, 1.0]), reduction='sum')
l2 = crit(scores, targets)
l2
l2.backward()
scores.grad
scores.grad = None
probs = torch.sigmoid(scores)
l3 = F.binary_cross_entropy(probs, targets, weight=torch.tensor([1.0, 0.25]))
l3
l3.backward()
scores.grad
F.binary_cross_entropy_with_logits(scores, targets, reduction='none', pos_weight=pw)
