# 《动手学深度学习》8.6 循环神经网络的简洁实现 (vocab 8, 16 hidden units)
import torch
from torch import nn
from torch.nn import functional as F

_ = torch.manual_seed(0)
vocab_size, num_hiddens = 8, 16
rnn_layer = nn.RNN(vocab_size, num_hiddens)
rnn_layer
state = torch.zeros((1, 2, num_hiddens))
state.shape
batch_size, num_steps = 2, 5
X = torch.rand(size=(num_steps, batch_size, vocab_size))
Y, state_new = rnn_layer(X, state)
Y.shape, state_new.shape
[(name, p.shape) for name, p in rnn_layer.named_parameters()]


class RNNModel(nn.Module):
    """循环神经网络模型"""
    def __init__(self, rnn_layer, vocab_size, **kwargs):
        super(RNNModel, self).__init__(**kwargs)
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.num_hiddens = self.rnn.hidden_size
        # 如果RNN是双向的（之后将介绍），num_directions应该是2，否则应该是1
        if not self.rnn.bidirectional:
            self.num_directions = 1
            self.linear = nn.Linear(self.num_hiddens, self.vocab_size)
        else:
            self.num_directions = 2
            self.linear = nn.Linear(self.num_hiddens * 2, self.vocab_size)

    def forward(self, inputs, state):
        X = F.one_hot(inputs.T.long(), self.vocab_size)
        X = X.to(torch.float32)
        Y, state = self.rnn(X, state)
        # 全连接层首先将Y的形状改为(时间步数*批量大小,隐藏单元数)
        # 它的输出形状是(时间步数*批量大小,词表大小)。
        output = self.linear(Y.reshape((-1, Y.shape[-1])))
        return output, state

    def begin_state(self, device, batch_size=1):
        if not isinstance(self.rnn, nn.LSTM):
            # nn.GRU以张量作为隐状态
            return torch.zeros((self.num_directions * self.rnn.num_layers,
                                batch_size, self.num_hiddens),
                               device=device)
        else:
            # nn.LSTM以元组作为隐状态
            return (torch.zeros((
                self.num_directions * self.rnn.num_layers,
                batch_size, self.num_hiddens), device=device),
                    torch.zeros((
                        self.num_directions * self.rnn.num_layers,
                        batch_size, self.num_hiddens), device=device))


device = torch.device('cpu')
net = RNNModel(rnn_layer, vocab_size=vocab_size)
net = net.to(device)
print(net)
inputs = torch.tensor([[1, 2, 3], [4, 5, 6]])
state = net.begin_state(device, batch_size=2)
output, state = net(inputs, state)
output.shape, state.shape
output.argmax(dim=1)
loss = nn.CrossEntropyLoss()
l = loss(output, torch.tensor([1, 2, 3, 4, 5, 6]))
l.backward()
rnn_layer.weight_hh_l0.grad.shape
sum(p.numel() for p in net.parameters())
