#!/usr/bin/env python3
"""Where the web app's wasm goes.

    tools/wasm-size.py [DIST_WASM] [NAMED_WASM]

Prints the gzipped size of the shipped wasm (default: dist/stridescope_bg.wasm, after
`trunk build --release`) and, from the linker's output with its name section (default:
target/wasm32-unknown-unknown/web/stridescope.wasm, before wasm-bindgen and wasm-opt), the
code bytes per crate (per module for this crate) and the biggest functions. Sizes before
wasm-opt are about 1.4x the shipped ones; use them to compare, not as the budget.

    tools/wasm-size.py --budget BYTES [DIST]

prints the gzipped size of every wasm module of a build (the main module, which the page
loads first, and the chunks that the split build fetches later) and fails when the main
module is over BYTES gzipped (`./dev test` runs it: the page's first download stays small).

    tools/wasm-size.py --layers [NAMED_WASM]

runs wasm-bindgen and wasm-opt -Oz (keeping names, as the shipped build is optimized) on the
linker's output and prints what each layer of the crate (the evaluator, the UI, the engines,
Rust's std, lessons and Markdown, i18n, ...) weighs gzipped, code and data apart: the gzip of
each layer's function bodies alone, so the rows add up to a little more than the whole.
"""
import collections
import gzip
import re
import sys


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def functions(data):
    """(name, body size) of every defined function."""
    named, _ = bodies_and_data(data)
    return [(name, len(body)) for name, body in named]


def demangle(name):
    """Rust's legacy mangling, enough to read paths."""
    if not name.startswith("_ZN"):
        return name
    i, parts = 3, []
    while i < len(name) and name[i].isdigit():
        j = i
        while name[j].isdigit():
            j += 1
        ln = int(name[i:j])
        parts.append(name[j:j + ln])
        i = j + ln
    text = "::".join(parts[:-1] if parts and parts[-1].startswith("h") else parts)
    for a, b in [("$LT$", "<"), ("$GT$", ">"), ("$u20$", " "), ("$RF$", "&"), ("$C$", ","),
                 ("..", "::"), ("$u7b$", "{"), ("$u7d$", "}"), ("$BP$", "*")]:
        text = text.replace(a, b)
    return text


def group(name):
    m = re.search(r"stridescope::([a-z_0-9]+)(?:::([a-z_0-9]+))?", name)
    if m:
        deep = m.group(1) in ("interp", "shells", "engines", "present", "core") and m.group(2)
        return "stridescope::" + m.group(1) + ("::" + m.group(2) if deep else "")
    m = re.search(r"(?:^|[<&\s(])_?<?(?:impl )?([a-z_][a-z0-9_]+)(?:\[[0-9a-f]+\])?::", name)
    return m.group(1) if m else "(other)"


def bodies_and_data(data):
    """(name, body bytes) of every defined function, and the data segments' bytes."""
    i, imported, bodies, names, segments = 8, 0, [], {}, b""
    while i < len(data):
        sid = data[i]
        size, i = leb(data, i + 1)
        end = i + size
        if sid == 2:
            n, j = leb(data, i)
            for _ in range(n):
                for _ in range(2):
                    ln, j = leb(data, j)
                    j += ln
                kind = data[j]
                j += 1
                if kind == 0:
                    imported += 1
                    _, j = leb(data, j)
                elif kind in (1, 2):
                    if kind == 1:
                        j += 1
                    flags, j = leb(data, j)
                    _, j = leb(data, j)
                    if flags & 1:
                        _, j = leb(data, j)
                elif kind == 3:
                    j += 2
        elif sid == 10:
            n, j = leb(data, i)
            for _ in range(n):
                ln, k = leb(data, j)
                bodies.append(data[k:k + ln])
                j = k + ln
        elif sid == 11:
            segments = data[i:end]
        elif sid == 0:
            ln, j = leb(data, i)
            if data[j:j + ln] == b"name":
                j += ln
                while j < end:
                    sub = data[j]
                    sl, j = leb(data, j + 1)
                    if sub == 1:
                        n, k = leb(data, j)
                        for _ in range(n):
                            idx, k = leb(data, k)
                            ln2, k = leb(data, k)
                            names[idx] = data[k:k + ln2].decode("utf8", "replace")
                            k += ln2
                    j += sl
        i = end
    named = [(demangle(names.get(k + imported, "?")), b) for k, b in enumerate(bodies)]
    return named, segments


