# Mixed precision in one picture: float16 and bfloat16 halve every tensor's bytes.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 8))
x = torch.randn(4, 64)
sum(p.nbytes for p in model.parameters())
out32 = model(x)
out32.nbytes
model = model.half()
sum(p.nbytes for p in model.parameters())
model[0].weight.dtype
xh = x.half()
x.nbytes, xh.nbytes
with torch.no_grad():
    out16 = model(xh)
out16.dtype, out16.nbytes
mb = nn.Linear(64, 128).to(torch.bfloat16)
xb = x.to(torch.bfloat16)
yb = mb(xb)
yb.element_size()
big = torch.zeros(1000, dtype=torch.float64)
big.half().nbytes, big.bfloat16().nbytes, big.float().nbytes
