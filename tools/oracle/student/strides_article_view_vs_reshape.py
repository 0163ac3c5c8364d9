import torch
a = torch.randint(0, 9, (5,3))
print(a)
b = a.t()
print(b.stride())
c = b.view(15)
c = b.reshape(15)
print(c)
print(c.data_ptr() == a.data_ptr())
d = a.view(3, 5)
d.data_ptr() == a.data_ptr()
d[0, 0] = 100
a
e = a.reshape(15)
e[1] = -1
a
b.contiguous().view(15)
