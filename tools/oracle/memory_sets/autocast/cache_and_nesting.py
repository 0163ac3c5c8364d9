import torch
import torch.nn as nn

_ = torch.manual_seed(0)
lin = nn.Linear(8, 8)
a = torch.randn(4, 8)
print(torch.is_autocast_enabled("cpu"))
with torch.autocast("cpu"):
    print(torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
    h1 = lin(a)
    h2 = lin(a)
    same = h1.grad_fn.next_functions[2][0].next_functions[0][0] is h2.grad_fn.next_functions[2][0].next_functions[0][0]
    print(same)
    with torch.autocast("cpu", enabled=False):
        h3 = lin(a)
        print(h3.dtype, torch.is_autocast_enabled("cpu"))
    h4 = lin(h3)
    print(h4.dtype)
print(torch.is_autocast_enabled("cpu"))
h5 = lin(a)
print(h5.dtype)
del h1, h2, h4
with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=False):
    h6 = lin(a)
    h7 = lin(a)
print(h6.grad_fn.next_functions[2][0].next_functions[0][0] is h7.grad_fn.next_functions[2][0].next_functions[0][0])
