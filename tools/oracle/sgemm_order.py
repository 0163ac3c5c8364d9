"""How PyTorch's float32 `torch.mm` adds on this CPU (MKL's `sgemm`), against the rule that
`src/engines/cpu/sgemm.rs` follows: each element a chain of float32 fused multiply-adds in `p`
order from 0.0; `k` up to 384 one chain, up to 768 two (the first ceil(k/2) values of `p`,
then the rest) added at the end. Prints, per shape and layout, the fraction of elements equal
in every bit to the rule and to the float64 sum rounded once.

Run in the recording venv (never in CI): `venv/bin/python tools/oracle/sgemm_order.py`.
The fused multiply-add is emulated in float64 (a product of two float32 values is exact
there); a float64 sum that lands on a float32 tie would round twice, about once in 10^9.
"""
import itertools

import numpy as np
import torch


def chain(a, b):
    """The chain of fused multiply-adds over all of `p`, from 0.0."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    for p in range(a.shape[1]):
        acc = (acc.astype(np.float64) + np.outer(a64[:, p], b64[p, :])).astype(np.float32)
    return acc


def rule(a, b):
    k = a.shape[1]
    if k <= 384:
        return chain(a, b)
    if k <= 768:
        half = (k + 1) // 2
        return chain(a[:, :half], b[:half]) + chain(a[:, half:], b[half:])
    return None


def same(x, y):
    return float((x.view(np.int32) == y.view(np.int32)).mean())


def main():
    torch.manual_seed(0)
    shapes = [(16, 4, 8), (16, 8, 2), (8, 16, 4), (64, 100, 10), (1000, 64, 100),
              (32, 32, 32), (128, 256, 64), (7, 300, 9), (16, 401, 16), (300, 500, 300),
              (256, 700, 256), (3, 5, 7), (64, 1000, 100)]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    for (m, k, n), (ta, tb) in itertools.product(shapes, itertools.product([False, True], repeat=2)):
        a = torch.randn(k, m).t() if ta else torch.randn(m, k)
        b = torch.randn(n, k).t() if tb else torch.randn(k, n)
        got = torch.mm(a, b).numpy()
        a_, b_ = a.contiguous().numpy(), b.contiguous().numpy()
        expected = rule(a_, b_)
        wide = (a_.astype(np.float64) @ b_.astype(np.float64)).astype(np.float32)
        shown = "-" if expected is None else f"{same(got, expected):.3f}"
        print(f"{m}x{k}x{n} a{'ᵀ' if ta else ' '} b{'ᵀ' if tb else ' '}: rule {shown}, float64 sum {same(got, wide):.3f}")


if __name__ == "__main__":
    main()
