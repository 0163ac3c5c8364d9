//! Python's `repr` of runtime values, as a notebook shows them.

use crate::core::print::{format_tensor_leading, py_float_repr};
use crate::core::tensor::{Scalar, Tensor};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// Tensors up to this many elements are read whole for printing (PyTorch summarizes above 1000).
const SMALL_TENSOR: i64 = 1000;

impl Evaluator {
    /// `repr(value)`.
    pub(crate) fn repr(&mut self, value: &Value) -> R<String> {
        Ok(match value {
            Value::None => "None".into(),
            Value::Bool(b) => if *b { "True" } else { "False" }.into(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => py_float_repr(*f),
            Value::Complex(re, im) => py_complex_repr(*re, *im),
            Value::Str(s) => py_str_repr(s),
            Value::Ellipsis => "Ellipsis".into(),
            Value::Slice(a, b, c) => {
                let f = |x: &Option<i64>| x.map(|v| v.to_string()).unwrap_or_else(|| "None".into());
                format!("slice({}, {}, {})", f(a), f(b), f(c))
            }
            Value::Tuple(items) => {
                let parts = items.iter().map(|v| self.repr(v)).collect::<R<Vec<_>>>()?;
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            Value::List(items) => {
                let parts = items.iter().map(|v| self.repr(v)).collect::<R<Vec<_>>>()?;
                format!("[{}]", parts.join(", "))
            }
            Value::Size(dims) => size_repr(dims),
            Value::DType(d) => d.torch_repr(),
            Value::MemoryFormat(f) => f.torch_repr().into(),
            Value::Tensor(t) if t.borrow().is_parameter => {
                let plain = {
                    let t = t.borrow();
                    let copy = Value::tensor(t.tensor.clone(), "repr", None);
                    if let Value::Tensor(c) = &copy {
                        c.borrow_mut().requires_grad = t.requires_grad;
                    }
                    copy
                };
                format!("Parameter containing:\n{}", self.repr(&plain)?)
            }
            Value::Tensor(t) if self.is_meta(&t.borrow().tensor) => self.meta_repr(t),
            Value::Tensor(t) => {
                let suffix = match (&t.borrow().grad_fn, t.borrow().requires_grad) {
                    (Some(node), _) => Some(format!("grad_fn=<{}>", node.name())),
                    (None, true) => Some("requires_grad=True".to_string()),
                    (None, false) => None,
                };
                let extra: &[&str] = match &suffix {
                    Some(s) => &[s.as_str()],
                    None => &[],
                };
                let t = t.borrow().tensor.clone();
                // `_tensor_str.py` names a device other than the default one first.
                let lead: &[&str] = if self.is_cuda(&t) {
                    &["device='cuda:0'"]
                } else {
                    &[]
                };
                self.note_tensor_str_buffers(&t);
                let shape: Vec<usize> = t.shape().iter().map(|&n| n.max(0) as usize).collect();
                if t.numel() <= SMALL_TENSOR {
                    let values = self.engine.values(&t);
                    let read = |i: usize| values.get(i).copied().unwrap_or(Scalar::Int(0));
                    format_tensor_leading(t.dtype, &shape, &read, lead, extra)
                } else {
                    // Summarized: only the edge items are read.
                    // (A complex tensor is read as its float halves: real, imaginary in turn.)
                    let read = self.element_reader(&t.as_real());
                    format_tensor_leading(t.dtype, &shape, &read, lead, extra)
                }
            }
            Value::Storage(id, dtype) => self.storage_repr(*id, *dtype)?,
            Value::Device(text) => match text.split_once(':') {
                Some((kind, index)) => format!("device(type='{kind}', index={index})"),
                None => format!("device(type='{text}')"),
            },
            Value::Torch => "<module 'torch'>".into(),
            Value::Module(name) if name == "torchvision.io.ImageReadMode" => {
                "<enum 'ImageReadMode'>".into()
            }
            Value::Module(name) => format!("<module '{name}'>"),
            Value::Generator => "<torch._C.Generator object at 0x7f5e2c3a1e10>".into(),
            Value::Range(a, b, c) => {
                if *c == 1 {
                    format!("range({a}, {b})")
                } else {
                    format!("range({a}, {b}, {c})")
                }
            }
            Value::Printed(text) => text.clone(),
            Value::NdArray(a) => self.ndarray_text(a, false)?,
            Value::NpScalar(d, s) => crate::core::print::numpy_str::numpy_scalar_repr(*d, *s),
            Value::NpDType(d) => {
                format!(
                    "dtype('{}')",
                    crate::core::print::numpy_str::numpy_dtype_name(*d)
                )
            }
            Value::TypeInfo(d) => crate::interp::torch::typeinfo::repr(*d),
            Value::Function(f) => format!("<function {}>", f.qualname),
            Value::Class(class) => crate::interp::python::classes::class_repr(class),
            Value::Instance(object) => self.instance_repr(object)?,
            Value::BoundMethod(receiver, f) => {
                format!("<bound method {} of {}>", f.qualname, self.repr(receiver)?)
            }
            Value::StaticMethod(f) => format!("<staticmethod({})>", self.repr(f)?),
            Value::ClassMethod(f) => format!("<classmethod({})>", self.repr(f)?),
            Value::Super(class, receiver) => format!(
                "<super: {}, {}>",
                crate::interp::python::classes::class_repr(class),
                match &**receiver {
                    Value::Instance(object) => format!("<{} object>", object.class.qualname),
                    other => self.repr(other)?,
                }
            ),
            Value::Dict(entries) => self.dict_repr(entries)?,
            Value::OrderedDict(entries) if entries.is_empty() => "OrderedDict()".into(),
            Value::OrderedDict(entries) => {
                let mut items = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    items.push(format!("({}, {})", self.repr(k)?, self.repr(v)?));
                }
                format!("OrderedDict([{}])", items.join(", "))
            }
            Value::GradFn(f) => f.repr(),
            Value::HookHandle(id) => format!(
                "<torch.utils.hooks.RemovableHandle object at 0x{:x}>",
                0x7f3a_5c00_0000_u64 + id * 0x50
            ),
            Value::ModeWrapped(_, f) => self.repr(f)?,
            Value::InferenceMode(_) => "<torch.autograd.grad_mode.inference_mode object>".into(),
            Value::SetGradEnabled(mode) => format!(
                "torch.autograd.grad_mode.set_grad_enabled(mode={})",
                if *mode { "True" } else { "False" }
            ),
            Value::Autocast(_) => {
                "<torch.amp.autocast_mode.autocast object at 0x7f1751536cd0>".into()
            }
            Value::GradMode(enabled) => format!(
                "<torch.autograd.grad_mode.{} object>",
                if *enabled { "enable_grad" } else { "no_grad" }
            ),
            Value::ExceptionType(class) => format!("<class '{class}'>"),
            Value::Exception(e) if e.message().is_empty() => format!("{}()", e.class_name()),
            Value::Exception(e) => format!("{}({})", e.class_name(), py_str_repr(e.message())),
            Value::ReadMode(mode) => format!("<ImageReadMode.{}: {}>", mode.name(), mode.value()),
            Value::NamedTuple(kind, fields) => {
                // PyTorch's structseq repr: one field per line.
                let parts = fields
                    .iter()
                    .map(|(name, v)| Ok(format!("{name}={}", self.repr(v)?)))
                    .collect::<R<Vec<_>>>()?;
                format!("{kind}(\n{})", parts.join(",\n"))
            }
            Value::Method(receiver, name) => match &**receiver {
                Value::Module(m) if m == "numpy" => Evaluator::numpy_class_repr(name)
                    .unwrap_or_else(|| format!("<function {name}>")),
                Value::Torch
                    if name == "Size"
                        || crate::interp::torch::env::legacy_class_dtype(name).is_some() =>
                {
                    format!("<class 'torch.{name}'>")
                }
                Value::Torch => format!("<built-in method {name} of type object>"),
                Value::None if name == "object" => "<class 'object'>".into(),
                Value::None => format!("<built-in function {name}>"),
                Value::Module(m) if m == "torchvision.io" => format!("<function {name}>"),
                Value::Instance(object) => {
                    format!("<method-wrapper '{name}' of {} object>", object.class.name)
                }
                _ => format!("<built-in method {name} of Tensor object>"),
            },
        })
    }

    /// Reads elements of `view` by row-major index, fetching the storage once.
    pub(super) fn element_reader(&mut self, view: &Tensor) -> impl Fn(usize) -> Scalar {
        let bytes = self.engine.read_storage(view.storage);
        let layout = view.layout.clone();
        let dtype = view.dtype;
        let shape: Vec<i64> = layout.shape.clone();
        move |flat: usize| {
            let mut rest = flat as i64;
            let mut at = layout.offset;
            for d in (0..shape.len()).rev() {
                let n = shape[d].max(1);
                at += (rest % n) * layout.strides[d];
                rest /= n;
            }
            let item = dtype.item_size();
            if at < 0 || (at as usize + 1) * item > bytes.len() {
                return Scalar::Int(0);
            }
            dtype.read(&bytes, at as usize)
        }
    }
}

/// Python's `repr(str)`: single quotes unless the text holds one and no double quote.
pub(crate) fn py_str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr(complex)`: `2j`, `(1+2j)`, `(1.5-0.25j)` (parts without a trailing `.0`).
pub(crate) fn py_complex_repr(re: f64, im: f64) -> String {
    let part = |x: f64| {
        let r = py_float_repr(x);
        r.strip_suffix(".0").map(str::to_string).unwrap_or(r)
    };
    if re == 0.0 && re.is_sign_positive() {
        return format!("{}j", part(im));
    }
    let sign = if im.is_sign_negative() && !im.is_nan() {
        "-"
    } else {
        "+"
    };
    format!("({}{}{}j)", part(re), sign, part(im.abs()))
}

/// `torch.Size([2, 3])`: how Python prints a shape (PyTorch's messages quote it so too).
pub(crate) fn size_repr(dims: &[i64]) -> String {
    let parts: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("torch.Size([{}])", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::py_complex_repr;

    #[test]
    fn complex_repr_is_python_s() {
        assert_eq!(py_complex_repr(0.0, 2.0), "2j");
        assert_eq!(py_complex_repr(1.0, 2.0), "(1+2j)");
        assert_eq!(py_complex_repr(3.0, -1.0), "(3-1j)");
        assert_eq!(py_complex_repr(1.5, 0.25), "(1.5+0.25j)");
        assert_eq!(py_complex_repr(-0.0, 1.0), "(-0+1j)");
    }
}
