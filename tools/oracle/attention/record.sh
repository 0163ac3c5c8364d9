#!/usr/bin/env bash
# Regenerates tests/fixtures/memory/attention.torch.jsonl: the scripts of
# tools/oracle/attention/*.py (F.scaled_dot_product_attention's two CPU paths,
# nn.MultiheadAttention's projections, a nanoGPT-style attention block), recorded from real
# PyTorch 2.15 with tools/oracle/record.py --memory.  Needs a Python with torch 2.15
# (PY, default /work/torchenv/venv/bin/python); never in CI.
#
#   tools/oracle/attention/record.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=${PY:-/work/torchenv/venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" - "$tmp/in.jsonl" <<'PYEOF'
import glob, json, os, sys
with open(sys.argv[1], "w") as out:
    for path in sorted(glob.glob("tools/oracle/attention/*.py")):
        name = os.path.basename(path)[:-3]
        out.write(json.dumps({"id": f"attention-{name}", "script": open(path).read().rstrip("\n")}) + "\n")
PYEOF
"$PY" tools/oracle/record.py --memory --drop-nonfinite "$tmp/in.jsonl" \
    tests/fixtures/memory/attention.torch.jsonl 2> >(grep -v '^USDT\|^ERROR:.*gpuGetDeviceCount' >&2)
