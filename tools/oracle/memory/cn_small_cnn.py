# 入门 CNN：Conv2d -> BatchNorm2d -> ReLU -> MaxPool2d -> Linear
# 看看卷积网络训练一步时，参数、buffer、激活各占多少
import torch
import torch.nn as nn
import torch.nn.functional as F

_ = torch.manual_seed(0)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn(self.conv(x))))
        x = x.flatten(1)
        return self.fc(x)


model = SmallCNN()
# BatchNorm 的 running_mean / running_var 是 buffer，不是参数
[name for name, _ in model.named_buffers()]
imgs = torch.randn(4, 3, 16, 16)
labels = torch.tensor([1, 0, 3, 9])
out = model(imgs)
loss = F.cross_entropy(out, labels)
loss.backward()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
opt.step()
opt.zero_grad()
# 评估模式：BatchNorm 使用 running 统计量
model.eval()
with torch.no_grad():
    pred = model(imgs).argmax(1)
pred
