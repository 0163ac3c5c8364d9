x = torch.randn(4, 2)
c = torch.view_as_complex(x)
c
c.dtype
c.shape, c.stride()
r = torch.view_as_real(c)
r.data_ptr() == x.data_ptr()
c.real
c.imag
c.real.stride()
c.imag.storage_offset()
c.imag[0] = 10.0
x
z = torch.tensor([1 + 2j, 3 - 4j])
z.dtype
torch.view_as_real(z)
z128 = z.to(torch.complex128)
torch.view_as_real(z128).dtype
torch.view_as_complex(torch.randn(3, 3))
torch.view_as_complex(torch.randn(2, 4)[:, :2])
torch.randn(3).real
torch.randn(3).imag
