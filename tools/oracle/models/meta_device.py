# The meta device: shapes, dtypes and strides without memory -- build a model without
# allocating it, count its parameters, move a model to meta, what fails on meta tensors.
import torch
import torch.nn as nn

x = torch.empty(1000, 1000, device="meta")
x
x.shape, x.dtype, x.device, x.is_meta
y = x @ x.T
z = x[::2, 10:].t()
z.stride(), z.storage_offset(), z.is_contiguous()
s = x.sum(dim=0)
s.shape

with torch.device("meta"):
    model = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 1024))
model
w = model[0].weight
w
w.device, w.requires_grad, w.is_leaf
sum(p.numel() for p in model.parameters())
out = model(torch.empty(8, 4096, device="meta"))
out.shape, out.grad_fn.name()

# .to("meta") on an existing model
_ = torch.manual_seed(0)
small = nn.Linear(3, 2)
b_cpu = small.bias
small = small.to("meta")
b_meta = small.bias
b_meta
b_cpu.device

# no data on meta
w.item()
w.cpu()
w.sum().item()
torch.empty(2, 3, device="meta") + torch.ones(2, 3)

# materialize on the CPU and initialize
small.to_empty(device="cpu")
small.reset_parameters()
b_new = small.bias
b_new.device, small.weight.shape

# factory functions on meta
r = torch.randn(3, 4, device="meta")
r
o = torch.ones(2, 2, dtype=torch.float16, device="meta")
o.element_size(), o.nbytes, o.untyped_storage().nbytes()
