import torch
img = torch.arange(3 * 8 * 8, dtype=torch.float32).reshape(3, 8, 8)
p = 4
patches = img.unfold(1, p, p).unfold(2, p, p)
patches.shape
patches.stride()
patches.is_contiguous()
patches = patches.permute(1, 2, 0, 3, 4)
patches.shape, patches.stride()
flat = patches.reshape(-1, 3 * p * p)
flat.shape
flat.data_ptr() == img.data_ptr()
batch = img.unsqueeze(0)
B, C, H, W = batch.shape
x = batch.reshape(B, C, H // p, p, W // p, p)
x = x.permute(0, 2, 4, 1, 3, 5)
x.is_contiguous()
x = x.reshape(B, (H // p) * (W // p), C * p * p)
x.shape, x.stride()
torch.equal(x[0], flat)
cols = torch.nn.functional.unfold(batch, kernel_size=p, stride=p)
cols.shape
