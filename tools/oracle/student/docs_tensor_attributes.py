import torch
float_tensor = torch.ones(1, dtype=torch.float)
double_tensor = torch.ones(1, dtype=torch.double)
complex_float_tensor = torch.ones(1, dtype=torch.complex64)
complex_double_tensor = torch.ones(1, dtype=torch.complex128)
int_tensor = torch.ones(1, dtype=torch.int)
long_tensor = torch.ones(1, dtype=torch.long)
uint_tensor = torch.ones(1, dtype=torch.uint8)
bool_tensor = torch.ones(1, dtype=torch.bool)
long_zerodim = torch.tensor(1, dtype=torch.long)
int_zerodim = torch.tensor(1, dtype=torch.int)
torch.add(5, 5).dtype
(int_tensor + 5).dtype
(int_tensor + long_zerodim).dtype
(long_tensor + int_tensor).dtype
(bool_tensor + long_tensor).dtype
(bool_tensor + uint_tensor).dtype
(float_tensor + double_tensor).dtype
(complex_float_tensor + complex_double_tensor).dtype
(bool_tensor + int_tensor).dtype
torch.add(long_tensor, float_tensor).dtype
float_tensor *= float_tensor
float_tensor *= int_tensor
float_tensor *= uint_tensor
float_tensor *= bool_tensor
float_tensor *= double_tensor
int_tensor *= long_tensor
int_tensor *= uint_tensor
uint_tensor *= int_tensor
int_tensor *= float_tensor
torch.device('cpu')
torch.device('cpu', 0)
x = torch.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
x.stride()
x.t().stride()
torch.finfo(torch.float32).eps
torch.iinfo(torch.int8).max
torch.finfo(torch.float16)
torch.is_floating_point(x)
x.is_contiguous(memory_format=torch.contiguous_format)
