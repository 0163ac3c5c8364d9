#!/usr/bin/env python3
"""The backward-coverage cases: one small script per differentiable op of the table, whose
gradients (values, shapes, strides) tests/backward_coverage.rs compares with real torch.

usage: python3 tools/oracle/backward/cases.py [--optim] > /tmp/backward.in.jsonl
       /work/torchenv/venv/bin/python tools/oracle/record.py /tmp/backward.in.jsonl \
           tests/fixtures/backward/backward.torch.jsonl
"""
import json

X = "x = torch.tensor([[1.0, 5.0, 5.0, -2.0], [2.0, 0.5, 3.0, 3.0], [-1.0, 4.0, 0.25, 2.0]], requires_grad=True)\n"
W = "w = torch.tensor([[0.5, -1.0, 2.0, 1.5], [3.0, 0.25, -0.5, 1.0], [1.0, 2.0, -3.0, 0.75]])\n"


def case(name, body, grads=("x",)):
    fetch = "".join(f"g{v} = {v}.grad\n" for v in grads)
    return {"id": f"backward_{name}", "script": "import torch\n" + X + W + body + fetch}


CASES = [
    case("max_full", "y = x.max()\ny.grad_fn.name()\ny.backward()\n"),
    case("min_full_ties", "y = (x * 0 + 1).min()\ny.backward()\n"),
    case("max_dim", "v, i = x.max(1)\nv.grad_fn.name()\n(v * torch.tensor([1.0, 2.0, 3.0])).sum().backward()\n"),
    case("max_dim_keepdim", "v, i = x.max(0, keepdim=True)\n(v * w[:1]).sum().backward()\n"),
    case("min_dim", "v, i = torch.min(x, dim=-1)\n(v * torch.tensor([1.0, -2.0, 3.0])).sum().backward()\n"),
    case("max_other", "y = torch.max(x, torch.tensor([1.0, 5.0, 0.0, 3.0]))\ny.grad_fn.name()\n(y * w).sum().backward()\n"),
    case("maximum_both", "o = torch.tensor([[1.0], [3.0], [2.0]], requires_grad=True)\ny = torch.maximum(x, o)\n(y * w).sum().backward()\n", ("x", "o")),
    case("minimum", "o = torch.full((3, 4), 2.0, requires_grad=True)\ny = torch.minimum(x, o)\n(y * w).sum().backward()\n", ("x", "o")),
    case("amax_dims", "y = x.amax(dim=(0, 1))\ny.grad_fn.name()\ny.backward()\n"),
    case("amin_dim", "y = x.amin(1, keepdim=True)\n(y * torch.tensor([[1.0], [2.0], [3.0]])).sum().backward()\n"),
    case("sort", "v, i = x.sort(1, descending=True)\nv.grad_fn.name()\n(v * w).sum().backward()\n"),
    case("sort_dim0", "v, i = torch.sort(x, dim=0)\n(v * w).sum().backward()\n"),
    case("topk", "v, i = x.topk(2)\nv.grad_fn.name()\n(v * w[:, :2]).sum().backward()\n"),
    case("kthvalue", "v, i = x.kthvalue(2, 1)\nv.grad_fn.name()\n(v * torch.tensor([1.0, 2.0, 3.0])).sum().backward()\n"),
    case("median_full", "y = x.median()\ny.grad_fn.name()\ny.backward()\n"),
    case("median_dim", "v, i = x.median(0)\n(v * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()\n"),
    case("gather", "i = torch.tensor([[0, 1], [2, 2], [3, 0]])\ny = x.gather(1, i)\ny.grad_fn.name()\n(y * w[:, :2]).sum().backward()\n"),
    case("index_select", "y = x.index_select(1, torch.tensor([3, 0, 3]))\ny.grad_fn.name()\n(y * w[:, :3]).sum().backward()\n"),
    case("scatter", "s = torch.tensor([[10.0, 20.0], [30.0, 40.0], [50.0, 60.0]], requires_grad=True)\ny = x.scatter(1, torch.tensor([[0, 2], [1, 3], [3, 0]]), s)\ny.grad_fn.name()\n(y * w).sum().backward()\n", ("x", "s")),
    case("scatter_add", "s = torch.ones(3, 2, requires_grad=True)\ny = x.scatter_add(1, torch.tensor([[0, 0], [1, 3], [3, 2]]), s)\n(y * w).sum().backward()\n", ("x", "s")),
    case("take", "y = x.take(torch.tensor([0, 5, 5, 11]))\ny.grad_fn.name()\n(y * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()\n"),
    case("cumsum", "y = x.cumsum(1)\ny.grad_fn.name()\n(y * w).sum().backward()\n"),
    case("cumsum_dim0", "y = torch.cumsum(x, dim=0)\n(y * w).sum().backward()\n"),
    case("cumprod", "y = x.cumprod(1)\ny.grad_fn.name()\n(y * w).sum().backward()\n"),
    case("prod_full", "y = x.prod()\ny.grad_fn.name()\ny.backward()\n"),
    case("prod_dim", "y = x.prod(1)\ny.grad_fn.name()\n(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()\n"),
    case("prod_one_zero", "z = torch.tensor([[1.0, 0.0, 3.0], [2.0, 2.0, 0.5]], requires_grad=True)\ny = z.prod(1, keepdim=True)\ny.sum().backward()\nt = torch.tensor([1.0, 0.0, 3.0, 2.0], requires_grad=True)\nt.prod().backward()\ngt = t.grad\n", ("z",)),
    case("norm", "y = x.norm()\ny.grad_fn.name()\ny.backward()\n"),
    case("norm_p1_dim", "y = x.norm(p=1, dim=1)\n(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()\n"),
    case("norm_p3", "y = torch.norm(x, p=3, dim=0, keepdim=True)\n(y * w[:1]).sum().backward()\n"),
    case("norm_inf", "y = torch.linalg.vector_norm(x, ord=float('inf'))\ny.backward()\n"),
    case("var", "y = x.var()\ny.grad_fn.name()\ny.backward()\n"),
    case("var_dim", "y = x.var(1)\n(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()\n"),
    case("std_dims", "y = x.std(dim=(0, 1), keepdim=True, correction=0)\ny.grad_fn.name()\ny.sum().backward()\n"),
    case("std_dim0", "y = torch.std(x, 0, unbiased=False)\n(y * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()\n"),
    case("logsumexp", "y = x.logsumexp(1)\ny.grad_fn.name()\n(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()\n"),
    case("where", "y = torch.where(x > 1, x, w)\ny.grad_fn.name()\n(y * w).sum().backward()\n"),
    case("where_method", "o = torch.zeros(4, requires_grad=True)\ny = x.where(x < 3, o)\n(y * w).sum().backward()\n", ("x", "o")),
    case("masked_fill", "y = x.masked_fill(x > 2, 0.0)\ny.grad_fn.name()\n(y * w).sum().backward()\n"),
    case("masked_select", "y = x.masked_select(x > 1)\ny.grad_fn.name()\n(y * torch.arange(7.0)).sum().backward()\n"),
    case("cat", "a = torch.tensor([1.0, 2.0], requires_grad=True)\nb = torch.tensor([3.0, 4.0, 5.0], requires_grad=True)\ny = torch.cat([a, b])\ny.grad_fn.name()\n(y * torch.arange(5.0)).sum().backward()\nga = a.grad.clone()\ngb = b.grad.clone()\n", ()),
    case("cat_dim1", "y = torch.cat((x, w, x), 1)\n(y * torch.arange(36.0).reshape(3, 12)).sum().backward()\n"),
    case("stack", "a = torch.tensor([1.0, 2.0], requires_grad=True)\nb = torch.tensor([3.0, 4.0], requires_grad=True)\ny = torch.stack([a, b], dim=1)\ny.grad_fn.name()\n(y * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()\n", ("a", "b")),
    case("split", "p, q = x.split([1, 3], dim=1)\np.grad_fn.name()\n(p * 2).sum().backward()\n(q * w[:, 1:]).sum().backward()\n"),
    case("chunk", "p, q = x.chunk(2, 1)\np.grad_fn.name()\n(q * w[:, 2:]).sum().backward()\n"),
    case("tensor_split", "p, q, r = torch.tensor_split(x, 3, dim=1)\nq.grad_fn.name()\n(q * 3).sum().backward()\n(r * w[:, 3:]).sum().backward()\n"),
    case("hsplit_vsplit", "p, q = torch.hsplit(x, [1])\nq.grad_fn.name()\n(q * w[:, 1:]).sum().backward()\nu, v = torch.vsplit(x, [2])\n(v * 5).sum().backward()\n"),
    case("unbind", "r0, r1, r2 = x.unbind()\nr1.grad_fn.name()\n(r1 * torch.arange(4.0)).sum().backward()\n"),
    case("select_narrow", "y = x.select(1, -1)\ny.grad_fn.name()\n(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()\nz = x.narrow(1, 1, 2)\nz.grad_fn.name()\n(z * w[:, :2]).sum().backward()\n"),
    case("repeat", "y = x.repeat(2, 1, 2)\ny.grad_fn.name()\n(y * torch.arange(48.0).reshape(2, 3, 8)).sum().backward()\n"),
    case("tile", "y = x.tile((2,))\ny.grad_fn.name()\n(y * torch.arange(24.0).reshape(3, 8)).sum().backward()\n"),
    case("expand", "v = torch.tensor([[1.0], [2.0], [3.0]], requires_grad=True)\ny = v.expand(3, 4)\n(y * w).sum().backward()\n", ("v",)),
    case("flip_roll", "y = x.flip(0)\ny.grad_fn.name()\nz = x.roll(1, 1)\nz.grad_fn.name()\n((y + z) * w).sum().backward()\n"),
    case("tril_triu", "y = x.tril() + x.triu(1) * 2\n(y * w).sum().backward()\n"),
    case("movedim", "y = x.movedim(0, 1)\ny.grad_fn.name()\n(y * w.t()).sum().backward()\n"),
    case("pow_variants", "y = x.pow(2) + x ** 3 + 2 ** x + x.pow(torch.tensor(2.0))\ny.grad_fn.name()\n(y * w).sum().backward()\n"),
    case("abs_sign", "y = x.abs() + x.sign() + x.floor() + x.round() + x.frac()\n(y * w).sum().backward()\n"),
    case("trig_exp_log", "z = torch.tensor([0.5, 1.0, 2.0, 4.0], requires_grad=True)\ny = z.tan() + z.rsqrt() + z.log2() + z.log10() + z.exp() + z.log() + z.sin() + z.cos() + z.sqrt()\ny.sum().backward()\n", ("z",)),
    case("inplace_unary", "z = torch.tensor([0.5, 1.0, 2.0, 4.0], requires_grad=True)\ny = z * 1\ny.exp_()\ny.grad_fn.name()\nu = z * 2\nu.tan_()\nu.grad_fn.name()\n(y + u).sum().backward()\n", ("z",)),
    case("inplace_arith", "y = x * 1\ny.add_(w)\ny.mul_(w)\ny.sub_(1.0)\ny.div_(2.0)\ny.grad_fn.name()\n(y * w).sum().backward()\n"),
    case("softmax_dims", "y = x.softmax(0)\nz = torch.log_softmax(x, dim=1)\n((y + z) * w).sum().backward()\n"),
    case("lerp_addc", "e = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)\ny = x.lerp(e, 0.25) + torch.addcmul(x, x, w, value=0.5) + torch.addcdiv(x, w, e, value=2.0)\n(y * w).sum().backward()\n", ("x", "e")),
    case("bmm", "a = torch.arange(12.0).reshape(2, 2, 3).requires_grad_()\nb = torch.arange(12.0).reshape(2, 3, 2).requires_grad_()\ny = a.bmm(b)\ny.grad_fn.name()\n(y * torch.arange(8.0).reshape(2, 2, 2)).sum().backward()\n", ("a", "b")),
    case("linear_layouts", "_ = torch.manual_seed(0)\nm1 = torch.nn.Linear(3, 1)\nm2 = torch.nn.Linear(1, 3)\nm3 = torch.nn.Linear(1, 1)\nm4 = torch.nn.Linear(4, 2)\ninp = torch.arange(6.0).reshape(2, 3)\n(m1(inp).sum() + m2(m1(inp)).sum() + m3(m1(inp)).sum() + m4(x).sum()).backward()\ng1 = m1.weight.grad\ng2 = m2.weight.grad\ng3 = m3.weight.grad\ng4 = m4.weight.grad\ngb = m1.bias.grad\n", ()),
    case("mm_layouts", "a = torch.arange(6.0).reshape(2, 3).requires_grad_()\nb = torch.arange(3.0).reshape(3, 1).requires_grad_()\nc = torch.arange(3.0).reshape(1, 3).t().requires_grad_()\n((a @ b).sum() + (a @ c).sum() + a.mm(b).sum()).backward()\n", ("a", "b", "c")),
    case("index_add_copy", "s = torch.ones(3, 2, requires_grad=True)\ny = x.index_add(1, torch.tensor([0, 2]), s, alpha=2.0) + x.index_copy(1, torch.tensor([1, 3]), s * 3)\n(y * w).sum().backward()\n", ("x", "s")),
    case("nansum", "y = x.nansum(0)\n(y * torch.arange(4.0)).sum().backward()\n"),
]

