# 博客：nn.Module 的 children()、modules()、named_modules()，ModuleList 和 ModuleDict
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, 3),
            nn.ReLU(),
        )
        self.heads = nn.ModuleDict({
            "cls": nn.Linear(4, 3),
            "reg": nn.Linear(4, 1),
        })
        self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])

    def forward(self, x):
        x = self.features(x).mean(dim=(2, 3))
        for blk in self.blocks:
            x = torch.relu(blk(x))
        return self.heads["cls"](x), self.heads["reg"](x)


_ = torch.manual_seed(0)
net = Net()
net

# children 只返回直接子模块
for name, child in net.named_children():
    print(name, type(child).__name__)

# modules 递归返回所有模块（包括自己）
print(len(list(net.modules())))
for name, m in net.named_modules():
    print(repr(name), m.__class__.__name__)

cls_out, reg_out = net(torch.randn(2, 1, 5, 5))
cls_out.shape, reg_out.shape

net.blocks.append(nn.Linear(4, 4))
len(net.blocks), len(list(net.parameters()))
net.heads.keys()
"cls" in net.heads
net.blocks[-1]
net.get_submodule("heads.reg")
w = net.get_parameter("blocks.0.weight")
net.get_submodule("heads.xyz")
net.features[0].weight.shape
net.extra_repr()
