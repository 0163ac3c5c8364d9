#!/usr/bin/env python3
"""Record what real PyTorch does with notebook-style scripts (the oracle's format).

usage: record.py IN.jsonl OUT.jsonl
       (IN holds one {"id", "script"} object a line; OUT gets one case a line, in the
       schema of ../shared/oracle/cases.jsonl: {"id", "script", "steps": [...]})

Each script runs in a fresh namespace holding only `torch`, one statement at a time, with
notebook semantics (see the oracle README): a statement that raises binds nothing and the
script goes on; a bare expression's `output` is its `repr` (null for None); `error` is
"<Type>: <first line of the message>"; `tensors` lists every variable holding a tensor after
the statement, in first-assignment order.

Needs a local PyTorch (e.g. /tmp/torchenv/venv/bin/python).  Never run in CI.
"""
import ast
import json
import math
import sys
import warnings

import torch

warnings.filterwarnings("ignore")


def json_value(v):
    """A tensor element as the trace writes it (non-finite floats as strings)."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def tensor_record(name, t):
    """One entry of a step's `tensors` list."""
    storage = t.untyped_storage()
    return {
        "name": name,
        "dtype": str(t.dtype).removeprefix("torch."),
        "shape": list(t.shape),
        "stride": list(t.stride()),
        "storage_offset": t.storage_offset(),
        "storage": f"p{storage.data_ptr()}",
        "storage_nbytes": storage.nbytes(),
        "contiguous": t.is_contiguous(),
        "values": [json_value(v) for v in t.detach().flatten().tolist()],
    }


def error_text(e):
    """`"<Type>: <first line of the message>"`, as the oracle records exceptions."""
    msg = str(e)
    first = msg.split("\n")[0] if msg else ""
    return f"{type(e).__name__}: {first}"


def run_statement(node, ns):
    """Runs one statement; returns (error, output)."""
    if isinstance(node, ast.Expr):
        code = compile(ast.Expression(node.value), "<cell>", "eval")
        try:
            value = eval(code, ns)
        except Exception as e:  # noqa: BLE001 - the notebook shows any exception
            return error_text(e), None
        return None, (None if value is None else repr(value))
    code = compile(ast.Module([node], type_ignores=[]), "<cell>", "exec")
    try:
        exec(code, ns)
    except Exception as e:  # noqa: BLE001
        return error_text(e), None
    return None, None


def record(case_id, script):
    """The oracle case for one script."""
    lines = script.split("\n")
    ns = {"torch": torch}
    steps = []
    for node in ast.parse(script).body:
        error, output = run_statement(node, ns)
        tensors = [
            tensor_record(name, v)
            for name, v in ns.items()
            if name != "torch" and isinstance(v, torch.Tensor)
        ]
        steps.append(
            {
                "line": node.lineno,
                "source": lines[node.lineno - 1].strip(),
                "error": error,
                "output": output,
                "tensors": tensors,
            }
        )
    return {"id": case_id, "script": script, "steps": steps}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    torch.manual_seed(0)
    with open(sys.argv[1]) as src, open(sys.argv[2], "w") as out:
        for line in src:
            if not line.strip():
                continue
            case = json.loads(line)
            try:
                rec = record(case["id"], case["script"])
            except SyntaxError as e:
                print(f"skipping {case['id']}: {e}", file=sys.stderr)
                continue
            out.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
