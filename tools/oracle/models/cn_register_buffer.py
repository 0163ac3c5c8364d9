# 博客：register_buffer 和 nn.Parameter 的区别
# buffer 会出现在 state_dict 里、会跟着 model.to() 走，但不会被 optimizer 更新
import torch
import torch.nn as nn


class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3, 3))      # 参数：有梯度，会被优化
        self.register_buffer("running", torch.zeros(3))    # buffer：保存在 state_dict
        self.register_buffer("tmp", torch.ones(2), persistent=False)  # 不保存
        self.plain = torch.ones(3)                          # 普通属性：什么都不是

    def forward(self, x):
        self.running.add_(x.mean(0).detach())
        return x @ self.weight


_ = torch.manual_seed(0)
m = MyModule()
print([n for n, _ in m.named_parameters()])
print([n for n, _ in m.named_buffers()])
print(list(m.state_dict().keys()))

x = torch.randn(4, 3)
y = m(x)
running = m.running
m.running.requires_grad, m.weight.requires_grad

opt = torch.optim.SGD(m.parameters(), lr=0.1)
y.sum().backward()
opt.step()
w = m.weight
m(x).shape
running

m.half()
running = m.running
plain = m.plain
m.weight.dtype, m.running.dtype, m.plain.dtype, m.tmp.dtype

# 把 buffer 设成 None / 重复注册
m.register_buffer("running", None)
m.running is None
m.register_buffer("weight", torch.zeros(1))
m.register_buffer("a.b", torch.zeros(1))
m.state_dict()
