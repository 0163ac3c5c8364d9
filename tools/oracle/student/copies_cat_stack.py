a = torch.arange(4).reshape(2, 2)
b = torch.arange(4, 8).reshape(2, 2)
torch.cat([a, b])
torch.cat((a, b), dim=1)
torch.concat([a, b], dim=-1).stride()
s = torch.stack([a, b])
s.shape
torch.stack([a, b], dim=2).shape
torch.hstack([a, b])
torch.vstack([a, b])
torch.dstack([a, b]).shape
torch.column_stack([torch.tensor([1, 2]), torch.tensor([3, 4])])
c = torch.cat([a.t(), b])
c.is_contiguous()
out = torch.empty(4, 2, dtype=torch.int64)
torch.cat([a, b], out=out)
out
torch.cat([a, b.float()])
torch.cat([])
