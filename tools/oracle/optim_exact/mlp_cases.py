"""Writes the scripts of tests/fixtures/optim/mlp_exact.torch.jsonl (one {"id", "script"} line
each): 50 training steps of each optimizer added after the first five (Adamax, NAdam, RAdam,
Adadelta, Rprop, ASGD, LBFGS), with their options, on a small MLP (Linear(4, 8), Tanh,
Linear(8, 2), MSE loss on fixed data); every parameter and state tensor is bound to a name,
so the recording holds their values after every step. Record with
    PY=/work/torchenv/venv/bin/python
    $PY tools/oracle/optim_exact/mlp_cases.py > /tmp/optim_mlp.jsonl
    $PY tools/oracle/record.py /tmp/optim_mlp.jsonl tests/fixtures/optim/mlp_exact.torch.jsonl
"""
import json

CONFIGS = {
    "Adamax": ("Adamax(model.parameters(), lr=0.01)", ["step", "exp_avg", "exp_inf"]),
    "Adamax-weight_decay-maximize": ("Adamax(model.parameters(), lr=0.002, betas=(0.8, 0.99), weight_decay=0.1, maximize=True)", ["step", "exp_avg", "exp_inf"]),
    "NAdam": ("NAdam(model.parameters(), lr=0.01)", ["step", "mu_product", "exp_avg", "exp_avg_sq"]),
    "NAdam-decoupled_weight_decay": ("NAdam(model.parameters(), lr=0.01, weight_decay=0.05, momentum_decay=0.005, decoupled_weight_decay=True)", ["step", "mu_product", "exp_avg", "exp_avg_sq"]),
    "NAdam-weight_decay-maximize": ("NAdam(model.parameters(), lr=0.005, weight_decay=0.05, maximize=True)", ["step", "mu_product", "exp_avg", "exp_avg_sq"]),
    "RAdam": ("RAdam(model.parameters(), lr=0.01)", ["step", "exp_avg", "exp_avg_sq"]),
    "RAdam-decoupled_weight_decay": ("RAdam(model.parameters(), lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)", ["step", "exp_avg", "exp_avg_sq"]),
    "RAdam-weight_decay-maximize": ("RAdam(model.parameters(), lr=0.005, betas=(0.8, 0.99), weight_decay=0.1, maximize=True)", ["step", "exp_avg", "exp_avg_sq"]),
    "Adadelta": ("Adadelta(model.parameters())", ["step", "square_avg", "acc_delta"]),
    "Adadelta-weight_decay-maximize": ("Adadelta(model.parameters(), lr=0.5, rho=0.8, weight_decay=0.01, maximize=True)", ["step", "square_avg", "acc_delta"]),
    "Rprop": ("Rprop(model.parameters(), lr=0.01)", ["step", "prev", "step_size"]),
    "Rprop-etas-maximize": ("Rprop(model.parameters(), lr=0.001, etas=(0.3, 1.5), step_sizes=(1e-4, 0.05), maximize=True)", ["step", "prev", "step_size"]),
    "ASGD": ("ASGD(model.parameters(), lr=0.05, t0=10)", ["step", "eta", "mu", "ax"]),
    "ASGD-weight_decay-maximize": ("ASGD(model.parameters(), lr=0.01, lambd=0.001, alpha=0.5, t0=1, weight_decay=0.01, maximize=True)", ["step", "eta", "mu", "ax"]),
}

PRELUDE = [
    "import torch",
    "import torch.nn as nn",
    "import torch.nn.functional as F",
    "_ = torch.manual_seed(0)",
    "model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))",
    "x = torch.randn(16, 4)",
    "y = torch.randn(16, 2)",
    "w1, b1, w2, b2 = model.parameters()",
]

for name, (ctor, keys) in CONFIGS.items():
    lines = PRELUDE + [
        f"opt = torch.optim.{ctor}",
        "def step():",
        "    opt.zero_grad()",
        "    loss = F.mse_loss(model(x), y)",
        "    loss.backward()",
        "    opt.step()",
        "step()",
    ]
    for p in ["w1", "b1", "w2", "b2"]:
        lines += [f's_{p}_{k} = opt.state[{p}]["{k}"]' for k in keys]
    lines += ["step()"] * 49
    print(json.dumps({"id": f"optim-mlp-{name}", "script": "\n".join(lines)}))

# LBFGS keeps one state (on the first parameter) and rebinds its direction and previous
# gradient every step: each step binds them again. The fixed-step ones run all `max_iter`
# iterations (tolerances 0), so that last-bit differences of the gradients (matrix products)
# do not decide when an iteration stops.
LBFGS = {
    "LBFGS": "LBFGS(model.parameters(), lr=0.5, max_iter=4, history_size=5, tolerance_grad=0, tolerance_change=0)",
    "LBFGS-strong_wolfe": "LBFGS(model.parameters(), lr=1, max_iter=5, history_size=3, line_search_fn='strong_wolfe')",
    "LBFGS-maximize": "LBFGS(model.parameters(), lr=0.1, max_iter=3, tolerance_grad=0, tolerance_change=0, maximize=True)",
}
for name, ctor in LBFGS.items():
    sign = "-" if "maximize" in name else ""
    lines = PRELUDE + [
        f"opt = torch.optim.{ctor}",
        "def closure():",
        "    opt.zero_grad()",
        f"    loss = {sign}F.mse_loss(model(x), y)",
        "    loss.backward()",
        "    return loss",
        "def step():",
        "    loss = opt.step(closure)",
        "    state = opt.state[w1]",
        "    return loss, state['d'], state['prev_flat_grad'], state['n_iter'], state['func_evals']",
        "loss, d, prev_flat_grad, n_iter, func_evals = step()",
        "n_iter, func_evals",
    ]
    lines += ["loss, d, prev_flat_grad, n_iter, func_evals = step()", "n_iter, func_evals, float(opt.state[w1]['t'])"] * 49
    print(json.dumps({"id": f"optim-mlp-{name}", "script": "\n".join(lines)}))
