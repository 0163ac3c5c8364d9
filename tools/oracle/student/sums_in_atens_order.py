# Sums and means of random floats, printed to the last bit (.item(), .tolist()): PyTorch adds
# in its own order (vectors, interleaved accumulators, cascades), and so must we.
import torch
_ = torch.manual_seed(7)
def stats(x):
    return x.sum().item(), x.mean().item(), (x * x).sum().item()
for n in [3, 5, 8, 15, 16, 17, 31, 64, 65, 100, 257, 1000, 4099]:
    print(n, *stats(torch.randn(n)))
def table(m):
    print(m.sum().item(), m.mean().item())
    print(m.sum(0)[:6].tolist())
    print(m.sum(1)[:6].tolist())
    print(m.mean(dim=1, keepdim=True)[:3].tolist())
    print(m.t().sum(0)[:4].tolist(), m.t().sum(1)[:4].tolist(), m.t().sum().item())
    print(m[::2, 1::3].sum().item(), m[::2, 1::3].sum(0)[:4].tolist(), m[::2, 1::3].sum(1)[:4].tolist())
table(torch.randn(37, 53))
def cube(c):
    print(c.sum((0, 2))[:5].tolist(), c.sum(1)[0].tolist(), c.mean((1, 2)).tolist())
    print(c.permute(2, 0, 1).sum(-1)[0].tolist())
cube(torch.randn(4, 70, 5))
d = torch.randn(200, 3, dtype=torch.float64)
print(d.sum(0).tolist(), d.mean().item())
img = torch.rand(3, 16, 16)
print(img.mean(dim=(1, 2)).tolist(), img.sum(0)[0, :4].tolist())
print(torch.sum(img, dim=0, keepdim=True).shape, img.float().mean().item())
