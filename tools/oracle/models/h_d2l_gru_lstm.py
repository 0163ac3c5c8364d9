# 《动手学深度学习》9.1 GRU, 9.2 LSTM, 9.3 深度循环神经网络 (concise, small sizes)
import torch
from torch import nn

_ = torch.manual_seed(0)
vocab_size, num_hiddens = 6, 8
gru_layer = nn.GRU(vocab_size, num_hiddens)
gru_layer
X = torch.rand(3, 2, vocab_size)
Y, H = gru_layer(X)
Y.shape, H.shape
torch.allclose(Y[-1], H[0])
[(name, p.shape) for name, p in gru_layer.named_parameters()]

lstm_layer = nn.LSTM(vocab_size, num_hiddens)
lstm_layer
Y, (H, C) = lstm_layer(X)
Y.shape, H.shape, C.shape
sum(p.numel() for p in lstm_layer.parameters())
4 * (vocab_size * num_hiddens + num_hiddens * num_hiddens + 2 * num_hiddens)

num_inputs, num_layers = vocab_size, 2
deep_lstm = nn.LSTM(num_inputs, num_hiddens, num_layers)
deep_lstm
state = (torch.zeros(num_layers, 2, num_hiddens), torch.zeros(num_layers, 2, num_hiddens))
Y, (H, C) = deep_lstm(X, state)
Y.shape, H.shape
list(deep_lstm.state_dict().keys())

bi = nn.GRU(vocab_size, num_hiddens, bidirectional=True)
bi
Y, H = bi(X)
Y.shape, H.shape
batch_first = nn.LSTM(input_size=4, hidden_size=3, batch_first=True)
out, (h, c) = batch_first(torch.randn(2, 5, 4))
out.shape, h.shape
out[:, -1, :]
h[0]
