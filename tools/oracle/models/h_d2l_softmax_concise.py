# 《动手学深度学习》3.7 softmax回归的简洁实现 (4x4 random images)
import torch
from torch import nn

_ = torch.manual_seed(42)
# PyTorch不会隐式地调整输入的形状。因此，
# 我们在线性层前定义了展平层（flatten），来调整网络输入的形状
net = nn.Sequential(nn.Flatten(), nn.Linear(16, 10))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=0.1)
trainer
X = torch.rand(6, 1, 4, 4)
y = torch.tensor([0, 3, 9, 1, 1, 7])
for epoch in range(3):
    trainer.zero_grad()
    l = loss(net(X), y)
    l.mean().backward()
    trainer.step()
    print(epoch, l.mean().item() > 0)

l
net[1].weight.shape, net[1].bias
net(X).argmax(dim=1)
nn.CrossEntropyLoss()(net(X), y)
