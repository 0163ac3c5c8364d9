#!/usr/bin/env bash
# Regenerates tests/fixtures/models/*.torch.jsonl: model code (nn.Module, layers, torch.optim,
# autograd inspection, the meta device) recorded from real PyTorch 2.15.  Needs a Python with
# torch 2.15 (PY, default /work/torchenv/venv/bin/python); never run in CI.
#
#   tools/oracle/models.sh               # from anywhere in the repo
#   PY=/path/to/python tools/oracle/models.sh
#
# It writes
#   - models.torch.jsonl: model-<name>, the cells of tools/oracle/models/<name>.py;
#   - init.torch.jsonl:   init-<Layer>-<size>, layer initialization for 20 seeds
#                         (tools/oracle/models_generated.py init);
#   - optim.torch.jsonl:  optim-<config>, 50 optimizer steps each
#                         (tools/oracle/models_generated.py optim);
# and what was left out, and why, to tools/oracle/models.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-/work/torchenv/venv/bin/python}
DIR=tests/fixtures/models
LOG=tools/oracle/models.log
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$DIR"

"$PY" -c 'import torch; assert torch.__version__.startswith("2.15"), torch.__version__' || {
    echo "models.sh: $PY has no torch 2.15 (see tools/oracle/README.md)" >&2; exit 1; }

echo "# tools/oracle/models.sh, $(date -u +%Y-%m-%dT%H:%MZ), torch $("$PY" -c 'import torch; print(torch.__version__)')" > "$LOG"

"$PY" - "$tmp/models.jsonl" <<'PYEOF'
import glob, json, os, sys
with open(sys.argv[1], "w") as out:
    for path in sorted(glob.glob("tools/oracle/models/*.py")):
        name = os.path.basename(path)[:-3]
        script = open(path).read().rstrip("\n")
        out.write(json.dumps({"id": f"model-{name}", "script": script}) + "\n")
PYEOF
"$PY" tools/oracle/models_generated.py init "$tmp/init.jsonl"
"$PY" tools/oracle/models_generated.py optim "$tmp/optim.jsonl"

for kind in models init optim; do
    { echo; echo "## $kind.torch.jsonl: cases left out (record.py)"; } >> "$LOG"
    nice -n 10 "$PY" tools/oracle/record.py --drop-nonfinite --max-case-bytes 800000 \
        "$tmp/$kind.jsonl" "$DIR/$kind.torch.jsonl" 2> "$tmp/record.log" || {
        cat "$tmp/record.log" >&2; exit 1; }
    cat "$tmp/record.log" >> "$LOG"
done

"$PY" - "$DIR" >> "$LOG" <<'PYEOF'
import json, os, sys
print("\n## Corpus")
for kind in ("models", "init", "optim"):
    path = os.path.join(sys.argv[1], f"{kind}.torch.jsonl")
    cases = [json.loads(l) for l in open(path)]
    steps = sum(len(c["steps"]) for c in cases)
    errors = sum(s["error"] is not None for c in cases for s in c["steps"])
    meta = sum(any(t.get("device") == "meta" for s in c["steps"] for t in s["tensors"]) for c in cases)
    print(f"{kind}.torch.jsonl: {len(cases)} cases, {steps} steps, {errors} of them errors, "
          f"{meta} cases with meta tensors, {os.path.getsize(path)} bytes")
PYEOF
tail -n 4 "$LOG"
