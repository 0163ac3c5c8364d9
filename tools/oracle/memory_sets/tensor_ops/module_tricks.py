# Module tricks from blog posts: weight tying, freezing, hooks, named_modules, parameter counting
import torch
import torch.nn as nn

class TinyLM(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, vocab, bias=False)
        self.proj.weight = self.embed.weight

    def forward(self, idx):
        return self.proj(self.embed(idx))

_ = torch.manual_seed(0)
m = TinyLM(12, 4)
sum(p.numel() for p in m.parameters())
len(list(m.parameters()))
m.proj.weight is m.embed.weight
m.proj.weight.data_ptr() == m.embed.weight.data_ptr()
m.state_dict().keys()
out = m(torch.tensor([[1, 2, 3]]))
out.shape
out.sum().backward()
m.embed.weight.grad.shape
for name, mod in m.named_modules():
    print(repr(name), type(mod).__name__)
acts = []
h = m.embed.register_forward_hook(lambda mod, inp, outp: acts.append(outp.shape))
_ = m(torch.tensor([[4, 5]]))
h.remove()
acts
for p in m.embed.parameters():
    p.requires_grad = False
[p.requires_grad for p in m.parameters()]
trainable = sum(p.numel() for p in m.parameters() if p.requires_grad)
trainable
pre = []
h2 = m.proj.register_forward_pre_hook(lambda mod, inp: pre.append(inp[0].shape))
_ = m(torch.tensor([[1]]))
pre
h2.remove()
torch.nn.utils.parameters_to_vector(m.parameters()).shape