# The optimizers' state as PyTorch shares it (tests/fixtures/backward/optim.torch.jsonl).
OPTIM_CASES = [
    case("optim_state_shared", "import torch.nn as nn\n_ = torch.manual_seed(0)\nm = nn.Linear(3, 1)\nopt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)\nopt.state[m.weight]\nlen(opt.state)\nopt.param_groups[0]['lr'] = 0.01\nopt.param_groups[0]['lr']\ng = opt.param_groups[0]\ng['lr'] = 0.5\nopt.param_groups[0]['lr']\nm(torch.ones(2, 3)).sum().backward()\nopt.step()\nbuf = opt.state[m.weight]['momentum_buffer']\nopt.state_dict()\nopt.add_param_group({'params': [torch.zeros(2, requires_grad=True)], 'lr': 1.0})\nlen(opt.param_groups), opt.param_groups[1]['momentum']\nopt\n", ()),
    case("optim_adam_state", "import torch.nn as nn\n_ = torch.manual_seed(0)\nm = nn.Linear(1, 3)\nopt = torch.optim.Adam(m.parameters(), lr=0.1)\nm(torch.ones(4, 1)).sum().backward()\nopt.step()\nea = opt.state[m.weight]['exp_avg']\nes = opt.state[m.weight]['exp_avg_sq']\nopt.state[m.weight]['step']\nopt.state_dict()['state'][0]['step']\nopt.state_dict()['param_groups']\n", ()),
]

import sys

for c in OPTIM_CASES if "--optim" in sys.argv else CASES:
    print(json.dumps(c))
