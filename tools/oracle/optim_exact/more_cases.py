"""Writes the scripts of tests/fixtures/optim/exact_more.torch.jsonl (one {"id", "script"} line
each): 50 steps of each optimizer added after the first five (Adamax, NAdam, RAdam, Adadelta,
Rprop, ASGD, with their options) on two plain parameters whose gradients are drawn from the
generator before every step, as tools/oracle/optim_exact/cases.py does for the first five, and
LBFGS (fixed step, strong Wolfe line search, maximize) on an elementwise objective: no
matrix product is involved, so every parameter and state tensor must be PyTorch's bit for bit.
Record with
    PY=/work/torchenv/venv/bin/python
    $PY tools/oracle/optim_exact/more_cases.py > /tmp/optim_exact_more.jsonl
    $PY tools/oracle/record.py /tmp/optim_exact_more.jsonl tests/fixtures/optim/exact_more.torch.jsonl
"""
import json

CONFIGS = {
    "Adamax-weight_decay": ("Adamax(params, lr=0.01, weight_decay=0.01)", ["step", "exp_avg", "exp_inf"]),
    "Adamax-maximize": ("Adamax(params, lr=0.002, betas=(0.8, 0.99), eps=1e-6, maximize=True)", ["step", "exp_avg", "exp_inf"]),
    "NAdam": ("NAdam(params, lr=0.01)", ["step", "mu_product", "exp_avg", "exp_avg_sq"]),
    "NAdam-decoupled_weight_decay": ("NAdam(params, lr=0.01, weight_decay=0.05, momentum_decay=0.005, decoupled_weight_decay=True)", ["step", "mu_product", "exp_avg", "exp_avg_sq"]),
    "NAdam-weight_decay-maximize": ("NAdam(params, lr=0.005, weight_decay=0.05, maximize=True)", ["step", "mu_product", "exp_avg", "exp_avg_sq"]),
    "RAdam": ("RAdam(params, lr=0.01)", ["step", "exp_avg", "exp_avg_sq"]),
    "RAdam-decoupled_weight_decay": ("RAdam(params, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)", ["step", "exp_avg", "exp_avg_sq"]),
    "RAdam-weight_decay-maximize": ("RAdam(params, lr=0.005, betas=(0.8, 0.99), weight_decay=0.1, maximize=True)", ["step", "exp_avg", "exp_avg_sq"]),
    "Adadelta": ("Adadelta(params)", ["step", "square_avg", "acc_delta"]),
    "Adadelta-weight_decay-maximize": ("Adadelta(params, lr=0.5, rho=0.8, weight_decay=0.01, maximize=True)", ["step", "square_avg", "acc_delta"]),
    "Rprop": ("Rprop(params, lr=0.01)", ["step", "prev", "step_size"]),
    "Rprop-etas-maximize": ("Rprop(params, lr=0.001, etas=(0.3, 1.5), step_sizes=(1e-4, 0.05), maximize=True)", ["step", "prev", "step_size"]),
    "ASGD": ("ASGD(params, lr=0.05, t0=10)", ["step", "eta", "mu", "ax"]),
    "ASGD-weight_decay-maximize": ("ASGD(params, lr=0.05, lambd=0.001, alpha=0.5, t0=1, weight_decay=0.01, maximize=True)", ["step", "eta", "mu", "ax"]),
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

# LBFGS keeps one state (on the first parameter) and rebinds its direction and previous
# gradient every step: each step binds them again. The fixed-step ones run all `max_iter`
# iterations (tolerances 0): near the optimum, whether `|loss - prev_loss| < 1e-9` stops an
# iteration early turns on the last bit of a `dot`, which BLAS computes differently per CPU.
LBFGS = {
    "LBFGS": "LBFGS(params, lr=0.5, max_iter=4, history_size=5, tolerance_grad=0, tolerance_change=0)",
    "LBFGS-strong_wolfe": "LBFGS(params, lr=1, max_iter=5, history_size=3, line_search_fn='strong_wolfe')",
    "LBFGS-maximize": "LBFGS(params, lr=0.1, max_iter=3, tolerance_grad=0, tolerance_change=0, maximize=True)",
}
for name, ctor in LBFGS.items():
    sign = "-" if "maximize" in name else ""
    lines = [
        "_ = torch.manual_seed(0)",
        "w = torch.randn(16, 8, requires_grad=True)",
        "b = torch.randn(8, requires_grad=True)",
        "a = torch.rand(16, 8) + 0.5",
        "target = torch.randn(16, 8)",
        "params = [w, b]",
        f"opt = torch.optim.{ctor}",
        "def closure():",
        "    opt.zero_grad()",
        f"    loss = {sign}((a * (w - target) * (w - target)).sum() + (b * b * b * b - b * b + 0.1 * b).sum())",
        "    loss.backward()",
        "    return loss",
        "def step():",
        "    loss = opt.step(closure)",
        "    state = opt.state[w]",
        "    return loss, state['d'], state['prev_flat_grad'], state['n_iter'], state['func_evals']",
        "loss, d, prev_flat_grad, n_iter, func_evals = step()",
        "n_iter, func_evals",
    ]
    lines += ["loss, d, prev_flat_grad, n_iter, func_evals = step()", "n_iter, func_evals, float(opt.state[w]['t']), len(opt.state[w]['old_dirs'])"] * 49
    print(json.dumps({"id": f"optim-exact-{name}", "script": "\n".join(lines)}))
