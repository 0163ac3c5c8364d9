x = torch.tensor([[1], [2], [3]])
x.size()
y = x.expand(3, 4)
y
y.stride()
y.is_contiguous()
y.storage().size()
z = x.expand(-1, 4)
z.shape
y[0, 0] = 10
x
y.add_(1)
w = y.contiguous()
w.stride()
w.add_(1)
v = torch.tensor([1, 2, 3]).expand(2, 3)
v.stride()
x.expand(4, 2)
