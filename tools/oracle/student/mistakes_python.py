t = torch.arange(6).reshape(2, 3)
len(t)
len(torch.tensor(5))
for v in torch.tensor(3):
    print(v)
print(f"{t:.2f}")
print(f"{t.sum():.2f}")
print(f"{t.float().mean():.2f}")
t.shape[2]
t.size(2)
t.stride(1)
t.stride(5)
int(t)
float(t[0, 1])
bool(t)
bool(t[0, 0])
t.numpy() + 1
t.T.numpy().flags["C_CONTIGUOUS"]
undefined_var + t
torch.randint(0, 9, 5, 3)
