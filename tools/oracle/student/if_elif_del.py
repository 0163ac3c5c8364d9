x = torch.randn(3, 3)
if x.is_contiguous():
    print("contiguous")
else:
    print("not contiguous")
y = x.t()
if y.is_contiguous():
    msg = "view is contiguous"
elif y.stride()[0] == 1:
    msg = "column-major view"
else:
    msg = "something else"
msg
del y
y
z = x[0]
del x
z.storage().size()
z
