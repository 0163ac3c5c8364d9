//! The evaluation option "as on a CUDA device" (issue 19, item 5): a simulated `cuda:0`
//! whose values the CPU engine computes, PyTorch's printouts and device errors, and
//! `torch.cuda.memory_allocated()` / `max_memory_allocated()` counted by the caching
//! allocator's rule (each block rounded up to a multiple of 512 bytes). Without the option
//! the script runs as on a machine without a GPU.

mod common;

use common::shown as outputs;
use stridescope::interp::{trace_script, trace_script_cuda};

/// The outputs of `script` (lines joined with newlines) as on a CUDA device.
fn on_cuda(lines: &[&str]) -> Vec<String> {
    let script = format!(
        "import torch\nimport torch.nn as nn\n{}\n",
        lines.join("\n")
    );
    let trace = trace_script_cuda(&script);
    outputs(&trace)[2..].to_vec()
}

#[test]
fn the_device_queries_answer_for_one_simulated_device() {
    let out = on_cuda(&[
        "torch.cuda.is_available()",
        "torch.cuda.device_count()",
        "torch.cuda.current_device()",
        "torch.cuda.get_device_name(0)",
        "torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
    ]);
    assert_eq!(
        out,
        [
            "True",
            "1",
            "0",
            "'Stridescope simulated CUDA device (allocator rules)'",
            "device(type='cuda')",
        ]
    );
}

#[test]
fn memory_allocated_rounds_each_block_up_to_512_bytes() {
    let out = on_cuda(&[
        "torch.cuda.memory_allocated()",
        "a = torch.zeros(10, device='cuda')",
        "torch.cuda.memory_allocated()",
        "b = torch.zeros(129, device='cuda')",
        "torch.cuda.memory_allocated()",
        "c = torch.zeros(128, device='cuda:0')",
        "torch.cuda.memory_allocated()",
        "x = torch.randn(1024, 1024, device='cuda')",
        "torch.cuda.memory_allocated()",
        // A CPU tensor is not on the device.
        "h = torch.zeros(1000)",
        "torch.cuda.memory_allocated()",
        // An empty tensor allocates no block.
        "e = torch.zeros(0, device='cuda')",
        "torch.cuda.memory_allocated()",
    ]);
    assert_eq!(out[0], "0");
    assert_eq!(out[2], "512", "40 bytes are one 512-byte block");
    assert_eq!(out[4], "1536", "516 bytes take two blocks");
    assert_eq!(out[6], "2048", "512 bytes are one block");
    assert_eq!(out[8], (2048 + 4 * 1024 * 1024).to_string());
    assert_eq!(out[10], out[8]);
    assert_eq!(out[12], out[8]);
}

#[test]
fn the_peak_is_measured_at_allocations_and_reset_on_demand() {
    let out = on_cuda(&[
        "x = torch.ones(1000, device='cuda')",
        "y = x * 2",
        "print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())",
        "del y",
        "print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())",
        "torch.cuda.reset_peak_memory_stats()",
        "torch.cuda.max_memory_allocated()",
        // `(x * 2)` is freed once `* 3` ran: x, the temporary and the result at most.
        "z = (x * 2) * 3",
        "print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())",
        // `((x * 2) * 3) * 4`: the first temporary is freed before the third is made.
        "del z",
        "torch.cuda.reset_peak_memory_stats()",
        "w = ((x * 2) * 3) * 4",
        "print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())",
    ]);
    assert_eq!(out[2], "8192 8192");
    assert_eq!(out[4], "4096 8192");
    assert_eq!(out[6], "4096");
    assert_eq!(out[8], "8192 12288");
    assert_eq!(out[12], "8192 12288");
}

#[test]
fn moves_between_devices_copy_and_print_as_pytorch() {
    let out = on_cuda(&[
        "c = torch.arange(3).cuda()",
        "c",
        "c.device",
        "c.is_cuda",
        "c.cuda() is c",
        "c.to('cuda') is c",
        "d = c.cpu()",
        "d",
        "d.device",
        "d.is_cuda, d.is_cpu",
        "c.untyped_storage().data_ptr() == d.untyped_storage().data_ptr()",
        "torch.ones(2, dtype=torch.float64, device='cuda')",
        "torch.ones(2, 2, device='cuda', requires_grad=True)",
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
        "torch.tensor([1.5, 2.0]).to(device)",
        "torch.zeros(0, device='cuda')",
        "torch.cuda.memory_allocated()",
    ]);
    assert_eq!(out[1], "tensor([0, 1, 2], device='cuda:0')");
    assert_eq!(out[2], "device(type='cuda', index=0)");
    assert_eq!(out[3], "True");
    assert_eq!(out[4], "True");
    assert_eq!(out[5], "True");
    assert_eq!(out[7], "tensor([0, 1, 2])");
    assert_eq!(out[8], "device(type='cpu')");
    assert_eq!(out[9], "(False, True)");
    assert_eq!(out[10], "False", "a move is a copy");
    assert_eq!(
        out[11],
        "tensor([1., 1.], device='cuda:0', dtype=torch.float64)"
    );
    assert_eq!(
        out[12],
        "tensor([[1., 1.],\n        [1., 1.]], device='cuda:0', requires_grad=True)"
    );
    assert_eq!(out[14], "tensor([1.5000, 2.0000], device='cuda:0')");
    assert_eq!(out[15], "tensor([], device='cuda:0')");
    // c (24 bytes) is one block; the temporaries printed above are gone.
    assert_eq!(out[16], "512");
}

