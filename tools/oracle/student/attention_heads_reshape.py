batch, seq, d_model, heads = 2, 3, 4, 2
x = torch.arange(batch * seq * d_model, dtype=torch.float32).view(batch, seq, d_model)
q = x.view(batch, seq, heads, d_model // heads).transpose(1, 2)
q.shape
q.stride()
q.is_contiguous()
merged = q.transpose(1, 2).view(batch, seq, d_model)
merged = q.transpose(1, 2).contiguous().view(batch, seq, d_model)
torch.equal(merged, x)
merged.data_ptr() == x.data_ptr()
scores = q @ q.transpose(-2, -1)
scores.shape
mask = torch.triu(torch.ones(seq, seq), diagonal=1).bool()
mask
scores.masked_fill(mask, -1e9)[0, 0]
q.reshape(batch, seq, d_model).data_ptr() == x.data_ptr()
