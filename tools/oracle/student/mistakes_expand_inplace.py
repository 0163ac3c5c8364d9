x = torch.zeros(3, 1)
e = x.expand(3, 4)
e += 1
e.fill_(2)
x
e.mul_(3)
x.expand(2, 4)
x.expand(3, 4, 1)
y = x.expand(1, 3, 4)
y.shape
big = x.repeat(1, 4)
big += 1
big.stride()
x.t().add_(1)
x
