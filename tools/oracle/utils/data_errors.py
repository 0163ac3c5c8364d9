# DataLoader's, TensorDataset's and random_split's refusals, with PyTorch's texts.
import torch
from torch.utils.data import DataLoader, TensorDataset, Dataset, random_split

ds = TensorDataset(torch.zeros(4, 2), torch.zeros(4))
TensorDataset(torch.zeros(4, 2), torch.zeros(3))
DataLoader(ds, batch_size=0)
DataLoader(ds, batch_size=2, sampler=[0, 1], shuffle=True)
DataLoader(ds, num_workers=-1)
DataLoader(ds, batch_size=None, drop_last=True)
DataLoader(ds, persistent_workers=True)
random_split(ds, [3, 3])
random_split(ds, [0.5, 1.5])
Dataset()[0]
it = iter(DataLoader(ds, batch_size=4))
b = next(it)
next(it)
dl = DataLoader(ds, batch_size=3, sampler=[3, 2, 1, 0])
len(dl)
[b[0].shape[0] for b in DataLoader(ds, batch_size=3, sampler=[3, 2, 1, 0])]
[b[1] for b in DataLoader(ds, batch_sampler=[[0, 1], [3]])]
DataLoader([None, None], batch_size=2).__iter__().__next__()
