import torch
from torch.utils.data import Dataset, DataLoader, TensorDataset, random_split
from torch.nn.utils.rnn import pad_sequence

class MyDataset(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n * 2, dtype=torch.float32).reshape(n, 2)
        self.y = (self.x.sum(dim=1) > n).long()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]

ds = MyDataset(10)
len(ds)
ds[3]
_ = torch.manual_seed(0)
train_ds, val_ds = random_split(ds, [8, 2])
len(train_ds), len(val_ds)
loader = DataLoader(train_ds, batch_size=3, shuffle=False)
for i, (xb, yb) in enumerate(loader):
    print(i, xb.shape, yb.tolist())
it = iter(DataLoader(ds, batch_size=4, shuffle=True))
xb, yb = next(it)
xb2, yb2 = next(it)
features = torch.randn(20, 3)
labels = torch.randn(20, 1)
data_iter = DataLoader(TensorDataset(features, labels), 5, shuffle=True)
next(iter(data_iter))[0].shape
seqs = [torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])]
padded = pad_sequence(seqs, batch_first=True)
padded
pad_sequence(seqs, padding_value=-1).shape
left = pad_sequence(seqs, batch_first=True, padding_side="left")
left
emb = [torch.randn(2, 4, requires_grad=True), torch.randn(3, 4, requires_grad=True)]
packed = pad_sequence(emb)
packed.grad_fn.name()
packed.sum().backward()
emb[0].grad.shape
