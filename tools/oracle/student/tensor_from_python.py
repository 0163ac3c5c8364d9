torch.tensor(5)
torch.tensor(5).shape
torch.tensor(5).dim()
torch.tensor(3.14)
torch.tensor([])
torch.tensor([[]]).shape
torch.tensor([1, 2.0])
torch.tensor([True, 1])
torch.tensor((1, 2, 3), dtype=torch.float64)
torch.as_tensor([1, 2, 3])
torch.as_tensor(7)
lst = [[1, 2], [3, 4]]
t = torch.tensor(lst)
lst[0][0] = 9
t
torch.zeros(2, 3, dtype=torch.int32)
torch.ones((2,), dtype=torch.bool)
torch.full((2, 2), 7)
torch.full((2, 2), 0.5)
torch.arange(0, 1, 0.25)
torch.arange(5, 0, -1)
torch.linspace(0, 1, 5)
torch.eye(3)
torch.zeros_like(t, dtype=torch.float32)
torch.ones_like(t).stride()
