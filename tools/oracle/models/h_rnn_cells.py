# torch.nn docs: RNNCell / LSTMCell / GRUCell examples (smaller sizes), unrolled by hand
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
rnn = nn.RNNCell(10, 20)
input = torch.randn(6, 3, 10)
hx = torch.randn(3, 20)
output = []
for i in range(6):
    hx = rnn(input[i], hx)
    output.append(hx)

len(output), output[0].shape
rnn
rnn.weight_ih.shape, rnn.weight_hh.shape, rnn.bias_ih.shape

rnn = nn.LSTMCell(10, 20)  # (input_size, hidden_size)
input = torch.randn(2, 3, 10)  # (time_steps, batch, input_size)
hx = torch.randn(3, 20)  # (batch, hidden_size)
cx = torch.randn(3, 20)
output = []
for i in range(input.size()[0]):
    hx, cx = rnn(input[i], (hx, cx))
    output.append(hx)

output = torch.stack(output, dim=0)
output.shape
rnn

rnn = nn.GRUCell(10, 20)
input = torch.randn(6, 3, 10)
hx = torch.randn(3, 20)
output = []
for i in range(6):
    hx = rnn(input[i], hx)
    output.append(hx)

hx
rnn

# docs: nn.RNN / nn.LSTM / nn.GRU examples
rnn = nn.RNN(10, 20, 2)
input = torch.randn(5, 3, 10)
h0 = torch.randn(2, 3, 20)
output, hn = rnn(input, h0)
output.shape, hn.shape
rnn = nn.LSTM(10, 20, 2)
h0 = torch.randn(2, 3, 20)
c0 = torch.randn(2, 3, 20)
output, (hn, cn) = rnn(input, (h0, c0))
hn[-1]
rnn = nn.GRU(10, 20, 2)
output, hn = rnn(input, h0)
output[-1, 0]
cell = nn.RNNCell(4, 3, nonlinearity='relu', bias=False)
cell
cell(torch.ones(1, 4))
