#!/usr/bin/env bash
# Regenerates tests/fixtures/memory/memory.torch.jsonl: the scripts of tools/oracle/memory/*.py
# (how course articles, textbooks and blogs teach where a model's memory goes), recorded from
# real PyTorch 2.15 with tools/oracle/record.py --memory: every step has the tensors, outputs and
# errors of the oracle's schema and the trace contract's "memory" object (live_bytes, peak_bytes,
# saved), and tests/fixtures/memory/memory.events.jsonl (tools/oracle/memory/bin/events.py: each
# step's allocator events in order, with the op that made each).  Needs a Python with torch 2.15
# (PY, default /work/torchenv/venv/bin/python); never in CI.
#
#   tools/oracle/memory/record.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=${PY:-/work/torchenv/venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p tests/fixtures/memory
"$PY" - "$tmp/in.jsonl" <<'PYEOF'
import glob, json, os, sys
with open(sys.argv[1], "w") as out:
    for path in sorted(glob.glob("tools/oracle/memory/*.py")):
        name = os.path.basename(path)[:-3]
        out.write(json.dumps({"id": f"memory-{name}", "script": open(path).read().rstrip("\n")}) + "\n")
PYEOF
"$PY" tools/oracle/record.py --memory --drop-nonfinite "$tmp/in.jsonl" \
    tests/fixtures/memory/memory.torch.jsonl 2> >(grep -v '^USDT\|^ERROR:.*gpuGetDeviceCount' >&2)
# and each step's allocator events, in order, with the op around each (what the peaks come from)
"$PY" tools/oracle/memory/bin/events.py "$tmp/in.jsonl" tests/fixtures/memory/memory.events.jsonl 2>/dev/null