LAYERS = [
    ("ui", ("stridescope::shells", "tachys", "reactive_graph", "leptos", "leptos_dom",
            "any_spawner", "or_poisoned", "send_wrapper", "throw_error")),
    ("evaluator", ("stridescope::interp", "stridescope::lang", "stridescope::core")),
    ("engines", ("stridescope::engines", "stridescope::painters", "wgpu", "wgpu_types",
                 "stridescope::present::render", "stridescope::present::frame_cache")),
    ("lessons/markdown", ("pulldown_cmark", "unicase", "stridescope::lessons",
                          "stridescope::present::lesson_view")),
    ("i18n", ("fluent", "intl", "unic_langid", "stridescope::present::i18n", "type_map",
              "self_cell")),
    ("present", ("stridescope::present",)),
    ("bindgen", ("js_sys", "web_sys", "wasm_bindgen")),
    ("rust std", ("core", "alloc", "std", "compiler_builtins", "dlmalloc", "hashbrown")),
]


def layer(name):
    """The layer a function belongs to (legacy or v0 mangling)."""
    g = group(name)
    if g == "(other)":
        m = re.search(r"Cs[0-9a-zA-Z]+_(\d+)", name)
        if m:
            g = name[m.end():m.end() + int(m.group(1))]
    for label, prefixes in LAYERS:
        if any(g == p or g.startswith(p + "::") or (not p.startswith("stridescope") and g.startswith(p))
               for p in prefixes):
            return label
    return "other: " + g


def layers(named_wasm):
    import os
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["wasm-bindgen", "--keep-debug", "--target", "web", "--out-dir", tmp,
                        named_wasm], check=True)
        opt = os.path.join(tmp, "opt.wasm")
        features = ["--enable-bulk-memory", "--enable-nontrapping-float-to-int",
                    "--enable-sign-ext", "--enable-mutable-globals", "--enable-reference-types",
                    "--enable-multivalue"]
        subprocess.run(["wasm-opt", "-Oz", "-g", *features,
                        os.path.join(tmp, "stridescope_bg.wasm"), "-o", opt], check=True)
        fns, segments = bodies_and_data(open(opt, "rb").read())
    code = b"".join(b for _, b in fns)
    print(f"code: {len(code)} bytes, {len(gzip.compress(code, 9))} gzipped; "
          f"data: {len(segments)} bytes, {len(gzip.compress(segments, 9))} gzipped")
    by_layer = collections.defaultdict(list)
    for name, body in fns:
        by_layer[layer(name)].append(body)
    rows = sorted(((len(gzip.compress(b"".join(v), 9)), sum(map(len, v)), k)
                   for k, v in by_layer.items()), reverse=True)
    print("   gzipped      bytes  layer")
    for gz, raw, k in rows[:16]:
        print(f"{gz:10d} {raw:10d}  {k}")


def budget(limit, dist):
    """Prints each module's gzipped size; False when the main module is over `limit`."""
    import os
    names = sorted(f for f in os.listdir(dist) if f.endswith(".wasm"))
    main_ok = None
    for name in names:
        data = open(os.path.join(dist, name), "rb").read()
        gz = len(gzip.compress(data, 9))
        first = name == "stridescope_bg.wasm"
        role = "main module, loaded first" if first else "chunk, loaded on demand"
        print(f"{name}: {len(data)} bytes, {gz} gzipped (-9) ({role})")
        if first:
            main_ok = gz <= limit
    if main_ok is None:
        print(f"no stridescope_bg.wasm in {dist}")
        return False
    verdict = "within" if main_ok else "OVER"
    print(f"the main module is {verdict} the budget of {limit} bytes gzipped")
    return main_ok


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--budget":
        ok = budget(int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "dist")
        sys.exit(0 if ok else 1)
    if len(sys.argv) > 1 and sys.argv[1] == "--layers":
        layers(sys.argv[2] if len(sys.argv) > 2 else "target/wasm32-unknown-unknown/web/stridescope.wasm")
        return
    shipped = sys.argv[1] if len(sys.argv) > 1 else "dist/stridescope_bg.wasm"
    named = sys.argv[2] if len(sys.argv) > 2 else "target/wasm32-unknown-unknown/web/stridescope.wasm"
    try:
        data = open(shipped, "rb").read()
        print(f"{shipped}: {len(data)} bytes, {len(gzip.compress(data, 9))} gzipped (-9)")
    except OSError as e:
        print(f"{shipped}: {e}")
    fns = functions(open(named, "rb").read())
    print(f"{named}: {sum(s for _, s in fns)} bytes of code before wasm-opt")
    by_group = collections.Counter()
    for name, size in fns:
        by_group[group(name)] += size
    for g, size in by_group.most_common(30):
        print(f"{size:9d}  {g}")
    print("biggest functions:")
    for name, size in sorted(fns, key=lambda f: -f[1])[:20]:
        print(f"{size:9d}  {name[:140]}")


if __name__ == "__main__":
    main()
