a = torch.arange(6).reshape(2, 3)
v = a[:, 1]
v.add_(10)
a
v = v * 2
a
a.t_()
a.shape, a.stride()
a.transpose_(0, 1)
a.shape
a.unsqueeze_(0)
a.shape
a.squeeze_()
a.shape
a.zero_()
v
a.clamp_(min=1)
a.copy_(torch.tensor([1, 2, 3]))
a
a.mul_(torch.tensor([[2], [3]]))
a
