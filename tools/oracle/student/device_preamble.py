import torch
import numpy as np
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using {device} device")
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
device
x = torch.rand(3, 4, device=device)
x.device
y = x.to(device)
y is x
z = x.cpu()
z is x
x.nelement(), x.element_size() * x.nelement()
torch.cuda.device_count()
torch.backends.mps.is_available() if hasattr(torch.backends, "mps") else False
torch.__version__[:4]
torch.get_default_dtype()
torch.set_default_dtype(torch.float32)
torch.tensor([1.5]).dtype
torch.set_default_dtype(torch.float32)
torch.is_tensor(x), torch.numel(x)
_ = torch.manual_seed(0)
torch.rand(2)
x.clone().detach().requires_grad_(True).requires_grad
x.data.shape
x.type(torch.DoubleTensor).dtype
torch.FloatTensor([1, 2]).dtype
torch.LongTensor([1, 2])
torch.Tensor([1, 2])
torch.Tensor(2, 3).shape
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark
torch.cuda.manual_seed_all(42)
w = torch.ones(3)
w.requires_grad = True
w
w.data
w.data.requires_grad
n = torch.ones(2, dtype=torch.long)
n.requires_grad = True
w.shape = (1, 3)
isinstance(w, torch.FloatTensor), isinstance(n, torch.LongTensor), isinstance(n, torch.FloatTensor)
torch.FloatTensor
torch.IntTensor([1.7, 2.2])
torch.Tensor()
torch.ones(2).type('torch.IntTensor')
