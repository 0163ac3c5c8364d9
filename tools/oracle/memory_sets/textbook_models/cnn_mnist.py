import torch
import torch.nn as nn
import torch.nn.functional as F

# 刘二大人 CNN: 两层卷积 + 池化 + 全连接, 在随机 "MNIST" 上训练几步
_ = torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.pooling = nn.MaxPool2d(2)
        self.fc = nn.Linear(320, 10)

    def forward(self, x):
        batch_size = x.size(0)
        x = F.relu(self.pooling(self.conv1(x)))
        x = F.relu(self.pooling(self.conv2(x)))
        x = x.view(batch_size, -1)
        x = self.fc(x)
        return x

model = Net()
print(model)
print(sum(p.numel() for p in model.parameters()))
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
inputs = torch.randn(8, 1, 28, 28)
target = torch.randint(0, 10, (8,))
for epoch in range(3):
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = criterion(outputs, target)
    loss.backward()
    optimizer.step()
    print('[%d] loss: %.3f' % (epoch + 1, loss.item()))
with torch.no_grad():
    outputs = model(inputs)
    _, predicted = torch.max(outputs.data, dim=1)
    correct = (predicted == target).sum().item()
print('accuracy on test set: %d %% ' % (100 * correct / target.size(0)))
predicted
