# Deliberate mistakes: a Linear whose in_features does not match the input, forgetting to
# flatten conv features, the wrong dtype.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
fc = nn.Linear(4, 2)
x = torch.randn(4, 3)
fc(x)
fc(x.T).shape
fc.weight.shape  # (out_features, in_features)

conv = nn.Conv2d(1, 4, 3)
head = nn.Linear(4 * 6 * 6, 10)
img = torch.randn(2, 1, 8, 8)
feat = conv(img)
feat.shape
head(feat)
logits = head(feat.flatten(1))
logits = head(feat.view(feat.size(0), -1))
logits.shape

fc(torch.randn(3, 4, dtype=torch.float64))
fc(torch.tensor([[1, 2, 3, 4]]))
fc(torch.randn(4))
fc(torch.randn(2, 5, 4)).shape

# nn.Sequential with a wrong hidden size
model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(30, 1))
model(torch.randn(5, 10))
print(model)
