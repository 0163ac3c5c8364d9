x = torch.arange(1., 8)
x.unfold(0, 2, 1)
x.unfold(0, 2, 2)
w = x.unfold(0, 3, 2)
w.stride()
w[0, 0] = 100
x
m = torch.arange(9).reshape(3, 3)
d = m.diagonal()
d
d.stride()
d.storage_offset()
m.diagonal(offset=1)
torch.diagonal(m, -1).stride()
d += 100
m
s = torch.as_strided(m, (2, 2), (3, 1), 1)
s
s.is_contiguous()
torch.as_strided(m, (3, 3), (0, 1))
torch.as_strided(m, (4, 4), (4, 1))
m.narrow(0, 1, 2)
m.narrow(1, 1, 5)
