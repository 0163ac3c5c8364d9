#!/usr/bin/env python3
"""Write the PNG test images of `src/core/image` and record what torchvision's `decode_png` makes
of them in every `ImageReadMode` (the judge for `tests/png_torchvision.rs`).

usage: PYTHONPATH=<torchvision + pillow> record_png.py OUT_DIR OUT.json

The images are written by the small encoder below (zlib + CRC by hand) so that every colour
type, bit depth, filter type and Adam7 interlacing is covered, with odd sizes (Adam7 passes
that are empty or one pixel wide). OUT.json holds one record per (file, mode):
{"file", "mode", "shape", "stride", "dtype", "values"} (values in the tensor's logical CHW
order) or {"file", "mode", "error"} ("<Type>: <message>", the build path of torchvision's
C++ source cut off). Cases whose output depends on uninitialized memory (torchvision writes
rows with the wrong pitch for a few palette conversions) are recorded twice in fresh
processes; they are kept only when both runs agree.
Needs torchvision and Pillow beside torch (e.g. pip install --no-deps --target DIR ...).
Never run in CI.
"""
import json
import os
import random
import struct
import sys
import zlib

MODES = ["UNCHANGED", "GRAY", "GRAY_ALPHA", "RGB", "RGB_ALPHA"]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def pack_row(samples, depth):
    """One row of samples as bytes (sub-byte depths packed MSB first, 16-bit big-endian)."""
    if depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    if depth == 8:
        return bytes(samples)
    out, acc, used = bytearray(), 0, 0
    for s in samples:
        acc = (acc << depth) | s
        used += depth
        if used == 8:
            out.append(acc)
            acc, used = 0, 0
    if used:
        out.append(acc << (8 - used))
    return bytes(out)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_row(kind, row, prev, bpp):
    out = bytearray([kind])
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i] if prev is not None else 0
        c = prev[i - bpp] if prev is not None and i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out.append((x - pred) & 0xFF)
    return bytes(out)


