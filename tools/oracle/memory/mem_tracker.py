# A gpu_mem_track-style tracker, on the CPU: list every tensor the model holds,
# with its shape and size in MB, as the tracker prints "+ | 7 * Size:(...) | Memory: ... M".
import torch
import torch.nn as nn

_ = torch.manual_seed(0)


def track(named):
    total = 0
    for name, t in named:
        mb = t.numel() * t.element_size() / 1000 / 1000
        total += mb
        print(f"+ | {name} | Size:{tuple(t.shape)} | Memory: {mb:.3f} M | {type(t).__name__}")
    print(f"total: {total:.3f} M")


model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Flatten(), nn.Linear(16 * 6 * 6, 10))
track(model.named_parameters())
x = torch.randn(2, 3, 8, 8)
acts = {}
h = model[0](x)
acts["conv"] = h
h = model[1](h)
acts["relu"] = h
h = model[3](model[2](h))
acts["fc"] = h
track(acts.items())
h.sum().backward()
track((n + ".grad", p.grad) for n, p in model.named_parameters())
acts.clear()
del h
