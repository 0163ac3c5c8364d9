import torch
import torch.nn as nn
class Bad(nn.Module):
    def __init__(self):
        self.fc = nn.Linear(2, 2)
        super().__init__()
Bad()
class NoForward(nn.Module):
    def __init__(self):
        super().__init__()
m = NoForward()
m(torch.ones(1))
class P(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(2))
p = P()
p.w = torch.zeros(2)
p.w = None
list(p.named_parameters())
p.register_buffer("w", torch.ones(1))
p.register_buffer("b", 3)
p.add_module("x", 3)
nn.Parameter(3)
nn.Parameter(torch.arange(3))
nn.Parameter(torch.arange(3), requires_grad=False)
