"""Writes the scripts of tests/fixtures/optim/memory.torch.jsonl: each optimizer configuration's
step() on a Linear(10, 20)-ReLU-Linear(20, 5) (parameters of 800, 80, 400 and 20 bytes), first
and later steps, recorded with the trace contract's memory object (live_bytes, peak_bytes):
    PY=/work/torchenv/venv/bin/python
    $PY tools/oracle/optim_exact/memory_cases.py > /tmp/optim_memory.jsonl
    $PY tools/oracle/record.py --memory /tmp/optim_memory.jsonl tests/fixtures/optim/memory.torch.jsonl
"""
import json

CONFIGS = [
    "SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)",
    "SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01, maximize=True)",
    "SGD(model.parameters(), lr=0.1, maximize=True)",
    "Adam(model.parameters(), lr=0.01, weight_decay=0.1)",
    "Adam(model.parameters(), lr=0.01, maximize=True, amsgrad=True)",
    "Adam(model.parameters(), lr=0.01, maximize=True, weight_decay=0.1)",
    "AdamW(model.parameters(), lr=0.01)",
    "AdamW(model.parameters(), lr=0.01, amsgrad=True, maximize=True)",
    "RMSprop(model.parameters(), lr=0.01, momentum=0.9, centered=True, weight_decay=0.01)",
    "RMSprop(model.parameters(), lr=0.01, centered=True, maximize=True)",
    "RMSprop(model.parameters(), lr=0.01, maximize=True, weight_decay=0.01)",
    "Adagrad(model.parameters(), lr=0.1, weight_decay=0.01, lr_decay=0.01)",
    "Adagrad(model.parameters(), lr=0.1, maximize=True, weight_decay=0.01)",
]
for i, ctor in enumerate(CONFIGS):
    script = "\n".join([
        "import torch",
        "import torch.nn as nn",
        "_ = torch.manual_seed(0)",
        "model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5))",
        "x = torch.randn(8, 10)",
        "model(x).pow(2).mean().backward()",
        "opt = torch.optim." + ctor,
        "opt.step()",
        "opt.step()",
        "opt.zero_grad()",
        "model(x).pow(2).mean().backward()",
        "opt.step()",
    ])
    print(json.dumps({"id": f"optim-memory-{i}-{ctor.split('(')[0]}", "script": script}))
