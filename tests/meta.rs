//! The meta device: tensors with shapes, strides, dtypes and bytes but no values. Every
//! expected text below was printed by PyTorch 2.15 (CPU) running the same script, one
//! top-level statement at a time (an error as `Type: first line`, a bare expression as its
//! `repr`); a statement that prints or shows nothing expects `None`.

use stridescope::core::trace::Trace;
use stridescope::engines::CpuEngine;
use stridescope::interp::{trace_script, Evaluator, Limits};

/// The error or output of the step at each `line`, as PyTorch printed it.
fn check(script: &str, expected: &[(usize, Option<&str>)]) {
    let trace = trace_script(script);
    for (line, want) in expected {
        let step = trace
            .steps
            .iter()
            .find(|s| s.line == *line)
            .unwrap_or_else(|| panic!("no step at line {line}"));
        let got = step.error.as_deref().or(step.output.as_deref());
        assert_eq!(got, *want, "line {line}: `{}`", step.source);
    }
}

fn tensor<'a>(
    trace: &'a Trace,
    step: usize,
    name: &str,
) -> &'a stridescope::core::trace::TensorRecord {
    trace.steps[step]
        .tensors
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tensor {name}"))
}

const CREATION: &str = "import torch\nm = torch.ones(3, 4, device=\"meta\")\nm\nm.device\nm.is_meta\nm.is_cpu\ntorch.device(\"meta\")\ntorch.device(\"meta:0\")\ntorch.zeros(3, device=torch.device(\"meta\"))\ntorch.zeros(2, dtype=torch.int64, device=\"meta\")\ntorch.tensor(3., device=\"meta\")\ntorch.tensor([1, 2], device=\"meta\")\ntorch.tensor([True], device=\"meta\")\ntorch.empty(0, device=\"meta\")\ntorch.ones(2, 3, dtype=torch.complex64, device=\"meta\")\ntorch.ones(2, 3, dtype=torch.float16, device=\"meta\")\ntorch.randn(2, 3, device=\"meta\", requires_grad=True)\ntorch.randn(2, 3, device=\"meta\", requires_grad=True) * 2\ntorch.zeros(2, device=\"meta\", dtype=torch.float64, requires_grad=True)\ntorch.arange(5, device=\"meta\")\ntorch.full((2,), 7, device=\"meta\")\ntorch.rand(2, device=\"meta\")\ntorch.randint(0, 5, (3,), device=\"meta\")\ntorch.empty_like(m)\ntorch.zeros_like(m)\ntorch.ones_like(torch.ones(3), device=\"meta\")\nm.new_zeros(2)\nn = torch.ones(3, 4).to(\"meta\")\nn\nm.to(\"meta\") is m\nm.to(torch.device(\"meta\")) is m\nm.to(torch.float64)\nm.to(device=\"meta\", dtype=torch.int32)\ntorch.ones(2).to(m)\ne = torch.empty_like(m, device=\"cpu\")\ne.shape\ne.device\nm.nbytes\nm.element_size()\nm.t().stride()\nm.t().contiguous().stride()\nm[1:].storage_offset()\nm.data_ptr()\nm[1:].data_ptr()\nm.sum()\nm.max(dim=0)\nm.sort()\nm[0]\nm[torch.tensor([0, 1])]\n-m\nm.t()\nstr(m)\nprint(m)\nf\"{m}\"\n[m]\n";

