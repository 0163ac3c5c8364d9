import torch
x = torch.tensor(3.0)
y = torch.tensor(2.0)
x + y, x * y, x / y, x**y
x = torch.arange(3)
x
x[2]
len(x)
x.shape
A = torch.arange(6).reshape(3, 2)
A
A.T
A = torch.tensor([[1, 2, 3], [2, 0, 4], [3, 4, 5]])
A == A.T
torch.arange(24).reshape(2, 3, 4)
A = torch.arange(6, dtype=torch.float32).reshape(2, 3)
B = A.clone()
A, A + B
A * B
a = 2
X = torch.arange(24).reshape(2, 3, 4)
a + X, (a * X).shape
x = torch.arange(3, dtype=torch.float32)
x, x.sum()
A.shape, A.sum()
A.shape, A.sum(axis=0).shape
A.shape, A.sum(axis=1).shape
A.sum(axis=[0, 1]) == A.sum()
A.mean(), A.sum() / A.numel()
A.mean(axis=0), A.sum(axis=0) / A.shape[0]
sum_A = A.sum(axis=1, keepdims=True)
sum_A, sum_A.shape
A / sum_A
A.cumsum(axis=0)
y = torch.ones(3, dtype = torch.float32)
x, y, torch.dot(x, y)
torch.sum(x * y)
A.shape, x.shape, torch.mv(A, x), A@x
B = torch.ones(3, 4)
torch.mm(A, B), A@B
u = torch.tensor([3.0, -4.0])
torch.norm(u)
torch.abs(u).sum()
torch.norm(torch.ones((4, 9)))
