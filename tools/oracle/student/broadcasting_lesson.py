a = torch.arange(3).view(3, 1)
b = torch.arange(4)
a + b
(a + b).shape
a * b
c = torch.broadcast_to(b, (3, 4))
c.stride()
c.is_contiguous()
x = torch.ones(2, 3)
y = torch.tensor([10, 20, 30])
x + y
x += y
x
y += x
x + torch.ones(2)
torch.ones(3, 1, 2) + torch.ones(4, 1)
(torch.ones(3, 1, 2) + torch.ones(4, 1)).shape