#[test]
fn mixing_devices_gives_pytorchs_errors() {
    let out = on_cuda(&[
        "a = torch.ones(3, device='cuda')",
        "b = torch.ones(3)",
        "a + b",
        "b * a",
        // A 0-d CPU tensor goes with any device, as a number would.
        "a + torch.tensor(2.0)",
        "m = torch.ones(2, 2, device='cuda') @ torch.ones(2, 2)",
        "torch.mm(torch.ones(2, 2), torch.ones(2, 2, device='cuda'))",
        "lin = nn.Linear(3, 2).cuda()",
        "lin(torch.ones(1, 3))",
    ]);
    let iterator = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!";
    assert_eq!(out[2], iterator);
    assert_eq!(out[3], iterator);
    assert_eq!(out[4], "tensor([3., 3., 3.], device='cuda:0')");
    assert_eq!(
        out[5],
        "RuntimeError: Expected all tensors to be on the same device, but got mat2 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_mm)"
    );
    assert_eq!(
        out[6],
        "RuntimeError: Expected all tensors to be on the same device, but got mat2 is on cuda:0, different from other tensors on cpu (when checking argument in method wrapper_CUDA_mm)"
    );
    assert_eq!(
        out[8],
        "RuntimeError: Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)"
    );
}

#[test]
fn a_linear_model_on_the_device_trains_with_the_cpu_numbers() {
    let body = [
        "torch.manual_seed(0)",
        "model = nn.Linear(4, 3)",
        "x = torch.randn(2, 4)",
        // Both moves on one line: two statements, two steps (`pass; pass` on the CPU).
        "DEV",
        "out = model(x)",
        "loss = out.pow(2).sum()",
        "loss.backward()",
        "print(loss.item())",
        "print(model.weight.grad.sum().item())",
    ];
    let cpu: Vec<String> = body
        .iter()
        .map(|l| l.replace("DEV", "pass; pass"))
        .collect();
    let cuda: Vec<String> = body
        .iter()
        .map(|l| l.replace("DEV", "model.cuda(); x = x.to('cuda')"))
        .collect();
    let cpu_out = on_cuda(&cpu.iter().map(String::as_str).collect::<Vec<_>>());
    let cuda_out = on_cuda(&cuda.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(cpu_out.len(), cuda_out.len());
    assert!(!cuda_out[8].is_empty(), "the loss is printed: {cuda_out:?}");
    assert_eq!(cpu_out[8], cuda_out[8], "the same loss");
    assert_eq!(cpu_out[9], cuda_out[9], "the same gradient");
    let out = on_cuda(&[
        "model = nn.Linear(4, 3)",
        "m = model.cuda()",
        "m is model",
        "model.weight.device, model.bias.is_cuda",
        "torch.cuda.memory_allocated()",
        "out = model(torch.ones(2, 4, device='cuda'))",
        "out.device",
        "out.sum().backward()",
        "model.weight.grad.device",
        "model.weight.grad",
        "model.cpu().weight.device",
        "model.to('cuda').bias.device",
    ]);
    assert_eq!(out[2], "True");
    assert_eq!(
        out[3], "(device(type='cuda', index=0), True)",
        "parameters moved"
    );
    assert_eq!(
        out[4], "1024",
        "weight 48 bytes and bias 12 bytes: a block each"
    );
    assert_eq!(out[6], "device(type='cuda', index=0)");
    assert_eq!(out[8], "device(type='cuda', index=0)");
    assert_eq!(
        out[9],
        "tensor([[2., 2., 2., 2.],\n        [2., 2., 2., 2.],\n        [2., 2., 2., 2.]], device='cuda:0')"
    );
    assert_eq!(out[10], "device(type='cpu')");
    assert_eq!(out[11], "device(type='cuda', index=0)");
}

#[test]
fn without_the_option_no_gpu_is_visible() {
    let trace = trace_script(
        "import torch\ntorch.cuda.is_available()\ntorch.ones(2).cuda()\ntorch.cuda.memory_allocated()\ntorch.ones(2).is_cuda\n",
    );
    let out = outputs(&trace);
    assert_eq!(out[1], "False");
    assert_eq!(out[2], "RuntimeError: No CUDA GPUs are available");
    assert_eq!(out[3], "0");
    assert_eq!(out[4], "False");
}

#[test]
fn the_trace_contract_counts_every_storage_as_before() {
    let script = "import torch\na = torch.ones(10, device='cuda')\nb = torch.ones(10)\n";
    let trace = trace_script_cuda(script);
    let last = trace.steps.last().and_then(|s| s.memory.as_ref());
    let memory = last.expect("memory recorded");
    assert_eq!(memory.live_bytes, 80, "CUDA and CPU storages, unrounded");
    assert_eq!(memory.cuda.live_bytes, 1024);
}
