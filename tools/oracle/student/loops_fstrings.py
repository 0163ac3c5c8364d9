a = torch.arange(12).reshape(3, 4)
for row in a:
    print(row)
for i, row in enumerate(a):
    print(f"row {i}: {row.tolist()} sum={row.sum().item()}")
for x in a[0]:
    print(x.item(), end=" ")
for col in a.T:
    print(f"{col.shape} stride={col.stride()} contiguous={col.is_contiguous()}")
m = a.float().mean()
print(f"mean = {m:.3f}")
print(f"mean = {m.item():.2f}, max = {a.max().item():>5}")
print(f"{a.shape=}")
print("shape:", a.shape, "strides:", a.stride(), sep=" | ")
row
