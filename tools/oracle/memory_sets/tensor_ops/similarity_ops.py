# Similarity and block ops: kron, triu/tril_indices, cosine_similarity (forward and backward), pairwise_distance
import torch
import torch.nn.functional as F
x = torch.arange(6.).reshape(2, 3)
torch.kron(torch.eye(2), torch.ones(2, 2))
torch.triu_indices(3, 3)
torch.tril_indices(3, 3, offset=-1)
F.cosine_similarity(x, x + 1, dim=1)
F.cosine_similarity(x, x + 1)
F.pairwise_distance(x, x + 1)
torch.cosine_similarity(x[0], x[1], dim=0)
xr = x.clone().requires_grad_()
c = F.cosine_similarity(xr, x + 1, dim=1)
c.grad_fn.name()
c.sum().backward()
xr.grad
