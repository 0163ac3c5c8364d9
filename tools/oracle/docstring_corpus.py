#!/usr/bin/env python3
"""Scripts made of the `>>>` examples in PyTorch's own docstrings, as students paste them.

usage: docstring_corpus.py OUT.jsonl [LOG.txt]

For each op in OPS, takes the docstrings that torch 2.15 defines for it in
`torch/_torch_docs.py` (`torch.<op>`) and `torch/_tensor_docs.py` (`Tensor.<op>`), and for
the few ops documented elsewhere, `torch/functional.py` and `torch/_tensor.py`.  Every
`>>>` statement, with its `...` continuation lines, is kept; the printed output lines are
dropped.  All the examples of one op, the `torch.<op>` ones first, are joined into one
script with the id `doc-<op>`, written to OUT as `{"id", "script"}` lines for record.py.

An example is a run of `>>>` statements up to the next blank line.  Examples that cannot
run on a CPU-only notebook or use features outside Stridescope's scope (CUDA, autograd,
sparse, named, quantized or nested tensors, other devices, TorchScript) are dropped whole,
and so is an example that does not parse; every dropped example, every op without
examples, and the counts are written to LOG (default: stderr).  A script whose examples use
`numpy.` or `math.` without importing it (the docs' doctests have them at hand) starts with
`import numpy` / `import math`, and the log says so.

Needs the torch whose docstrings are wanted (e.g. /work/torchenv/venv/bin/python).
"""
import ast
import json
import os
import re
import sys

import torch

# The ops of issue 9 ("Real notebooks run") and the oracle's script language.
OPS = [
    # Creation and the RNG
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "arange", "linspace",
    "eye", "empty", "empty_like", "empty_strided", "zeros_like", "ones_like", "full_like",
    "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor",
    "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
    "manual_seed", "initial_seed", "seed", "uniform_", "normal_", "random_", "bernoulli",
    # The "Tensor Views" page
    "as_strided", "detach", "diagonal", "expand", "expand_as", "movedim", "moveaxis",
    "narrow", "permute", "select", "squeeze", "unsqueeze", "transpose", "t", "T", "mT",
    "H", "mH", "adjoint", "real", "imag", "view_as_real", "view_as_complex", "unfold",
    "view", "view_as", "unbind", "split", "split_with_sizes", "chunk", "tensor_split",
    "hsplit", "vsplit", "dsplit", "swapaxes", "swapdims", "unflatten", "reshape",
    "reshape_as", "flatten", "ravel", "contiguous", "is_contiguous", "stride",
    "storage_offset", "storage", "untyped_storage", "data_ptr", "is_floating_point",
    "is_complex", "element_size", "numel", "dim", "size", "nbytes", "itemsize",
    "squeeze_", "unsqueeze_", "t_", "transpose_", "broadcast_to",
    # Copies
    "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
    "row_stack", "flip", "fliplr", "flipud", "roll", "rot90", "repeat", "tile",
    "repeat_interleave", "tril", "triu", "where", "masked_fill", "masked_fill_",
    "masked_select", "index_select", "gather", "scatter", "scatter_", "scatter_add",
    "take", "take_along_dim", "index_fill_", "index_copy_", "index_add_", "put_",
    "clone", "numpy", "tolist", "item", "to", "type", "type_as", "float", "int", "long",
    "copy_", "fill_", "zero_", "nonzero",
    # Arithmetic, comparisons and reductions that tutorials use
    "add", "add_", "sub", "mul", "mul_", "div", "true_divide", "floor_divide", "remainder",
    "matmul", "mm", "abs", "neg", "pow", "sqrt", "exp", "clamp", "clamp_", "relu",
    "eq", "gt", "lt", "allclose", "equal", "sum", "mean", "amax", "max", "min", "argmax",
    "cumsum", "prod", "std", "sort", "topk", "all", "any",
]

SOURCES = [
    ("torch", "_torch_docs.py"), ("torch", "functional.py"),
    ("Tensor", "_tensor_docs.py"), ("Tensor", "_tensor.py"),
]

# (reason, pattern): the first that matches an example drops it.
DROP = [
    ("CUDA-only", re.compile(r"cuda|TORCH_DOCTEST_CUDA")),
    ("uses autograd", re.compile(r"\.backward\(|\.grad\b|torch\.autograd|grad_fn|retain_grad")),
    ("sparse tensors", re.compile(r"sparse|to_dense|crow_|col_indices")),
    ("named tensors", re.compile(r"names=|\.rename\(|refine_names|align_to|\.names\b")),
    ("quantized tensors", re.compile(r"quantize|qint|quint|q_scale")),
    ("nested tensors", re.compile(r"torch\.nested")),
    ("other devices (meta, mps, xpu)", re.compile(r"['\"](meta|mps|xpu)['\"]|device\(['\"](meta|mps|xpu)")),
    ("TorchScript / compile", re.compile(r"torch\.jit|torch\.compile")),
]