#[test]
fn factories_conversions_and_reprs_are_pytorchs() {
    check(
        CREATION,
        &[
        (1, None),
        (2, None),
        (3, Some("tensor(..., device='meta', size=(3, 4))")),
        (4, Some("device(type='meta')")),
        (5, Some("True")),
        (6, Some("False")),
        (7, Some("device(type='meta')")),
        (8, Some("device(type='meta', index=0)")),
        (9, Some("tensor(..., device='meta', size=(3,))")),
        (10, Some("tensor(..., device='meta', size=(2,), dtype=torch.int64)")),
        (11, Some("tensor(..., device='meta', size=())")),
        (12, Some("tensor(..., device='meta', size=(2,), dtype=torch.int64)")),
        (13, Some("tensor(..., device='meta', size=(1,), dtype=torch.bool)")),
        (14, Some("tensor(..., device='meta', size=(0,))")),
        (15, Some("tensor(..., device='meta', size=(2, 3), dtype=torch.complex64)")),
        (16, Some("tensor(..., device='meta', size=(2, 3), dtype=torch.float16)")),
        (17, Some("tensor(..., device='meta', size=(2, 3), requires_grad=True)")),
        (18, Some("tensor(..., device='meta', size=(2, 3), grad_fn=<MulBackward0>)")),
        (19, Some("tensor(..., device='meta', size=(2,), dtype=torch.float64, requires_grad=True)")),
        (20, Some("tensor(..., device='meta', size=(5,), dtype=torch.int64)")),
        (21, Some("tensor(..., device='meta', size=(2,), dtype=torch.int64)")),
        (22, Some("tensor(..., device='meta', size=(2,))")),
        (23, Some("tensor(..., device='meta', size=(3,), dtype=torch.int64)")),
        (24, Some("tensor(..., device='meta', size=(3, 4))")),
        (25, Some("tensor(..., device='meta', size=(3, 4))")),
        (26, Some("tensor(..., device='meta', size=(3,))")),
        (27, Some("tensor(..., device='meta', size=(2,))")),
        (28, None),
        (29, Some("tensor(..., device='meta', size=(3, 4))")),
        (30, Some("True")),
        (31, Some("True")),
        (32, Some("tensor(..., device='meta', size=(3, 4), dtype=torch.float64)")),
        (33, Some("tensor(..., device='meta', size=(3, 4), dtype=torch.int32)")),
        (34, Some("tensor(..., device='meta', size=(2,))")),
        (35, None),
        (36, Some("torch.Size([3, 4])")),
        (37, Some("device(type='cpu')")),
        (38, Some("48")),
        (39, Some("4")),
        (40, Some("(1, 4)")),
        (41, Some("(3, 1)")),
        (42, Some("4")),
        (43, Some("0")),
        (44, Some("16")),
        (45, Some("tensor(..., device='meta', size=())")),
        (46, Some("torch.return_types.max(\nvalues=tensor(..., device='meta', size=(4,)),\nindices=tensor(..., device='meta', size=(4,), dtype=torch.int64))")),
        (47, Some("torch.return_types.sort(\nvalues=tensor(..., device='meta', size=(3, 4)),\nindices=tensor(..., device='meta', size=(3, 4), dtype=torch.int64))")),
        (48, Some("tensor(..., device='meta', size=(4,))")),
        (49, Some("tensor(..., device='meta', size=(2, 4))")),
        (50, Some("tensor(..., device='meta', size=(3, 4))")),
        (51, Some("tensor(..., device='meta', size=(4, 3))")),
        (52, Some("\"tensor(..., device='meta', size=(3, 4))\"")),
        (53, Some("tensor(..., device='meta', size=(3, 4))")),
        (54, Some("\"tensor(..., device='meta', size=(3, 4))\"")),
        (55, Some("[tensor(..., device='meta', size=(3, 4))]")),
        ],
    );
}

const ERRORS: &str = "import torch\nm = torch.ones(3, 4, device=\"meta\")\nc = torch.ones(3, 4)\nm + c\nc + m\ntorch.add(c, m)\nm == c\ntorch.cat([m, c])\ntorch.where(m > 0, m, c)\nm[0] @ c[0]\ntorch.ones((), device=\"meta\") + c\nm + torch.tensor(2.)\ntorch.tensor(2.) + m\nm @ c.t()\ntorch.nn.functional.linear(m, c)\ntorch.bmm(c[None], m.t()[None])\nm.copy_(c)\nc.copy_(m)\nm.to(\"cpu\")\nm.cpu()\nm.to(c)\nm.item()\ntorch.ones(1, device=\"meta\").item()\nbool(torch.ones(1, device=\"meta\"))\nfloat(torch.ones((), device=\"meta\"))\nint(m.sum())\nbool(m)\nm.nonzero()\ntorch.nonzero(m)\nm[m > 0]\nm.tolist()\nm.numpy()\n";

