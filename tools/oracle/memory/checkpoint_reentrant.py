# Gradient checkpointing (use_reentrant=True): the checkpointed block keeps only its
# input; its activations are recomputed during backward.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

_ = torch.manual_seed(0)
block = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
head = nn.Linear(32, 4)
x = torch.randn(8, 32, requires_grad=True)
h = block(x)
out = head(h)
out.sum().backward()
del h, out
x.grad = None
h = checkpoint(block, x, use_reentrant=True)
h.grad_fn.name()
out = head(h)
out.sum().backward()
x.grad.shape
block[0].weight.grad.shape
