#!/usr/bin/env python3
"""Group the steps where Stridescope differs from PyTorch by cause, most frequent first.

usage: triage.py --trace-cmd 'target/release/stridescope trace {}' CASES.jsonl [--top N]

Runs the trace command on every case (as ../shared/oracle/check.py does, with its
comparison) and prints Markdown: the figures, then one section per cause ("missing function
torch.randn", "error text differs for ...", "wrong stride after view", ...) with the number of
failing steps it explains, its knock-on steps (later steps that fail only because a name it
should have bound is missing), the cases it appears in, and one short reproducer: the failing
statement with just the earlier statements it depends on, and PyTorch's answer vs ours.
"""
import argparse
import ast
import collections
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "shared", "oracle"))
sys.path.insert(0, "/work/shared/oracle")
import check  # noqa: E402  (the oracle's own comparison)


def call_name(source):
    """The op a statement is about: the outermost call's function name, else ''."""
    try:
        tree = ast.parse(source.strip().rstrip(":") + ("\n    pass" if source.rstrip().endswith(":") else ""))
    except SyntaxError:
        return ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute):
                base = f.value
                prefix = "torch." if isinstance(base, ast.Name) and base.id == "torch" else (
                    "np." if isinstance(base, ast.Name) and base.id == "np" else (
                        "F." if isinstance(base, ast.Name) and base.id == "F" else "."))
                return prefix + f.attr
            if isinstance(f, ast.Name):
                return f.id
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            return "indexing"
        if isinstance(node, ast.Attribute):
            return "." + node.attr
    return ""


def normalize(text):
    return re.sub(r"\d+", "N", text)


def cause_of_error(got):
    """A cause key for a statement that raised in Stridescope but not in PyTorch."""
    m = re.match(r"AttributeError: module '(\w+(?:\.\w+)*)' has no attribute '(\w+)'", got)
    if m:
        return f"missing {m.group(1)}.{m.group(2)} (no such attribute)"
    m = re.match(r"AttributeError: '(\w+)' object has no attribute '(\w+)'", got)
    if m:
        return f"missing method/attribute {m.group(1)}.{m.group(2)}"
    m = re.match(r"TypeError: (\w+)\(\) got an unexpected keyword argument '(\w+)'", got)
    if m:
        return f"missing keyword {m.group(1)}({m.group(2)}=)"
    if got.startswith("SyntaxError"):
        return "unsupported syntax: " + got[len("SyntaxError: "):]
    return "raises where PyTorch does not: " + normalize(got)[:110]


def names_loaded(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def names_stored(node):
    out = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        out |= {(a.asname or a.name).split(".")[0] for a in node.names}
    # in-place methods and item writes change the object a name holds
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr.endswith("_") \
                and isinstance(n.func.value, ast.Name):
            out.add(n.func.value.id)
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name):
            out.add(n.value.id)
    return out


def reproducer(script, line):
    """The statement at `line` and the earlier statements it depends on."""
    try:
        body = ast.parse(script).body
    except SyntaxError:
        return script
    lines = script.split("\n")
    idx = next((i for i, n in enumerate(body) if n.lineno == line), None)
    if idx is None:
        return lines[line - 1]
    keep = [idx]
    needed = names_loaded(body[idx])
    for i in range(idx - 1, -1, -1):
        n = body[i]
        stored = names_stored(n)
        if stored & needed or (isinstance(n, ast.Expr) and call_name(ast.unparse(n)) == "torch.manual_seed"):
            keep.append(i)
            needed |= names_loaded(n)
    keep.sort()
    text = []
    for i in keep:
        n = body[i]
        text.append("\n".join(lines[n.lineno - 1:n.end_lineno]))
    return "\n".join(text)


