//! `Tensor.cuda()` where no GPU is visible: PyTorch's CUDA build (the one the oracle runs)
//! answers `RuntimeError: No CUDA GPUs are available`, as `x.to('cuda')` does.

use crate::core::tensor::ScriptError;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The ops of this file.
pub(crate) static OPS: &[OpDef] = &[OpDef {
    names: &["cuda"],
    schemas: &["Tensor self, Device? device=None, bool non_blocking=False, *, MemoryFormat memory_format=torch.preserve_format"],
    forms: Forms::Method,
    rule: cuda,
    complex: true,
    ..OpDef::PLAIN
}];

fn cuda(_: &mut Evaluator, _: &OpCall) -> R<Value> {
    Err(ScriptError::Runtime("No CUDA GPUs are available".into()))
}
