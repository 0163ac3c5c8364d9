#!/usr/bin/env python3
"""Rewrites the three widget links of www/examples/course.html from the scenario files beside it.

Run after editing www/examples/*.py (tests/share.rs fails until the links match the files):
    cargo build --release && python3 tools/web/make_course.py
"""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "www" / "examples"
STRIDESCOPE = ROOT / "target" / "release" / "stridescope"

# (scenario, options of `stridescope link`), in the order of the page's iframes.
WIDGETS = [
    ("aliasing.py", ["--step", "9", "--hide", "memory", "--height", "620"]),
    ("slicing.py", ["--step", "8", "--readonly", "--hide", "memory", "--height", "600"]),
    ("channels_last.py", ["--step", "6", "--panels", "steps,output,storage,views", "--height", "560"]),
]


def main():
    hashes = [
        subprocess.run(
            [str(STRIDESCOPE), "link", *options, str(EXAMPLES / name)],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
        for name, options in WIDGETS
    ]
    page = EXAMPLES / "course.html"
    html = page.read_text()
    links = iter(hashes)
    html, count = re.subn(r'src="\.\./embed\.html#[^"]*"', lambda _: f'src="../embed.html#{next(links)}"', html)
    assert count == len(WIDGETS), f"expected {len(WIDGETS)} widgets in course.html, found {count}"
    page.write_text(html)
    print(f"course.html: {count} widget links rewritten")


if __name__ == "__main__":
    main()
