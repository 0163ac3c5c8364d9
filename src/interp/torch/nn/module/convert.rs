//! The dtype and device conversions of `nn.Module` (`float`, `double`, `half`, `to`):
//! parameters keep their objects and take converted data, buffers are replaced.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::methods::walk_modules;
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// `module.float()`, `.double()`, `.half()`, `.bfloat16()`, `.cpu()`, `.to(...)`: each
/// parameter (and its `.grad`) takes the converted data in place, as `param.data = ...`
/// does; each buffer is replaced by its converted tensor. Only floating tensors change
/// dtype.
pub(super) fn convert(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
    how: &str,
) -> R<Value> {
    let target: Option<crate::core::tensor::DType> = match how {
        "float" => Some(crate::core::tensor::DType::Float32),
        "double" => Some(crate::core::tensor::DType::Float64),
        "half" => Some(crate::core::tensor::DType::Float16),
        "bfloat16" => Some(crate::core::tensor::DType::BFloat16),
        "cpu" => None,
        _ => {
            let mut dtype = None;
            for v in pos.iter().chain(kw.iter().map(|(_, v)| v)) {
                match v {
                    Value::DType(d) => dtype = Some(*d),
                    Value::Tensor(t) => dtype = Some(t.borrow().tensor.dtype),
                    Value::Str(s) if s == "cpu" => {}
                    Value::Device(d) if d == "cpu" => {}
                    Value::Bool(_) | Value::None => {}
                    Value::Str(s) | Value::Device(s) => {
                        return Err(ev.device_refusal(s));
                    }
                    other => {
                        return Err(ScriptError::Type(format!(
                            "to() received an invalid combination of arguments - got ({}, ), but expected one of:",
                            other.type_name()
                        )))
                    }
                }
            }
            dtype
        }
    };
    if !matches!(how, "float" | "double" | "half" | "bfloat16" | "cpu" | "to") {
        return Ok(Value::Instance(Rc::clone(o)));
    }
    let Some(dtype) = target else {
        return Ok(Value::Instance(Rc::clone(o)));
    };
    if !dtype.is_floating() && !dtype.is_complex() {
        return Err(ScriptError::Type(format!(
            "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
        )));
    }
    for (_, m) in walk_modules(o, "") {
        let (params, buffers): (
            Vec<(String, Option<TensorRef>)>,
            Vec<(String, Option<TensorRef>)>,
        ) = {
            let state = m.module.borrow();
            match state.as_ref() {
                Some(s) => (s.parameters.clone(), s.buffers.clone()),
                None => continue,
            }
        };
        for (_, p) in params.iter() {
            let Some(p) = p else { continue };
            ev.convert_in_place(p, dtype)?;
            let grad = p.borrow().grad.clone();
            if let Some(g) = grad {
                ev.convert_in_place(&g, dtype)?;
            }
        }
        for (name, b) in buffers {
            let Some(b) = b else { continue };
            if !b.borrow().tensor.dtype.is_floating() {
                continue;
            }
            let method = Value::Method(Box::new(Value::Tensor(b)), "to".into());
            let converted = ev.call(method, vec![Value::DType(dtype)], vec![])?;
            if let (Value::Tensor(t), Some(state)) = (converted, m.module.borrow_mut().as_mut()) {
                if let Some(slot) = state.buffers.iter_mut().find(|(n, _)| *n == name) {
                    slot.1 = Some(t);
                }
            }
        }
    }
    Ok(Value::Instance(Rc::clone(o)))
}

impl Evaluator {
    /// Gives a floating tensor object the data of itself converted to `dtype` (a new
    /// storage), keeping the object: what `param.data = param.to(dtype)` does.
    pub(crate) fn convert_in_place(
        &mut self,
        t: &TensorRef,
        dtype: crate::core::tensor::DType,
    ) -> R<()> {
        let current = t.borrow().tensor.clone();
        if current.dtype == dtype || !current.dtype.is_floating() {
            return Ok(());
        }
        let grad_mode = self.torch.grad_enabled;
        self.torch.grad_enabled = false;
        let plain = Value::tensor(current, "to", None);
        let method = Value::Method(Box::new(plain), "to".into());
        let converted = self.call(method, vec![Value::DType(dtype)], vec![]);
        self.torch.grad_enabled = grad_mode;
        if let Value::Tensor(c) = converted? {
            let tensor = c.borrow().tensor.clone();
            t.borrow_mut().tensor = tensor;
        }
        Ok(())
    }

    /// The error for a device this build has no backend for (`cuda`, `mps`).
    pub(crate) fn device_refusal(&self, device: &str) -> ScriptError {
        if device.starts_with("cuda") {
            ScriptError::Other {
                class: "AssertionError".into(),
                message: "Torch not compiled with CUDA enabled".into(),
            }
        } else {
            ScriptError::Runtime(format!(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {device}"
            ))
        }
    }
}
