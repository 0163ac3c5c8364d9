# Classification losses as tutorials print them: cross_entropy of logits and class indices,
# nll_loss of log-probabilities, mse_loss (batch sizes past ATen's cascade-sum step, ignored
# targets, reductions).
import torch
import torch.nn.functional as F
_ = torch.manual_seed(0)
logits = torch.randn(3, 5, requires_grad=True)
target = torch.tensor([1, 0, 4])
loss = F.cross_entropy(logits, target)
print(loss)
print(F.cross_entropy(logits, target, reduction="sum"))
print(F.cross_entropy(logits, target, reduction="none"))
log_probs = F.log_softmax(logits, dim=1)
print(F.nll_loss(log_probs, target))
big = torch.randn(40, 7)
labels = torch.randint(0, 7, (40,))
print(F.cross_entropy(big, labels))
print(F.cross_entropy(big, labels, reduction="sum"))
labels[3] = -100
print(F.cross_entropy(big, labels))
print(F.cross_entropy(torch.randn(300, 10), torch.randint(0, 10, (300,))))
one = torch.tensor([0.5, 2.0, -1.0])
print(F.cross_entropy(one, torch.tensor(1)))
pred = torch.linspace(0, 1, 17)
print(F.mse_loss(pred, torch.zeros(17)), F.mse_loss(pred, torch.ones(17), reduction="sum"))
print(F.mse_loss(pred, torch.ones(17), reduction="none")[:4])
try:
    F.cross_entropy(logits, torch.tensor([1, 0, 9]))
except IndexError as e:
    print("IndexError:", e)
