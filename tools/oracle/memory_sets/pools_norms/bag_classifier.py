import torch
import torch.nn as nn
import torch.nn.functional as F

# 文本分类（fastText 风格）：EmbeddingBag 对每个句子的词向量取平均
_ = torch.manual_seed(4)

class TextClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, mode='mean')
        self.fc = nn.Linear(embed_dim, num_class)

    def forward(self, text, offsets):
        return self.fc(self.embedding(text, offsets))

model = TextClassifier(20, 6, 3)
model
text = torch.tensor([1, 4, 7, 2, 9, 9, 3, 12, 5, 0, 18])
offsets = torch.tensor([0, 4, 6, 9])
labels = torch.tensor([0, 2, 1, 2])
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
logits = model(text, offsets)
logits.shape
emb = model.embedding(text, offsets)
emb.grad_fn.name()
loss = F.cross_entropy(logits, labels)
loss.backward()
model.embedding.weight.grad[9]
optimizer.step()
optimizer.zero_grad()
# sum 与 max 模式
bag_sum = nn.EmbeddingBag(10, 4, mode='sum')
bag_max = nn.EmbeddingBag(10, 4, mode='max', padding_idx=0)
bag_sum, bag_max
batch = torch.tensor([[1, 2, 4], [4, 3, 0]])
s = bag_sum(batch)
m = bag_max(batch)
m
(s.sum() + m.sum()).backward()
bag_max.weight.grad[4]
w = torch.tensor([0.5, 1.0, 2.0, 1.0, 0.25, 1.0])
bag_sum(batch.flatten(), torch.tensor([0, 3]), per_sample_weights=w)
# 错误：二维输入时不能再给 offsets
bag_sum(batch, torch.tensor([0, 1]))
F.embedding_bag(text, model.embedding.weight, offsets, mode='median')
