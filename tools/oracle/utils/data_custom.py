# A script's own Dataset (as the tutorial's CustomImageDataset), default_collate of ints,
# floats, tuples and dicts, Subset and random_split.
import torch
from torch.utils import data
from torch.utils.data import DataLoader, Dataset, Subset, random_split


class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], int(idx) * int(idx)


class Dicts(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"feature": torch.full((2,), float(i)), "label": i % 2, "weight": 0.5 * i}


_ = torch.manual_seed(1)
sq = Squares(10)
len(sq), isinstance(sq, Dataset), isinstance(sq, data.Dataset)
loader = DataLoader(sq, batch_size=4, shuffle=True)
xb, yb = next(iter(loader))
xb, yb, yb.dtype
dl = DataLoader(Dicts(5), batch_size=2)
batch = next(iter(dl))
sorted(batch.keys())
batch["feature"], batch["label"], batch["weight"]
sub = Subset(sq, [1, 3, 5])
len(sub), sub[1]
parts = random_split(sq, [7, 3])
[len(p) for p in parts]
parts[0].indices, parts[1].indices
fr = random_split(range(10), [0.5, 0.3, 0.2])
[list(p) for p in fr]
odd = random_split(range(7), [0.5, 0.5])
[p.indices for p in odd]
random_split(range(5), [2, 2])
data.default_collate([(1, 2.0), (3, 4.0)])
data.default_collate([torch.ones(2), torch.zeros(2)])
pairs = DataLoader([(torch.tensor(1.), 2), (torch.tensor(3.), 4), (torch.tensor(5.), 6)], batch_size=2)
[p for p in pairs]
