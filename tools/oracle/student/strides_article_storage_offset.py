a = torch.randint(0, 9, (5,3))
row = a[2]
row
row.storage_offset()
row.stride()
col = a[:, 1]
col.storage_offset(), col.stride()
col.is_contiguous()
sub = a[1:4, 1:]
sub.shape, sub.stride(), sub.storage_offset()
sub.storage().size()
len(sub.storage())
sub.untyped_storage().nbytes()
sub[0, 0] = 42
a
every_other = a[::2]
every_other.stride()
every_other.storage_offset()
a.element_size()
a.nbytes
a.untyped_storage()
