squares = [i ** 2 for i in range(5)]
squares
t = torch.tensor(squares)
t
chunks = t.chunk(2)
[c.shape for c in chunks]
sum(c.numel() for c in chunks)
max(t.tolist()), min(t.tolist())
sizes = [x.size(0) for x in torch.split(torch.arange(10), 3)]
sizes
evens = torch.tensor([x for x in range(10) if x % 2 == 0])
evens
len(evens)
isinstance(evens, torch.Tensor)
type(evens)
abs(-3), round(2.567, 2), int(3.9), float(2), bool(0), str(7)
list(torch.arange(3))
tuple(t.shape)
stacked = torch.stack([torch.full((2,), i) for i in range(3)])
stacked
stacked.stride()
