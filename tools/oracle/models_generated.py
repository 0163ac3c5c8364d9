#!/usr/bin/env python3
"""Writes the generated model scripts ({"id", "script"} lines) that tools/oracle/models.sh
records into tests/fixtures/models/:

    models_generated.py init OUT.jsonl    # layer initialization
    models_generated.py optim OUT.jsonl   # optimizer trajectories

- `init`: for each layer type (Linear, Bilinear, Conv1d, Conv2d, ConvTranspose2d, BatchNorm1d,
  BatchNorm2d, LayerNorm, GroupNorm, Embedding) and three small sizes, one script
  `init-<Layer>-<size>` that, for 20 seeds, runs `_ = torch.manual_seed(s)`, constructs the
  layer (`m = nn.X(...)`) and binds each parameter and buffer to a variable (`w = m.weight`,
  `b = m.bias`, `rm = m.running_mean`, ...), so that PyTorch's default initialization (the
  kaiming-uniform / uniform bounds, the generator's draws in their order) is in the trace.
- `optim`: for each optimizer configuration, one script `optim-<name>`: a seeded
  `nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))`, fixed data, and 50 unrolled
  top-level `loss = step()` lines (`step` zeroes the gradients, computes F.mse_loss, calls
  backward and opt.step()), with the parameters and, after the first step, every state
  tensor of the first layer's weight bound to variables, so that every step's values are
  compared.

Only text is generated here; record.py runs it with torch.
"""
import json
import sys

SEEDS = range(20)

# layer name -> three (size label, constructor arguments); names of the tensors to bind.
LAYERS = {
    "Linear": (["3, 2", "5, 4", "8, 6"], {"w": "weight", "b": "bias"}),
    "Bilinear": (["2, 3, 2", "3, 2, 4", "4, 3, 2"], {"w": "weight", "b": "bias"}),
    "Conv1d": (["1, 2, 3", "2, 3, 3", "3, 4, 2"], {"w": "weight", "b": "bias"}),
    "Conv2d": (["1, 2, 3", "2, 3, 2", "3, 2, (2, 3)"], {"w": "weight", "b": "bias"}),
    "ConvTranspose2d": (["1, 2, 3", "2, 3, 2", "4, 2, 2, groups=2"], {"w": "weight", "b": "bias"}),
    "BatchNorm1d": (["3", "8", "16"], {"w": "weight", "b": "bias", "rm": "running_mean",
                                       "rv": "running_var", "nbt": "num_batches_tracked"}),
    "BatchNorm2d": (["2", "5", "12"], {"w": "weight", "b": "bias", "rm": "running_mean",
                                       "rv": "running_var", "nbt": "num_batches_tracked"}),
    "LayerNorm": (["4", "[2, 3]", "10"], {"w": "weight", "b": "bias"}),
    "GroupNorm": (["1, 4", "2, 6", "3, 12"], {"w": "weight", "b": "bias"}),
    "Embedding": (["5, 3", "10, 4", "20, 2"], {"w": "weight"}),
}


def init_scripts():
    for layer, (sizes, names) in LAYERS.items():
        for i, args in enumerate(sizes):
            lines = ["import torch.nn as nn"]
            for s in SEEDS:
                lines.append(f"_ = torch.manual_seed({s})")
                lines.append(f"m = nn.{layer}({args})")
                lines += [f"{var} = m.{attr}" for var, attr in names.items()]
            yield {"id": f"init-{layer}-{i}", "script": "\n".join(lines)}


# optimizer configuration name -> constructor, state tensors of a parameter to bind.
OPTIMIZERS = {
    "SGD": ("torch.optim.SGD(model.parameters(), lr=0.1)", []),
    "SGD-momentum": ("torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)",
                     ["momentum_buffer"]),
    "SGD-dampening": ("torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, dampening=0.5)",
                      ["momentum_buffer"]),
    "SGD-nesterov": ("torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)",
                     ["momentum_buffer"]),
    "SGD-weight_decay": ("torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=0.01)", []),
    "SGD-momentum-weight_decay": (
        "torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)",
        ["momentum_buffer"]),
    "Adam": ("torch.optim.Adam(model.parameters(), lr=0.01)", ["step", "exp_avg", "exp_avg_sq"]),
    "Adam-amsgrad-weight_decay": (
        "torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=0.01, amsgrad=True)",
        ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]),
    "AdamW": ("torch.optim.AdamW(model.parameters(), lr=0.01)", ["step", "exp_avg", "exp_avg_sq"]),
    "RMSprop": ("torch.optim.RMSprop(model.parameters(), lr=0.01)", ["step", "square_avg"]),
    "RMSprop-centered-momentum": (
        "torch.optim.RMSprop(model.parameters(), lr=0.005, momentum=0.5, centered=True)",
        ["step", "square_avg", "momentum_buffer", "grad_avg"]),
    "Adagrad": ("torch.optim.Adagrad(model.parameters(), lr=0.1)", ["step", "sum"]),
}

STEPS = 50


def optim_scripts():
    for name, (ctor, state) in OPTIMIZERS.items():
        lines = [
            "import torch.nn as nn",
            "import torch.nn.functional as F",
            "_ = torch.manual_seed(0)",
            "model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))",
            "x = torch.randn(6, 4)",
            "y = torch.randn(6, 2)",
            f"opt = {ctor}",
            "w0 = model[0].weight",
            "b0 = model[0].bias",
            "w2 = model[2].weight",
            "b2 = model[2].bias",
            "def step():",
            "    opt.zero_grad()",
            "    loss = F.mse_loss(model(x), y)",
            "    loss.backward()",
            "    opt.step()",
            "    return loss",
            "loss = step()",
        ]
        lines += [f's_{key} = opt.state[model[0].weight]["{key}"]' for key in state]
        lines += ["loss = step()"] * (STEPS - 1)
        lines.append("opt")
        lines.append("len(opt.state), [sorted(s) for s in opt.state_dict()['state'].values()]")
        yield {"id": f"optim-{name}", "script": "\n".join(lines)}


def main():
    kind, out = sys.argv[1], sys.argv[2]
    gen = {"init": init_scripts, "optim": optim_scripts}[kind]
    with open(out, "w") as f:
        for case in gen():
            f.write(json.dumps(case) + "\n")


if __name__ == "__main__":
    main()
