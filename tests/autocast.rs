//! Automatic mixed precision (`torch.autocast`, `torch.amp.GradScaler`): the policies of
//! ATen's autocast lists on the CPU and on the simulated CUDA device, the cast cache, the
//! context manager's errors, and a scaler that disables itself where CUDA is not available.
//! The CPU's behaviour, values and memory are also checked against PyTorch 2.15 by the
//! recorded `autocast` set of `tests/memory_oracle.rs`.

mod common;

use common::shown as outputs;
use stridescope::interp::{trace_script, trace_script_cuda};

fn script(lines: &[&str]) -> String {
    format!(
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n{}\n",
        lines.join("\n")
    )
}

/// The outputs of `lines` after the imports, on the CPU.
fn on_cpu(lines: &[&str]) -> Vec<String> {
    outputs(&trace_script(&script(lines)))[3..].to_vec()
}

/// The outputs of `lines` after the imports, as on a CUDA device.
fn on_cuda(lines: &[&str]) -> Vec<String> {
    outputs(&trace_script_cuda(&script(lines)))[3..].to_vec()
}

#[test]
fn cpu_autocast_runs_the_listed_products_in_bfloat16_and_the_losses_in_float32() {
    let out = on_cpu(&[
        "a = torch.randn(4, 6)",
        "b = torch.randn(6, 5)",
        "with torch.autocast('cpu'):\n    m = a @ b\n    s = torch.softmax(m, -1)\n    l = F.mse_loss(m, torch.zeros(4, 5))\n    d = a.double() @ b.double()",
        "print(m.dtype, s.dtype, l.dtype, d.dtype)",
        "print(m.grad_fn, torch.is_autocast_enabled('cpu'))",
    ]);
    assert_eq!(
        out[3],
        "torch.bfloat16 torch.bfloat16 torch.float32 torch.float64"
    );
    assert_eq!(out[4], "None False");
}

#[test]
fn a_parameter_is_cast_once_per_block_and_the_cache_ends_with_it() {
    let out = on_cpu(&[
        "lin = nn.Linear(8, 8)",
        "x = torch.randn(2, 8)",
        "with torch.autocast('cpu'):\n    h1 = lin(x)\n    h2 = lin(x)",
        "h1.grad_fn.next_functions[2][0].next_functions[0][0] is h2.grad_fn.next_functions[2][0].next_functions[0][0]",
        "with torch.autocast('cpu'):\n    h3 = lin(x)",
        "h1.grad_fn.next_functions[2][0].next_functions[0][0] is h3.grad_fn.next_functions[2][0].next_functions[0][0]",
        "h3.grad_fn.next_functions[0][0].name()",
    ]);
    assert_eq!(out[3], "True");
    assert_eq!(out[5], "False");
    assert_eq!(out[6], "'ToCopyBackward0'");
}

#[test]
fn meta_tensors_are_never_cast() {
    let out = on_cpu(&[
        "a = torch.empty(4, 4, device='meta')",
        "with torch.autocast('cpu'):\n    m = a @ a",
        "m.dtype, m.device",
    ]);
    assert_eq!(out[2], "(torch.float32, device(type='meta'))");
}

#[test]
fn cuda_autocast_uses_the_cuda_lists_on_the_simulated_device() {
    let out = on_cuda(&[
        "model = nn.Linear(10, 4).cuda()",
        "x = torch.randn(3, 10, device='cuda')",
        "with torch.autocast('cuda'):\n    y = model(x)\n    p = torch.softmax(y, -1)\n    e = y.exp()\n    r = y.relu()",
        "print(y.dtype, p.dtype, e.dtype, r.dtype)",
        "with torch.autocast('cuda'):\n    F.binary_cross_entropy(torch.rand(3, device='cuda'), torch.rand(3, device='cuda'))",
    ]);
    assert_eq!(
        out[3],
        "torch.float16 torch.float32 torch.float32 torch.float16"
    );
    assert!(
        out[4].starts_with(
            "RuntimeError: torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast."
        ),
        "{}",
        out[4]
    );
}

#[test]
fn a_cuda_scaler_disables_itself_without_cuda_and_scales_on_the_simulated_device() {
    let lines = [
        "model = nn.Linear(4, 1)",
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
        "scaler = torch.cuda.amp.GradScaler()",
        "print(scaler.is_enabled(), scaler.get_scale())",
    ];
    assert_eq!(on_cpu(&lines)[3], "False 1.0");
    let out = on_cuda(&[
        "model = nn.Linear(4, 1).cuda()",
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
        "scaler = torch.amp.GradScaler('cuda', growth_interval=1)",
        "loss = model(torch.randn(2, 4, device='cuda')).sum()",
        "scaler.scale(loss).backward()",
        "print(model.weight.grad.abs().max().item() > 1000)",
        "scaler.step(opt)",
        "print(model.weight.grad.abs().max().item() < 100)",
        "scaler.update()",
        "print(scaler.get_scale(), scaler.state_dict()['_growth_tracker'])",
    ]);
    assert_eq!(out[5], "True");
    assert_eq!(out[7], "True");
    assert_eq!(out[9], "131072.0 0");
}

#[test]
fn bad_autocast_arguments_get_pytorchs_errors() {
    let out = on_cpu(&[
        "torch.autocast()",
        "torch.autocast('tpu')",
        "torch.autocast(3)",
        "scaler = torch.amp.GradScaler('cpu')",
        "scaler.step(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1))",
    ]);
    assert_eq!(
        out[0],
        "TypeError: autocast.__init__() missing 1 required positional argument: 'device_type'"
    );
    assert!(
        out[1].starts_with("RuntimeError: Expected one of cpu, cuda, ipu, xpu")
            && out[1].ends_with("device type at start of device string: tpu"),
        "{}",
        out[1]
    );
    assert_eq!(
        out[2],
        "ValueError: Expected `device_type` of type `str`, got: `<class 'int'>`"
    );
    assert_eq!(
        out[4],
        "AssertionError: Attempted step but _scale is None.  This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
    );
}
