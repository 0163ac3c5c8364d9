# Weight tying (a language model's embedding and output head share one matrix): the shared
# parameter is one tensor, parameters() lists it once, state_dict() names it twice.
import torch
import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab=10, dim=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.lm_head.weight = self.embed.weight  # tie

    def forward(self, idx):
        h = torch.tanh(self.proj(self.embed(idx)))
        return self.lm_head(h)


_ = torch.manual_seed(0)
lm = TinyLM()
lm.lm_head.weight is lm.embed.weight
E = lm.embed.weight
H = lm.lm_head.weight
E.data_ptr() == H.data_ptr()
len(list(lm.parameters())), len(lm.state_dict())
sum(p.numel() for p in lm.parameters())
list(lm.state_dict().keys())

idx = torch.tensor([[1, 2, 3], [4, 5, 6]])
logits = lm(idx)
logits.shape
loss = nn.functional.cross_entropy(logits.view(-1, 10), torch.tensor([2, 3, 4, 5, 6, 7]))
loss.backward()
gE = E.grad
opt = torch.optim.SGD(lm.parameters(), lr=0.5)
opt.step()
E[1]
