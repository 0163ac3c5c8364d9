import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)
logits = torch.randn(4, 5, requires_grad=True)
labels = torch.tensor([1, 0, 4, 2])
w = torch.tensor([1.0, 2.0, 1.0, 1.0, 0.5])
loss_w = F.cross_entropy(logits, labels, weight=w)
loss_w
loss_w.backward()
logits.grad
logits.grad = None
loss_ls = F.cross_entropy(logits, labels, label_smoothing=0.1)
loss_ls
loss_ls.grad_fn.name()
loss_ls.backward()
logits.grad
logits.grad = None
crit = nn.CrossEntropyLoss(weight=w, label_smoothing=0.2)
loss = crit(logits, labels)
loss
loss.backward()
logits.grad
logits.grad = None
ignored = torch.tensor([1, -100, 4, 2])
F.cross_entropy(logits, ignored, weight=w, reduction='sum')
F.cross_entropy(logits, ignored, label_smoothing=0.3, reduction='none')
F.nll_loss(F.log_softmax(logits, dim=1), labels, weight=w)
nn.NLLLoss(weight=w, reduction='none')(F.log_softmax(logits, dim=1), labels)
try:
    F.cross_entropy(logits, labels, weight=torch.ones(3))
except RuntimeError as e:
    print(e)
