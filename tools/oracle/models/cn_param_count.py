# 博客：PyTorch 模型参数量怎么算？
# Conv2d: Cin × Cout × K × K + Cout（偏置）; Linear: in × out + out;
# BatchNorm: 2N 个可学习参数（weight 和 bias），running_mean/var 是 buffer 不算参数;
# Embedding: N × W
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
conv = nn.Conv2d(3, 64, kernel_size=3)
print(conv.weight.shape, conv.bias.shape)
print(3 * 64 * 3 * 3 + 64, sum(p.numel() for p in conv.parameters()))

fc = nn.Linear(128, 10)
print(128 * 10 + 10, sum(p.numel() for p in fc.parameters()))

bn = nn.BatchNorm2d(64)
print(2 * 64, sum(p.numel() for p in bn.parameters()))
print([name for name, _ in bn.named_buffers()])

emb = nn.Embedding(1000, 32)
print(1000 * 32, emb.weight.numel())


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, bias=False),
            nn.BatchNorm2d(32),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


model = SmallCNN()
total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"总参数量: {total}, 可训练参数量: {trainable}")

# 逐层打印
for name, param in model.named_parameters():
    print(f"{name:<28} {str(list(param.shape)):<18} {param.numel()}")

# 冻结特征提取部分后再统计
for p in model.features.parameters():
    p.requires_grad = False
print("可训练参数量:", sum(p.numel() for p in model.parameters() if p.requires_grad))

# 参数占用的内存（float32 每个 4 字节）
print(f"{total * 4 / 1024:.2f} KB")
sum(p.numel() * p.element_size() for p in model.parameters()), sum(b.numel() for b in model.buffers())
x = torch.randn(2, 3, 8, 8)
model(x).shape
