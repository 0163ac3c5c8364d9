#!/usr/bin/env python3
"""Record what real PyTorch does with notebook-style scripts (the oracle's format).

usage: record.py [--drop-nonfinite] [--max-case-bytes N] [--timeout S] [--memory] IN.jsonl OUT.jsonl
       (IN holds one {"id", "script"} object a line; OUT gets one case a line, in the
       schema of ../shared/oracle/cases.jsonl: {"id", "script", "steps": [...]})

Each script is recorded as a fresh notebook:

- in its own process, forked from one that has only imported torch (so nothing a script
  does, e.g. `torch.set_default_dtype`, `torch.set_printoptions` or `import numpy as np`,
  reaches the next script), with the CPU generator at Stridescope's notebook seed
  67280421310721 (a real fresh process seeds itself from the OS, so no notebook is
  reproducible without a seed; `torch.manual_seed(67280421310721)` gives the generator
  exactly the state of a fresh `torch.Generator()`);
- in a namespace holding only `torch` (`np`, `F`, `nn` exist only once the script imports
  them), one top-level statement at a time: a `for`/`while`/`if`/`with`/`def` block is one
  step, whose `line` is its first line and `source` that line's text;
- a statement that raises binds nothing more and the script goes on; `error` is
  "<Type>: <first line of the message>" (the state is whatever Python left, e.g. the
  iterations of a loop that ran before the error);
- `output` is what the notebook shows for the step: the text the statement printed to
  stdout (`print(model)` prints the module tree), followed by the `repr` of a bare
  expression's value (a module's or an optimizer's repr too; None shows nothing); one
  trailing newline of printed text is dropped; null when nothing shows;
- `tensors` lists every variable holding a torch.Tensor after the statement (an
  `nn.Parameter` too; not numpy arrays, modules, optimizers or lists of tensors), in
  first-assignment order; a tensor on another device than the CPU gets a `"device"` field
  (`"meta"`), and a meta tensor has `"values": null` (it has no elements); complex elements are
  written as their real and imaginary parts in turn (the values of `view_as_real`);
  `storage` is `s0`, `s1`, ... by the storage's address, in order of first appearance;
- warnings are silenced (they go to stderr in a notebook, never into `output`), and
  uninitialized memory (`torch.empty`) reads as zeros: the recorder runs with glibc's
  MALLOC_PERTURB_=255 and no tcache, so every fresh allocation is zero-filled.

Each script runs twice, the second time in a process started from scratch (other addresses);
a case whose steps differ between the two runs (an address in an output, such as the
`<torch._C.Generator object at 0x...>` a bare `torch.manual_seed(0)` shows, a bare
`y.grad_fn` `<AddBackward0 object at 0x...>`, `id()`, ...) is dropped and reported with the
first step that differed, the field and both texts around the first difference (so the
script can print `y.grad_fn.name()` instead).  So are scripts that
do not parse, that run past --timeout seconds, whose JSON passes --max-case-bytes, or that
hold a tensor the schema cannot describe (sparse, quantized, a device other than cpu/meta).  With --drop-nonfinite, cases with
NaN or infinite values anywhere are dropped too (check.py compares finite numbers only).
Every dropped case is reported on stderr as `dropped ID: reason`.

With --memory, every step also gets the trace contract's `"memory": {"live_bytes", "peak_bytes",
"saved"}` (../shared/oracle/README.md), recorded as ../shared/oracle/record_memory.py records it, in
a third run (its own fresh process, nothing pinned): each statement under `torch.profiler` with
`profile_memory=True`, the peak from the raw `[memory]` events in order starting at the live bytes
before the step (null where the events do not add up to the live bytes after it), and the live
bytes and saved tensors from a walk of the namespace.  Two differences, both on the contract's
side: the walk keeps every object it visits alive while it runs (record_memory.py tells objects
apart by id() and lets temporaries die, so a recycled id can hide a gradient), and it never
unpacks a tensor saved under a non-reentrant checkpoint (that would run the recomputation; such
a tensor is not counted, as the contract's "walk such graphs without unpacking" asks).

Needs a local PyTorch (e.g. /work/torchenv/venv/bin/python).  Never run in CI.
"""
import argparse
import ast
import contextlib
import io
import json
import math
import os
import signal
import subprocess
import sys
import warnings

