# 博客：ReLU(inplace=True) 真的能省显存吗？
# 同一个网络，对比 nn.ReLU() 和 nn.ReLU(inplace=True)：前向结束后常驻内存一样，峰值不同
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
net_a = nn.Sequential(nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 10))
net_b = nn.Sequential(nn.Linear(100, 200), nn.ReLU(inplace=True), nn.Linear(200, 10))
x = torch.randn(64, 100)
# 普通 ReLU：线性层的输出和 ReLU 的输出同时存在
out_a = net_a(x)
# inplace ReLU：直接改写线性层的输出
out_b = net_b(x)
out_a.grad_fn.next_functions[0][0].name()
# 两个网络都保存了 ReLU 的结果，用于反向传播
out_a.sum().backward()
out_b.sum().backward()
# 单独使用 inplace 激活
h = torch.randn(8, 20)
r = nn.ReLU(inplace=True)
h2 = r(h)
h2.data_ptr() == h.data_ptr()
