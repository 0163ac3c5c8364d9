scores = torch.tensor([[0.2, 0.9, 0.4], [0.7, 0.1, 0.8]])
mask = scores > 0.5
mask.dtype
scores.masked_fill(mask, 0.0)
scores
scores.masked_fill_(~mask, -1.0)
scores
torch.where(mask, scores, torch.zeros_like(scores))
torch.where(scores > 0, 1, 0)
torch.where(mask)
x = torch.tensor([3.0, -1.0, 2.0])
torch.where(x > 0, x, 0.0)
x.masked_fill(torch.tensor([True, False, True]), float("inf"))
x.masked_fill(torch.tensor([True, False]), 0.0)
