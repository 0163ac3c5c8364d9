#!/usr/bin/env python3
"""Generate random notebook scripts in the style of the oracle's cases.

usage: generate.py --seed N --count K [--prefix ID] > scripts.jsonl

Writes K lines {"id", "script"} to stdout; the same seed always gives the same scripts.
Each script starts by creating a tensor `a` (arange/zeros/ones/tensor in any dtype, reshaped
or viewed), then runs a random mix of the statements the oracle's language has: views,
copies, conversions, elementwise arithmetic (out of place and in place), reductions,
indexing and item assignment, queries, and bare expressions that print tensors.

Arguments are chosen knowing the shapes: the generator runs each statement with the local
PyTorch as it goes, so most statements are valid, and a controlled share is deliberately
wrong (dims out of range, views that cannot be views, overlapping writes, broadcast
mismatches, out-of-bounds as_strided), as in the recorded cases.

Needs a local PyTorch (e.g. /tmp/torchenv/venv/bin/python).  Never run in CI.
"""
import argparse
import json
import random
import warnings

import torch

warnings.filterwarnings("ignore")

NAMES = "a b c d e f g h j k m n p q r s t u v w x y z".split()
DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
CREATE_DTYPES = [None] * 6 + ["float32"] * 6 + ["uint8", "int8", "int32", "float16", "bfloat16",
                                                "float64", "int64", "bool"]


