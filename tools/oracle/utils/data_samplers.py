# The samplers of torch.utils.data, alone and given to a DataLoader (sampler=, batch_sampler=):
# the train/validation split with SubsetRandomSampler, replacement draws in chunks of 32.
import torch
from torch.utils.data import (DataLoader, TensorDataset, SequentialSampler, RandomSampler,
                              SubsetRandomSampler, BatchSampler)

_ = torch.manual_seed(0)
ds = TensorDataset(torch.arange(10.), torch.arange(10) % 3)
list(SequentialSampler(ds))
rs = RandomSampler(ds)
len(rs), list(rs)
list(RandomSampler(ds, num_samples=13))
list(RandomSampler(ds, replacement=True, num_samples=40))
train = SubsetRandomSampler([0, 2, 4, 6, 8])
list(train), len(train)
list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False))
len(BatchSampler(range(7), 3, True)), list(BatchSampler(range(7), 3, True))
loader = DataLoader(ds, batch_size=2, sampler=train)
[b[0] for b in loader]
bl = DataLoader(ds, batch_sampler=BatchSampler(RandomSampler(ds), 4, False))
len(bl), [b[1].tolist() for b in bl]
after = torch.randn(2)
RandomSampler(ds, num_samples=0)
RandomSampler(ds, replacement=1)
BatchSampler(rs, 0, False)
BatchSampler(rs, 2, 1)
