# 循环神经网络的显存：LSTM 为反向传播保存了什么？
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
lstm = nn.LSTM(8, 16, batch_first=True)
# LSTM 参数量：4 × (输入维度 × 隐藏维度 + 隐藏维度 × 隐藏维度 + 2 × 隐藏维度)
4 * (8 * 16 + 16 * 16 + 2 * 16), sum(p.numel() for p in lstm.parameters())
x = torch.randn(2, 5, 8)
out, (h, c) = lstm(x)
out.shape, h.shape
out.sum().backward()
# 普通 RNN：每个时间步一次矩阵乘法加 tanh
rnn = nn.RNN(8, 16, batch_first=True)
y, hn = rnn(x)
y.grad_fn.name()
# 推理时不保存中间结果
with torch.no_grad():
    y2, _ = rnn(x)
del y, hn
