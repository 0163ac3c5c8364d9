# The loop variable is the element itself: changing a dict or a list through it changes the
# container (the learning-rate decay every training tutorial writes).
import torch
import torch.nn as nn

model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(3):
    if epoch == 2:
        for param_group in optimizer.param_groups:
            param_group['lr'] = param_group['lr'] * 0.1
optimizer.param_groups[0]['lr']
def adjust_learning_rate(optimizer, epoch, base_lr=0.01):
    lr = base_lr * (0.5 ** (epoch // 2))
    for g in optimizer.param_groups:
        g['lr'] = lr
    return lr
adjust_learning_rate(optimizer, 5)
optimizer.state_dict()['param_groups'][0]['lr']
for g in optimizer.param_groups:
    g['momentum'] = 0.5
    g = {'lr': 123}
optimizer.param_groups[0]['momentum'], optimizer.param_groups[0]['lr']
rows = [[1, 2], [3]]
for r in rows:
    r.append(0)
rows
records = [{'name': 'a'}, {'name': 'b'}]
for rec in records:
    rec['seen'] = True
records
x = torch.ones(2)
model(torch.ones(1, 4)).sum().backward()
optimizer.step()
[p.shape for p in model.parameters()]
