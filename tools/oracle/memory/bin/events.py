#!/usr/bin/env python3
"""The CPU allocator's events of every step of the memory corpus, in order, with the ATen op
that made each one: what a step's `peak_bytes` is computed from.

usage: events.py IN.jsonl OUT.jsonl   (IN: {"id", "script"} per line; needs torch 2.15, never in CI)

Each script runs in its own forked process (no garbage of another script is collected in its
steps), as `record.py --memory` runs it (a namespace holding only `torch`, the notebook seed,
one top-level statement under `torch.profiler` with `profile_memory=True`);
OUT gets, per case, {"id", "steps": [{"line", "source", "events": [[nbytes, "op < parent <
grandparent"], ...]}]}: `nbytes` > 0 an allocation, < 0 a free, in time order; the op names
are the innermost profiled ops around the event ("" where none was running: a free by
Python's refcount between ops). Compare an evaluator's own allocation log with these.
"""
import ast
import contextlib
import io
import json
import os
import sys
import warnings

import torch
from torch.profiler import ProfilerActivity, profile

SEED = 67280421310721


def step_events(prof):
    """[[nbytes, ops]] of one profile, in time order."""
    evs = list(prof.profiler.kineto_results.events())
    ops = [(e.start_ns(), e.start_ns() + e.duration_ns(), e.name()) for e in evs if e.name() != "[memory]"]
    out = []
    for e in sorted((e for e in evs if e.name() == "[memory]" and e.nbytes()), key=lambda e: (e.start_ns(), e.nbytes())):
        t = e.start_ns()
        around = sorted((o for o in ops if o[0] <= t <= o[1]), key=lambda o: o[1] - o[0])
        out.append([e.nbytes(), " < ".join(o[2] for o in around[:3])])
    return out


def record(cid, script):
    torch.manual_seed(SEED)
    ns = {"torch": torch}
    lines = script.split("\n")
    steps = []
    for node in ast.parse(script).body:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings(), \
                profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            warnings.simplefilter("ignore")
            try:
                exec(compile(ast.Module([node], type_ignores=[]), "<cell>", "exec"), ns)
            except Exception:  # noqa: BLE001 - the error is in the oracle's case
                pass
        steps.append({"line": node.lineno, "source": lines[node.lineno - 1].strip(),
                      "events": step_events(prof)})
    return {"id": cid, "steps": steps}


def record_forked(cid, script):
    """`record` in a forked child (a fresh notebook); its JSON text."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        code = 0
        try:
            with os.fdopen(wfd, "w") as w:
                w.write(json.dumps(record(cid, script), ensure_ascii=False))
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(wfd)
    with os.fdopen(rfd) as r:
        text = r.read()
    os.waitpid(pid, 0)
    return text


if __name__ == "__main__":
    with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
        for line in f:
            if line.strip():
                c = json.loads(line)
                text = record_forked(c["id"], c["script"])
                if text:
                    out.write(text + "\n")
                else:
                    print(f"events.py: {c['id']}: the recording process failed", file=sys.stderr)
