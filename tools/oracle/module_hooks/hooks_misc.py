# More hook idioms: the hook prints its module, hooks under no_grad, a hook registered
# twice, a pre-hook returning a bare tensor, hooks on a nested Sequential, state_dict views.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
net = nn.Sequential(nn.Sequential(nn.Linear(2, 3), nn.ReLU()), nn.Linear(3, 1))
x = torch.randn(4, 2)


def show(module, inp, out):
    print(module, module.__class__.__name__, out.shape)


h = net[0].register_forward_hook(show)
with torch.no_grad():
    y = net(x)
y.requires_grad
h.remove()
count = []
hook = lambda m, i, o: count.append(1)
h1 = net[1].register_forward_hook(hook)
h2 = net[1].register_forward_hook(hook)
_ = net(x)
len(count)
h1.remove()
_ = net(x)
len(count)
h2.remove()
p = net[1].register_forward_pre_hook(lambda m, args: args[0] * 0)
net(x)
p.remove()
bw = []
hb = net[0][0].register_full_backward_hook(lambda m, gi, go: bw.append(go[0].shape))
with torch.no_grad():
    z = net(x)
z.requires_grad
net(x).sum().backward()
bw
hb.remove()
sd = net.state_dict()
list(sd.keys())
sd.values().__class__.__name__
len(sd.items())
