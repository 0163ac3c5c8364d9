# Activation (gradient) checkpointing over a stack of 20 Linear layers:
# torch.utils.checkpoint trades compute for memory; the gradients are the same.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

_ = torch.manual_seed(0)
layers = nn.Sequential(*[nn.Sequential(nn.Linear(16, 16), nn.Tanh()) for _ in range(20)])
x = torch.randn(4, 16, requires_grad=True)

# plain forward/backward
out = layers(x)
out.sum().backward()
g_plain = x.grad.clone()
w_grad_plain = layers[0][0].weight.grad.clone()
layers.zero_grad()
x.grad = None


class CheckpointedStack(nn.Module):
    def __init__(self, blocks):
        super().__init__()
        self.blocks = blocks

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False)
        return x


model = CheckpointedStack(layers)
out2 = model(x)
out2.grad_fn.name()
out2.sum().backward()
g_ckpt = x.grad
torch.allclose(g_plain, g_ckpt), torch.allclose(w_grad_plain, layers[0][0].weight.grad)
torch.equal(out, out2)

# checkpoint_sequential: 4 segments
layers.zero_grad()
x.grad = None
out3 = checkpoint_sequential(layers, 4, x, use_reentrant=False)
out3.sum().backward()
g_seq = x.grad
torch.allclose(g_plain, g_seq)
