x = torch.arange(24).reshape(2, 3, 4)
x[0]
x[:, 1:, ::2]
x.as_strided((2, 2), (1, 2))
x.detach().is_contiguous()
torch.diagonal(x, dim1=1, dim2=2)
x.narrow(2, 1, 2)
x.permute(2, 0, 1).shape
x.permute(2, 0, 1).stride()
x.select(1, 2)
x.movedim(0, -1).stride()
x.unsqueeze(1).shape
x.unsqueeze(1).squeeze().shape
x.transpose(0, 2).is_contiguous()
x.mT.shape
x[0].T
x.unfold(2, 2, 1).shape
x.unfold(2, 2, 1).stride()
x.unbind(0)
x.split(2, dim=2)
x.split_with_sizes([1, 3], dim=2)
x.chunk(3, dim=1)
x.swapaxes(0, 1).stride()
x.swapdims(1, 2).shape
x.unflatten(2, (2, 2)).shape
x.flatten(1).stride()
x.view_as(torch.zeros(6, 4)).shape
x.reshape_as(torch.zeros(4, 6)).stride()
x.expand_as(torch.zeros(3, 2, 3, 4)).stride()
