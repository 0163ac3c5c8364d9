a = torch.tensor([7, -7, 5])
b = torch.tensor([2, 2, -3])
torch.div(a, b)
torch.div(a, b, rounding_mode="floor")
torch.div(a, b, rounding_mode="trunc")
a.div(2, rounding_mode="floor")
torch.div(a, b, rounding_mode="round")
out = torch.zeros(3)
torch.add(a, b, out=out)
out
torch.add(a, b, out=torch.zeros(2))
res = torch.empty(0)
torch.mul(a, 2, out=res)
res
d = torch.device("cpu")
d
a.device
a.device == d
a.to(d).data_ptr() == a.data_ptr()
a.to("cpu") is a
torch.zeros(2, device="cpu")
torch.is_floating_point(a)
torch.is_floating_point(a / 1)
a.is_floating_point()
