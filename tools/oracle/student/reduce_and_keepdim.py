x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
x.sum()
x.sum(dim=0)
x.sum(1, keepdim=True)
x.mean(dim=1)
x.amax(0)
x.max()
x.max(dim=1)
vals, idx = x.max(dim=1)
vals
idx
x.argmax()
x.cumsum(0)
x.prod(1)
x.std()
x.sort(descending=True, dim=1).values
x.topk(2).indices
(x > 5).all(), (x > 5).any()
x.sum(dim=2)
