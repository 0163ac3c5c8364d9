# 博客：state_dict 保存与加载（在内存里演示，不写文件）
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(3)
        self.fc2 = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


_ = torch.manual_seed(0)
net = Net()
sd = net.state_dict()
for k, v in sd.items():
    print(k, tuple(v.shape))

w = sd["fc1.weight"]
w.data_ptr() == net.fc1.weight.data_ptr()
sd["bn.num_batches_tracked"]

net2 = Net()
net2.load_state_dict(sd)
w2 = net2.fc1.weight
torch.equal(w2, w)

# strict 模式下 key 不匹配会报错
sd_bad = {k.replace("fc1", "linear1"): v for k, v in sd.items()}
net2.load_state_dict(sd_bad)
result = net2.load_state_dict(sd_bad, strict=False)
result.missing_keys, result.unexpected_keys

# 形状不匹配
sd_shape = dict(sd)
sd_shape["fc2.bias"] = torch.zeros(5)
net2.load_state_dict(sd_shape)

# 优化器的 state_dict
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x = torch.randn(8, 4)
loss = net(x).pow(2).mean()
loss.backward()
opt.step()
osd = opt.state_dict()
osd["param_groups"]
list(osd["state"].keys())
exp_avg = osd["state"][0]["exp_avg"]
osd["state"][0]["step"]
