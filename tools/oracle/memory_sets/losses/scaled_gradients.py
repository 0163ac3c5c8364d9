import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(3)
x = torch.randn(4, 3, requires_grad=True)
y = torch.rand(4, 3)
w = torch.rand(3) * 2
pw = torch.rand(3) * 3
loss = F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw, reduction='sum')
(loss * 3.7).backward()
x.grad
x.grad = None
loss = F.binary_cross_entropy_with_logits(x, y, weight=w)
(loss * 0.3).backward()
x.grad
x.grad = None
p = torch.sigmoid(x)
loss = F.binary_cross_entropy(p, y, weight=w.expand(4, 3), reduction='sum')
(loss / 7).backward()
x.grad
x.grad = None
crit = nn.CrossEntropyLoss(label_smoothing=0.25, reduction='sum')
labels = torch.tensor([0, 2, 1, 2])
loss = crit(x, labels)
(loss * 1.9).backward()
x.grad
with torch.no_grad():
    F.binary_cross_entropy_with_logits(x, y, pos_weight=pw, reduction='none')