class Gen:
    """One script's worth of random statements, tracking state with real torch."""

    def __init__(self, rng):
        self.rng = rng
        self.ns = {"torch": torch}
        self.lines = []
        self.wrong = rng.choice([0.04, 0.08, 0.12])

    # ---------------------------------------------------------------- helpers
    def r(self, a, b):
        return self.rng.randint(a, b)

    def chance(self, p):
        return self.rng.random() < p

    def tensors(self):
        return [(n, v) for n, v in self.ns.items() if isinstance(v, torch.Tensor)]

    def fresh(self):
        for n in NAMES:
            if n not in self.ns:
                return n
        return self.rng.choice(NAMES)

    def fresh_names(self, k):
        out = []
        for n in NAMES:
            if n not in self.ns and len(out) < k:
                out.append(n)
        while len(out) < k:
            out.append(self.rng.choice(NAMES))
        return out

    def pick(self):
        ts = self.tensors()
        if self.chance(0.45):
            return ts[-1]
        if self.chance(0.35):
            return ts[0]
        return self.rng.choice(ts)

    def dim(self, t, extra=0):
        """A dim of `t` (negative sometimes); out of range with the script's error rate."""
        n = t.dim() + extra
        if n == 0:
            return self.rng.choice([0, -1, 1]) if self.chance(self.wrong * 3) else 0
        if self.chance(self.wrong):
            return self.rng.choice([n, -n - 1, n + 1])
        d = self.r(0, n - 1)
        return d - n if self.chance(0.3) else d

    def scalar(self, t=None, floats=True):
        pool = [0, 1, 2, 3, 7, 9, -1, 5]
        if floats:
            pool += [0.5, -1.0, 2.5, -0.5, 1.5]
        if t is not None and t.dtype == torch.bool or self.chance(0.03):
            pool += [True, False]
        if self.chance(0.05):
            pool += [100, 200, 300, -128, 1000, 1e5, 70000, 3.14159, 1e-3, 65504.0, 1e10]
        return self.rng.choice(pool)

    def factor(self, n, parts):
        """A random shape with `parts` dims whose product is n."""
        dims = [1] * parts
        rest = n
        for i in range(parts - 1):
            divs = [d for d in range(1, rest + 1) if rest % d == 0]
            dims[i] = self.rng.choice(divs)
            rest //= dims[i]
        dims[-1] = rest
        self.rng.shuffle(dims)
        return dims

    def shape_args(self, t):
        """Arguments of view/reshape: a shape with t.numel() elements, -1 sometimes."""
        n = t.numel()
        if self.chance(0.25):
            return "-1"
        dims = self.factor(n, self.r(1, 4)) if n > 0 else [0, self.r(1, 3)]
        if self.chance(self.wrong):
            dims[0] += 1
        if self.chance(0.3) and len(dims) > 1:
            dims[self.r(0, len(dims) - 1)] = -1
        return ", ".join(map(str, dims))

    def index_expr(self, t):
        """A random index: ints, slices with steps, None and ... ."""
        parts = []
        nd = t.dim()
        k = self.r(1, max(1, min(nd + 1, 4)))
        used_ellipsis = False
        d = 0
        for _ in range(k):
            c = self.rng.random()
            size = t.shape[d] if d < nd else 1
            if c < 0.08:
                parts.append("None")
                continue
            if c < 0.14 and not used_ellipsis:
                parts.append("...")
                used_ellipsis = True
                d = nd
                continue
            if c < 0.45:
                if self.chance(self.wrong):
                    i = size + self.r(0, 1)
                else:
                    i = self.r(-size, size - 1) if size > 0 else 0
                parts.append(str(i))
            else:
                start = self.rng.choice([None, None, 0, 1, 2, -1, self.r(0, max(size, 1))])
                stop = self.rng.choice([None, None, size, 1, 2, 3, -1, self.r(0, max(size, 1))])
                step = self.rng.choice([None, None, None, 2, 3])
                s = ("" if start is None else str(start)) + ":" + ("" if stop is None else str(stop))
                if step is not None:
                    s += f":{step}"
                parts.append(s)
            d += 1
        return ", ".join(parts)

    # ---------------------------------------------------------------- creation
    def create(self, name):
        dt = self.rng.choice(CREATE_DTYPES)
        dts = f", dtype=torch.{dt}" if dt else ""
        nd = self.rng.choice([1, 2, 2, 2, 3, 3, 3, 4, 4])
        shape = [self.r(1, 5) for _ in range(nd)]
        n = 1
        for s in shape:
            n *= s
        shp = ", ".join(map(str, shape))
        c = self.rng.random()
        if dt == "bool" and c < 0.75 and not self.chance(0.05):
            c = 0.75 + 0.25 * self.rng.random()  # arange has no bool kernel: rarely try it
        if c < 0.55:
            return f"{name} = torch.arange({n}{dts}).reshape({shp})"
        if c < 0.65:
            return f"{name} = torch.arange({n}{dts}).view(({shp}{',' if nd == 1 else ''}))"
        if c < 0.75:
            start = self.rng.choice([1, 2, 3, -3, -5])
            step = self.rng.choice([1, 2, 3])
            return f"{name} = torch.arange({start}, {start + step * n}, {step}{dts}).reshape({shp})"
        if c < 0.85:
            fn = self.rng.choice(["zeros", "ones"])
            return f"{name} = torch.{fn}({shp}{dts})"
        if c < 0.93:
            nd = min(nd, 2)
            shape = shape[:nd]
            vals = [self.r(-3, 9) for _ in range(shape[0] * (shape[1] if nd == 2 else 1))]
            if nd == 1:
                lit = str(vals)
            else:
                rows = [vals[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]
                lit = str(rows)
            if dt and dt.startswith(("float", "bfloat")) and self.chance(0.5):
                lit = lit.replace("1,", "1.5,")
            return f"{name} = torch.tensor({lit}{dts})"
        k = self.rng.choice([2, 3, 4])
        return f"{name} = torch.arange({n}).reshape({shp}) % {k} == 0"

    # ---------------------------------------------------------------- statements
    def st_view(self, v, t):
        meth = self.rng.choice(["view", "view", "reshape", "reshape"])
        args = self.shape_args(t)
        if meth == "view" and self.chance(0.2) and args != "-1":
            args = f"({args},)" if "," not in args else f"({args})"
        return f"{self.fresh()} = {v}.{meth}({args})"

    def st_flatten(self, v, t):
        if self.chance(0.5):
            return f"{self.fresh()} = {v}.flatten()"
        a = self.dim(t)
        b = self.dim(t)
        if t.dim() > 0 and self.chance(0.8):
            lo, hi = sorted([a % max(t.dim(), 1), b % max(t.dim(), 1)])
            a, b = lo, (hi if self.chance(0.5) else hi - t.dim())
        return f"{self.fresh()} = {v}.flatten({a}, {b})"

    def st_squeeze(self, v, t):
        if self.chance(0.5):
            return f"{self.fresh()} = {v}.squeeze()"
        return f"{self.fresh()} = {v}.squeeze({self.dim(t)})"

    def st_unsqueeze(self, v, t):
        return f"{self.fresh()} = {v}.unsqueeze({self.dim(t, 1)})"

    def st_transpose(self, v, t):
        a, b = self.dim(t), self.dim(t)
        if self.chance(0.5):
            return f"{self.fresh()} = torch.transpose({v}, {a}, {b})"
        return f"{self.fresh()} = {v}.transpose({a}, {b})"

    def st_t(self, v, t):
        form = self.rng.choice(["t()", "T", "mT", "t()"])
        if t.dim() > 2 and form == "t()" and not self.chance(self.wrong * 3):
            form = "mT"
        return f"{self.fresh()} = {v}.{form}"

    def st_permute(self, v, t):
        perm = list(range(t.dim()))
        self.rng.shuffle(perm)
        if self.chance(self.wrong) and perm:
            perm[0] = perm[-1]
        if self.chance(0.2):
            perm = [p - t.dim() for p in perm]
        args = ", ".join(map(str, perm))
        if self.chance(0.2):
            args = f"({args},)" if len(perm) == 1 else f"({args})"
        return f"{self.fresh()} = {v}.permute({args})"

    def st_movedim(self, v, t):
        return f"{self.fresh()} = {v}.movedim({self.dim(t)}, {self.dim(t)})"

    def st_expand(self, v, t):
        sizes = []
        for s in t.shape:
            if s == 1:
                sizes.append(str(self.rng.choice([1, 2, 3, -1])))
            else:
                sizes.append(self.rng.choice([str(s), "-1"]))
        lead = [str(self.r(1, 3)) for _ in range(self.rng.choice([0, 0, 1, 2]))]
        sizes = lead + sizes
        if self.chance(self.wrong * 2) and sizes:
            i = self.r(0, len(sizes) - 1)
            sizes[i] = str(self.r(0, 5))
        if self.chance(self.wrong) and sizes:
            sizes = sizes[1:]
        return f"{self.fresh()} = {v}.expand({', '.join(sizes)})"

    def st_narrow(self, v, t):
        d = self.dim(t)
        try:
            size = t.shape[d]
        except IndexError:
            size = 2
        start = self.r(0, max(size - 1, 0))
        length = self.r(0 if self.chance(0.1) else 1, max(size - start, 1))
        if self.chance(self.wrong):
            length += 1
        if self.chance(0.1):
            start -= size
        return f"{self.fresh()} = {v}.narrow({d}, {start}, {length})"

    def st_select(self, v, t):
        d = self.dim(t)
        try:
            size = t.shape[d]
        except IndexError:
            size = 2
        i = self.r(-size, size - 1) if size > 0 else 0
        if self.chance(self.wrong):
            i = size
        return f"{self.fresh()} = {v}.select({d}, {i})"

    def st_unfold(self, v, t):
        d = self.dim(t) if t.dim() > 0 else self.rng.choice([0, -1])
        try:
            size = t.shape[d] if t.dim() > 0 else 1
        except IndexError:
            size = 2
        s = self.r(0 if self.chance(0.05) else 1, max(size, 1) + (1 if self.chance(self.wrong) else 0))
        step = self.r(1, 3) if not self.chance(0.03) else 0
        return f"{self.fresh()} = {v}.unfold({d}, {s}, {step})"

    def st_diagonal(self, v, t):
        if self.chance(0.45):
            return f"{self.fresh()} = {v}.diagonal()"
        off = self.rng.choice([0, 0, 1, -1, 2, -2, 5])
        return f"{self.fresh()} = {v}.diagonal({off}, {self.dim(t)}, {self.dim(t)})"

    def st_as_strided(self, v, t):
        nd = self.r(1, 3)
        size = [self.r(1, 4) for _ in range(nd)]
        stride = [self.r(0, 3) for _ in range(nd)]
        off = self.r(0, 2)
        if self.chance(0.6):
            # Keep it inside the storage most of the time.
            n = t.untyped_storage().nbytes() // max(t.element_size(), 1)
            for _ in range(20):
                hi = off + sum((s - 1) * st for s, st in zip(size, stride))
                if hi < n:
                    break
                size = [max(1, s - 1) for s in size]
                stride = [max(0, s - 1) for s in stride]
                off = max(0, off - 1)
        if self.chance(0.5):
            return (f"{self.fresh()} = torch.as_strided({v}, {size}, {stride}, {off})")
        sz = f"({size[0]},)" if nd == 1 else str(tuple(size))
        st = f"({stride[0]},)" if nd == 1 else str(tuple(stride))
        return f"{self.fresh()} = {v}.as_strided({sz}, {st}, {off})"

    def st_split(self, v, t):
        meth = self.rng.choice(["split", "chunk", "unbind"])
        if meth == "unbind":
            arg = self.dim(t) if self.chance(0.5) else 0
        else:
            arg = self.rng.choice([1, 2, 2, 3, 4])
            if self.chance(0.3) and t.dim() > 0:
                arg = f"{arg}, {self.dim(t)}"
        try:
            k = len(eval(f"{v}.{meth}({arg})", self.ns))
        except Exception:  # noqa: BLE001 - the statement fails anyway
            k = self.r(1, 3)
        if self.chance(self.wrong):
            k += self.rng.choice([-1, 1])
        k = max(1, min(k, 6))
        names = self.fresh_names(k)
        lhs = f"{names[0]}," if k == 1 else ", ".join(names)
        return f"{lhs} = {v}.{meth}({arg})"

    def st_copy(self, v, t):
        c = self.rng.random()
        if c < 0.3:
            return f"{self.fresh()} = {v}.contiguous()"
        if c < 0.45:
            return f"{self.fresh()} = {v}.clone()"
        if c < 0.6:
            return f"{self.fresh()} = {v}.contiguous(memory_format=torch.channels_last)"
        if c < 0.75:
            return f"{self.fresh()} = {v}.to(memory_format=torch.channels_last)"
        return f"{self.fresh()} = {v}.clone(memory_format=torch.channels_last)" if self.chance(
            0.2) else f"{self.fresh()} = {v}.contiguous()"

    def st_convert(self, v, t):
        if self.chance(0.5):
            return f"{self.fresh()} = {v}.{self.rng.choice(['float', 'half', 'int', 'long'])}()"
        return f"{self.fresh()} = {v}.to(torch.{self.rng.choice(DTYPES)})"

    def operand(self, v, t):
        """The right side of a binary op: a scalar, the same tensor or another one."""
        c = self.rng.random()
        if c < 0.5:
            return str(self.scalar(t))
        if c < 0.7:
            return v
        return self.pick()[0]

    def st_arith(self, v, t):
        op = self.rng.choice(["+", "-", "*", "+", "*", "%"])
        rhs = self.operand(v, t)
        c = self.rng.random()
        if c < 0.1:
            return f"{self.fresh()} = torch.add({v}, {rhs})"
        if c < 0.2:
            return f"{self.fresh()} = torch.relu({v} - {self.r(1, 4)})"
        if c < 0.3:
            return f"{self.fresh()} = ({v} - {self.r(1, 4)}).relu()"
        if c < 0.37:
            return f"{self.fresh()} = {v}.relu()"
        if c < 0.45:
            return f"{self.fresh()} = {v}.{self.rng.choice(['t()', 'T', 'mT'])} {op} {rhs}"
        if c < 0.5:
            return f"{self.fresh()} = {rhs} {op} {v}"
        if c < 0.55:
            s = self.scalar(t)
            return f"{self.fresh()} = {v} {op} {s} {self.rng.choice(['+', '*', '-'])} {self.pick()[0]}"
        return f"{self.fresh()} = {v} {op} {rhs}"

    def st_compare(self, v, t):
        op = self.rng.choice(["==", ">", "<"])
        rhs = self.operand(v, t)
        if self.chance(0.3):
            return f"{v} {op} {rhs}"
        return f"{self.fresh()} = {v} {op} {rhs}"

    def st_matmul(self, v, t):
        w, u = self.pick()
        c = self.rng.random()
        if c < 0.4:
            return f"{self.fresh()} = {v}.float() @ {w}.float()"
        if c < 0.6:
            return f"{self.fresh()} = {v} @ {v}.{self.rng.choice(['T', 'mT', 't()'])}"
        return f"{self.fresh()} = {v} @ {w}"

    def st_inplace(self, v, t):
        c = self.rng.random()
        if c < 0.15:
            return f"{v}.add_({self.operand(v, t)})"
        if c < 0.2:
            return f"{v}.sub_({self.operand(v, t)})"
        if c < 0.32:
            return f"{v}.mul_({self.operand(v, t)})"
        if c < 0.42:
            return f"{v}.copy_({self.pick()[0] if self.chance(0.6) else v})"
        if c < 0.55:
            return f"{v}.fill_({self.scalar(t)})"
        if c < 0.62:
            return f"{v}.zero_()"
        if c < 0.72:
            lo = self.r(-1, 4)
            return f"{v}.clamp_({lo}, {lo + self.r(0, 6)})"
        if c < 0.8:
            return f"{v}.relu_()"
        if c < 0.85:
            return f"{v}.t_()"
        if c < 0.9:
            return f"{v}.transpose_({self.dim(t)}, {self.dim(t)})"
        if c < 0.95:
            return f"{v}.unsqueeze_({self.dim(t, 1)})"
        return f"{v}.sub_({self.r(1, 5)}).relu_()"

    def st_reduce(self, v, t):
        meth = self.rng.choice(["sum", "sum", "sum", "mean", "amax"])
        c = self.rng.random()
        if c < 0.25 and meth != "amax":
            args = ""
        elif c < 0.7:
            args = str(self.dim(t))
        else:
            args = f"{self.dim(t)}, keepdim=True"
        return f"{self.fresh()} = {v}.{meth}({args})"

    def st_query(self, v, t):
        w = self.pick()[0]
        return self.rng.choice([
            f"{v}.stride()", f"{v}.stride({self.dim(t)})", f"{v}.size()",
            f"{v}.size({self.dim(t)})", f"{v}.shape", f"{v}.dim()", f"{v}.numel()",
            f"{v}.element_size()", f"{v}.nbytes", f"{v}.dtype", f"{v}.storage_offset()",
            f"{v}.is_contiguous()", f"{v}.is_contiguous(memory_format=torch.channels_last)",
            f"{v}.data_ptr() == {w}.data_ptr()", f"{v}.untyped_storage().nbytes()",
            f"{v}.untyped_storage().data_ptr() == {w}.untyped_storage().data_ptr()",
            f"{v}.stride(), {w}.stride()", f"{v}.shape, {v}.dtype",
        ])

    def st_print(self, v, t):
        c = self.rng.random()
        if c < 0.6:
            return v
        if c < 0.8:
            return f"{v}[{self.index_expr(t)}]"
        return f"{v}.sum()" if self.chance(0.5) else f"{v} * {self.scalar(t)}"

    def st_index(self, v, t):
        return f"{self.fresh()} = {v}[{self.index_expr(t)}]"

    def st_setitem(self, v, t):
        if self.chance(0.6):
            rhs = str(self.scalar(t))
        else:
            rhs = self.pick()[0]
        return f"{v}[{self.index_expr(t)}] = {rhs}"

    def st_create(self, v, t):
        return self.create(self.fresh())

    def st_mixed(self, v, t):
        """Type promotion: tensors of other dtypes, 0-dim tensors, Python numbers."""
        w, u = self.pick()
        conv = self.rng.choice([".float()", ".half()", ".int()", ".long()", ".double()",
                                ".to(torch.bfloat16)", ".to(torch.uint8)", ".to(torch.int8)",
                                ".to(torch.bool)", ""])
        red = self.rng.choice([".sum()", ".amax()", "[0]" if u.dim() > 0 else ".sum()", ""])
        op = self.rng.choice(["+", "-", "*", "%", ">", "==", "<"])
        c = self.rng.random()
        if c < 0.4:
            return f"{self.fresh()} = {v} {op} {w}{conv}{red}"
        if c < 0.6:
            return f"{self.fresh()} = {v}{conv} {op} {self.scalar(t)}"
        if c < 0.8:
            meth = self.rng.choice(["add_", "sub_", "mul_", "copy_"])
            return f"{v}.{meth}({w}{conv}{red})"
        return f"{v}{conv}{red} {op} {w}"

    def st_print_scaled(self, v, t):
        """Printouts of wide value ranges (scientific notation, many digits)."""
        s = self.rng.choice(["1000.5", "0.001", "1e-05", "123456.0", "-0.25", "3.14159",
                             "1e8", "100000", "-7", "0.1"])
        conv = self.rng.choice(["", ".float()", ".half()", ".double()", ".to(torch.bfloat16)"])
        return self.rng.choice([f"{v}{conv} * {s}", f"({v}{conv} - 2) * {s}", f"{v}{conv} + {s}"])

    def st_big(self, v, t):
        """A large tensor, whose printout is summarized."""
        n = self.rng.choice([1001, 1200, 2048, 3000])
        shape = self.rng.choice([f"{n}", f"2, {n // 2}", f"{n // 40}, 40"]) if n % 40 == 0 else str(n)
        dt = self.rng.choice(["", ", dtype=torch.float32", ", dtype=torch.int32", ", dtype=torch.float16"])
        return f"{self.fresh()} = torch.arange({n}{dt}).reshape({shape})"

    STATEMENTS = [
        ("st_view", 12), ("st_flatten", 4), ("st_squeeze", 4), ("st_unsqueeze", 4),
        ("st_transpose", 5), ("st_t", 5), ("st_permute", 3), ("st_movedim", 3),
        ("st_expand", 3), ("st_narrow", 3), ("st_select", 3), ("st_unfold", 4),
        ("st_diagonal", 3), ("st_as_strided", 3), ("st_split", 5), ("st_copy", 8),
        ("st_convert", 6), ("st_arith", 10), ("st_compare", 3), ("st_matmul", 2),
        ("st_inplace", 18), ("st_reduce", 6), ("st_query", 16), ("st_print", 6),
        ("st_index", 5), ("st_setitem", 7), ("st_create", 2), ("st_mixed", 6),
        ("st_print_scaled", 4), ("st_big", 0.2),
    ]

    def run(self, line):
        try:
            exec(compile(line, "<gen>", "exec"), self.ns)
        except Exception:  # noqa: BLE001 - failing statements are part of the corpus
            pass
        self.lines.append(line)

    def script(self):
        self.run(self.create("a"))
        names = [n for n, _ in self.STATEMENTS]
        weights = [w for _, w in self.STATEMENTS]
        for _ in range(self.r(3, 11)):
            if not self.tensors():
                self.run(self.create(self.fresh()))
                continue
            v, t = self.pick()
            st = self.rng.choices(names, weights)[0]
            self.run(getattr(self, st)(v, t))
        return "\n".join(self.lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--prefix", default="gen")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    for i in range(a.count):
        rng = random.Random(f"{a.seed}-{i}")
        script = Gen(rng).script()
        print(json.dumps({"id": f"{a.prefix}-{a.seed}-{i:04d}", "script": script}))


if __name__ == "__main__":
    main()
