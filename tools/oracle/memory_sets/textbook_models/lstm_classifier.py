import torch
import torch.nn as nn

# 用 LSTM 做文本分类(随机词表)
_ = torch.manual_seed(0)
vocab_size, embed_dim, hidden_dim, num_classes = 50, 8, 16, 3
class TextRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, num_layers=1, batch_first=True)
        self.fc = nn.Linear(hidden_dim, num_classes)
    def forward(self, x):
        emb = self.embedding(x)
        out, (h_n, c_n) = self.lstm(emb)
        return self.fc(h_n[-1])
model = TextRNN()
print(model)
tokens = torch.randint(1, vocab_size, (4, 7))
tokens[0, 5:] = 0
logits = model(tokens)
print(logits.shape, logits.grad_fn.name())
labels = torch.tensor([0, 2, 1, 1])
loss = nn.functional.cross_entropy(logits, labels)
loss.backward()
print(model.embedding.weight.grad[0].abs().sum())
print(model.lstm.weight_ih_l0.shape, model.lstm.weight_hh_l0.shape, model.lstm.bias_ih_l0.shape)
for name, p in model.named_parameters():
    print(name, tuple(p.shape), p.grad is not None)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
opt.step()
print(round(loss.item(), 4))
