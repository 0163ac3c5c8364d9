# 《动手学深度学习》 4.2 多层感知机的从零开始实现 (small random data instead of Fashion-MNIST:
# 4x4 "images", 8 hidden units, 4 classes)
import torch
from torch import nn

_ = torch.manual_seed(0)
num_inputs, num_outputs, num_hiddens = 16, 4, 8

W1 = nn.Parameter(torch.randn(
    num_inputs, num_hiddens, requires_grad=True) * 0.01)
b1 = nn.Parameter(torch.zeros(num_hiddens, requires_grad=True))
W2 = nn.Parameter(torch.randn(
    num_hiddens, num_outputs, requires_grad=True) * 0.01)
b2 = nn.Parameter(torch.zeros(num_outputs, requires_grad=True))

params = [W1, b1, W2, b2]


# 激活函数
def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)


# 模型
def net(X):
    X = X.reshape((-1, num_inputs))
    H = relu(X@W1 + b1)  # 这里“@”代表矩阵乘法
    return (H@W2 + b2)


# 损失函数
loss = nn.CrossEntropyLoss(reduction='none')

# 训练
num_epochs, lr = 10, 0.1
updater = torch.optim.SGD(params, lr=lr)

train_iter = [(torch.randn(8, 1, 4, 4), torch.randint(0, 4, (8,))) for _ in range(3)]
for epoch in range(num_epochs):
    total, n = 0.0, 0
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)
        updater.zero_grad()
        l.mean().backward()
        updater.step()
        total += float(l.sum())
        n += y.numel()
    if epoch % 3 == 0:
        print(f'epoch {epoch + 1}, loss {total / n:.4f}')

relu(torch.tensor([-1.0, 0.0, 2.0]))
y_hat.argmax(axis=1)
b2
