# d2l's linear regression from scratch: in-place SGD under no_grad, y += noise, a number on the left of *
import random
import torch

def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))

_ = torch.manual_seed(0)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 100)
features[0], labels[0]
w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
def linreg(X, w, b): return torch.matmul(X, w) + b
def squared_loss(y_hat, y): return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2
def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()
lr = 0.03
for epoch in range(3):
    for i in range(0, 100, 10):
        X, y = features[i:i + 10], labels[i:i + 10]
        l = squared_loss(linreg(X, w, b), y)
        l.sum().backward()
        sgd([w, b], lr, 10)
    with torch.no_grad():
        train_l = squared_loss(linreg(features, w, b), labels)
        print(f'epoch {epoch + 1}, loss {float(train_l.mean()):f}')
w, b
x = torch.arange(4.0); x.requires_grad_(True); y = 2 * torch.dot(x, x); y.backward(); x.grad
x.grad.zero_(); y = x.sum(); y.backward(); x.grad
x.grad.zero_(); y = x * x; u = y.detach(); z = u * x; z.sum().backward(); x.grad == u