SEED = 67280421310721

# Zero-filled fresh allocations (see the docstring); glibc reads these when the process
# starts, so set them and start again.
_ENV = {"MALLOC_PERTURB_": "255", "GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"}
if any(os.environ.get(k) != v for k, v in _ENV.items()):
    os.execve(sys.executable, [sys.executable] + sys.argv, {**os.environ, **_ENV})

import torch  # noqa: E402

warnings.filterwarnings("ignore")


class Unrecordable(Exception):
    """The script's state cannot be written in the oracle's schema."""


def json_value(v):
    """A tensor element as the trace writes it (non-finite floats as strings)."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def element_values(t):
    """The elements in logical row-major order; complex ones as real, imaginary."""
    flat = t.detach().flatten()
    if flat.is_complex():
        flat = torch.view_as_real(flat.resolve_conj()).flatten()
    return [json_value(v) for v in flat.resolve_conj().resolve_neg().tolist()]


def storage_id(t):
    """Equal for tensors whose memory is the same storage.  Zero-byte storages all have
    data_ptr 0, so those are told apart by their StorageImpl."""
    storage = t.untyped_storage()
    if storage.nbytes() == 0 or t.device.type == "meta":  # meta storages have no data_ptr
        return f"c{storage._cdata}"
    return f"p{storage.data_ptr()}"


# Every storage a variable ever held is kept alive until the script ends, so that no later
# storage gets its address and the ids tell storages apart across steps (and runs).
PINNED = []


def tensor_record(name, t):
    """One entry of a step's `tensors` list."""
    device = t.device.type
    if t.layout != torch.strided or device not in ("cpu", "meta") or t.is_quantized:
        raise Unrecordable(f"variable {name} is a {t.layout} tensor on {t.device}")
    try:
        storage = t.untyped_storage()
        PINNED.append(storage)
        rec = {
            "name": name,
            "dtype": str(t.dtype).removeprefix("torch."),
            "shape": list(t.shape),
            "stride": list(t.stride()),
            "storage_offset": t.storage_offset(),
            "storage": storage_id(t),
            "storage_nbytes": storage.nbytes(),
            "contiguous": t.is_contiguous(),
        }
        if device != "cpu":  # absent means cpu (the contract), so CPU cases stay as they were
            rec["device"] = device
        rec["values"] = None if device == "meta" else element_values(t)
        return rec
    except Exception as e:  # noqa: BLE001
        raise Unrecordable(f"variable {name}: {type(e).__name__}: {e}") from e


def error_text(e):
    """`"<Type>: <first line of the message>"`, as the oracle records exceptions."""
    msg = str(e)
    first = msg.split("\n")[0] if msg else ""
    return f"{type(e).__name__}: {first}"


def run_statement(node, ns):
    """Runs one statement; returns (error, output)."""
    printed = io.StringIO()
    error, value = None, None
    with contextlib.redirect_stdout(printed), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if isinstance(node, ast.Expr):
                value = eval(compile(ast.Expression(node.value), "<cell>", "eval"), ns)
            else:
                exec(compile(ast.Module([node], type_ignores=[]), "<cell>", "exec"), ns)
        except Exception as e:  # noqa: BLE001 - the notebook shows any exception
            error, value = error_text(e), None
        if value is not None:
            try:
                shown = repr(value)
            except Exception as e:  # noqa: BLE001 - the notebook shows the repr's error
                error, shown = error_text(e), None
    out = printed.getvalue()
    if value is not None and shown is not None:
        return error, out + shown
    if out.endswith("\n"):
        out = out[:-1]
    return error, (out if printed.getvalue() else None)


