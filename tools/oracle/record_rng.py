#!/usr/bin/env python3
"""Record PyTorch's CPU random streams for `tests/rng.rs` (`tests/fixtures/rng.torch.jsonl`).

usage: record_rng.py OUT.jsonl

One line per session: `torch.manual_seed(seed)` and then a sequence of calls on the default
generator (`rand`, `randn`, `randint`, `randperm`, the `_like` functions and the in-place
`uniform_`, `normal_`, `random_`), so that the mt19937 state and the cached normal sample carry
over from call to call. Each step records:

  call        the Python call, for people
  kind        uniform | normal | random_from_to | random_from | random_default | randperm
  args        the distribution's arguments (from/to, mean/std, n)
  dtype       the result's dtype
  numel       number of elements
  contiguous  Tensor.is_contiguous() of the tensor written
  values      every value in the order the kernel writes them (storage order), when small
  head, tail, samples, bitsum, sum
              for large results: the first and last 64 values, [index, value] pairs at a few
              hundred positions, the sum of the raw bit patterns modulo 2**64 (exact equality
              of every element) and the float64 sum (math.fsum)
  error       "<Type>: <message>" when the call raises (nothing is drawn then)

Floating values are written as strings of Python's repr ("0.25", "-inf", "nan"), integers
and booleans as JSON numbers and booleans. Seeds: 0..49, a few large ones and
67280421310721 (the seed of a new torch.Generator(); a real process's default generator is
seeded from /dev/urandom, see tests/rng.rs). Needs a local PyTorch 2.15; never run in CI.
"""
import json
import math
import random
import sys
import warnings

import torch

warnings.filterwarnings("ignore")

DEFAULT_SEED = 67280421310721
SMALL = 512
EDGE = 64
SAMPLES = 200

FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTS = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
SIZES = [1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 63, 100, 255, 256, 1000, 4099,
         10000, 65537, 100000]
BITS = {torch.float16: (torch.int16, 0xFFFF), torch.bfloat16: (torch.int16, 0xFFFF),
        torch.float32: (torch.int32, 0xFFFFFFFF), torch.float64: (torch.int64, 2**64 - 1)}


def name(dtype):
    return str(dtype).removeprefix("torch.")


def jv(v):
    """Floats as strings of their shortest round-trip repr ("0.1", "-inf", "nan"), so that
    the reader parses them exactly (serde_json's default number parser may be 1 ulp off)."""
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return "inf" if v == math.inf else ("-inf" if v == -math.inf else repr(v))
    return v


def storage_order(t):
    """The elements of `t` by increasing storage offset (the kernels' order)."""
    flat = t.reshape(-1) if t.is_contiguous() else None
    if flat is not None:
        return flat
    idx = torch.zeros(t.shape, dtype=torch.int64)
    for d, (size, stride) in enumerate(zip(t.shape, t.stride())):
        shape = [1] * t.dim()
        shape[d] = size
        idx = idx + torch.arange(size).reshape(shape) * stride
    order = torch.argsort(idx.reshape(-1), stable=True)
    return t.reshape(-1)[order] if t.numel() else t.reshape(-1)


def expect(t):
    flat = storage_order(t)
    vals = [jv(v) for v in flat.tolist()]
    out = {"dtype": name(t.dtype), "numel": t.numel(), "contiguous": t.is_contiguous()}
    if len(vals) <= SMALL:
        out["values"] = vals
        return out
    out["head"] = vals[:EDGE]
    out["tail"] = vals[-EDGE:]
    rng = random.Random(len(vals))
    picks = sorted(rng.sample(range(EDGE, len(vals) - EDGE), SAMPLES))
    out["samples"] = [[i, vals[i]] for i in picks]
    if t.dtype in BITS:
        itype, mask = BITS[t.dtype]
        bits = flat.contiguous().view(itype).to(torch.int64).tolist()
        out["bitsum"] = str(sum(b & mask for b in bits) % 2**64)
        out["sum"] = jv(math.fsum(flat.double().tolist()))
    else:
        out["bitsum"] = str(sum(int(v) for v in flat.to(torch.int64).tolist()) % 2**64)
    return out


