# 《动手学深度学习》4.8 数值稳定性和模型初始化
import torch

x = torch.arange(-8.0, 8.0, 0.5, requires_grad=True)
y = torch.sigmoid(x)
y.backward(torch.ones_like(x))
x.grad
x.grad.max(), x.grad.min()

_ = torch.manual_seed(0)
M = torch.normal(0, 1, size=(4, 4))
print('一个矩阵 \n', M)
for i in range(100):
    M = torch.mm(M, torch.normal(0, 1, size=(4, 4)))

print('乘以100个矩阵后\n', M.abs().max() > 1e10)

from torch import nn
w = torch.empty(3, 5)
nn.init.xavier_uniform_(w)
w2 = torch.empty(3, 5)
nn.init.xavier_normal_(w2, gain=nn.init.calculate_gain('relu'))
nn.init.calculate_gain('tanh'), nn.init.calculate_gain('leaky_relu', 0.2)
w3 = torch.empty(3, 5)
nn.init.kaiming_uniform_(w3, mode='fan_in', nonlinearity='relu')
w4 = torch.empty(3, 5)
nn.init.kaiming_normal_(w4, mode='fan_out')
w5 = torch.empty(3, 5)
nn.init.trunc_normal_(w5, std=0.02)
w5.abs().max() <= 2
