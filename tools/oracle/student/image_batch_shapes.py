imgs = torch.rand(2, 3, 4, 4)
imgs.shape
imgs[0].shape
imgs[:, 0].shape
imgs[:, 0].stride()
hwc = imgs.permute(0, 2, 3, 1)
hwc.shape, hwc.stride()
hwc.is_contiguous()
flat = imgs.view(2, -1)
flat.shape
imgs.flatten(1).shape
hwc.flatten(1)
hwc.view(2, -1)
means = imgs.mean(dim=(2, 3))
means.shape
imgs.unsqueeze(0).shape
gray = imgs.mean(dim=1, keepdim=True)
gray.shape
gray.expand(-1, 3, -1, -1).shape
crop = imgs[:, :, 1:3, 1:3]
crop.shape, crop.stride(), crop.storage_offset()
crop.is_contiguous()
