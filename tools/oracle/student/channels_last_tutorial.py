N, C, H, W = 2, 3, 4, 4
x = torch.empty(N, C, H, W)
print(x.stride())  # Outputs: (48, 16, 4, 1)

x = x.to(memory_format=torch.channels_last)
print(x.shape)  # Outputs: (2, 3, 4, 4) as dimensions order preserved
print(x.stride())  # Outputs: (48, 1, 12, 3)

x = x.to(memory_format=torch.contiguous_format)
print(x.stride())  # Outputs: (48, 16, 4, 1)

x = x.contiguous(memory_format=torch.channels_last)
print(x.stride())  # Outputs: (48, 1, 12, 3)

print(x.is_contiguous(memory_format=torch.channels_last))  # Outputs: True

special_x = torch.empty(4, 1, 4, 4)
print(special_x.is_contiguous(memory_format=torch.channels_last))  # Outputs: True
print(special_x.is_contiguous(memory_format=torch.contiguous_format))  # Outputs: True

x = torch.empty(N, C, H, W, memory_format=torch.channels_last)
print(x.stride())  # Outputs: (48, 1, 12, 3)

y = x.permute(0, 2, 3, 1)
y.shape, y.stride()
y.is_contiguous()
