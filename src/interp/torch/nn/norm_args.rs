//! The argument readers of the normalization ops (`nn/norm.rs`): an argument as given, an
//! optional tensor, a `float` and an `int[]`, with the ATen binder's messages.

use crate::core::tensor::ScriptError;
use crate::interp::torch::registry::OpCall;
use crate::interp::value::{TensorRef, Value};
use crate::interp::R;

/// An argument as given: `Some(Value::None)` for an explicit `None`, `None` when left out.
pub(super) fn given<'a>(call: &'a OpCall, name: &str) -> Option<&'a Value> {
    let i = call.args.names.iter().position(|n| n == name)?;
    call.args.values.get(i)?.as_ref()
}

/// An optional tensor argument of the ATen function at `position` (`None` is no tensor).
pub(super) fn opt_tensor(
    call: &OpCall,
    name: &str,
    op: &str,
    position: usize,
) -> R<Option<TensorRef>> {
    match given(call, name) {
        None | Some(Value::None) => Ok(None),
        Some(Value::Tensor(t)) => Ok(Some(std::rc::Rc::clone(t))),
        Some(other) => Err(ScriptError::Type(format!(
            "{op}(): argument '{name}' (position {position}) must be Tensor, not {}",
            other.type_name()
        ))),
    }
}

/// A `float` argument of the ATen function at `position` (an int is taken).
pub(super) fn float_param(
    call: &OpCall,
    name: &str,
    op: &str,
    position: usize,
    default: f64,
) -> R<f64> {
    match given(call, name) {
        None => Ok(default),
        Some(Value::Float(f)) => Ok(*f),
        Some(Value::Int(i)) => Ok(*i as f64),
        Some(Value::Bool(b)) => Ok(f64::from(u8::from(*b))),
        Some(other) => Err(ScriptError::Type(format!(
            "{op}(): argument '{name}' (position {position}) must be float, not {}",
            other.type_name()
        ))),
    }
}

/// An `int[]` argument of the ATen function (`normalized_shape`): a tuple, list or
/// `torch.Size` of ints.
pub(super) fn ints_param(v: &Value, op: &str, name: &str, position: usize) -> R<Vec<i64>> {
    let items: Vec<Value> = match v {
        Value::Size(dims) => return Ok(dims.clone()),
        Value::Tuple(items) | Value::List(items) => items.clone(),
        other => {
            return Err(ScriptError::Type(format!(
                "{op}(): argument '{name}' (position {position}) must be tuple of ints, not {}",
                other.type_name()
            )))
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(at, item)| match item {
            Value::Int(i) => Ok(*i),
            other => Err(ScriptError::Type(format!(
                "{op}(): argument '{name}' (position {position}) must be tuple of ints, but found element of type {} at pos {at}",
                other.type_name()
            ))),
        })
        .collect()
}