def record(case_id, script):
    """The oracle case for one script (run in a fresh process)."""
    lines = script.split("\n")
    torch.manual_seed(SEED)
    ns = {"torch": torch}
    steps = []
    for node in ast.parse(script).body:
        error, output = run_statement(node, ns)
        tensors = [
            tensor_record(name, v)
            for name, v in list(ns.items())
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


class _NoRecompute(Exception):
    """Raised instead of a non-reentrant checkpoint's recomputation while the walk runs."""


def memory_walk(ns):
    """(live bytes, sorted saved tensors) of what the namespace can reach: variables; lists,
    tuples, sets, dicts (values) and objects; modules' parameters, buffers and tensor
    attributes; optimizers' params and state; tensors' .grad and grad_fn graphs with the
    tensors their nodes saved (`_saved_*`).  Storages are told apart by their StorageImpl."""
    import torch.utils.checkpoint as ckpt

    storages, saved, seen, keep = {}, set(), set(), []
    stack = [v for k, v in ns.items() if not k.startswith("__")]
    skip = (type(ckpt), type, type(memory_walk), type(len), str, bytes, int, float, bool)

    def no_recompute(*args, **kwargs):
        raise _NoRecompute()

    real_run = getattr(ckpt, "_run_fn_with_dynamo_disabled", None)
    if real_run is not None:
        ckpt._run_fn_with_dynamo_disabled = no_recompute
    try:
        while stack:
            v = stack.pop()
            if v is None or isinstance(v, skip) or id(v) in seen:
                continue
            seen.add(id(v))
            keep.append(v)  # no id is recycled while the walk runs
            if isinstance(v, torch.Tensor):
                try:
                    st = v.untyped_storage()
                    storages[st._cdata] = st.nbytes()
                except Exception:  # noqa: BLE001
                    pass
                if v.grad is not None:
                    stack.append(v.grad)
                if v.grad_fn is not None:
                    stack.append(v.grad_fn)
            elif (type(v).__module__ == "torch.autograd.graph" or "Backward" in type(v).__name__
                  or type(v).__name__ in ("AccumulateGrad", "CopySlices")):
                name = type(v).__name__
                for attr in dir(v):
                    if not attr.startswith("_saved_"):
                        continue
                    try:
                        s = getattr(v, attr)
                    except Exception:  # noqa: BLE001 - freed by backward, or a checkpoint's holder
                        continue
                    for x in (s if isinstance(s, (tuple, list)) else [s]):
                        if isinstance(x, torch.Tensor):
                            saved.add((name, attr[7:], tuple(x.shape), str(x.dtype).replace("torch.", "")))
                            stack.append(x)
                if hasattr(v, "variable"):
                    stack.append(v.variable)
                for nxt, _ in getattr(v, "next_functions", ()):
                    if nxt is not None:
                        stack.append(nxt)
            elif isinstance(v, torch.nn.Module):
                stack.extend(v.parameters())
                stack.extend(v.buffers())
                stack.extend(x for x in vars(v).values() if isinstance(x, torch.Tensor))
            elif isinstance(v, torch.optim.Optimizer):
                for g in v.param_groups:
                    stack.extend(g["params"])
                for st in v.state.values():
                    stack.extend(st.values())
            elif isinstance(v, (list, tuple, set, frozenset)):
                stack.extend(v)
            elif isinstance(v, dict):
                stack.extend(v.values())
            elif hasattr(v, "__dict__") and not callable(v):
                stack.extend(vars(v).values())
    finally:
        if real_run is not None:
            ckpt._run_fn_with_dynamo_disabled = real_run
    return sum(storages.values()), sorted(saved)


def record_memory_steps(script):
    """The `memory` object of every step, as ../shared/oracle/record_memory.py records it
    (see the docstring for the two differences)."""
    from torch.profiler import ProfilerActivity, profile

    torch.manual_seed(SEED)
    ns = {"torch": torch}
    out, live = [], 0
    for node in ast.parse(script).body:
        before = live
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings(), \
                profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            warnings.simplefilter("ignore")
            try:
                exec(compile(ast.Module([node], type_ignores=[]), "<cell>", "exec"), ns)
            except Exception:  # noqa: BLE001 - the error is recorded by `record`
                pass
        deltas = sorted((e.start_ns(), e.nbytes()) for e in prof.profiler.kineto_results.events()
                        if e.name() == "[memory]" and e.nbytes())
        live, saved = memory_walk(ns)
        run = top = before
        for _, n in deltas:
            run += n
            top = max(top, run)
        out.append({"live_bytes": live, "peak_bytes": top if run == live else None,
                    "saved": [[x[0], x[1], list(x[2]), x[3]] for x in saved]})
    return out


def record_in_child(case_id, script, timeout, heap_shift, memory=False):
    """Runs `record` in a forked process; returns the case or raises Unrecordable.  With
    `memory`, `record_memory_steps` runs in another forked process and each step gets its
    `memory` object."""
    case = _record_forked(case_id, script, timeout, heap_shift, record)
    if memory:
        mem = _record_forked(case_id, script, timeout, 0, lambda _id, text: record_memory_steps(text))
        if len(mem) != len(case["steps"]):
            raise Unrecordable(f"{len(mem)} memory steps for {len(case['steps'])} steps")
        for step, m in zip(case["steps"], mem):
            step["memory"] = m
    return case


def _record_forked(case_id, script, timeout, heap_shift, fn):
    """Runs `fn(case_id, script)` in a forked process; returns its JSON result or raises
    Unrecordable."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a fresh notebook
        os.close(rfd)
        code = 0
        try:
            signal.alarm(int(timeout))
            # Moves later allocations, so that addresses differ between the two runs.
            _shift = [bytearray(heap_shift), *(torch.empty(heap_shift + 64 * i,
                      dtype=torch.uint8) for i in range(3 if heap_shift else 0))]
            try:
                result = {"case": fn(case_id, script)}
            except Unrecordable as e:
                result = {"drop": str(e)}
            signal.alarm(0)
            data = json.dumps(result).encode()
            with os.fdopen(wfd, "wb") as w:
                w.write(data)
        except BaseException as e:  # noqa: BLE001
            code = 1
            try:
                os.write(2, f"{case_id}: recorder failed: {e!r}\n".encode())
            except OSError:
                pass
        finally:
            os._exit(code)
    os.close(wfd)
    with os.fdopen(rfd, "rb") as r:
        data = r.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        reason = f"ran past {timeout} s" if sig == signal.SIGALRM else f"killed by signal {sig}"
        raise Unrecordable(reason)
    if not data:
        raise Unrecordable("the recording process failed")
    result = json.loads(data)
    if "drop" in result:
        raise Unrecordable(result["drop"])
    return result["case"]


def has_nonfinite(case):
    return any(
        isinstance(v, str)
        for step in case["steps"]
        for t in step["tensors"]
        for v in (t["values"] or [])
    )


def _around(a, b, width=60):
    """Both texts around their first differing character (an address, usually)."""
    a, b = str(a), str(b)
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    lo = max(0, i - width // 2)
    return f"{a[lo:lo + width]!r} vs {b[lo:lo + width]!r}"


def first_difference(a, b):
    """Which step differs between the two runs, in which field, and how (so that the
    script can be changed to show no address there)."""
    if len(a["steps"]) != len(b["steps"]):
        return f"{len(a['steps'])} steps in one run, {len(b['steps'])} in the other"
    for x, y in zip(a["steps"], b["steps"]):
        if x == y:
            continue
        where = f"line {x['line']} `{x['source']}` differs between two runs"
        for field in ("error", "output"):
            if x[field] != y[field]:
                return f"{where}: {field} {_around(x[field], y[field])}"
        for t, u in zip(x["tensors"], y["tensors"]):
            if t != u:
                keys = [k for k in t if t.get(k) != u.get(k)]
                return f"{where}: tensor {t['name']} ({', '.join(keys)})"
        return f"{where}: tensors {[t['name'] for t in x['tensors']]} vs {[t['name'] for t in y['tensors']]}"
    return "steps differ between two runs"


def serve():
    """`record.py --serve`: the second run's process.  Reads {"id", "script", "timeout",
    "shift"} lines on stdin and answers each with {"case"} or {"drop"} on stdout."""
    for line in sys.stdin:
        job = json.loads(line)
        try:
            answer = {"case": record_in_child(job["id"], job["script"], job["timeout"], job["shift"],
                                              job.get("memory", False))}
        except Unrecordable as e:
            answer = {"drop": str(e)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


class SecondRun:
    """Runs each script again in another process started from scratch (not forked from this
    one), whose addresses differ: in its heap and by address-space randomization."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def record(self, case_id, script, timeout, memory=False):
        job = {"id": case_id, "script": script, "timeout": timeout, "shift": 4096 + 8 * len(case_id),
               "memory": memory}
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        if "drop" in answer:
            raise Unrecordable(answer["drop"])
        return answer["case"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    if sys.argv[1:] == ["--serve"]:
        serve()
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--drop-nonfinite", action="store_true")
    ap.add_argument("--max-case-bytes", type=int, default=0, help="0: no limit")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--memory", action="store_true", help="record each step's memory object too")
    a = ap.parse_args()
    kept = dropped = 0
    second = SecondRun()
    with open(a.src) as src, open(a.dst, "w") as out:
        for line in src:
            if not line.strip():
                continue
            case = json.loads(line)
            cid = case["id"]
            try:
                try:
                    ast.parse(case["script"])
                except SyntaxError as e:
                    raise Unrecordable(f"syntax error: {e}") from e
                rec = record_in_child(cid, case["script"], a.timeout, 0, a.memory)
                again = second.record(cid, case["script"], a.timeout, a.memory)
                if strip_ids(rec) != strip_ids(again):
                    raise Unrecordable(first_difference(strip_ids(rec), strip_ids(again)))
                if a.drop_nonfinite and has_nonfinite(rec):
                    raise Unrecordable("NaN or infinite values (check.py cannot compare them)")
                text = json.dumps(canonical_storages(rec))
                if a.max_case_bytes and len(text) > a.max_case_bytes:
                    raise Unrecordable(f"{len(text)} bytes of JSON, over --max-case-bytes")
            except Unrecordable as e:
                dropped += 1
                print(f"dropped {cid}: {e}", file=sys.stderr)
                continue
            kept += 1
            out.write(text + "\n")
    second.close()
    print(f"record.py: {kept} cases written, {dropped} dropped", file=sys.stderr)


def canonical_storages(case):
    """Storage ids as `s0`, `s1`, ... in order of first appearance in the case (addresses
    change from run to run; these do not, so a re-recorded corpus diffs cleanly).  Storages
    are pinned (PINNED), so one id is one storage for the whole case."""
    ids = {}
    for s in case["steps"]:
        for t in s["tensors"]:
            t["storage"] = ids.setdefault(t["storage"], f"s{len(ids)}")
    return case


def strip_ids(case):
    """The case with storage ids replaced by their order of first appearance per step (the
    addresses differ between runs; only which tensors share matters)."""
    steps = []
    for s in case["steps"]:
        ids = {}
        ts = [{**t, "storage": ids.setdefault(t["storage"], len(ids))} for t in s["tensors"]]
        steps.append({**s, "tensors": ts})
    return {**case, "steps": steps}


if __name__ == "__main__":
    main()
