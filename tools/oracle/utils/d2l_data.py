# d2l 3.3's load_array over synthetic data, a few epochs of shuffled minibatches, and the
# number of batches with and without drop_last.
import torch
from torch.utils import data


def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


_ = torch.manual_seed(42)
true_w = torch.tensor([2, -3.4])
features, labels = synthetic_data(true_w, 4.2, 50)
data_iter = load_array((features, labels), 8)
len(data_iter)
X, y = next(iter(data_iter))
X, y
sizes = []
for epoch in range(2):
    for X, y in data_iter:
        sizes.append(X.shape[0])
sizes
test_iter = load_array((features, labels), 16, is_train=False)
[y.shape for _, y in test_iter]
noise = torch.normal(torch.zeros(3), torch.tensor([0.1, 1.0, 10.0]))
