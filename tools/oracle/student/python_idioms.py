import torch
x = torch.arange(24).reshape(2, 3, 4)
print(f"{x.shape=}")
print(f"{x.stride()=}, {x.is_contiguous()=}")
print("shape: %s, dtype: %s" % (tuple(x.shape), x.dtype))
print("numel = %d" % x.numel())
print("{} has stride {}".format("x", x.stride()))
print(", ".join(str(s) for s in x.shape))
info = {"shape": tuple(x.shape), "stride": x.stride()}
info["stride"]
for k, v in info.items():
    print(k, v)
list(info.keys())
first, *rest = x.shape
first, rest
parts = [t.shape for t in x.unbind(1)]
parts
torch.stack([t * 2 for t in x]).shape
{d: x.size(d) for d in range(x.dim())}
sizes = list(x.shape)
sizes.append(1)
sizes
x.view(*sizes).shape
x[..., -1].stride(), x[None, :, None].shape
print(x.shape[0], len(x), x.size(-1))
names = ["batch", "rows", "cols"]
for name, size, stride in zip(names, x.shape, x.stride()):
    print(f"{name:>6}: size={size:<3} stride={stride}")
max(x.stride()), min(x.shape), sum(x.shape)
sorted(x.stride(), reverse=True)
x.stride() == (12, 4, 1)
tuple(reversed(x.shape))
"%.3f" % x.float().mean().item()
round(x.float().std().item(), 4)