#[test]
fn mixing_devices_and_reading_values_give_pytorchs_errors() {
    check(
        ERRORS,
        &[
        (1, None),
        (2, None),
        (3, None),
        (4, Some("RuntimeError: Tensor on device cpu is not on the expected device meta!")),
        (5, Some("RuntimeError: Tensor on device meta is not on the expected device cpu!")),
        (6, Some("RuntimeError: Tensor on device meta is not on the expected device cpu!")),
        (7, Some("RuntimeError: Tensor on device cpu is not on the expected device meta!")),
        (8, Some("RuntimeError: Tensor on device cpu is not on the expected device meta!")),
        (9, Some("RuntimeError: Tensor on device cpu is not on the expected device meta!")),
        (10, Some("RuntimeError: Tensor on device cpu is not on the expected device meta!")),
        (11, Some("RuntimeError: Tensor on device cpu is not on the expected device meta!")),
        (12, Some("tensor(..., device='meta', size=(3, 4))")),
        (13, Some("tensor(..., device='meta', size=(3, 4))")),
        (14, Some("tensor(..., device='meta', size=(3, 3))")),
        (15, Some("tensor(..., device='meta', size=(3, 3))")),
        (16, Some("tensor(..., device='meta', size=(1, 3, 3))")),
        (17, Some("tensor(..., device='meta', size=(3, 4))")),
        (18, Some("NotImplementedError: Cannot copy out of meta tensor; no data!")),
        (19, Some("NotImplementedError: Cannot copy out of meta tensor; no data!")),
        (20, Some("NotImplementedError: Cannot copy out of meta tensor; no data!")),
        (21, Some("NotImplementedError: Cannot copy out of meta tensor; no data!")),
        (22, Some("RuntimeError: a Tensor with 12 elements cannot be converted to Scalar")),
        (23, Some("RuntimeError: Tensor.item() cannot be called on meta tensors")),
        (24, Some("RuntimeError: Tensor.item() cannot be called on meta tensors")),
        (25, Some("RuntimeError: Tensor.item() cannot be called on meta tensors")),
        (26, Some("RuntimeError: Tensor.item() cannot be called on meta tensors")),
        (27, Some("RuntimeError: Boolean value of Tensor with more than one value is ambiguous")),
        (28, Some("NotImplementedError: The register_meta function for torch.nonzero() raises unimplemented by default, as a correct data-independent implementation does not exist. This implementation returns a fake value, assuming all elements of the tensor are non-zero. To enable this registration, please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")),
        (29, Some("NotImplementedError: The register_meta function for torch.nonzero() raises unimplemented by default, as a correct data-independent implementation does not exist. This implementation returns a fake value, assuming all elements of the tensor are non-zero. To enable this registration, please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")),
        (30, Some("NotImplementedError: The register_meta function for torch.nonzero() raises unimplemented by default, as a correct data-independent implementation does not exist. This implementation returns a fake value, assuming all elements of the tensor are non-zero. To enable this registration, please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")),
        (31, Some("NotImplementedError: Cannot copy out of meta tensor; no data!")),
        (32, Some("TypeError: can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.")),
        ],
    );
}

const STORAGE: &str = "import torch\nm = torch.ones(3, 4, device=\"meta\")\nm.untyped_storage()\nm.untyped_storage().nbytes()\nm.untyped_storage().device\nm.untyped_storage().data_ptr()\nlen(m.untyped_storage())\nm.untyped_storage()[0]\nm.untyped_storage().tolist()\ntorch.randn(1000, 1000, device=\"meta\").untyped_storage()\nbig = torch.empty(10**6, 10**6, device=\"meta\")\nbig.untyped_storage().nbytes()\nbig.nbytes\nbig.sum(0).shape\n(big + 1).shape\n";

#[test]
fn a_meta_storage_has_its_bytes_but_no_values() {
    check(
        STORAGE,
        &[
            (1, None),
            (2, None),
            (
                3,
                Some("...\n[torch.storage.UntypedStorage(device=meta) of size 48]"),
            ),
            (4, Some("48")),
            (5, Some("device(type='meta')")),
            (6, Some("0")),
            (7, Some("48")),
            (
                8,
                Some("NotImplementedError: Not available for 'meta' device type"),
            ),
            (
                9,
                Some("NotImplementedError: Not available for 'meta' device type"),
            ),
            (
                10,
                Some("...\n[torch.storage.UntypedStorage(device=meta) of size 4000000]"),
            ),
            (11, None),
            (12, Some("4000000000000")),
            (13, Some("4000000000000")),
            (14, Some("torch.Size([1000000])")),
            (15, Some("torch.Size([1000000, 1000000])")),
        ],
    );
}

