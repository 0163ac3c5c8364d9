# The PyTorch "Datasets & DataLoaders" tutorial's shapes, on TensorDataset, with shuffling
# drawn from the global generator.
import torch
from torch.utils.data import DataLoader, TensorDataset, Dataset

_ = torch.manual_seed(0)
X = torch.arange(24.).reshape(12, 2)
y = torch.arange(12)
ds = TensorDataset(X, y)
len(ds)
x0, y0 = ds[3]
x0, y0
ds[2:4]
loader = DataLoader(ds, batch_size=5, shuffle=True)
len(loader)
batches = [b for b in loader]
len(batches), type(batches[0]).__name__
xb, yb = batches[0]
yb
[b[1].tolist() for b in batches]
r = torch.randn(3)
again = [b[1].tolist() for b in loader]
again
it = iter(loader)
first = next(it)
first[1]
second = next(it)
third = next(it)
next(it)
next(it, "done")
drop = DataLoader(ds, batch_size=5, shuffle=True, drop_last=True)
len(drop)
[b[0].shape for b in drop]
plain = DataLoader(ds, batch_size=4)
[b[1] for b in plain]
after = torch.rand(2)
one = DataLoader(ds)
len(one), next(iter(one))
for i, (xb, yb) in enumerate(DataLoader(ds, batch_size=6, shuffle=True)):
    print(i, xb.shape, yb)