def documented_names(path):
    """Names that add_docstr / add_docstr_all document in a file (for _torch_docs.py and
    _tensor_docs.py), or functions and properties defined in it (functional.py, _tensor.py)."""
    tree = ast.parse(open(path).read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            if node.func.id == "add_docstr_all" and isinstance(node.args[0], ast.Constant):
                names.add(node.args[0].value)
            elif node.func.id == "add_docstr" and isinstance(node.args[0], ast.Attribute):
                target = ast.unparse(node.args[0])
                if target.count(".") == 1 and target.startswith("torch."):
                    names.add(target.split(".")[1])
        elif isinstance(node, ast.FunctionDef) and ast.get_docstring(node):
            names.add(node.name)
    return names


def examples(doc):
    """The examples of a docstring: lists of statements (each a string, maybe multi-line)."""
    found, current, stmt = [], [], None
    for raw in doc.split("\n"):
        line = raw.strip()
        if line.startswith(">>>"):
            if stmt is not None:
                current.append("\n".join(stmt))
            stmt = [line[4:] if line.startswith(">>> ") else line[3:]]
            continue
        if stmt is not None and (line == "..." or line.startswith("... ")):
            # A continuation keeps its indentation relative to the `>>>` line.
            stmt.append(raw.split("...", 1)[1][1:])
            continue
        if stmt is not None:
            current.append("\n".join(stmt))
            stmt = None
        if not line and current:  # a blank line ends the example
            found.append(current)
            current = []
    if stmt is not None:
        current.append("\n".join(stmt))
    if current:
        found.append(current)
    return found


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    log = open(sys.argv[2], "w") if len(sys.argv) == 3 else sys.stderr
    site = os.path.dirname(torch.__file__)
    documented = {(owner, f): documented_names(os.path.join(site, f)) for owner, f in SOURCES}
    kept_ops = kept_examples = dropped_examples = 0
    reasons = {}
    with open(sys.argv[1], "w") as out:
        for op in OPS:
            parts = []
            seen_docs = set()
            for owner, fname in SOURCES:
                if op not in documented[(owner, fname)]:
                    continue
                obj = getattr(torch if owner == "torch" else torch.Tensor, op, None)
                doc = getattr(obj, "__doc__", None)
                if not doc or doc in seen_docs:
                    continue
                seen_docs.add(doc)
                for n, ex in enumerate(examples(doc), 1):
                    code = "\n".join(ex)
                    where = f"{owner}.{op} ({fname}) example {n}"
                    reason = next((r for r, pat in DROP if pat.search(code)), None)
                    if reason is None:
                        try:
                            ast.parse(code)
                        except SyntaxError as e:
                            reason = f"does not parse ({e.msg})"
                    if reason:
                        dropped_examples += 1
                        reasons[reason] = reasons.get(reason, 0) + 1
                        print(f"dropped {where}: {reason}", file=log)
                        for stmt in ex:
                            print("    >>> " + stmt.replace("\n", "\n    ... "), file=log)
                        continue
                    kept_examples += 1
                    parts.append(f"# {owner}.{op}, example {n}\n{code}")
            if not parts:
                print(f"no examples: {op}", file=log)
                continue
            kept_ops += 1
            script = "\n\n".join(parts)
            # The docs run with `numpy` and `math` at hand; a student who pastes them adds the
            # import after the NameError.
            imports = [m for m in ("numpy", "math")
                       if re.search(rf"(?<![\w.]){m}\.", script)
                       and not re.search(rf"^import {m}\b", script, re.M)]
            if imports:
                print(f"doc-{op}: starts with `import {', '.join(imports)}` "
                      f"(its examples use {', '.join(imports)} without importing it)", file=log)
                script = "".join(f"import {m}\n" for m in imports) + script
            out.write(json.dumps({"id": f"doc-{op}", "script": script}) + "\n")
    summary = ", ".join(f"{r}: {k}" for r, k in sorted(reasons.items(), key=lambda x: -x[1]))
    print(f"docstring_corpus.py: {kept_ops} scripts, {kept_examples} examples kept, "
          f"{dropped_examples} dropped ({summary})", file=log)
    if log is not sys.stderr:
        print(f"docstring_corpus.py: {kept_ops} scripts, {kept_examples} examples kept, "
              f"{dropped_examples} dropped ({summary}); details in {sys.argv[2]}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