const TRAINING: &str = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nx = torch.randn(3, device=\"meta\", requires_grad=True)\ny = (x * 2).sum()\ny\ny.backward()\nx.grad\nwith torch.device(\"meta\"):\n    w = torch.ones(2)\n    huge = nn.Linear(10**6, 10**6)\nw\nhuge.weight\nhuge.weight.device\ntorch.ones(2)\nwith torch.device(\"meta\"):\n    model = nn.Sequential(nn.Linear(8192, 8192), nn.ReLU(), nn.Linear(8192, 8192), nn.ReLU(), nn.Linear(8192, 10))\nsum(p.numel() for p in model.parameters())\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\ninputs = torch.randn(64, 8192, device=\"meta\")\ntarget = torch.zeros(64, dtype=torch.long, device=\"meta\")\nloss = F.cross_entropy(model(inputs), target)\nloss\nloss.backward()\nmodel[0].weight.grad\nmodel[4].bias.grad\nopt.step()\nopt.zero_grad()\nF.mse_loss(torch.ones(3, 4, device=\"meta\"), torch.zeros(3, 4, device=\"meta\"))\ntorch.zeros(2, 3, device=\"meta\").softmax(-1).log()\n";

#[test]
fn a_model_of_134_million_parameters_on_meta_trains_a_step() {
    check(
        TRAINING,
        &[
        (1, None),
        (2, None),
        (3, None),
        (4, None),
        (5, None),
        (6, Some("tensor(..., device='meta', size=(), grad_fn=<SumBackward0>)")),
        (7, None),
        (8, Some("tensor(..., device='meta', size=(3,))")),
        (9, None),
        (12, Some("tensor(..., device='meta', size=(2,))")),
        (13, Some("Parameter containing:\ntensor(..., device='meta', size=(1000000, 1000000), requires_grad=True)")),
        (14, Some("device(type='meta')")),
        (15, Some("tensor([1., 1.])")),
        (16, None),
        (18, Some("134316042")),
        (19, None),
        (20, None),
        (21, None),
        (22, None),
        (23, Some("tensor(..., device='meta', size=(), grad_fn=<NllLossBackward0>)")),
        (24, None),
        (25, Some("tensor(..., device='meta', size=(8192, 8192))")),
        (26, Some("tensor(..., device='meta', size=(10,))")),
        (27, None),
        (28, None),
        (29, Some("tensor(..., device='meta', size=())")),
        (30, Some("tensor(..., device='meta', size=(2, 3))")),
        ],
    );
}

#[test]
fn the_trace_gives_meta_tensors_a_device_and_no_values() {
    let trace = trace_script(
        "import torch\nm = torch.ones(3, 4, device=\"meta\")\nc = torch.ones(2)\nv = m[1:]",
    );
    let m = tensor(&trace, 3, "m");
    assert_eq!(
        (m.device.as_deref(), m.values.is_none()),
        (Some("meta"), true)
    );
    assert_eq!((m.storage_nbytes, m.element_size), (48, 4));
    let v = tensor(&trace, 3, "v");
    assert_eq!(
        (v.device.as_deref(), v.storage_offset, &v.storage),
        (Some("meta"), 4, &m.storage)
    );
    let c = tensor(&trace, 3, "c");
    assert_eq!(
        (c.device.as_deref(), c.values.as_ref().map(|v| v.len())),
        (None, Some(2))
    );
    let storage = trace.steps[3]
        .storages
        .iter()
        .find(|s| s.id == m.storage)
        .unwrap();
    assert_eq!(
        (
            storage.device.as_deref(),
            storage.values.is_none(),
            storage.nbytes
        ),
        (Some("meta"), true, 48)
    );
    assert!(!storage.uninitialized);
    let json = serde_json::to_string(&trace.steps[3]).unwrap();
    assert!(
        json.contains("\"values\":null,\"device\":\"meta\""),
        "{json}"
    );
    // Two meta tensors and one meta storage; the CPU tensor and storage keep no device field.
    assert_eq!(json.matches("\"device\"").count(), 3, "{json}");
}

#[test]
fn meta_storages_pass_the_memory_and_work_limits_and_count_their_bytes_as_pytorch_does() {
    let limits = Limits {
        memory_bytes: 1 << 20,
        max_op_elements: 1000,
        ..Limits::default()
    };
    let script = "import torch
big = torch.randn(10**4, 10**4, device=\"meta\")
t = (big @ big.t()).relu().sum(0)
cpu = torch.empty(10**6)";
    let trace = Evaluator::new(Box::new(CpuEngine::new()), limits).run(script);
    assert_eq!(trace.steps[1].error, None);
    assert_eq!(trace.steps[2].error, None);
    assert_eq!(tensor(&trace, 2, "t").shape, vec![10_000]);
    // PyTorch counts a meta storage's size among the bytes a script holds.
    assert_eq!(trace.steps[2].live_bytes, 400_000_000 + 40_000);
    assert_eq!(trace.steps[2].allocated_bytes, 0);
    assert!(trace.steps[3]
        .error
        .as_deref()
        .unwrap_or("")
        .contains("not enough memory"));
}

#[test]
fn a_meta_tensors_cells_are_drawn_without_numbers() {
    let trace = trace_script("import torch\nm = torch.ones(2, 3, device=\"meta\")");
    let m = tensor(&trace, 1, "m");
    let html = stridescope::present::cells::tensor_cells_html(m, &Default::default());
    assert_eq!(html.matches("class=\"cell\"").count(), 6, "{html}");
    // Cells, but no values in them.
    assert!(!html.contains(">1<") && !html.contains(">1.<"), "{html}");
}
