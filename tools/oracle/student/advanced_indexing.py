x = torch.arange(12).reshape(3, 4)
x[[0, 2]]
x[[0, 2]].data_ptr() == x.data_ptr()
x[:, [1, 3]]
x[[0, 1, 2], [3, 2, 1]]
idx = torch.tensor([2, 0])
x[idx]
x[idx].stride()
mask = x > 5
mask
x[mask]
x[x % 2 == 0]
y = x.clone()
y[mask] = 0
y
y[[0, 2]] = torch.tensor([7, 7, 7, 7])
y
y[[0, 2]] = torch.tensor([1, 2])
y[:, 0] = torch.tensor([-1, -2, -3])
y
y[y < 0] = torch.tensor(100)
y
x[torch.tensor([True, False, True])]
x[[True, False]]
x[5, 0]
