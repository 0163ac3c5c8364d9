#!/usr/bin/env bash
# Regenerates tests/fixtures/memory/SET.torch.jsonl from the scripts of
# tools/oracle/memory_sets/SET/*.py, recorded from real PyTorch 2.15 with
# tools/oracle/record.py --memory (tests/memory_oracle.rs reads every set of that folder).
# Sets: attention (F.scaled_dot_product_attention's two CPU paths, nn.MultiheadAttention's
# projections, a nanoGPT-style attention block), nn_utils (gradient clipping, parameter
# vectors), rnn (LSTM/GRU/RNN layers), inplace_autograd (in-place ops that keep a clone
# of what they overwrite, the recurrent cells' in-place gates), printing (what `print(t)` allocates,
# selecting reductions' saved indices, DataLoader loops, pad_sequence), losses (cross_entropy's class
# weights and label smoothing, BCE's weight and pos_weight, d2l's autograd, the nn.Module API),
# tensor_ops (unique/bincount/diff, kron, cosine_similarity, einsum and friends, d2l's attention,
# positional encoding and RNN from scratch, weight tying and hooks, a TransformerEncoder), upsample
# (F.interpolate's modes, nn.Upsample and PixelShuffle, a U-Net decoder block, their errors),
# python_loops (loops that rebind a name: the old tensor freed while the statement runs),
# batched_products (bmm's small-product loop and its BLAS path, values to the last bit),
# losses_more (SmoothL1/Huber, KL, ranking and embedding losses, Poisson/Gaussian NLL,
# multi-margin and multi-label losses, the legacy size_average/reduce flags), layers_more (the
# newer activations, RReLU, F.pad's modes and padding layers, fold/unfold, distances, Softmax2d),
# pools_norms (3-d and adaptive pools, LPPool/MaxUnpool, InstanceNorm, BatchNorm3d, LRN,
# EmbeddingBag, Conv3d and the transposed convolutions), optim_more (the adaptive optimizers'
# state, LBFGS, warmup and cyclic schedulers, ReduceLROnPlateau, state_dicts), autocast
# (torch.autocast's CPU policies, the cast cache, nesting and decorators, GradScaler on the CPU and
# a CUDA scaler that disables itself), textbook_models (model code as Chinese and English
# textbooks write it: d2l's VGG/NiN/GoogLeNet/ResNet/DenseNet blocks and LeNet training, a
# DataLoader loop, nn.init through apply, schedulers, an LSTM classifier, a Transformer block,
# gradient clipping and accumulation, hooks, checkpointing, storages, views and version
# counters, dtypes' sizes, NumPy bridges).
# Needs a Python with torch 2.15 (PY, default /work/torchenv/venv/bin/python);
# never in CI.
#
#   tools/oracle/memory_sets/record.sh SET
set -euo pipefail
set_name=${1:?usage: record.sh SET}
cd "$(dirname "$0")/../../.."
PY=${PY:-/work/torchenv/venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" - "$tmp/in.jsonl" "$set_name" <<'PYEOF'
import glob, json, os, sys
with open(sys.argv[1], "w") as out:
    for path in sorted(glob.glob(f"tools/oracle/memory_sets/{sys.argv[2]}/*.py")):
        name = os.path.basename(path)[:-3]
        out.write(json.dumps({"id": f"{sys.argv[2]}-{name}", "script": open(path).read().rstrip("\n")}) + "\n")
PYEOF
"$PY" tools/oracle/record.py --memory --drop-nonfinite "$tmp/in.jsonl" \
    "tests/fixtures/memory/$set_name.torch.jsonl" 2> >(grep -v '^USDT\|^ERROR:.*gpuGetDeviceCount' >&2)
