a = torch.arange(16.0).reshape(4, 4)
torch.hsplit(a, 2)
torch.vsplit(a, [1, 3])
torch.tensor_split(a, 3)
torch.tensor_split(a, (1, 2), dim=1)
parts = a.chunk(2)
for p in parts:
    print(p.shape, p.storage_offset(), p.is_contiguous())
cube = torch.arange(8).reshape(2, 2, 2)
torch.dsplit(cube, 2)
torch.dsplit(a, 2)
pieces = list(torch.split(a, 3))
[p.shape for p in pieces]
