# checkpoint(use_reentrant=True): the output's node is CheckpointFunctionBackward, which
# saves the inputs and runs the forward again in backward; gradients equal the plain ones,
# also through dropout (the generator's state is restored for the recomputation).
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

_ = torch.manual_seed(0)
lin1 = nn.Linear(6, 8)
lin2 = nn.Linear(8, 3)


def block(x, scale):
    h = torch.tanh(lin1(x))
    h = F.dropout(h, p=0.3, training=True)
    return lin2(h) * scale


x = torch.randn(4, 6, requires_grad=True)
_ = torch.manual_seed(5)
plain = block(x, 2.0)
plain.sum().backward()
gx, gw = x.grad.clone(), lin1.weight.grad.clone()
x.grad = None
lin1.zero_grad()
lin2.zero_grad()
_ = torch.manual_seed(5)
out = checkpoint(block, x, 2.0, use_reentrant=True)
out.grad_fn.name()
out.requires_grad, out.is_leaf
torch.equal(out, plain)
after_forward = torch.rand(2)
out.sum().backward()
torch.allclose(x.grad, gx), torch.allclose(lin1.weight.grad, gw)
after_backward = torch.rand(2)
out.sum().backward()
y = torch.randn(4, 6)
z = checkpoint(block, y, 1.0, use_reentrant=True)
z.requires_grad, z.grad_fn
checkpoint(block, x, 1.0, use_reentrant=True, scale=3)
