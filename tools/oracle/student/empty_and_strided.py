e = torch.empty(2, 3)
e.shape, e.stride()
e.fill_(1)
el = torch.empty_like(e)
el.shape
s = torch.empty_strided((2, 3), (1, 2))
s.stride()
s.is_contiguous()
s.untyped_storage().nbytes()
s.copy_(torch.arange(6).reshape(2, 3))
s
s.t().is_contiguous()
t = torch.empty(0)
t.shape
t.numel()
torch.empty(2, 3, dtype=torch.int64).zero_()
torch.empty((2, 2), dtype=torch.bool).fill_(True)
torch.empty(-1)
