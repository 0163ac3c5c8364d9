import torch
x = torch.tensor([[1, 2], [3, 4]])
x.stride()
x[1, :]
x[1, :].stride(), x[1, :].storage_offset()
x[:, 0]
x[:, 0].stride(), x[:, 0].storage_offset()
x.dtype, x.device, x.layout
x.is_sparse
x.requires_grad
y = x.to(torch.float32)
y.dtype
x.numel() * x.element_size()
x.untyped_storage().tolist() if False else x.storage().tolist()
x.T.contiguous().storage().tolist()
torch.empty(2, 3).stride()
torch.empty(2, 3, memory_format=torch.contiguous_format).is_contiguous()
torch.empty(2, 3, 4, 5).to(memory_format=torch.channels_last).stride()
torch.empty(2, 3, 4, 5).is_contiguous(memory_format=torch.channels_last)
torch.empty(2, 3, 4, 5).contiguous(memory_format=torch.channels_last).stride()
torch.empty_strided((2, 3), (1, 2)).stride()
