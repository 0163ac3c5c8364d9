//! `nn.Parameter(data=None, requires_grad=True)`: a leaf tensor object viewing the same
//! storage as `data`, marked so that a module registers it (`Parameter containing:` in its
//! repr).

use crate::core::tensor::{DType, ScriptError};
use crate::interp::torch::nn::module::{arg, bind_python};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

impl Evaluator {
    /// `nn.Parameter(...)` called from a script.
    pub(crate) fn parameter_call(&mut self, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<Value> {
        let args = bind_python(
            "data=None, requires_grad=True",
            "Parameter.__new__",
            &pos,
            &kw,
        )?;
        let requires_grad = self.truthy(&arg(&args, "requires_grad"))?;
        match arg(&args, "data") {
            Value::Tensor(t) => self.make_parameter(&t, requires_grad),
            Value::None => {
                let empty = Value::Method(Box::new(Value::Torch), "empty".into());
                match self.call(empty, vec![Value::Int(0)], vec![])? {
                    Value::Tensor(t) => self.make_parameter(&t, requires_grad),
                    other => Ok(other),
                }
            }
            other => Err(ScriptError::Attribute(format!(
                "'{}' object has no attribute 'detach'",
                other.type_name()
            ))),
        }
    }

    /// A new `Parameter` object viewing `data`'s storage (detached: a leaf).
    pub(crate) fn make_parameter(&mut self, data: &TensorRef, requires_grad: bool) -> R<Value> {
        let tensor = data.borrow().tensor.clone();
        if requires_grad && !(tensor.dtype.is_floating() || tensor.dtype.is_complex()) {
            return Err(ScriptError::Runtime(
                "Only Tensors of floating point and complex dtype can require gradients".into(),
            ));
        }
        let value = Value::tensor(tensor, "Parameter", None);
        if let Value::Tensor(t) = &value {
            let mut t = t.borrow_mut();
            t.is_parameter = true;
            t.requires_grad = requires_grad;
        }
        Ok(value)
    }

    /// A new `Parameter` holding `torch.empty(shape, dtype=dtype)` (what a layer's
    /// `__init__` makes before `reset_parameters` fills it).
    pub(crate) fn empty_parameter(&mut self, shape: &[i64], dtype: Option<DType>) -> R<TensorRef> {
        let mut kw = Vec::new();
        if let Some(d) = dtype {
            kw.push(("dtype".to_string(), Value::DType(d)));
        }
        let size = Value::Tuple(shape.iter().map(|&n| Value::Int(n)).collect());
        let empty = Value::Method(Box::new(Value::Torch), "empty".into());
        let Value::Tensor(t) = self.call(empty, vec![size], kw)? else {
            return Err(ScriptError::Runtime("torch.empty made no tensor".into()));
        };
        match self.make_parameter(&t, true)? {
            Value::Tensor(p) => Ok(p),
            _ => Err(ScriptError::Runtime("Parameter made no tensor".into())),
        }
    }
}

/// Whether a value is an `nn.Parameter`.
pub(crate) fn is_parameter(value: &Value) -> bool {
    matches!(value, Value::Tensor(t) if t.borrow().is_parameter)
}
