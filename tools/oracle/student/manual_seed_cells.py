_ = torch.manual_seed(0)
torch.rand(2, 3)
torch.randn(3)
g = torch.manual_seed(0)
a = torch.rand(2, 3)
a
torch.randint(0, 10, (3,))
torch.randperm(5)
torch.initial_seed()
generator = torch.manual_seed(42)
b = torch.randn(2, 2)
b
torch.randint(5, (2, 2))
