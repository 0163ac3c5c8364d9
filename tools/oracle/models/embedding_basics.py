# nn.Embedding: lookup, padding_idx, from_pretrained, max_norm, wrong index dtype and range.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
embedding = nn.Embedding(10, 3)
input = torch.LongTensor([[1, 2, 4, 5], [4, 3, 2, 9]])
out = embedding(input)
out.shape

# example with padding_idx
embedding = nn.Embedding(10, 3, padding_idx=0)
input = torch.LongTensor([[0, 2, 0, 5]])
embedding(input)

# example of changing `pad` vector
padding_idx = 0
embedding = nn.Embedding(3, 3, padding_idx=padding_idx)
embedding.weight
with torch.no_grad():
    embedding.weight[padding_idx] = torch.ones(3)
embedding.weight

# FloatTensor containing pretrained weights
weight = torch.FloatTensor([[1, 2.3, 3], [4, 5.1, 6.3]])
embedding = nn.Embedding.from_pretrained(weight)
# Get embeddings for index 1
input = torch.LongTensor([1])
embedding(input)
embedding.weight.requires_grad

emb = nn.Embedding(5, 2)
emb(torch.tensor([1.0, 2.0]))
emb(torch.tensor([5]))
e = emb(torch.tensor([[0, 4], [4, 4]]))
e.sum().backward()
g = emb.weight.grad
emb
nn.Embedding(5, 2, max_norm=1.0, sparse=False)
