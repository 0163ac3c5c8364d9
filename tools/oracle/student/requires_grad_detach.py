w = torch.randn(2, 3, requires_grad=True)
w.requires_grad
w.numpy()
wd = w.detach()
wd.requires_grad
wd.data_ptr() == w.data_ptr()
wd[0, 0] = 0.0
w[0, 0]
n = w.detach().numpy()
n.shape
c = w.detach().clone()
c.data_ptr() == w.data_ptr()
v = torch.ones(3, requires_grad=True)
v.add_(1)
with torch.no_grad():
    v.add_(1)
v
