x = torch.rand(3)
x
y = torch.randn(2, 3)
y
torch.initial_seed()
z = torch.randint(0, 9, (5,3))
p = torch.randperm(6)
p
u = torch.empty(4).uniform_(-1, 1)
u
n = torch.empty(2, 2).normal_(mean=0.0, std=2.0)
n
r = torch.zeros(5, dtype=torch.int64).random_(0, 10)
r
torch.rand_like(y)
torch.randn_like(y)
torch.randint_like(z, 100)
