# 在 meta 设备上"建"一个大模型：只有形状和字节数，没有数据
import torch
import torch.nn as nn

big = nn.Linear(512, 512, device="meta")
big.weight.device
# 参数量和字节数照样能算
sum(p.numel() for p in big.parameters())
sum(p.nbytes for p in big.parameters())
x = torch.randn(8, 512, device="meta")
y = big(x)
y.shape, y.device
small = nn.Linear(16, 4)
z = small(torch.randn(2, 16))
z.shape
