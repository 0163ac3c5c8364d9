# 博客：model.train() 和 model.eval() 的区别，以及 torch.no_grad() 推理
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(6, 8),
    nn.BatchNorm1d(8),
    nn.ReLU(),
    nn.Dropout(0.5),
    nn.Linear(8, 3),
)
x = torch.randn(4, 6)

model.train()
print(model.training, model[1].training, model[3].training)
out_train = model(x)
rm = model[1].running_mean
nbt = model[1].num_batches_tracked

model.eval()
print(model.training, model[1].training, model[3].training)
out_eval1 = model(x)
out_eval2 = model(x)
torch.equal(out_eval1, out_eval2)  # eval 模式下结果确定
out_eval1.requires_grad

# 推理时同时用 eval() 和 no_grad()
with torch.no_grad():
    pred = model(x)
pred.requires_grad, pred.grad_fn
probs = torch.softmax(pred, dim=1)
probs.argmax(dim=1)

with torch.inference_mode():
    pred2 = model(x)
torch.allclose(pred, pred2)

# BatchNorm 在 train 模式下 batch 只有 1 个样本会报错
model.train()
model(x[:1])
model.eval()
model(x[:1]).shape