def run(step, fn):
    try:
        t = fn()
    except Exception as e:  # noqa: BLE001 - the oracle records every exception
        step["error"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
        return step
    step.update(expect(t))
    return step


def target(rng, numel, dtype):
    """A tensor to write into in place: contiguous, transposed, or a strided view."""
    shape = rng.choice(["flat", "flat", "t", "view"]) if numel >= 4 else "flat"
    if shape == "t":
        rows = next(d for d in (4, 3, 2, 1) if numel % d == 0)
        base = torch.empty(numel // rows, rows, dtype=dtype)
        return base.t(), f"torch.empty({numel // rows}, {rows}, dtype=torch.{name(dtype)}).t()"
    if shape == "view":
        base = torch.empty(numel, 2, dtype=dtype)
        return base[:, 1], f"torch.empty({numel}, 2, dtype=torch.{name(dtype)})[:, 1]"
    return torch.empty(numel, dtype=dtype), f"torch.empty({numel}, dtype=torch.{name(dtype)})"


def random_bounds(rng, dtype):
    if dtype == torch.bool:
        return 0, 2
    if dtype == torch.uint8:
        return rng.choice([(0, 256), (3, 200), (0, 2)])
    if dtype == torch.int8:
        return rng.choice([(-128, 128), (-5, 5), (0, 100)])
    if dtype == torch.int16:
        return rng.choice([(-32768, 32768), (-1000, 1000)])
    if dtype == torch.int32:
        return rng.choice([(-2**31, 2**31), (0, 10), (-7, 1 << 20)])
    if dtype == torch.float16:
        return rng.choice([(0, 10), (-2048, 2048), (-65504, 65504)])
    if dtype == torch.bfloat16:
        return rng.choice([(0, 10), (-256, 256), (0, 1 << 20)])
    return rng.choice([(0, 10), (-100, 100), (0, 1 << 33), (-2**40, 2**45), (0, 2**24 + 7)])


def make_step(rng, big):
    numel = rng.choice(SIZES if big else SIZES[:16])
    op = rng.choice(["rand", "randn", "randn", "randint", "randperm", "rand_like", "randn_like",
                     "randint_like", "uniform_", "normal_", "normal_", "random_", "random_to",
                     "random_from", "random_default"])
    fdtype = rng.choice(FLOATS)
    idtype = rng.choice(INTS + FLOATS)
    step = {}
    if op == "rand":
        step.update(call=f"torch.rand({numel}, dtype=torch.{name(fdtype)})", kind="uniform",
                    args=[0.0, 1.0])
        return run(step, lambda: torch.rand(numel, dtype=fdtype))
    if op == "randn":
        step.update(call=f"torch.randn({numel}, dtype=torch.{name(fdtype)})", kind="normal",
                    args=[0.0, 1.0])
        return run(step, lambda: torch.randn(numel, dtype=fdtype))
    if op == "randint":
        dtype = rng.choice([torch.int64, torch.int64, idtype])
        low, high = random_bounds(rng, dtype)
        step.update(call=f"torch.randint({low}, {high}, ({numel},), dtype=torch.{name(dtype)})",
                    kind="random_from_to", args=[low, high])
        return run(step, lambda: torch.randint(low, high, (numel,), dtype=dtype))
    if op == "randperm":
        n = min(numel, 5000)
        dtype = rng.choice([torch.int64, torch.int64, torch.int32, torch.float32,
                            torch.float16, torch.int8])
        step.update(call=f"torch.randperm({n}, dtype=torch.{name(dtype)})", kind="randperm",
                    args=[n])
        return run(step, lambda: torch.randperm(n, dtype=dtype))
    if op in ("rand_like", "randn_like", "randint_like"):
        dtype = fdtype if op != "randint_like" else idtype
        t, text = target(rng, numel, dtype)
        if op == "rand_like":
            step.update(call=f"torch.rand_like({text})", kind="uniform", args=[0.0, 1.0])
            return run(step, lambda: torch.rand_like(t))
        if op == "randn_like":
            step.update(call=f"torch.randn_like({text})", kind="normal", args=[0.0, 1.0])
            return run(step, lambda: torch.randn_like(t))
        low, high = random_bounds(rng, dtype)
        step.update(call=f"torch.randint_like({text}, {low}, {high})", kind="random_from_to",
                    args=[low, high])
        return run(step, lambda: torch.randint_like(t, low, high))
    if op == "uniform_":
        t, text = target(rng, numel, fdtype)
        a, b = rng.choice([(0.0, 1.0), (-3.7, 11.3), (2.5, 2.5), (-1e4, 1e4), (0.1, 0.3),
                           (-1.0, 1e-3), (1.0, 0.5)])
        step.update(call=f"{text}.uniform_({a!r}, {b!r})", kind="uniform", args=[a, b])
        return run(step, lambda: t.uniform_(a, b))
    if op == "normal_":
        t, text = target(rng, numel, fdtype)
        m, s = rng.choice([(0.0, 1.0), (0.0, 1.0), (3.0, 0.5), (-2.25, 10.0), (1e3, 1e-3),
                           (0.0, 0.0), (0.0, -1.0)])
        step.update(call=f"{text}.normal_({m!r}, {s!r})", kind="normal", args=[m, s])
        return run(step, lambda: t.normal_(m, s))
    if op == "random_":
        t, text = target(rng, numel, idtype)
        low, high = random_bounds(rng, idtype)
        step.update(call=f"{text}.random_({low}, {high})", kind="random_from_to",
                    args=[low, high])
        return run(step, lambda: t.random_(low, high))
    if op == "random_to":
        t, text = target(rng, numel, idtype)
        _, high = random_bounds(rng, idtype)
        step.update(call=f"{text}.random_({high})", kind="random_from_to", args=[0, high])
        return run(step, lambda: t.random_(high))
    if op == "random_from":
        t, text = target(rng, numel, idtype)
        low = rng.choice([0, 5, -3, -2**63, 100, 3000])
        step.update(call=f"{text}.random_({low}, None)", kind="random_from", args=[low])
        return run(step, lambda: t.random_(low, None))
    t, text = target(rng, numel, idtype)
    step.update(call=f"{text}.random_()", kind="random_default", args=[])
    return run(step, lambda: t.random_())


def fixed_sessions():
    """Hand-picked sequences: every dtype, the normal_fill edges, the cache carrying over."""
    out = []
    steps = []
    for dtype in FLOATS:
        for n in (1, 15, 16, 17, 32, 33, 1000):
            steps.append(("normal", n, dtype))
            steps.append(("uniform", n, dtype))
    out.append((DEFAULT_SEED, steps))
    out.append((DEFAULT_SEED, [("randint9", 15, torch.int64)]))
    out.append((1, [("normal", 1, torch.float32), ("normal", 1, torch.float64),
                    ("normal", 3, torch.float16), ("normal", 17, torch.float32),
                    ("normal", 1, torch.bfloat16), ("normal", 100000, torch.float32),
                    ("normal", 100000, torch.float16), ("normal", 100000, torch.float64),
                    ("normal", 65537, torch.bfloat16), ("uniform", 100000, torch.float32)]))
    for dtype in INTS + FLOATS:
        out.append((7, [("default", 600, dtype), ("default", 5, dtype)]))
    return out


def fixed_step(kind, n, dtype):
    step = {}
    if kind == "normal":
        step.update(call=f"torch.randn({n}, dtype=torch.{name(dtype)})", kind="normal",
                    args=[0.0, 1.0])
        return run(step, lambda: torch.randn(n, dtype=dtype))
    if kind == "uniform":
        step.update(call=f"torch.rand({n}, dtype=torch.{name(dtype)})", kind="uniform",
                    args=[0.0, 1.0])
        return run(step, lambda: torch.rand(n, dtype=dtype))
    if kind == "randint9":
        step.update(call="torch.randint(0, 9, (5, 3))", kind="random_from_to", args=[0, 9])
        return run(step, lambda: torch.randint(0, 9, (5, 3)))
    step.update(call=f"torch.empty({n}, dtype=torch.{name(dtype)}).random_()",
                kind="random_default", args=[])
    return run(step, lambda: torch.empty(n, dtype=dtype).random_())


def edge_steps():
    """Error messages and edge cases, each recorded as a step of one session."""
    e = torch.empty
    cases = [
        ("torch.empty(3).random_(5, 2)", "random_from_to", [5, 2], lambda: e(3).random_(5, 2)),
        ("torch.randint(5, 5, (3,))", "random_from_to", [5, 5],
         lambda: torch.randint(5, 5, (3,))),
        ("torch.empty(3, dtype=torch.float16).random_(0, 70000)", "random_from_to", [0, 70000],
         lambda: e(3, dtype=torch.float16).random_(0, 70000)),
        ("torch.empty(3, dtype=torch.int8).random_(-200, 2)", "random_from_to", [-200, 2],
         lambda: e(3, dtype=torch.int8).random_(-200, 2)),
        ("torch.randint(0, 300, (3,), dtype=torch.uint8)", "random_from_to", [0, 300],
         lambda: torch.randint(0, 300, (3,), dtype=torch.uint8)),
        ("torch.empty(3, dtype=torch.bool).random_(0, 3)", "random_from_to", [0, 3],
         lambda: e(3, dtype=torch.bool).random_(0, 3)),
        ("torch.empty(0).random_(5, 2)", "random_from_to", [5, 2], lambda: e(0).random_(5, 2)),
        ("torch.empty(3, dtype=torch.float16).random_(3000, None)", "random_from", [3000],
         lambda: e(3, dtype=torch.float16).random_(3000, None)),
        ("torch.empty(3, dtype=torch.float16).random_(-2**63, None)", "random_from", [-2**63],
         lambda: e(3, dtype=torch.float16).random_(-2**63, None)),
        ("torch.empty(3, dtype=torch.bool).random_(-2**63, None)", "random_from", [-2**63],
         lambda: e(3, dtype=torch.bool).random_(-2**63, None)),
        ("torch.empty(3, dtype=torch.int8).random_(-2**63, None)", "random_from", [-2**63],
         lambda: e(3, dtype=torch.int8).random_(-2**63, None)),
        ("torch.empty(3).uniform_(2, 1)", "uniform", [2.0, 1.0], lambda: e(3).uniform_(2, 1)),
        ("torch.empty(3, dtype=torch.float16).uniform_(0, 1e6)", "uniform", [0.0, 1e6],
         lambda: e(3, dtype=torch.float16).uniform_(0, 1e6)),
        ("torch.empty(3, dtype=torch.float16).uniform_(-60000, 60000)", "uniform",
         [-60000.0, 60000.0], lambda: e(3, dtype=torch.float16).uniform_(-60000, 60000)),
        ("torch.empty(3).uniform_(-3e38, 3e38)", "uniform", [-3e38, 3e38],
         lambda: e(3).uniform_(-3e38, 3e38)),
        ("torch.empty(3).uniform_(0, float('inf'))", "uniform", [0.0, math.inf],
         lambda: e(3).uniform_(0, math.inf)),
        ("torch.empty(3).uniform_(1.5e-7, 2.123456789)", "uniform", [1.5e-7, 2.123456789],
         lambda: e(3).uniform_(1.5e-7, 2.123456789)),
        ("torch.empty(3).uniform_(2.5, 1.25e-5)", "uniform", [2.5, 1.25e-5],
         lambda: e(3).uniform_(2.5, 1.25e-5)),
        ("torch.empty(600).uniform_(1.0, 1.0000001)", "uniform", [1.0, 1.0000001],
         lambda: e(600).uniform_(1.0, 1.0000001)),
        ("torch.empty(600, dtype=torch.float64).uniform_(1.0, 1.0 + 2**-52)", "uniform",
         [1.0, 1.0 + 2**-52], lambda: e(600, dtype=torch.float64).uniform_(1.0, 1.0 + 2**-52)),
        ("torch.empty(600, dtype=torch.float16).uniform_(1.0, 1.001)", "uniform", [1.0, 1.001],
         lambda: e(600, dtype=torch.float16).uniform_(1.0, 1.001)),
        ("torch.rand(3, dtype=torch.int64)", "uniform", [0.0, 1.0],
         lambda: torch.rand(3, dtype=torch.int64)),
        ("torch.randn(3, dtype=torch.int64)", "normal", [0.0, 1.0],
         lambda: torch.randn(3, dtype=torch.int64)),
        ("torch.empty(0, dtype=torch.int64).normal_()", "normal", [0.0, 1.0],
         lambda: e(0, dtype=torch.int64).normal_()),
        ("torch.empty(3).normal_(0, float('nan'))", "normal", [0.0, math.nan],
         lambda: e(3).normal_(0, math.nan)),
        ("torch.empty(3).normal_(0, 1e300)", "normal", [0.0, 1e300],
         lambda: e(3).normal_(0, 1e300)),
        ("torch.empty(3).normal_(0, 0)", "normal", [0.0, 0.0], lambda: e(3).normal_(0, 0)),
        ("torch.randperm(-1)", "randperm", [-1], lambda: torch.randperm(-1)),
        ("torch.randperm(3000, dtype=torch.float16)", "randperm", [3000],
         lambda: torch.randperm(3000, dtype=torch.float16)),
        ("torch.randperm(129, dtype=torch.int8)", "randperm", [129],
         lambda: torch.randperm(129, dtype=torch.int8)),
        ("torch.randperm(128, dtype=torch.int8)", "randperm", [128],
         lambda: torch.randperm(128, dtype=torch.int8)),
        ("torch.randperm(5, dtype=torch.bool)", "randperm", [5],
         lambda: torch.randperm(5, dtype=torch.bool)),
        ("torch.randperm(0)", "randperm", [0], lambda: torch.randperm(0)),
        ("torch.randperm(2**24 + 2, dtype=torch.float32)", "randperm", [2**24 + 2],
         lambda: torch.randperm(2**24 + 2, dtype=torch.float32)),
        ("torch.randperm(32769, dtype=torch.int16)", "randperm", [32769],
         lambda: torch.randperm(32769, dtype=torch.int16)),
        ("torch.empty(600).random_(-2**63, None)", "random_from", [-2**63],
         lambda: e(600).random_(-2**63, None)),
        ("torch.empty(600, dtype=torch.float64).random_(-2**63, None)", "random_from", [-2**63],
         lambda: e(600, dtype=torch.float64).random_(-2**63, None)),
        ("torch.empty(600, dtype=torch.int64).random_(-2**63, None)", "random_from", [-2**63],
         lambda: e(600, dtype=torch.int64).random_(-2**63, None)),
        ("torch.empty(600, dtype=torch.bfloat16).random_(-2**63, None)", "random_from", [-2**63],
         lambda: e(600, dtype=torch.bfloat16).random_(-2**63, None)),
        ("torch.empty(4099, 2, dtype=torch.float16).t().normal_()", "normal", [0.0, 1.0],
         lambda: e(4099, 2, dtype=torch.float16).t().normal_()),
        ("torch.empty(3, 4096, dtype=torch.float32).t().normal_(1.0, 2.0)", "normal", [1.0, 2.0],
         lambda: e(3, 4096).t().normal_(1.0, 2.0)),
        ("torch.randn(5, dtype=torch.float32)", "normal", [0.0, 1.0],
         lambda: torch.randn(5)),
        ("torch.empty(5, dtype=torch.int32).random_(-2**31, 2**31)", "random_from_to",
         [-2**31, 2**31], lambda: e(5, dtype=torch.int32).random_(-2**31, 2**31)),
        ("torch.empty(5, dtype=torch.int64).random_(0, 2**28)", "random_from_to", [0, 2**28],
         lambda: e(5, dtype=torch.int64).random_(0, 2**28)),
        ("torch.empty(5, dtype=torch.int64).random_(0, 2**28 - 1)", "random_from_to",
         [0, 2**28 - 1], lambda: e(5, dtype=torch.int64).random_(0, 2**28 - 1)),
        ("torch.empty(5, dtype=torch.float32).random_(2**24 - 2, 2**24 + 1)", "random_from_to",
         [2**24 - 2, 2**24 + 1], lambda: e(5).random_(2**24 - 2, 2**24 + 1)),
    ]
    steps = []
    for call, kind, args, fn in cases:
        steps.append(run({"call": call, "kind": kind, "args": [jv(a) for a in args]}, fn))
    return steps


def probe():
    step = {"call": "torch.empty(4, dtype=torch.int64).random_()", "kind": "random_default",
            "args": []}
    return run(step, lambda: torch.empty(4, dtype=torch.int64).random_())


def main():
    out_path = sys.argv[1]
    lines = []
    for i, (seed, plan) in enumerate(fixed_sessions()):
        torch.manual_seed(seed)
        steps = [fixed_step(*p) for p in plan] + [probe()]
        lines.append({"id": f"fixed-{i}", "seed": seed, "steps": steps})
    torch.manual_seed(99)
    lines.append({"id": "edges", "seed": 99, "steps": edge_steps() + [probe()]})
    seeds = list(range(50)) + [2**32 + 5, 2**63 - 1, 123456789012345, DEFAULT_SEED]
    for seed in seeds:
        rng = random.Random(seed)
        torch.manual_seed(seed)
        steps = [make_step(rng, big=(k % 4 == 0)) for k in range(10)] + [probe()]
        lines.append({"id": f"seed-{seed}", "seed": seed, "steps": steps})
    with open(out_path, "w") as f:
        for line in lines:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
    print(f"{len(lines)} sessions, {sum(len(x['steps']) for x in lines)} steps")


if __name__ == "__main__":
    main()
