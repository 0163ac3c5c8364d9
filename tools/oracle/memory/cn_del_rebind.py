# 变量的引用计数：del 或重新赋值后，张量才会被释放
import torch

a = torch.zeros(1000)
b = a
# 只删掉一个名字，存储还在
del a
b.sum()
# 重新赋值：旧的存储被释放
b = torch.ones(500)
c = b[:100]
# 切片是视图，共享整个存储
del b
c.untyped_storage().nbytes()
c = c.clone()
c.untyped_storage().nbytes()
lst = [torch.randn(100) for _ in range(3)]
lst.pop()
lst = None
d = {"w": torch.randn(50, 50)}
d["w"] = torch.randn(10)
del d
x = torch.randn(200)
x = x * 2
x = x + 1
