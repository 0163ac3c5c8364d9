# 《动手学深度学习》4.3 多层感知机的简洁实现 (hidden 32, 4x4 random images)
import torch
from torch import nn

_ = torch.manual_seed(0)
net = nn.Sequential(nn.Flatten(),
                    nn.Linear(16, 32),
                    nn.ReLU(),
                    nn.Linear(32, 10))


def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
batch_size, lr, num_epochs = 8, 0.1, 3
loss = nn.CrossEntropyLoss(reduction='none')
trainer = torch.optim.SGD(net.parameters(), lr=lr)
X = torch.rand(batch_size, 1, 4, 4)
y = torch.randint(0, 10, (batch_size,))
for epoch in range(num_epochs):
    trainer.zero_grad()
    l = loss(net(X), y)
    l.mean().backward()
    trainer.step()

l
# 4.1 多层感知机: 激活函数
x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
y = torch.relu(x)
y.backward(torch.ones_like(x), retain_graph=True)
x.grad[75:85]
y = torch.sigmoid(x)
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
x.grad[78:82]
y = torch.tanh(x)
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
x.grad[78:82]
