# 刘二大人: 处理多维特征的输入 (糖尿病, random data), 多分类问题 (Softmax, CrossEntropyLoss, NLLLoss)
import numpy as np
import torch

_ = torch.manual_seed(0)
xy = np.array([[-0.29, 0.49, 0.18, -0.29, 0.0, 0.0, -0.53, -0.03, 0.0],
               [-0.88, -0.15, 0.08, -0.41, 0.0, -0.21, -0.77, -0.67, 1.0],
               [-0.06, 0.84, 0.05, 0.0, 0.0, -0.31, -0.49, -0.63, 0.0],
               [-0.88, -0.11, 0.08, -0.54, -0.78, -0.16, -0.92, 0.0, 1.0]], dtype=np.float32)
x_data = torch.from_numpy(xy[:, :-1])
y_data = torch.from_numpy(xy[:, [-1]])
x_data.shape, y_data.shape


class Model(torch.nn.Module):
    def __init__(self):
        super(Model, self).__init__()
        self.linear1 = torch.nn.Linear(8, 6)
        self.linear2 = torch.nn.Linear(6, 4)
        self.linear3 = torch.nn.Linear(4, 1)
        self.sigmoid = torch.nn.Sigmoid()  # 将其看作是网络的一层，而不是简单的函数使用

    def forward(self, x):
        x = self.sigmoid(self.linear1(x))
        x = self.sigmoid(self.linear2(x))
        x = self.sigmoid(self.linear3(x))
        return x


model = Model()
criterion = torch.nn.BCELoss(reduction='mean')
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    y_pred = model(x_data)
    loss = criterion(y_pred, y_data)
    print(epoch, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

y = np.array([1, 0, 0])
z = np.array([0.2, 0.1, -0.1])
y_pred = np.exp(z) / np.exp(z).sum()
loss = (- y * np.log(y_pred)).sum()
print(loss)

y = torch.LongTensor([0])
z = torch.Tensor([[0.2, 0.1, -0.1]])
criterion = torch.nn.CrossEntropyLoss()
loss = criterion(z, y)
print(loss)

criterion = torch.nn.CrossEntropyLoss()
Y = torch.LongTensor([2, 0, 1])
Y_pred1 = torch.Tensor([[0.1, 0.2, 0.9],
                        [1.1, 0.1, 0.2],
                        [0.2, 2.1, 0.1]])
Y_pred2 = torch.Tensor([[0.8, 0.2, 0.3],
                        [0.2, 0.3, 0.5],
                        [0.2, 0.2, 0.5]])
l1 = criterion(Y_pred1, Y)
l2 = criterion(Y_pred2, Y)
print("Batch Loss1 = ", l1.data, "\nBatch Loss2=", l2.data)
log_softmax = torch.nn.LogSoftmax(dim=1)
nll = torch.nn.NLLLoss()
nll(log_softmax(Y_pred1), Y)


class Net(torch.nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.l1 = torch.nn.Linear(16, 12)
        self.l2 = torch.nn.Linear(12, 8)
        self.l3 = torch.nn.Linear(8, 10)

    def forward(self, x):
        x = x.view(-1, 16)
        x = torch.nn.functional.relu(self.l1(x))
        x = torch.nn.functional.relu(self.l2(x))
        return self.l3(x)


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
inputs = torch.rand(3, 1, 4, 4)
target = torch.tensor([3, 1, 4])
outputs = model(inputs)
_, predicted = torch.max(outputs.data, dim=1)
predicted
(predicted == target).sum().item()
