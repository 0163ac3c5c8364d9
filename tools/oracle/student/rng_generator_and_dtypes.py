_ = torch.manual_seed(1234)
torch.rand(2, dtype=torch.float64)
torch.randn(2, dtype=torch.float64)
torch.randint(-5, 5, (4,), dtype=torch.int32)
torch.randperm(4, dtype=torch.int32)
torch.rand(3, dtype=torch.float16)
torch.randn(4).half()
torch.rand(2, 2) < 0.5
torch.randn(10).mean()
torch.randn(100).std() > 0