def comprehension_targets(source):
    """Names bound by the comprehensions of a statement."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n.id for c in ast.walk(tree) if isinstance(c, ast.comprehension)
            for n in ast.walk(c.target) if isinstance(n, ast.Name)}


def uses_rng(script):
    return bool(re.search(r"\brand|randn|randint|randperm|random_|normal_|uniform_|bernoulli|manual_seed", script))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trace-cmd", required=True)
    ap.add_argument("cases")
    ap.add_argument("--top", type=int, default=60, help="causes to print")
    a = ap.parse_args()
    cases = [json.loads(l) for l in open(a.cases) if l.strip()]
    causes = collections.OrderedDict()
    fig = collections.Counter()
    broken = {}  # name -> cause of the failing step that should have bound it (per case)

    def add(key, case, step, detail, knock_on=False):
        c = causes.setdefault(key, {"steps": 0, "knock": 0, "cases": set(), "example": None})
        c["knock" if knock_on else "steps"] += 1
        c["cases"].add(case["id"])
        if c["example"] is None and not knock_on:
            c["example"] = (case["id"], reproducer(case["script"], step["line"]), detail)
        # Names this statement should have bound now have this cause.
        try:
            stmt = next(n for n in ast.parse(case["script"]).body if n.lineno == step["line"])
            for name in names_stored(stmt):
                broken.setdefault(name, key)
        except (SyntaxError, StopIteration):
            pass

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "case.py")
        for case in cases:
            with open(path, "w") as f:
                f.write(case["script"] + "\n")
            cmd = [path if w == "{}" else w for w in shlex.split(a.trace_cmd)]
            try:
                got = json.loads(subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout)["steps"]
            except Exception:  # noqa: BLE001
                got = []
            fig["cases"] += 1
            if len(got) != len(case["steps"]):
                exp_lines = [st["line"] for st in case["steps"]]
                got_lines = [g.get("line") for g in got if isinstance(g, dict)]
                missing = [st for st in case["steps"] if st["line"] not in got_lines]
                extra = [ln for ln in got_lines if ln not in exp_lines]
                detail = (f"expected {len(case['steps'])} steps (lines {exp_lines[:12]}...), got "
                          f"{len(got)} (lines {got_lines[:12]}...)")
                for st in missing:
                    add(f"trace has no step for `{normalize(st['source'])[:60]}`", case, st, detail)
                if extra:
                    add("trace has steps for lines PyTorch ran as part of another statement", case,
                        case["steps"][0], detail + f"; extra lines {extra[:8]}")
                if not missing and not extra:
                    add("trace has a different number of steps for the same lines", case,
                        case["steps"][0], detail)
            broken.clear()
            case_ok = len(got) == len(case["steps"])
            # Steps are matched by line, so that a block the trace splits into one step per
            # line still lines up with the rest.
            by_line = {}
            for g in got:
                if isinstance(g, dict):
                    by_line.setdefault(g.get("line"), g)
            for i, exp in enumerate(case["steps"]):
                fig["steps"] += 1
                g = by_line.get(exp["line"], {})
                diffs = check.compare_step(exp, g) if g else ["step missing"]
                ee, ge = exp["error"], g.get("error")
                if ee is not None:
                    fig["errors"] += 1
                    fig["errors_exact"] += ee == ge
                if not diffs and (ee is None or ee == ge):
                    fig["steps_ok"] += 1
                    continue
                if not diffs:  # only the error text differs
                    fig["steps_ok"] += 1
                case_ok = False
                src = exp["source"]
                op = call_name(src) or src
                if not g:
                    continue
                m = re.match(r"NameError: name '(\w+)' is not defined", ge or "")
                if m and m.group(1) in broken and ge != ee:
                    add(broken[m.group(1)], case, exp, "", knock_on=True)
                    continue
                if ge is not None and ee is None:
                    add(cause_of_error(ge), case, exp, f"PyTorch: no error; Stridescope: {ge}")
                    continue
                if ee is not None and ge is None:
                    add(f"no error raised by {op}: expected {normalize(ee)[:100]}", case, exp,
                        f"PyTorch: {ee}; Stridescope: no error")
                    continue
                if ee is not None and ge != ee:
                    add(f"error text differs for {op}", case, exp, f"PyTorch: {ee}\nStridescope: {ge}")
                    continue
                # tensors or outputs differ
                et = [t["name"] for t in exp["tensors"]]
                gt = [t.get("name") for t in g.get("tensors", [])]
                if et != gt:
                    # missing, extra or reordered names, all of them ones a failed step left stale
                    odd = set(et) ^ set(gt) or {n for n, m in zip(et, gt) if n != m}
                    if odd and all(n in broken for n in odd):
                        add(broken[sorted(odd)[0]], case, exp, "", knock_on=True)
                        continue
                else:
                    # only variables that a failed step left stale differ
                    wrong = {d.split(".")[0] for d in diffs if not d.startswith(("error", "output", "storage sharing"))}
                    if wrong and all(n in broken for n in wrong) and not any(d.startswith(("error", "output")) for d in diffs):
                        add(broken[sorted(wrong)[0]], case, exp, "", knock_on=True)
                        continue
                fields = sorted({d.split(":")[0].split(".")[-1] for d in diffs})
                touched = set(gt) ^ set(et) | {d.split(".")[0] for d in diffs}
                if touched & comprehension_targets(src):
                    key = "comprehension variables leak into the notebook (Python 3 keeps them local)"
                elif any(f.startswith("tensor names") for f in fields):
                    extra, lost = sorted(set(gt) - set(et)), sorted(set(et) - set(gt))
                    what = (f"extra {extra} " if extra else "") + (f"missing {lost}" if lost else "")
                    key = f"tensor variables differ after {op}: {what or 'order'}"
                elif fields == ["values"] and uses_rng(case["script"]):
                    key = f"wrong values after {op} (script uses the RNG)"
                elif fields == ["output"]:
                    key = f"output differs for {op}"
                else:
                    key = f"wrong {', '.join(fields)} after {op}"
                add(key, case, exp, "\n".join(diffs[:3]))
            fig["cases_ok"] += case_ok

    pct = lambda x, y: f"{x}/{y} ({100 * x / y:.1f}%)" if y else f"{x}/{y}"  # noqa: E731
    print(f"- steps matching PyTorch (matched by line): {pct(fig['steps_ok'], fig['steps'])}")
    print(f"- error text exactly PyTorch's: {pct(fig['errors_exact'], fig['errors'])}")
    print(f"- cases fully matching: {pct(fig['cases_ok'], fig['cases'])}")
    print()
    ranked = sorted(causes.items(), key=lambda kv: -(kv[1]["steps"] + kv[1]["knock"]))
    print("| # | cause | failing steps | + knock-on | cases |")
    print("| --- | --- | --- | --- | --- |")
    for n, (key, c) in enumerate(ranked[:a.top], 1):
        print(f"| {n} | {key.replace('|', '/')} | {c['steps']} | {c['knock']} | {len(c['cases'])} |")
    if len(ranked) > a.top:
        rest = ranked[a.top:]
        print(f"| | {len(rest)} more causes | {sum(c['steps'] for _, c in rest)} | "
              f"{sum(c['knock'] for _, c in rest)} | |")
    print()
    for n, (key, c) in enumerate(ranked[:a.top], 1):
        if c["example"] is None:
            continue
        cid, repro, detail = c["example"]
        print(f"### {n}. {key} ({c['steps']} steps + {c['knock']} knock-on)")
        print(f"from `{cid}`:")
        print("```python")
        print(repro)
        print("```")
        if detail:
            print("```")
            print(detail[:700])
            print("```")
        print()


if __name__ == "__main__":
    main()
