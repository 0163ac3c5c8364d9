//! The dtype and device conversions of `nn.Module` (`float`, `double`, `half`, `to`):
//! parameters keep their objects and take converted data, buffers are replaced.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::device::Device;
use crate::interp::torch::nn::module::methods::walk_modules;
use crate::interp::torch::nn::module::{arg, bind_python};
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
            let mut device = None;
            for v in pos.iter().chain(kw.iter().map(|(_, v)| v)) {
                if let Some(d) = Device::of_value(v) {
                    device = Some(d);
                    continue;
                }
                match v {
                    Value::DType(d) => dtype = Some(*d),
                    Value::Tensor(t) => dtype = Some(t.borrow().tensor.dtype),
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
            if let Some(device) = device {
                move_module(ev, o, device, false)?;
            }
            dtype
        }
    };
    if how == "cpu" {
        move_module(ev, o, Device::Cpu, false)?;
    }
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
    for (m, params, buffers) in registries(o) {
        for p in params.iter().flatten() {
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

/// The tensors of every module under `o`: parameters and buffers, by module.
type Registries = Vec<(
    Rc<Instance>,
    Vec<Option<TensorRef>>,
    Vec<(String, Option<TensorRef>)>,
)>;

fn registries(o: &Rc<Instance>) -> Registries {
    walk_modules(o, "")
        .into_iter()
        .filter_map(|(_, m)| {
            let (params, buffers) = {
                let state = m.module.borrow();
                let s = state.as_ref()?;
                (
                    s.parameters.iter().map(|(_, p)| p.clone()).collect(),
                    s.buffers.clone(),
                )
            };
            Some((m, params, buffers))
        })
        .collect()
}

/// Moves every parameter (keeping its object, as `param.data = ...` does), its `.grad`
/// and every buffer to `device`; with `empty`, the new tensors are uninitialized
/// (`to_empty`) instead of copies (a meta tensor cannot be copied to the CPU).
fn move_module(ev: &mut Evaluator, o: &Rc<Instance>, device: Device, empty: bool) -> R<()> {
    let moved = |ev: &mut Evaluator, t: &TensorRef| -> R<Option<TensorRef>> {
        let tensor = t.borrow().tensor.clone();
        if ev.device_of(&tensor) == device && !empty {
            return Ok(None);
        }
        let value = if empty {
            let like = Value::Method(Box::new(Value::Torch), "empty_like".into());
            let plain = Value::tensor(tensor, "to_empty", None);
            ev.call(
                like,
                vec![plain],
                vec![("device".into(), Value::Str(device.name().into()))],
            )?
        } else {
            if ev.device_of(&tensor) == Device::Meta {
                return Err(ScriptError::NotImplemented(
                    "Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving module from meta to a different device.".into(),
                ));
            }
            let plain = crate::interp::value::TensorObject::new_ref(t.borrow().clone());
            ev.move_to_device(&plain, device)?
        };
        Ok(match value {
            Value::Tensor(new) => Some(new),
            _ => None,
        })
    };
    let grad_mode = ev.torch.grad_enabled;
    ev.torch.grad_enabled = false;
    let mut result = Ok(());
    'modules: for (m, params, buffers) in registries(o) {
        for p in params.into_iter().flatten() {
            let from = ev.device_of(&p.borrow().tensor);
            match moved(ev, &p) {
                // Between devices PyTorch makes a new Parameter (the old object stays where
                // it was); on one device the object takes the new data.
                Ok(Some(new)) if from != device => {
                    let requires_grad = p.borrow().requires_grad;
                    let fresh = match ev.make_parameter(&new, requires_grad) {
                        Ok(Value::Tensor(fresh)) => fresh,
                        Ok(_) => continue,
                        Err(e) => {
                            result = Err(e);
                            break 'modules;
                        }
                    };
                    if let Some(state) = m.module.borrow_mut().as_mut() {
                        for slot in state.parameters.iter_mut() {
                            if slot.1.as_ref().is_some_and(|q| Rc::ptr_eq(q, &p)) {
                                slot.1 = Some(Rc::clone(&fresh));
                            }
                        }
                    }
                    continue;
                }
                Ok(Some(new)) => {
                    let tensor = new.borrow().tensor.clone();
                    p.borrow_mut().tensor = tensor;
                }
                Ok(None) => {}
                Err(e) => {
                    result = Err(e);
                    break 'modules;
                }
            }
            let grad = p.borrow().grad.clone();
            if let Some(g) = grad {
                match moved(ev, &g) {
                    Ok(Some(new)) => p.borrow_mut().grad = Some(new),
                    Ok(None) => {}
                    Err(e) => {
                        result = Err(e);
                        break 'modules;
                    }
                }
            }
        }
        for (name, b) in buffers {
            let Some(b) = b else { continue };
            match moved(ev, &b) {
                Ok(Some(new)) => {
                    if let Some(state) = m.module.borrow_mut().as_mut() {
                        if let Some(slot) = state.buffers.iter_mut().find(|(n, _)| *n == name) {
                            slot.1 = Some(new);
                        }
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    result = Err(e);
                    break 'modules;
                }
            }
        }
    }
    ev.torch.grad_enabled = grad_mode;
    result
}

/// `module.to_empty(*, device, recurse=True)`: every parameter and buffer replaced by an
/// uninitialized tensor of its shape on `device`.
pub(super) fn to_empty(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("*, device, recurse=True", "Module.to_empty", &pos, &kw)?;
    let target = arg(&args, "device");
    let Some(device) = Device::of_value(&target) else {
        return match target {
            Value::Str(s) | Value::Device(s) => Err(ev.device_refusal(&s)),
            other => Err(ScriptError::Type(format!(
                "empty_like(): argument 'device' must be torch.device, not {}",
                other.type_name()
            ))),
        };
    };
    move_module(ev, o, device, true)?;
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
