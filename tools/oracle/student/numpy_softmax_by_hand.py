import numpy as np
y = np.array([1, 0, 0])
z = np.array([0.2, 0.1, -0.1])
y_pred = np.exp(z) / np.exp(z).sum()
loss = (- y * np.log(y_pred)).sum()
print(loss)
loss
t = torch.from_numpy(y_pred)
w = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
s0 = torch.from_numpy(w.sum(axis=0))
s1 = torch.from_numpy(w.sum(1, keepdims=True))
w.mean(), w.max(), w.min(), np.sum(w), np.mean(w, axis=1)
big = np.arange(1000) / 3.0
big.sum(), np.sqrt(big).sum(), big.mean()
np.abs(np.array([-1, 2, -3])), -np.array([1.5, -2.5]), np.negative(np.float64(2.0))
np.exp(1), np.log(np.array([1, 2, 4])).dtype
np.array([], dtype=np.float32).max()
