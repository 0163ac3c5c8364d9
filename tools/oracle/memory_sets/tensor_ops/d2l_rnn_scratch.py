# d2l: an RNN from scratch with one-hot inputs, gradient clipping and a training step
import math
import torch
from torch import nn
from torch.nn import functional as F

_ = torch.manual_seed(0)
vocab_size, num_hiddens = 28, 16
F.one_hot(torch.tensor([0, 2]), vocab_size)
X = torch.arange(10).reshape((2, 5))
F.one_hot(X.T, 28).shape

def get_params(vocab_size, num_hiddens, device):
    num_inputs = num_outputs = vocab_size
    def normal(shape):
        return torch.randn(size=shape, device=device) * 0.01
    W_xh = normal((num_inputs, num_hiddens))
    W_hh = normal((num_hiddens, num_hiddens))
    b_h = torch.zeros(num_hiddens, device=device)
    W_hq = normal((num_hiddens, num_outputs))
    b_q = torch.zeros(num_outputs, device=device)
    params = [W_xh, W_hh, b_h, W_hq, b_q]
    for param in params:
        param.requires_grad_(True)
    return params

def init_rnn_state(batch_size, num_hiddens, device):
    return (torch.zeros((batch_size, num_hiddens), device=device), )

def rnn(inputs, state, params):
    W_xh, W_hh, b_h, W_hq, b_q = params
    H, = state
    outputs = []
    for X in inputs:
        H = torch.tanh(torch.mm(X, W_xh) + torch.mm(H, W_hh) + b_h)
        Y = torch.mm(H, W_hq) + b_q
        outputs.append(Y)
    return torch.cat(outputs, dim=0), (H,)

class RNNModelScratch:
    def __init__(self, vocab_size, num_hiddens, device, get_params, init_state, forward_fn):
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens, device)
        self.init_state, self.forward_fn = init_state, forward_fn

    def __call__(self, X, state):
        X = F.one_hot(X.T, self.vocab_size).type(torch.float32)
        return self.forward_fn(X, state, self.params)

    def begin_state(self, batch_size, device):
        return self.init_state(batch_size, self.num_hiddens, device)

net = RNNModelScratch(vocab_size, num_hiddens, 'cpu', get_params, init_rnn_state, rnn)
state = net.begin_state(X.shape[0], 'cpu')
Y, new_state = net(X, state)
Y.shape, len(new_state), new_state[0].shape

def grad_clipping(net, theta):
    """裁剪梯度"""
    params = net.params
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm

y = torch.randint(0, vocab_size, (10,))
l = F.cross_entropy(Y, y).mean()
l
l.backward()
grad_clipping(net, 1)
[p.grad.norm().item() > 0 for p in net.params]
with torch.no_grad():
    for p in net.params:
        p -= 1.0 * p.grad
        p.grad.zero_()
net.params[1][0, :3]
