i = torch.tensor([1, 2, 3])
i.dtype
i.mean()
i.float().mean()
i / 2
i // 2
i.add_(1.5)
i.add_(1)
f = torch.tensor([1.5, 2.5, 3.5])
f.dtype
i + f
torch.tensor([1, 2]) * 2.0
b = torch.tensor([True, False])
b + 1
b.sum()
i.view(torch.float32)
torch.tensor([[1, 2], [3]])
torch.tensor(3.7).int()
torch.tensor(3).item()
torch.ones(2, 3).item()
