import torch
from torch import nn
from torch.utils.data import TensorDataset, DataLoader

# d2l 3.3 线性回归的简洁实现
_ = torch.manual_seed(42)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
features = torch.normal(0, 1, (100, 2))
labels = torch.matmul(features, true_w) + true_b
labels += torch.normal(0, 0.01, labels.shape)
labels = labels.reshape((-1, 1))
dataset = TensorDataset(features, labels)
data_iter = DataLoader(dataset, batch_size=10, shuffle=True)
print(len(dataset), len(data_iter))
X, y = next(iter(data_iter))
print(X.shape, y.shape)
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
num_epochs = 3
for epoch in range(num_epochs):
    for X, y in data_iter:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f'epoch {epoch + 1}, loss {l:f}')
w = net[0].weight.data
print('w的估计误差：', true_w - w.reshape(true_w.shape))
b = net[0].bias.data
print('b的估计误差：', true_b - b)
