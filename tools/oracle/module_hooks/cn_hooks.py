# 中文博客常见的 hook 用法：用 forward hook 看中间层输出，用 backward hook 看梯度。
import torch
import torch.nn as nn

_ = torch.manual_seed(1)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(4, 3)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


net = Net()
fmap_block = []
input_block = []


def forward_hook(module, data_input, data_output):
    fmap_block.append(data_output)
    input_block.append(data_input)


hf = net.fc1.register_forward_hook(forward_hook)
x = torch.ones(2, 4)
y = net(x)
len(fmap_block), type(input_block[0]).__name__
fmap_block[0].shape
grad_block = []


def backward_hook(module, grad_in, grad_out):
    grad_block.append(grad_out[0].detach())
    print("grad_in", [None if g is None else g.shape for g in grad_in])


hb = net.relu.register_full_backward_hook(backward_hook)
y = net(x)
y.sum().backward()
grad_block[0]
net.fc1.weight.grad
hb.remove()
