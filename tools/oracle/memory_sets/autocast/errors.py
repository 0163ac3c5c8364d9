import torch

x = torch.randn(2, 2)
with torch.autocast("cpu", dtype=torch.float32):
    y = x @ x
print(y.dtype)
with torch.autocast("cuda"):
    z = x @ x
print(z.dtype)
torch.autocast("tpu")