def encode(width, height, color, depth, pixels, interlace=False, palette=None, trns=None,
           gama=None, idat_parts=1, filters=None, extra=()):
    """pixels[y][x] is a tuple of samples; filters cycles over the rows (of each pass)."""
    channels = CHANNELS[color]
    bpp = max(1, channels * depth // 8)
    filters = filters or [0, 1, 2, 3, 4]
    raw = bytearray()
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    for (x0, y0, dx, dy) in passes:
        xs = list(range(x0, width, dx))
        ys = list(range(y0, height, dy))
        if not xs or not ys:
            continue
        prev = None
        for n, y in enumerate(ys):
            row = pack_row([s for x in xs for s in pixels[y][x]], depth)
            raw += filter_row(filters[n % len(filters)], row, prev, bpp)
            prev = row
    data = zlib.compress(bytes(raw), 9)
    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, int(interlace)))
    if gama is not None:
        out += chunk(b"gAMA", struct.pack(">I", gama))
    for kind, body in extra:
        out += chunk(kind, body)
    if palette is not None:
        out += chunk(b"PLTE", b"".join(bytes(p) for p in palette))
    if trns is not None:
        out += chunk(b"tRNS", trns)
    step = max(1, -(-len(data) // idat_parts))
    for i in range(0, len(data), step):
        out += chunk(b"IDAT", data[i:i + step])
    out += chunk(b"IEND", b"")
    return out


def images():
    rnd = random.Random(11)
    def px(w, h, channels, depth, top=None):
        top = top if top is not None else (1 << depth) - 1
        return [[tuple(rnd.randint(0, top) for _ in range(channels)) for _ in range(w)] for _ in range(h)]
    out = {}
    for depth in (1, 2, 4, 8, 16):
        for inter in (False, True):
            tag = "i" if inter else "n"
            out[f"gray{depth}_{tag}.png"] = encode(9, 7, 0, depth, px(9, 7, 1, depth), inter)
    for color, name in ((2, "rgb"), (4, "graya"), (6, "rgba")):
        for depth in (8, 16):
            for inter in (False, True):
                tag = "i" if inter else "n"
                ch = CHANNELS[color]
                out[f"{name}{depth}_{tag}.png"] = encode(9, 7, color, depth, px(9, 7, ch, depth), inter)
    for depth in (1, 2, 4, 8):
        n = 1 << depth
        pal = [(rnd.randint(0, 255), rnd.randint(0, 255), rnd.randint(0, 255)) for _ in range(n)]
        for inter in (False, True):
            tag = "i" if inter else "n"
            pix = px(9, 7, 1, depth)
            out[f"pal{depth}_{tag}.png"] = encode(9, 7, 3, depth, pix, inter, palette=pal)
            trns = bytes(rnd.randint(0, 255) for _ in range(max(1, n // 2)))
            out[f"pal{depth}t_{tag}.png"] = encode(9, 7, 3, depth, pix, inter, palette=pal, trns=trns)
    # tRNS on gray and RGB images (torchvision ignores it), a gAMA chunk, split IDATs.
    out["gray8t_n.png"] = encode(9, 7, 0, 8, px(9, 7, 1, 8), trns=struct.pack(">H", 7))
    out["rgb8t_n.png"] = encode(9, 7, 2, 8, px(9, 7, 3, 8), trns=struct.pack(">HHH", 1, 2, 3))
    out["rgb8g_n.png"] = encode(9, 7, 2, 8, px(9, 7, 3, 8), gama=45455)
    out["rgb8s_n.png"] = encode(9, 7, 2, 8, px(9, 7, 3, 8), extra=[(b"sRGB", b"\x00")])
    out["rgb8g1_n.png"] = encode(9, 7, 2, 8, px(9, 7, 3, 8), gama=100000)
    # An ancillary chunk with a bad CRC (skipped, as libpng does) and a text chunk.
    bad = chunk(b"tEXt", b"k\x00v")[:-1] + b"\x00"
    out["rgb8badanc_n.png"] = encode(9, 7, 2, 8, px(9, 7, 3, 8), extra=[(b"tEXt", b"a\x00b")])
    out["rgb8badanc_n.png"] = out["rgb8badanc_n.png"][:33] + bad + out["rgb8badanc_n.png"][33:]
    out["rgb8split_n.png"] = encode(9, 7, 2, 8, px(9, 7, 3, 8), idat_parts=5)
    # One filter type for the whole image, each of the five; gray rows equal in RGB.
    for f in range(5):
        out[f"rgb8f{f}_n.png"] = encode(8, 4, 2, 8, px(8, 4, 3, 8), filters=[f])
    grey = [[(v, v, v) for v in (rnd.randint(0, 255) for _ in range(5))] for _ in range(2)]
    out["rgbgrey_n.png"] = encode(5, 2, 2, 8, grey)
    out["one_i.png"] = encode(1, 1, 6, 8, px(1, 1, 4, 8), True)
    out["tall_i.png"] = encode(2, 11, 2, 8, px(2, 11, 3, 8), True)
    return out


def record(directory, names):
    import torch
    from torchvision.io import ImageReadMode, read_image
    records = []
    for name in names:
        for mode in MODES:
            rec = {"file": name, "mode": mode}
            try:
                t = read_image(os.path.join(directory, name), mode=ImageReadMode[mode])
                rec.update(shape=list(t.shape), stride=list(t.stride()),
                           dtype=str(t.dtype).replace("torch.", ""),
                           values=t.to(torch.int64).flatten().tolist())
            except Exception as e:  # noqa: BLE001 - recorded as PyTorch shows it
                msg = str(e).split("\n")[0]
                if ".cpp:" in msg:
                    msg = msg.split(", ", 2)[-1]
                rec["error"] = f"{type(e).__name__}: {msg}"
            records.append(rec)
    return records


def main():
    directory, out_json = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3 and sys.argv[3] == "--record-only":
        names = sorted(n for n in os.listdir(directory) if n.endswith(".png"))
        json.dump(record(directory, names), sys.stdout)
        return
    os.makedirs(directory, exist_ok=True)
    files = images()
    for name, data in files.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
    import subprocess
    runs = []
    for _ in range(2):
        env = dict(os.environ, MALLOC_PERTURB_="255", GLIBC_TUNABLES="glibc.malloc.tcache_count=0")
        res = subprocess.run([sys.executable, __file__, directory, out_json, "--record-only"],
                             env=env, capture_output=True, text=True, check=True)
        runs.append(json.loads(res.stdout))
    kept = [a for a, b in zip(runs[0], runs[1]) if a == b]
    for a, b in zip(runs[0], runs[1]):
        if a != b:
            print(f"dropped {a['file']} {a['mode']}: differs between runs", file=sys.stderr)
    with open(out_json, "w") as f:
        for rec in kept:
            f.write(json.dumps(rec) + "\n")
    print(f"{len(files)} images, {len(kept)} records", file=sys.stderr)


if __name__ == "__main__":
    main()
