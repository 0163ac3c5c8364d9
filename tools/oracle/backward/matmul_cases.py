#!/usr/bin/env python3
"""The batched `@` backward cases: ATen's `matmul` of operands above 2-D, through `bmm` (both
batched, broadcast batch dims) or folded into one `mm`/`mv` (`should_fold`), whose gradients
tests/backward_coverage.rs compares with real torch (values exact, shapes, strides, nodes).

usage: python3 tools/oracle/backward/matmul_cases.py > /tmp/matmul.in.jsonl
       /work/torchenv/venv/bin/python tools/oracle/record.py /tmp/matmul.in.jsonl \
           tests/fixtures/backward/matmul_batched.torch.jsonl
"""
import json


def case(name, setup, expr, grads):
    body = (
        "import torch\n"
        + setup
        + f"y = {expr}\n"
        + "y.grad_fn.name()\n"
        + "[f[0].name() for f in y.grad_fn.next_functions if f[0] is not None]\n"
        + "g = torch.randn(y.shape)\n"
        + "(y * g).sum().backward()\n"
        + "".join(f"g{v} = {v}.grad\n" for v in grads)
    )
    return {"id": f"matmul_batched_{name}", "script": body}


CASES = [
    case(
        "attention_4d",
        "q = torch.randn(2, 3, 8, 17, requires_grad=True)\nk = torch.randn(2, 3, 8, 17, requires_grad=True)\n",
        "q @ k.transpose(-2, -1)",
        ("q", "k"),
    ),
    case(
        "broadcast_batch",
        "a = torch.randn(2, 3, 4, 19, requires_grad=True)\nb = torch.randn(3, 19, 6, requires_grad=True)\n",
        "a @ b",
        ("a", "b"),
    ),
    case(
        "broadcast_one",
        "a = torch.randn(4, 1, 5, 23, requires_grad=True)\nb = torch.randn(1, 3, 23, 2, requires_grad=True)\n",
        "torch.matmul(a, b)",
        ("a", "b"),
    ),
    case(
        "folded_3d_2d",
        "a = torch.randn(4, 6, 21, requires_grad=True)\nw = torch.randn(21, 5, requires_grad=True)\n",
        "a @ w",
        ("a", "w"),
    ),
    case(
        "folded_3d_1d",
        "a = torch.randn(3, 7, 29, requires_grad=True)\nv = torch.randn(29, requires_grad=True)\n",
        "a @ v",
        ("a", "v"),
    ),
    case(
        "folded_2d_3d",
        "m = torch.randn(5, 18, requires_grad=True)\nc = torch.randn(4, 18, 7, requires_grad=True)\n",
        "m @ c",
        ("m", "c"),
    ),
    case(
        "folded_1d_3d",
        "v = torch.randn(18, requires_grad=True)\nc = torch.randn(4, 18, 7, requires_grad=True)\n",
        "v @ c",
        ("v", "c"),
    ),
    case(
        "bmm_2d_3d_right_only",
        "m = torch.randn(5, 18)\nc = torch.randn(4, 18, 7, requires_grad=True)\n",
        "m @ c",
        ("c",),
    ),
    case(
        "folded_3d_2d_left_only",
        "a = torch.randn(4, 6, 21, requires_grad=True)\nw = torch.randn(21, 5)\n",
        "a @ w",
        ("a",),
    ),
    case(
        "unfolded_3d_2d",
        "a0 = torch.randn(4, 2, 6, 21, requires_grad=True)\na = a0.transpose(0, 1)\nw = torch.randn(21, 5)\n",
        "a @ w",
        ("a0",),
    ),
]

if __name__ == "__main__":
    for c in CASES:
        print(json.dumps(c))
