//! The PyTorch side of the NumPy bridge in the op table: `Tensor.numpy()`,
//! `torch.from_numpy(n)` and `torch.as_tensor(data)`. The rules live with the arrays in
//! `eval/numpy/bridge.rs`.

use crate::interp::torch::autograd::Grad;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["numpy"],
        schemas: &["Tensor self, *, bool force=False"],
        forms: Forms::Method,
        rule: numpy,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["from_numpy"],
        schemas: &["Any ndarray"],
        forms: Forms::Function,
        rule: from_numpy,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["as_tensor"],
        schemas: &["Any data, ScalarType? dtype=None, Device? device=None"],
        forms: Forms::Function,
        rule: as_tensor,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
];

fn numpy(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let dtype = this.borrow().tensor.dtype;
    if crate::interp::torch::autograd::tracks_grad(&this.borrow()) {
        return Err(crate::core::tensor::ScriptError::Runtime(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
                .into(),
        ));
    }
    crate::interp::torch::ops::complex::refuse_complex_dtype("numpy", dtype)?;
    if ev.is_meta(&this.borrow().tensor) {
        return Err(crate::core::tensor::ScriptError::Type(
            "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.".into(),
        ));
    }
    ev.tensor_numpy(&this)
}

fn from_numpy(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let data = call.value("ndarray").cloned().unwrap_or(Value::None);
    ev.torch_from_numpy(&[data], &[])
}

fn as_tensor(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let data = call.value("data").cloned().unwrap_or(Value::None);
    let dtype = call.dtype("dtype");
    let kw: Vec<(String, Value)> = dtype
        .map(|d| vec![("dtype".to_string(), Value::DType(d))])
        .unwrap_or_default();
    match ev.torch_as_tensor(std::slice::from_ref(&data), &kw)? {
        Some(v) => Ok(v),
        None => ev.call(
            Value::Method(Box::new(Value::Torch), "tensor".into()),
            vec![data],
            kw,
        ),
    }
}
