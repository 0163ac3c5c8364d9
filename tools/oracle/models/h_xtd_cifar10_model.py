# 小土堆: CIFAR10 模型 (nn.Sequential), 检查网络正确性, 参数量, 优化器
import torch
from torch import nn
from torch.nn import Conv2d, MaxPool2d, Flatten, Linear, Sequential


class Tudui(nn.Module):
    def __init__(self):
        super(Tudui, self).__init__()
        self.model1 = Sequential(
            Conv2d(3, 32, 5, padding=2),
            MaxPool2d(2),
            Conv2d(32, 32, 5, padding=2),
            MaxPool2d(2),
            Conv2d(32, 64, 5, padding=2),
            MaxPool2d(2),
            Flatten(),
            Linear(1024, 64),
            Linear(64, 10)
        )

    def forward(self, x):
        x = self.model1(x)
        return x


_ = torch.manual_seed(0)
tudui = Tudui()
print(tudui)
input = torch.ones((2, 3, 32, 32))
output = tudui(input)
print(output.shape)
total = sum([param.nelement() for param in tudui.parameters()])
print("Number of parameter: %.2fM" % (total / 1e6))
print(total)
loss_fn = nn.CrossEntropyLoss()
learning_rate = 1e-2
optimizer = torch.optim.SGD(tudui.parameters(), lr=learning_rate)
targets = torch.tensor([1, 7])
tudui.train()
outputs = tudui(input)
loss = loss_fn(outputs, targets)
optimizer.zero_grad()
loss.backward()
optimizer.step()
print("训练次数：{}, Loss: {}".format(1, loss.item() > 0))
tudui.eval()
total_accuracy = 0
with torch.no_grad():
    outputs = tudui(input)
    accuracy = (outputs.argmax(1) == targets).sum()
    total_accuracy = total_accuracy + accuracy

total_accuracy
outputs.argmax(1)
print(tudui.model1[0])
tudui.model1[7].weight.shape
