#!/usr/bin/env bash
# Regenerates tests/fixtures/realworld.torch.jsonl: the "real notebooks" corpus, recorded from
# real PyTorch 2.15.  Needs a Python with torch 2.15 and numpy (PY, default
# /work/torchenv/venv/bin/python); never run in CI.
#
#   tools/oracle/realworld.sh            # from anywhere in the repo
#   PY=/path/to/python tools/oracle/realworld.sh
#
# The corpus is
#   - doc-<op>: the `>>>` examples of torch's own docstrings for each op
#     (tools/oracle/docstring_corpus.py), and
#   - student-<name>: the cells students paste, tools/oracle/student/<name>.py.
# Every example or case left out, and why, goes to tools/oracle/realworld.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-/work/torchenv/venv/bin/python}
OUT=tests/fixtures/realworld.torch.jsonl
LOG=tools/oracle/realworld.log
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$PY" -c 'import torch, numpy; assert torch.__version__.startswith("2.15"), torch.__version__' || {
    echo "realworld.sh: $PY has no torch 2.15 with numpy (see tools/oracle/README.md)" >&2; exit 1; }

{
    echo "# tools/oracle/realworld.sh, $(date -u +%Y-%m-%dT%H:%MZ), torch $("$PY" -c 'import torch; print(torch.__version__)')"
    echo
    echo "## Docstring examples left out (docstring_corpus.py)"
} > "$LOG"
"$PY" tools/oracle/docstring_corpus.py "$tmp/doc.jsonl" "$tmp/doc.log"
cat "$tmp/doc.log" >> "$LOG"

"$PY" - "$tmp/student.jsonl" <<'PYEOF'
import glob, json, os, sys
with open(sys.argv[1], "w") as out:
    for path in sorted(glob.glob("tools/oracle/student/*.py")):
        name = os.path.basename(path)[:-3]
        script = open(path).read().rstrip("\n")
        out.write(json.dumps({"id": f"student-{name}", "script": script}) + "\n")
PYEOF

cat "$tmp/doc.jsonl" "$tmp/student.jsonl" > "$tmp/scripts.jsonl"
{ echo; echo "## Cases left out (record.py)"; } >> "$LOG"
nice -n 10 "$PY" tools/oracle/record.py --drop-nonfinite --max-case-bytes 250000 \
    "$tmp/scripts.jsonl" "$OUT" 2> "$tmp/record.log" || { cat "$tmp/record.log" >&2; exit 1; }
cat "$tmp/record.log" >> "$LOG"

"$PY" - "$OUT" >> "$LOG" <<'PYEOF'
import json, sys
cases = [json.loads(l) for l in open(sys.argv[1])]
doc = sum(c["id"].startswith("doc-") for c in cases)
steps = sum(len(c["steps"]) for c in cases)
errors = sum(s["error"] is not None for c in cases for s in c["steps"])
print(f"\n## Corpus\n{len(cases)} cases ({doc} doc-*, {len(cases) - doc} student-*), "
      f"{steps} steps, {errors} of them errors")
PYEOF
tail -n 2 "$LOG"
ls -l "$OUT"
