# 《动手学深度学习》4.5 权重衰减 (scratch and concise; 20 training examples, 20 inputs)
import torch
from torch import nn

_ = torch.manual_seed(1)
n_train, n_test, num_inputs, batch_size = 20, 10, 20, 5
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05
X = torch.normal(0, 1, (n_train, num_inputs))
y = torch.matmul(X, true_w) + true_b
y += torch.normal(0, 0.01, y.shape)


def init_params():
    w = torch.normal(0, 1, size=(num_inputs, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    return [w, b]


def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


w, b = init_params()
lambd = 3
for epoch in range(5):
    for i in range(0, n_train, batch_size):
        Xb, yb = X[i:i + batch_size], y[i:i + batch_size]
        l = squared_loss(linreg(Xb, w, b), yb) + lambd * l2_penalty(w)
        l.sum().backward()
        sgd([w, b], 0.003, batch_size)

print('w的L2范数是：', torch.norm(w).item())

wd = 3
net = nn.Sequential(nn.Linear(num_inputs, 1))
for param in net.parameters():
    param.data.normal_()
loss = nn.MSELoss(reduction='none')
num_epochs, lr = 5, 0.003
# 偏置参数没有衰减
trainer = torch.optim.SGD([
    {"params": net[0].weight, 'weight_decay': wd},
    {"params": net[0].bias}], lr=lr)
trainer
for epoch in range(num_epochs):
    for i in range(0, n_train, batch_size):
        Xb, yb = X[i:i + batch_size], y[i:i + batch_size]
        trainer.zero_grad()
        l = loss(net(Xb), yb)
        l.mean().backward()
        trainer.step()

print('w的L2范数：', net[0].weight.norm().item())
trainer.param_groups[0]['weight_decay'], trainer.param_groups[1]['weight_decay']
len(trainer.param_groups)
