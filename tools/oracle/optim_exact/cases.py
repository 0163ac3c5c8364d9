"""Writes the scripts of tests/fixtures/optim/exact.torch.jsonl (one {"id", "script"} line each):
50 steps of each optimizer configuration on two plain parameters whose gradients are drawn
from the generator before every step (no forward/backward, so no matrix product is involved:
what is compared is the optimizers' own float32 arithmetic, bit for bit). Record with
    PY=/work/torchenv/venv/bin/python
    $PY tools/oracle/optim_exact/cases.py > /tmp/optim_exact.jsonl
    $PY tools/oracle/record.py /tmp/optim_exact.jsonl tests/fixtures/optim/exact.torch.jsonl
"""
import json

CONFIGS = {
    "SGD-nesterov-weight_decay": ("SGD(params, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)", ["momentum_buffer"]),
    "SGD-dampening-maximize": ("SGD(params, lr=0.05, momentum=0.9, dampening=0.1, maximize=True)", ["momentum_buffer"]),
    "Adam-amsgrad-weight_decay": ("Adam(params, lr=0.01, weight_decay=0.1, amsgrad=True)", ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]),
    "Adam-maximize": ("Adam(params, lr=0.001, betas=(0.8, 0.99), eps=1e-6, maximize=True)", ["step", "exp_avg", "exp_avg_sq"]),
    "AdamW": ("AdamW(params, lr=0.02, weight_decay=0.1)", ["step", "exp_avg", "exp_avg_sq"]),
    "RMSprop": ("RMSprop(params, lr=0.01)", ["step", "square_avg"]),
    "RMSprop-centered-momentum-weight_decay": ("RMSprop(params, lr=0.005, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.01)", ["step", "square_avg", "momentum_buffer", "grad_avg"]),
    "Adagrad-lr_decay-weight_decay": ("Adagrad(params, lr=0.1, lr_decay=0.01, weight_decay=0.01, initial_accumulator_value=0.1, eps=1e-8)", ["step", "sum"]),
}

for name, (ctor, keys) in CONFIGS.items():
    lines = [
        "_ = torch.manual_seed(0)",
        "w = torch.randn(16, 8, requires_grad=True)",
        "b = torch.randn(8, requires_grad=True)",
        "params = [w, b]",
        f"opt = torch.optim.{ctor}",
        "def step():",
        "    w.grad = torch.randn(16, 8) * 0.1",
        "    b.grad = torch.randn(8) * 0.1",
        "    opt.step()",
        "step()",
    ]
    lines += [f's_{k} = opt.state[w]["{k}"]' for k in keys]
    lines += [f'sb_{k} = opt.state[b]["{k}"]' for k in keys]
    lines += ["step()"] * 49
    print(json.dumps({"id": f"optim-exact-{name}", "script": "\n".join(lines)}))
