import torch
import torch.nn.functional as F

_ = torch.manual_seed(0)
a = torch.randn(4, 6)
b = torch.randn(6, 5)
d = torch.randn(4, 6, dtype=torch.float64)
batch = torch.randn(3, 4, 6)
img = torch.randn(2, 3, 8, 8)
w = torch.randn(4, 3, 3, 3)
with torch.autocast("cpu", dtype=torch.bfloat16):
    m1 = a @ b
    m2 = torch.mm(a, b)
    m3 = torch.matmul(a, b)
    m4 = a.mm(b)
    m5 = torch.bmm(batch, batch.transpose(1, 2))
    c1 = F.conv2d(img, w, padding=1)
    e1 = torch.einsum("ij,jk->ik", a, b)
    dd = d @ d.t()
    s1 = torch.softmax(m1, dim=-1)
    s2 = m1.float().softmax(-1)
    r1 = torch.relu(m1)
    cat1 = torch.cat([m1, a[:, :5]])
    st = torch.stack([m1, m1])
    l1 = F.mse_loss(m1, torch.zeros(4, 5))
    ad = torch.addmm(torch.zeros(5), a, b)
    bad = torch.baddbmm(torch.zeros(3, 4, 4), batch, batch.transpose(1, 2))
print(m1.dtype, m2.dtype, m3.dtype, m4.dtype, m5.dtype, c1.dtype, e1.dtype, dd.dtype)
print(s1.dtype, s2.dtype, r1.dtype, cat1.dtype, st.dtype, l1.dtype, ad.dtype, bad.dtype)
