import numpy as np
a = np.array([[1.5, -2.0, 3.0], [0.0, 4.0, -1.0]])
m = a > 0
pos = torch.from_numpy(a[m])
rowmask = torch.from_numpy(a[np.array([True, False])])
colmask = torch.from_numpy(a[:, [True, False, True]])
colmask.stride()
a[a < 0] = 0.0
t = torch.from_numpy(a)
a[:, [0, 2]] = np.array([7.0, 8.0])
t
a[[0, 1], [1, 1]] = [10.0, 20.0]
t
a[:, [5]]
a[np.array([True, False, True])]
a[[0.5]]
a[[0, 1], [0, 1, 2]]
