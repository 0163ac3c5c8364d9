a = torch.randint(0, 9, (5,3))
a
a.storage()
a.stride()
a.t()
a.t().stride()
a.is_contiguous()
a.t().is_contiguous()
a.t().storage().data_ptr() == a.storage().data_ptr()
