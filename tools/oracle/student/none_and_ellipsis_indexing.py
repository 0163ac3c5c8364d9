x = torch.arange(6)
x[None].shape
x[:, None].shape
x[None, :, None].stride()
x[..., None].shape
m = x.view(2, 3)
m[..., 1]
m[None, ..., None].shape
m[:, None, :].stride()
m[1, ...]
m[..., ::-1]
m[::2, 1:]
m[-1]
m[-1, -1]
m[:, -2:].storage_offset()
m[1:1].shape
m[5:].shape
m[..., ...]
