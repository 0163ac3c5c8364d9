xs = torch.tensor([1.0, 2.0, 3.0])
ys = torch.tensor([10.0, 20.0, 30.0])
for x, y in zip(xs, ys):
    print(f"{x.item()} + {y.item()} = {(x + y).item()}")
total = torch.zeros(1)
i = 0
while i < 3:
    total += xs[i]
    i += 1
total
i
acc = 0
for k in range(len(xs)):
    acc = acc + xs[k] * ys[k]
acc
torch.dot(xs, ys)
for a_, b_ in zip(xs.split(1), ys.split(1)):
    print(a_.shape, b_.storage_offset())
