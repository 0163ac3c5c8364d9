a = torch.arange(6)
b = a.view(2, 3)
c = a[1:4]
d = a.clone()
e = a + 0
f = a.reshape(3, 2)
g = b.t().reshape(6)
h = a.detach()
for name, t in [("b", b), ("c", c), ("d", d), ("e", e), ("f", f), ("g", g), ("h", h)]:
    print(name, t.data_ptr() == a.data_ptr() or t.untyped_storage().data_ptr() == a.untyped_storage().data_ptr())
a[0] = 99
b
d
h
