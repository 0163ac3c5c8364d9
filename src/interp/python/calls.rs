//! Attribute access, calls and their arguments: the `torch.` namespace, tensor methods and
//! the few Python builtins a notebook uses. Argument errors follow PyTorch's wording.

use std::rc::Rc;

use crate::core::tensor::{DType, MemoryFormat, ScriptError, Tensor};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

impl Evaluator {
    /// `object.name`.
    pub(crate) fn attribute(&mut self, object: Value, name: &str) -> R<Value> {
        match &object {
            Value::Torch => {
                if let Some(d) = DType::from_name(name) {
                    return Ok(Value::DType(d));
                }
                if let Some(value) = self.torch_env_attribute(name) {
                    return Ok(value);
                }
                match name {
                    "channels_last" => return Ok(Value::MemoryFormat(MemoryFormat::ChannelsLast)),
                    "contiguous_format" => {
                        return Ok(Value::MemoryFormat(MemoryFormat::Contiguous))
                    }
                    "preserve_format" => return Ok(Value::MemoryFormat(MemoryFormat::Preserve)),
                    "nan" => return Ok(Value::Float(f64::NAN)),
                    "strided" => return Ok(Value::Printed("torch.strided".into())),
                    // `torch.nn.functional.relu(...)` without `import torch.nn`: `torch.nn`
                    // (and `torch.linalg`) are attributes of `torch` once torch is imported.
                    "nn" | "linalg" | "autograd" => {
                        return Ok(Value::Module(format!("torch.{name}")))
                    }
                    "inf" => return Ok(Value::Float(f64::INFINITY)),
                    "pi" => return Ok(Value::Float(std::f64::consts::PI)),
                    "e" => return Ok(Value::Float(std::f64::consts::E)),
                    // Classes: `isinstance(x, torch.Tensor)`, `torch.Size([2, 3])`.
                    "Tensor" | "Size" | "finfo" | "iinfo" => {
                        return Ok(Value::Method(Box::new(Value::Torch), name.to_string()))
                    }
                    _ => {}
                }
                // `linalg_*` ops are reached as `torch.linalg.*` only.
                if crate::interp::torch::registry::is_function(name) && !name.starts_with("linalg_")
                {
                    return Ok(Value::Method(Box::new(Value::Torch), name.to_string()));
                }
                Err(ScriptError::Attribute(format!(
                    "module 'torch' has no attribute '{name}'"
                )))
            }
            Value::Tensor(t) => {
                let tensor = t.borrow().tensor.clone();
                match name {
                    "shape" => return Ok(Value::Size(tensor.shape().to_vec())),
                    "dtype" => return Ok(Value::DType(tensor.dtype)),
                    "ndim" => return Ok(Value::Int(tensor.ndim() as i64)),
                    "nbytes" => {
                        return Ok(Value::Int(tensor.numel() * tensor.dtype.item_size() as i64))
                    }
                    "itemsize" => return Ok(Value::Int(tensor.dtype.item_size() as i64)),
                    "is_sparse" | "is_quantized" | "is_mkldnn" => return Ok(Value::Bool(false)),
                    "is_cuda" => return Ok(Value::Bool(self.is_cuda(&tensor))),
                    "is_meta" => return Ok(Value::Bool(self.is_meta(&tensor))),
                    "is_cpu" => {
                        let device = self.device_of(&tensor);
                        return Ok(Value::Bool(
                            device == crate::interp::torch::device::Device::Cpu,
                        ));
                    }
                    // Every tensor here is dense: `torch.strided`.
                    "layout" => return Ok(Value::Printed("torch.strided".into())),
                    // `x.data`: the same storage and layout, as a tensor that is not a leaf of
                    // autograd (a new object, like `detach()`).
                    "data" => return Ok(self.data_attribute(tensor)),
                    // Autograd's bookkeeping (`eval/autograd.rs`); no gradient is computed,
                    // so `grad` stays `None`.
                    "requires_grad" => {
                        return Ok(Value::Bool(crate::interp::torch::autograd::tracks_grad(
                            &t.borrow(),
                        )))
                    }
                    "is_leaf" => return Ok(Value::Bool(t.borrow().grad_fn.is_none())),
                    "grad_fn" => {
                        return Ok(match &t.borrow().grad_fn {
                            Some(node) => {
                                Value::GradFn(crate::interp::torch::autograd::objects::FnRef::Node(
                                    Rc::clone(node),
                                ))
                            }
                            None => Value::None,
                        })
                    }
                    "retains_grad" => return Ok(Value::Bool(self.retains_grad(t))),
                    "_version" => return Ok(Value::Int(self.tensor_version(t) as i64)),
                    "_base" => return Ok(self.tensor_base(t)),
                    "grad"
                        if t.borrow().grad_fn.is_some()
                            && t.borrow().grad.is_none()
                            && !self.retains_grad(t) =>
                    {
                        self.recorder
                            .warn_once(crate::interp::torch::autograd::api::NON_LEAF_GRAD);
                        return Ok(Value::None);
                    }
                    "grad" => {
                        return Ok(match &t.borrow().grad {
                            Some(g) => Value::Tensor(Rc::clone(g)),
                            None => Value::None,
                        })
                    }
                    "device" => return Ok(Value::Device(self.device_of(&tensor).text().into())),
                    "real" | "imag" => return self.complex_attribute(&tensor, name),
                    // A complex adjoint: the conjugate of the transpose (materialized).
                    "mH" | "H" if tensor.dtype.is_complex() => {
                        return self.complex_adjoint(&tensor, name)
                    }
                    "T" => {
                        let dims: Vec<i64> = (0..tensor.ndim() as i64).rev().collect();
                        let out = self.permute(&tensor, &dims)?;
                        let out = Value::tensor(out, "T", None);
                        let grad_op = crate::interp::torch::autograd::GradOp::Named {
                            name: "T",
                            grad: &crate::interp::torch::autograd::T_ATTRIBUTE,
                            args: &[],
                        };
                        self.record_grad(grad_op, &[&object], &out);
                        return Ok(out);
                    }
                    "mT" | "mH" => {
                        // A 0-dim tensor is its own matrix transpose; a vector is refused.
                        // (Real dtypes: the adjoint `mH` is the transpose.)
                        if tensor.ndim() == 0 {
                            return Ok(Value::tensor(tensor, name, None));
                        }
                        if tensor.ndim() < 2 {
                            return Err(ScriptError::Runtime(format!(
                                "tensor.{name} is only supported on matrices or batches of matrices. Got {}-D tensor.",
                                tensor.ndim()
                            )));
                        }
                        let out = self.transpose(&tensor, -2, -1)?;
                        let out = Value::tensor(out, name, None);
                        let grad_op = crate::interp::torch::autograd::GradOp::Named {
                            name: "mT",
                            grad: &crate::interp::torch::autograd::MT_ATTRIBUTE,
                            args: &[],
                        };
                        self.record_grad(grad_op, &[&object], &out);
                        return Ok(out);
                    }
                    "H" => {
                        let n = tensor.ndim();
                        if n != 0 && n != 2 {
                            let hint = if n > 2 {
                                " For batches of matrices, consider using tensor.mH"
                            } else {
                                ""
                            };
                            return Err(ScriptError::Runtime(format!(
                                "tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor.{hint}"
                            )));
                        }
                        let out = self.t(&tensor, "H")?;
                        return Ok(Value::tensor(out, "H", None));
                    }
                    _ => {}
                }
                if crate::interp::torch::autograd::api::TENSOR_METHODS.contains(&name)
                    || crate::interp::torch::registry::is_method(name)
                {
                    return Ok(Value::Method(Box::new(object.clone()), name.to_string()));
                }
                Err(ScriptError::Attribute(format!(
                    "'Tensor' object has no attribute '{name}'"
                )))
            }
            Value::Module(m) => self.module_attribute(m, name),
            Value::Instance(o) => self.instance_attribute(o, name),
            Value::Class(c) => self.class_attribute(c, name),
            Value::Super(start, receiver) => self.super_attribute(start, receiver, name),
            Value::Function(f) | Value::BoundMethod(_, f)
                if matches!(name, "__name__" | "__qualname__") =>
            {
                Ok(Value::Str(if name == "__name__" {
                    f.def.name.clone()
                } else {
                    f.qualname.clone()
                }))
            }
            Value::GradFn(f) => self.grad_fn_attribute(f, name),
            Value::HookHandle(_) if name == "remove" => {
                Ok(Value::Method(Box::new(object.clone()), name.to_string()))
            }
            Value::BoundMethod(receiver, _) if name == "__self__" => Ok((**receiver).clone()),
            Value::BoundMethod(_, f) if name == "__func__" => Ok(Value::Function(Rc::clone(f))),
            Value::Str(_) if crate::interp::python::str_list::STR_METHODS.contains(&name) => {
                Ok(Value::Method(Box::new(object.clone()), name.to_string()))
            }
            Value::List(_) if crate::interp::python::str_list::LIST_METHODS.contains(&name) => {
                Ok(Value::Method(Box::new(object.clone()), name.to_string()))
            }
            Value::Tuple(_) if matches!(name, "index" | "count") => {
                Ok(Value::Method(Box::new(object.clone()), name.to_string()))
            }
            Value::Size(_) if matches!(name, "index" | "count" | "numel") => {
                Ok(Value::Method(Box::new(object.clone()), name.to_string()))
            }
            Value::Dict(_) | Value::OrderedDict(_)
                if crate::interp::python::dict::DICT_METHODS.contains(&name) =>
            {
                Ok(Value::Method(Box::new(object.clone()), name.to_string()))
            }
            Value::ReadMode(mode) => crate::interp::torchvision::read_mode_attribute(*mode, name),
            Value::TypeInfo(d) => crate::interp::torch::typeinfo::attribute(*d, name),
            Value::Exception(_) | Value::ExceptionType(_) => {
                self.exception_attribute(&object, name)
            }
            // A class that `type(x)` printed: `type(t).__name__`, `type(y.grad_fn).__name__`.
            Value::Printed(text) if matches!(name, "__name__" | "__qualname__") => {
                match text
                    .strip_prefix("<class '")
                    .and_then(|rest| rest.strip_suffix("'>"))
                {
                    Some(path) => Ok(Value::Str(
                        path.rsplit('.').next().unwrap_or(path).to_string(),
                    )),
                    None => Err(ScriptError::Attribute(format!(
                        "'NoneType' object has no attribute '{name}'"
                    ))),
                }
            }
            Value::Device(text) => {
                let (kind, index) = match text.split_once(':') {
                    Some((k, i)) => (k, i.parse::<i64>().ok()),
                    None => (text.as_str(), None),
                };
                match name {
                    "type" => Ok(Value::Str(kind.to_string())),
                    "index" => Ok(index.map(Value::Int).unwrap_or(Value::None)),
                    _ => Err(ScriptError::Attribute(format!(
                        "'torch.device' object has no attribute '{name}'"
                    ))),
                }
            }
            Value::NamedTuple(kind, fields) => fields
                .iter()
                .find(|(field, _)| field == name)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| {
                    ScriptError::Attribute(format!("'{kind}' object has no attribute '{name}'"))
                }),
            Value::NdArray(a) => self.ndarray_attribute(a, name),
            Value::NpDType(d) => self.numpy_dtype_attribute(*d, name),
            Value::NpScalar(d, _) => self.numpy_scalar_attribute(&object, *d, name),
            Value::Storage(id, dtype) => self.storage_attribute(*id, *dtype, name),
            Value::DType(d) => match name {
                "itemsize" => Ok(Value::Int(d.item_size() as i64)),
                "is_floating_point" => Ok(Value::Bool(d.is_floating())),
                _ => Err(ScriptError::Attribute(format!(
                    "'torch.dtype' object has no attribute '{name}'"
                ))),
            },
            other => Err(ScriptError::Attribute(format!(
                "'{}' object has no attribute '{}'",
                other.type_name(),
                name
            ))),
        }
    }

    /// `object[index]`.
    pub(crate) fn get_item(&mut self, object: Value, index: &Value) -> R<Value> {
        match &object {
            // Indexing a meta tensor (with indices on any device) runs on the meta device.
            Value::Tensor(_) if self.device_to_enter(&[&object])?.is_some() => {
                let device = crate::interp::torch::device::Device::Meta;
                self.on_device(device, |ev| ev.get_item(object.clone(), index))
            }
            Value::Tensor(t) => {
                let from_script = std::mem::take(&mut self.torch.autograd.from_script);
                let tensor = t.borrow().tensor.clone();
                let out = self.index_view(&tensor, index)?;
                // Advanced indexing copies: the trace says "copy of" the indexed storage.
                let copied_from = (out.storage != tensor.storage).then_some(tensor.storage);
                let out = Value::tensor(out, "index", copied_from);
                self.record_grad(
                    crate::interp::torch::autograd::GradOp::Index(index),
                    &[&object],
                    &out,
                );
                if copied_from.is_none() && from_script {
                    self.note_views("index", Some(&object), &out);
                }
                Ok(out)
            }
            Value::Storage(id, dtype) => self.storage_get_item(*id, *dtype, index),
            Value::NamedTuple(_, fields) => {
                let items = fields.iter().map(|(_, v)| v.clone()).collect();
                self.get_item(Value::Tuple(items), index)
            }
            Value::NdArray(a) => self.ndarray_get_item(a, index),
            Value::Dict(entries) | Value::OrderedDict(entries) => {
                self.dict_get_item(entries, index)
            }
            Value::Instance(o) => self.instance_get_item(o, index),
            Value::Str(text) => {
                let chars: Vec<char> = text.chars().collect();
                let len = chars.len() as i64;
                if let Value::Slice(start, stop, step) = index {
                    let picked = py_slice(len, *start, *stop, *step)?;
                    return Ok(Value::Str(picked.into_iter().map(|i| chars[i]).collect()));
                }
                let i = self.index_int(index)?;
                let j = if i < 0 { i + len } else { i };
                if j < 0 || j >= len {
                    return Err(ScriptError::Index("string index out of range".into()));
                }
                Ok(Value::Str(chars[j as usize].to_string()))
            }
            Value::Tuple(items) | Value::List(items) => {
                let len = items.len() as i64;
                match index {
                    Value::Slice(start, stop, step) => {
                        let picked = py_slice(len, *start, *stop, *step)?;
                        let v: Vec<Value> = picked.into_iter().map(|i| items[i].clone()).collect();
                        Ok(if matches!(object, Value::List(_)) {
                            Value::List(v)
                        } else {
                            Value::Tuple(v)
                        })
                    }
                    other => {
                        let i = self.index_int(other)?;
                        let j = if i < 0 { i + len } else { i };
                        if j < 0 || j >= len {
                            let kind = if matches!(object, Value::List(_)) {
                                "list"
                            } else {
                                "tuple"
                            };
                            return Err(ScriptError::Index(format!("{kind} index out of range")));
                        }
                        Ok(items[j as usize].clone())
                    }
                }
            }
            Value::Size(dims) => {
                let len = dims.len() as i64;
                match index {
                    Value::Slice(start, stop, step) => {
                        let picked = py_slice(len, *start, *stop, *step)?;
                        Ok(Value::Size(picked.into_iter().map(|i| dims[i]).collect()))
                    }
                    other => {
                        let i = self.index_int(other)?;
                        let j = if i < 0 { i + len } else { i };
                        if j < 0 || j >= len {
                            return Err(ScriptError::Index("tuple index out of range".into()));
                        }
                        Ok(Value::Int(dims[j as usize]))
                    }
                }
            }
            other => Err(ScriptError::Type(format!(
                "'{}' object is not subscriptable",
                other.type_name()
            ))),
        }
    }

    /// Calls a callable value.
    pub(crate) fn call(
        &mut self,
        func: Value,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        match &func {
            Value::Function(function) => {
                let function = Rc::clone(function);
                return self.call_function(&function, pos, kw);
            }
            Value::BoundMethod(receiver, function) => {
                let function = Rc::clone(function);
                let mut pos = pos;
                pos.insert(0, (**receiver).clone());
                return self.call_function(&function, pos, kw);
            }
            Value::Class(class) => {
                let class = Rc::clone(class);
                return self.instantiate(&class, pos, kw);
            }
            Value::Instance(object) => {
                let object = Rc::clone(object);
                return self.call_instance(&object, pos, kw);
            }
            Value::StaticMethod(inner) => return self.call((**inner).clone(), pos, kw),
            Value::ModeWrapped(manager, function) => {
                let (manager, function) = ((**manager).clone(), (**function).clone());
                return self.call_mode_wrapped(&manager, &function, pos, kw);
            }
            Value::GradMode(_)
            | Value::InferenceMode(_)
            | Value::SetGradEnabled(_)
            | Value::Autocast(_) => return self.decorate_with_mode(func.clone(), &pos),
            _ => {}
        }
        if let Value::ExceptionType(class) = &func {
            if let Some((k, _)) = kw.first() {
                return Err(ScriptError::Type(format!(
                    "{class}() takes no keyword arguments; got '{k}'"
                )));
            }
            return self.new_exception(class, &pos);
        }
        if matches!(&func, Value::Module(m) if m == "torch.nn.Transformer") {
            return Err(ScriptError::NotImplemented(
                "nn.Transformer is not supported by Stridescope (its generate_square_subsequent_mask is; nn.TransformerEncoder and nn.TransformerEncoderLayer are)".into(),
            ));
        }
        let Value::Method(receiver, name) = func else {
            return Err(ScriptError::Type(format!(
                "'{}' object is not callable",
                func.type_name()
            )));
        };
        match &*receiver {
            Value::Torch => {
                if name == "finfo" || name == "iinfo" {
                    return crate::interp::torch::typeinfo::type_info(&name, &pos, &kw);
                }
                if name == "Size" && kw.is_empty() && pos.len() <= 1 {
                    // `torch.Size(iterable)`: a tuple of ints.
                    let items = match pos.first() {
                        Some(v) => self.iterate(v)?,
                        None => vec![],
                    };
                    let mut dims = Vec::with_capacity(items.len());
                    for item in &items {
                        match item {
                            Value::Int(n) => dims.push(*n),
                            Value::Bool(b) => dims.push(i64::from(*b)),
                            other => {
                                return Err(ScriptError::Type(format!(
                                    "torch.Size() takes an iterable of 'int' (item {} is '{}')",
                                    dims.len(),
                                    other.type_name()
                                )))
                            }
                        }
                    }
                    return Ok(Value::Size(dims));
                }
                if let Some(result) = self.call_torch_env(&name, &pos, &kw) {
                    return result;
                }
                if let Some(result) = self.torch_numpy_bridge(&name, &pos, &kw) {
                    return result;
                }
                if let Some(result) = self.call_table_function(&name, &pos, &kw) {
                    return result;
                }
            }
            Value::Tensor(t) => {
                if crate::interp::torch::autograd::api::TENSOR_METHODS.contains(&name.as_str()) {
                    return self.call_autograd_method(t, &name, pos, kw);
                }
                if let Some(result) = self.call_table_method(t, &name, &pos, &kw) {
                    return result;
                }
            }
            _ => {}
        }
        match *receiver {
            Value::Torch => Err(ScriptError::Attribute(format!(
                "module 'torch' has no attribute '{name}'"
            ))),
            Value::Tensor(_) => Err(ScriptError::Attribute(format!(
                "'Tensor' object has no attribute '{name}'"
            ))),
            Value::Storage(id, dtype) => self.call_storage(id, dtype, &name, &pos),
            Value::GradFn(f) => self.call_grad_fn(&f, &name, &pos),
            Value::HookHandle(id) => {
                self.torch.autograd.remove_hook(id);
                self.remove_module_hook(id);
                Ok(Value::None)
            }
            Value::NdArray(a) => self.call_ndarray(&a, &name, pos, kw),
            Value::NpScalar(_, s) => Ok(crate::interp::numpy::scalar_item(s)),
            Value::None => self.call_builtin(&name, pos, kw),
            ref object @ (Value::Instance(_) | Value::Class(_)) => {
                self.call_object_method(object, &name, pos, kw)
            }
            Value::Module(m) => self.call_module(&m, &name, pos, kw),
            Value::Str(text) => self.call_str_method(&text, &name, &pos, &kw),
            // A list method called on a list that no name holds (the change is dropped).
            Value::List(items) => self.call_list_method(items, &name, &pos).map(|(v, _)| v),
            Value::Size(dims) if name == "numel" => {
                if !pos.is_empty() || !kw.is_empty() {
                    return Err(ScriptError::Type(format!(
                        "Size.numel() takes no arguments ({} given)",
                        pos.len() + kw.len()
                    )));
                }
                Ok(Value::Int(dims.iter().product()))
            }
            Value::Size(dims) => {
                let items = dims.into_iter().map(Value::Int).collect();
                self.call_tuple_method(items, &name, &pos)
            }
            Value::Tuple(items) => self.call_tuple_method(items, &name, &pos),
            Value::Dict(entries) => self.call_dict_method_of(entries, false, &name, &pos),
            Value::OrderedDict(entries) => self.call_dict_method_of(entries, true, &name, &pos),
            other => Err(ScriptError::Type(format!(
                "'{}' object is not callable",
                other.type_name()
            ))),
        }
    }

    /// Converts a sequence (or a single int) to a list of ints.
    pub(crate) fn int_list(&mut self, v: &Value, func: &str, param: &str) -> R<Vec<i64>> {
        match v {
            Value::Tuple(items) | Value::List(items) => items
                .iter()
                .enumerate()
                .map(|(i, x)| match x {
                    Value::Int(n) => Ok(*n),
                    Value::Bool(b) => Ok(i64::from(*b)),
                    Value::Tensor(_) => self.index_int(x),
                    other => Err(ScriptError::Type(format!(
                        "{}(): argument '{}' must be tuple of ints, but found element of type {} at pos {}",
                        func,
                        param,
                        other.type_name(),
                        i
                    ))),
                })
                .collect(),
            Value::Size(dims) => Ok(dims.clone()),
            Value::Int(i) => Ok(vec![*i]),
            other => Err(ScriptError::Type(format!(
                "{}(): argument '{}' (position 1) must be tuple of ints, not {}",
                func,
                param,
                other.type_name()
            ))),
        }
    }

    /// Applies a metadata op: in place (`t_`, `transpose_`, `unsqueeze_`) changes the object
    /// every name shares; otherwise a new view.
    pub(crate) fn metadata_result(
        &mut self,
        this: &TensorRef,
        out: Tensor,
        name: &str,
    ) -> R<Value> {
        if let Some(base) = name.strip_suffix('_') {
            let mut obj = this.borrow_mut();
            obj.tensor = out;
            obj.made_by = base.to_string();
            drop(obj);
            return Ok(Value::Tensor(Rc::clone(this)));
        }
        Ok(Value::tensor(out, name, None))
    }
}

/// Python slice indices of a sequence of `len`.
fn py_slice(len: i64, start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> R<Vec<usize>> {
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err(ScriptError::Value("slice step cannot be zero".into()));
    }
    let clamp = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
    let norm = |v: i64| if v < 0 { v + len } else { v };
    let mut out = Vec::new();
    if step > 0 {
        let s = clamp(start.map(norm).unwrap_or(0), 0, len);
        let e = clamp(stop.map(norm).unwrap_or(len), 0, len);
        let mut i = s;
        while i < e {
            out.push(i as usize);
            i += step;
        }
    } else {
        let s = clamp(start.map(norm).unwrap_or(len - 1), -1, len - 1);
        let e = clamp(stop.map(norm).unwrap_or(-1), -1, len - 1);
        let mut i = s;
        while i > e {
            out.push(i as usize);
            i += step;
        }
    }
    Ok(out)
}
