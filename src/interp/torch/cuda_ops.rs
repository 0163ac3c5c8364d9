//! `Tensor.cuda()` and the CUDA caching allocator's counters.
//!
//! Without the evaluation option "as on a CUDA device" no GPU is visible: PyTorch's CUDA
//! build (the one the oracle runs) answers `RuntimeError: No CUDA GPUs are available`, as
//! `x.to('cuda')` does, and the counters read 0.
//!
//! With it, `x.cuda()` copies `x` to the simulated device `cuda:0` and
//! `torch.cuda.memory_allocated()` answers as `c10/cuda/CUDACachingAllocator.cpp` counts:
//! the bytes of the live CUDA storages, each block rounded up to a multiple of 512 bytes
//! (`kMinBlockSize`). `max_memory_allocated()` is the most of that at any allocation since
//! the start or the last `reset_peak_memory_stats()`. These are the allocator's rules, not a
//! measurement on a GPU. `memory_reserved()` (the allocator's cached segments, split and
//! reused block by block) is not modelled: it reads 0, as without the option.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::runtime::accounting::cuda_rounded;
use crate::interp::torch::autograd::{formulas, Grad};
use crate::interp::torch::device::Device;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// What `torch.cuda.get_device_name()` answers: a simulated device.
pub(crate) const DEVICE_NAME: &str = "Stridescope simulated CUDA device (allocator rules)";

/// PyTorch's message where no GPU is visible.
pub(crate) const NO_GPU: &str = "No CUDA GPUs are available";

/// The node of a move between devices (`x.cuda()`, `x.cpu()`), as `to` records it.
pub(crate) const TO_COPY: Grad = Grad::named("ToCopyBackward0", &formulas::IDENTITY);

/// The ops of this file.
pub(crate) static OPS: &[OpDef] = &[OpDef {
    names: &["cuda"],
    schemas: &["Tensor self, Device? device=None, bool non_blocking=False, *, MemoryFormat memory_format=torch.preserve_format"],
    forms: Forms::Method,
    rule: cuda,
    grad: TO_COPY,
    complex: true,
    ..OpDef::PLAIN
}];

/// `x.cuda()`: `x` itself on the simulated device, else a copy there (the op runs on the
/// CUDA device, so the copy's storage is a CUDA one).
fn cuda(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    if !ev.torch.device.cuda {
        return Err(ScriptError::Runtime(NO_GPU.into()));
    }
    let this = call.self_ref()?;
    if ev.is_cuda(&this.borrow().tensor) {
        return Ok(Value::Tensor(this));
    }
    ev.move_to_device(&this, Device::Cuda)
}

impl Evaluator {
    /// `module.cuda()` with the simulated device on: `module.to('cuda')` (an attribute of
    /// every `nn.Module`, bound to `object`); `None` for other names or without the option.
    pub(crate) fn cuda_module_attribute(
        &self,
        object: &Rc<crate::interp::value::Instance>,
        name: &str,
    ) -> Option<Value> {
        let is_module = object.module.borrow().is_some();
        (name == "cuda" && is_module && self.torch.device.cuda)
            .then(|| Value::Method(Box::new(Value::Instance(Rc::clone(object))), "cuda".into()))
    }

    /// Calls `module.cuda()` (see [`Evaluator::cuda_module_attribute`]).
    pub(crate) fn call_module_cuda(
        &mut self,
        object: &Rc<crate::interp::value::Instance>,
    ) -> Option<R<Value>> {
        self.call_native_method(object, "to", vec![Value::Device("cuda".into())], vec![])
    }

    /// The bytes the caching allocator counts allocated now: every CUDA storage alive,
    /// rounded up to 512 bytes each.
    pub(crate) fn cuda_allocated_bytes(&mut self) -> u64 {
        if self.torch.device.cuda_storages.is_empty() {
            return 0;
        }
        let memory = &self.memory;
        self.torch
            .device
            .cuda_storages
            .retain(|id| memory.is_live(*id));
        let alive = self.alive_storages();
        self.torch
            .device
            .cuda_storages
            .iter()
            .filter(|id| alive.contains(id))
            .filter_map(|id| self.memory.storage(*id))
            .map(|info| cuda_rounded(info.nbytes as u64))
            .sum()
    }

    /// A bound of [`Evaluator::cuda_allocated_bytes`]: every CUDA storage not freed yet.
    fn cuda_registered_bytes(&self) -> u64 {
        self.torch
            .device
            .cuda_storages
            .iter()
            .filter_map(|id| self.memory.storage(*id))
            .map(|info| cuda_rounded(info.nbytes as u64))
            .sum()
    }

    /// Notes that a CUDA storage was just allocated: the allocated bytes may have reached a
    /// new peak (the caching allocator updates its peak at every allocation).
    pub(crate) fn note_cuda_allocated(&mut self) {
        if self.cuda_registered_bytes() <= self.torch.device.cuda_peak {
            return;
        }
        let now = self.cuda_allocated_bytes();
        self.torch.device.cuda_peak = self.torch.device.cuda_peak.max(now);
    }

    /// `torch.cuda.<name>()` for the allocator's counters and the device queries, with the
    /// simulated device on; `None` for other names.
    pub(crate) fn cuda_counter(&mut self, name: &str) -> Option<Value> {
        Some(match name {
            "memory_allocated" => Value::Int(self.cuda_allocated_bytes() as i64),
            "memory_reserved" | "memory_cached" | "max_memory_reserved" | "max_memory_cached" => {
                Value::Int(0)
            }
            "max_memory_allocated" => {
                let now = self.cuda_allocated_bytes();
                self.torch.device.cuda_peak = self.torch.device.cuda_peak.max(now);
                Value::Int(self.torch.device.cuda_peak as i64)
            }
            "reset_peak_memory_stats" | "reset_max_memory_allocated" => {
                self.torch.device.cuda_peak = self.cuda_allocated_bytes();
                Value::None
            }
            "is_available" | "is_bf16_supported" | "is_initialized" => Value::Bool(true),
            "device_count" => Value::Int(1),
            "current_device" => Value::Int(0),
            "get_device_name" => Value::Str(DEVICE_NAME.into()),
            "synchronize" | "empty_cache" | "set_device" => Value::None,
            _ => return None,
        })
    }
}
