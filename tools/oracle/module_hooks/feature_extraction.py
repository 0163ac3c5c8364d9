# Feature extraction with forward hooks (the forum / blog recipe): collect the activations
# of every layer of a small CNN in a dict, then remove the hooks.
import torch
import torch.nn as nn

_ = torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Flatten(),
    nn.Linear(4 * 4 * 4, 10),
)
features = {}


def get_features(name):
    def hook(model, input, output):
        features[name] = output.detach()
    return hook


handles = []
for name, layer in model.named_children():
    handles.append(layer.register_forward_hook(get_features(name)))

x = torch.randn(2, 1, 8, 8)
out = model(x)
list(features.keys())
features.keys()
for k, v in features.items():
    print(k, tuple(v.shape), v.requires_grad)
relu_out = features["1"]
(relu_out >= 0).all()
for h in handles:
    h.remove()
features.clear()
out = model(x)
len(features)

# a hook on the whole model sees its input and output
shapes = []
hm = model.register_forward_hook(lambda m, i, o: shapes.append((i[0].shape, o.shape)))
_ = model(x)
shapes
hm.remove()
