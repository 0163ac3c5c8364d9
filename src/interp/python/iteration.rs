//! Python's iteration and truthiness protocols: what a `for` loop, unpacking, `list()` and
//! a comprehension go through, and what `if`, `while`, `not` and `bool()` ask of a value.

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

impl Evaluator {
    /// Python iteration (for loops, unpacking, `list()`, comprehensions).
    pub(crate) fn iterate(&mut self, value: &Value) -> R<Vec<Value>> {
        match value {
            Value::Tuple(items) | Value::List(items) => Ok(items.clone()),
            Value::Dict(entries) | Value::OrderedDict(entries) => {
                Ok(entries.iter().map(|(k, _)| k.clone()).collect())
            }
            Value::NamedTuple(_, fields) => Ok(fields.iter().map(|(_, v)| v.clone()).collect()),
            Value::Str(s) => Ok(s.chars().map(|c| Value::Str(c.to_string())).collect()),
            Value::Range(start, stop, step) => {
                let len = range_len(*start, *stop, *step);
                if len > self.limits.max_op_elements {
                    return Err(ScriptError::Runtime(format!(
                        "range of {len} items is more than Stridescope materializes ({})",
                        self.limits.max_op_elements
                    )));
                }
                Ok((0..len).map(|k| Value::Int(start + k * step)).collect())
            }
            Value::Size(dims) => Ok(dims.iter().map(|&d| Value::Int(d)).collect()),
            Value::NdArray(a) => {
                let n = a
                    .borrow()
                    .tensor
                    .shape()
                    .first()
                    .copied()
                    .ok_or_else(|| ScriptError::Type("iteration over a 0-d array".into()))?;
                (0..n)
                    .map(|i| self.ndarray_get_item(a, &Value::Int(i)))
                    .collect()
            }
            Value::Tensor(t) => {
                let tensor = t.borrow().tensor.clone();
                if tensor.ndim() == 0 {
                    return Err(ScriptError::Type("iteration over a 0-d tensor".into()));
                }
                let views = self.unbind(&tensor, 0)?;
                Ok(views
                    .into_iter()
                    .map(|v| Value::tensor(v, "unbind", None))
                    .collect())
            }
            Value::Instance(object) => self.iterate_instance(object),
            other => Err(ScriptError::Type(format!(
                "cannot unpack non-iterable {} object",
                other.type_name()
            ))),
        }
    }

    /// Python truthiness.
    pub(crate) fn truthy(&mut self, v: &Value) -> R<bool> {
        Ok(match v {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Complex(re, im) => *re != 0.0 || *im != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Tuple(x) | Value::List(x) => !x.is_empty(),
            Value::Dict(entries) | Value::OrderedDict(entries) => !entries.is_empty(),
            Value::Size(x) => !x.is_empty(),
            Value::NpScalar(_, s) => s.to_bool(),
            Value::Tensor(t) => {
                let tensor = t.borrow().tensor.clone();
                if tensor.numel() != 1 {
                    let msg = if tensor.numel() == 0 {
                        "Boolean value of Tensor with no values is ambiguous"
                    } else {
                        "Boolean value of Tensor with more than one value is ambiguous"
                    };
                    return Err(ScriptError::Runtime(msg.into()));
                }
                self.check_item_not_meta(&tensor)?;
                self.engine
                    .values(&tensor)
                    .first()
                    .map(|s| s.to_bool())
                    .unwrap_or(false)
            }
            Value::Instance(object) => return self.instance_truthy(object),
            _ => true,
        })
    }
}

/// The number of items of `range(start, stop, step)`.
pub(crate) fn range_len(start: i64, stop: i64, step: i64) -> i64 {
    let (lo, hi, st) = if step > 0 {
        (start as i128, stop as i128, step as i128)
    } else {
        (stop as i128, start as i128, -(step as i128))
    };
    if hi <= lo || st == 0 {
        return 0;
    }
    ((hi - lo + st - 1) / st).min(i64::MAX as i128) as i64
}
