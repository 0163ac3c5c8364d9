//! Python's own operators on plain values: arithmetic and comparisons of numbers, sequence
//! concatenation and repetition, `==`, and the operator spellings its messages use; and the
//! evaluator's dispatch of a unary or binary operator (`is`, `in`, NumPy, `%` formatting,
//! tensors, plain values).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::python::complex;
use crate::interp::torch::autograd::GradOp;
use crate::interp::value::Value;
use crate::interp::{session, Evaluator, R};
use crate::lang::ast::{BinOp, UnaryOp};

/// Python arithmetic and comparisons on plain numbers (and a few sequence operations).
pub(crate) fn python_binary(op: BinOp, a: &Value, b: &Value) -> R<Value> {
    use Value::*;
    if let Some(result) = complex::complex_binary(op, a, b) {
        return result;
    }
    let num = |v: &Value| -> Option<Result<i64, f64>> {
        match v {
            Bool(b) => Some(Ok(i64::from(*b))),
            Int(i) => Some(Ok(*i)),
            Float(f) => Some(Err(*f)),
            _ => Option::None,
        }
    };
    let sym = binop_symbol(op);
    let unsupported = || {
        Err(ScriptError::Type(
            if matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
                format!(
                    "'{sym}' not supported between instances of '{}' and '{}'",
                    a.type_name(),
                    b.type_name()
                )
            } else {
                format!(
                    "unsupported operand type(s) for {sym}: '{}' and '{}'",
                    a.type_name(),
                    b.type_name()
                )
            },
        ))
    };
    match (num(a), num(b)) {
        (Some(Ok(x)), Some(Ok(y))) => {
            let bool_ops = matches!((a, b), (Bool(_), Bool(_)));
            Ok(match op {
                BinOp::Add => Int(x.checked_add(y).ok_or_else(overflow)?),
                BinOp::Sub => Int(x.checked_sub(y).ok_or_else(overflow)?),
                BinOp::Mul => Int(x.checked_mul(y).ok_or_else(overflow)?),
                BinOp::Div => {
                    if y == 0 {
                        return Err(ScriptError::ZeroDivision("division by zero".into()));
                    }
                    Float(x as f64 / y as f64)
                }
                BinOp::FloorDiv | BinOp::Mod => {
                    if y == 0 {
                        return Err(ScriptError::ZeroDivision(
                            if op == BinOp::Mod {
                                "integer modulo by zero"
                            } else {
                                "integer division or modulo by zero"
                            }
                            .into(),
                        ));
                    }
                    let q = x.div_euclid(y);
                    let r = x.rem_euclid(y);
                    // Python: the remainder has the sign of the divisor.
                    let (q, r) = if y < 0 && r != 0 {
                        (q + 1, r + y)
                    } else {
                        (q, r)
                    };
                    if op == BinOp::Mod {
                        Int(r)
                    } else {
                        Int(q)
                    }
                }
                BinOp::Pow => {
                    if y < 0 {
                        Float((x as f64).powf(y as f64))
                    } else {
                        Int(x
                            .checked_pow(u32::try_from(y).map_err(|_| overflow())?)
                            .ok_or_else(overflow)?)
                    }
                }
                BinOp::BitAnd if bool_ops => Bool(x & y != 0),
                BinOp::BitOr if bool_ops => Bool((x | y) != 0),
                BinOp::BitXor if bool_ops => Bool((x ^ y) != 0),
                BinOp::BitAnd => Int(x & y),
                BinOp::BitOr => Int(x | y),
                BinOp::BitXor => Int(x ^ y),
                BinOp::MatMul => return unsupported(),
                cmp => Bool(compare_ord(cmp, x.partial_cmp(&y))),
            })
        }
        (Some(x), Some(y)) => {
            let f = |v: Result<i64, f64>| match v {
                Ok(i) => i as f64,
                Err(f) => f,
            };
            let (x, y) = (f(x), f(y));
            Ok(match op {
                BinOp::Add => Float(x + y),
                BinOp::Sub => Float(x - y),
                BinOp::Mul => Float(x * y),
                BinOp::Div => {
                    if y == 0.0 {
                        return Err(ScriptError::ZeroDivision("float division by zero".into()));
                    }
                    Float(x / y)
                }
                BinOp::FloorDiv | BinOp::Mod => {
                    if y == 0.0 {
                        return Err(ScriptError::ZeroDivision("float modulo".into()));
                    }
                    let r = x % y;
                    let r = if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                        r + y
                    } else {
                        r
                    };
                    if op == BinOp::Mod {
                        Float(r)
                    } else {
                        Float(((x - r) / y).round())
                    }
                }
                BinOp::Pow => Float(x.powf(y)),
                BinOp::MatMul | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                    return unsupported()
                }
                cmp => Bool(compare_ord(cmp, x.partial_cmp(&y))),
            })
        }
        _ => match (op, a, b) {
            (BinOp::Eq, _, _) => Ok(Bool(values_equal(a, b))),
            (BinOp::Ne, _, _) => Ok(Bool(!values_equal(a, b))),
            (BinOp::Add, Tuple(x), Tuple(y)) => Ok(Tuple(x.iter().chain(y).cloned().collect())),
            (BinOp::Add, List(x), List(y)) => Ok(List(x.iter().chain(y).cloned().collect())),
            (BinOp::Add, Str(x), Str(y)) => Ok(Str(format!("{x}{y}"))),
            (BinOp::Mul, List(_) | Tuple(_) | Str(_), Int(_) | Bool(_)) => repeat_sequence(a, b),
            (BinOp::Mul, Int(_) | Bool(_), List(_) | Tuple(_) | Str(_)) => repeat_sequence(b, a),
            (BinOp::Mul, List(_) | Tuple(_) | Str(_), other)
            | (BinOp::Mul, other, List(_) | Tuple(_) | Str(_)) => Err(ScriptError::Type(format!(
                "can't multiply sequence by non-int of type '{}'",
                other.type_name()
            ))),
            // Strings order by code point (UTF-8 bytes order the same way).
            (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, Str(x), Str(y)) => {
                Ok(Value::Bool(compare_ord(op, Some(x.cmp(y)))))
            }
            (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, Tuple(x), Tuple(y))
            | (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, List(x), List(y)) => {
                crate::interp::python::stdlib::sequence_order(op, x, y)
            }
            _ => unsupported(),
        },
    }
}

/// The most items `[x] * n` may build: a bigger repetition stops with a clear error instead
/// of exhausting a browser tab's memory.
const MAX_REPEATED_ITEMS: i64 = 10_000_000;

/// `n` copies of `items`, one after the other (the same objects, as Python repeats references).
fn repeat_items(items: &[Value], n: usize) -> Vec<Value> {
    let mut out = Vec::with_capacity(items.len() * n);
    for _ in 0..n {
        out.extend(items.iter().cloned());
    }
    out
}

/// Python's sequence repetition `seq * n` (`[0, 1] * 9`, `(1,) * 3`, `"ab" * 2`); `n <= 0`
/// gives an empty sequence.
fn repeat_sequence(seq: &Value, times: &Value) -> R<Value> {
    let n = match times {
        Value::Int(i) => *i,
        Value::Bool(b) => i64::from(*b),
        _ => 0,
    }
    .max(0);
    let len = match seq {
        Value::List(x) | Value::Tuple(x) => x.len(),
        Value::Str(s) => s.chars().count(),
        _ => 0,
    } as i64;
    if len.saturating_mul(n) > MAX_REPEATED_ITEMS {
        return Err(ScriptError::Runtime(format!(
            "sequence repetition: {len} items * {n} is more than Stridescope's limit of {MAX_REPEATED_ITEMS} items"
        )));
    }
    let n = n as usize;
    Ok(match seq {
        Value::List(x) => Value::List(repeat_items(x, n)),
        Value::Tuple(x) => Value::Tuple(repeat_items(x, n)),
        Value::Str(s) => Value::Str(s.repeat(n)),
        other => other.clone(),
    })
}

/// Python's `==` on plain values (see [`session::python_eq`]).
pub(crate) fn values_equal(a: &Value, b: &Value) -> bool {
    session::python_eq(a, b)
}

fn compare_ord(op: BinOp, ord: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    match op {
        BinOp::Eq => ord == Some(Equal),
        BinOp::Ne => ord != Some(Equal),
        BinOp::Lt => ord == Some(Less),
        BinOp::Le => matches!(ord, Some(Less | Equal)),
        BinOp::Gt => ord == Some(Greater),
        BinOp::Ge => matches!(ord, Some(Greater | Equal)),
        _ => false,
    }
}

/// The operator as Python writes it in messages.
pub(crate) fn binop_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::FloorDiv => "//",
        BinOp::Mod => "%",
        BinOp::Pow => "** or pow()",
        BinOp::MatMul => "@",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::In => "in",
        BinOp::NotIn => "not in",
        BinOp::Is => "is",
        BinOp::IsNot => "is not",
    }
}

impl Evaluator {
    /// `item in container`.
    pub(crate) fn contains(&mut self, container: &Value, item: &Value) -> R<bool> {
        if let Value::Tensor(t) = container {
            let eq = self.tensor_binary(BinOp::Eq, container, item)?;
            let Value::Tensor(mask) = eq else {
                return Ok(false);
            };
            let mask = mask.borrow().tensor.clone();
            let _ = t;
            return Ok(self.engine.values(&mask).iter().any(|s| s.to_bool()));
        }
        if let Value::Instance(object) = container {
            return self.instance_contains(object, item);
        }
        if let (Value::Str(hay), Value::Str(needle)) = (container, item) {
            return Ok(hay.contains(needle.as_str()));
        }
        if let Value::Dict(entries) | Value::OrderedDict(entries) = container {
            crate::interp::python::dict::check_key(item)?;
            return Ok(crate::interp::python::dict::find(entries, item).is_some());
        }
        if let Value::Range(start, stop, step) = container {
            let Value::Int(i) = item else {
                return Ok(false);
            };
            let inside = if *step > 0 {
                i >= start && i < stop
            } else {
                i <= start && i > stop
            };
            return Ok(inside && (i - start) % step == 0);
        }
        match container {
            Value::Tuple(_) | Value::List(_) | Value::Size(_) => {}
            other => {
                return Err(ScriptError::Type(format!(
                    "argument of type '{}' is not iterable",
                    other.type_name()
                )))
            }
        }
        let items = self.iterate(container)?;
        for v in items {
            let eq = self.binary(BinOp::Eq, item.clone(), v)?;
            if self.truthy(&eq)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// A unary operator (`-x`, `+x`, `~x`, `not x`).
    pub(crate) fn unary(&mut self, op: UnaryOp, v: Value) -> R<Value> {
        match (op, &v) {
            (UnaryOp::Not, _) => Ok(Value::Bool(!self.truthy(&v)?)),
            (UnaryOp::Pos, Value::Int(_) | Value::Float(_) | Value::Tensor(_)) => Ok(v),
            (UnaryOp::Pos, Value::Bool(b)) => Ok(Value::Int(i64::from(*b))),
            (UnaryOp::Neg, Value::Int(i)) => Ok(Value::Int(i.checked_neg().ok_or_else(overflow)?)),
            (UnaryOp::Neg, Value::Bool(b)) => Ok(Value::Int(-i64::from(*b))),
            (UnaryOp::Neg, Value::Float(f)) => Ok(Value::Float(-f)),
            (UnaryOp::Neg, Value::Complex(re, im)) => Ok(Value::Complex(-re, -im)),
            (UnaryOp::Pos, Value::Complex(..)) => Ok(v),
            (UnaryOp::Invert, Value::Int(i)) => Ok(Value::Int(!i)),
            (UnaryOp::Invert, Value::Bool(b)) => Ok(Value::Int(!i64::from(*b))),
            (UnaryOp::Neg, Value::NdArray(_) | Value::NpScalar(..)) => self.numpy_negative(&v),
            (UnaryOp::Pos, Value::NdArray(_) | Value::NpScalar(..)) => Ok(v),
            (_, Value::Tensor(t)) => {
                if let Some(device) = self.device_to_enter(&[&v])? {
                    return self.on_device(device, |ev| ev.unary(op, v.clone()));
                }
                let tensor = t.borrow().tensor.clone();
                let out = match op {
                    UnaryOp::Neg => self.neg(&tensor)?,
                    _ => self.invert(&tensor)?,
                };
                if op == UnaryOp::Neg {
                    self.record_grad(GradOp::Neg, &[&v], &out);
                }
                Ok(out)
            }
            _ => {
                let sym = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Pos => "+",
                    UnaryOp::Invert => "~",
                    UnaryOp::Not => "not",
                };
                Err(ScriptError::Type(format!(
                    "bad operand type for unary {sym}: '{}'",
                    v.type_name()
                )))
            }
        }
    }

    /// A binary operator, comparison, identity or membership test.
    pub(crate) fn binary(&mut self, op: BinOp, a: Value, b: Value) -> R<Value> {
        match op {
            BinOp::Is | BinOp::IsNot => {
                let same = match (&a, &b) {
                    (Value::Tensor(x), Value::Tensor(y)) => Rc::ptr_eq(x, y),
                    (Value::GradFn(x), Value::GradFn(y)) => x.same(y),
                    (Value::Tensor(_), _) | (_, Value::Tensor(_)) => false,
                    _ => values_equal(&a, &b) && a.type_name() == b.type_name(),
                };
                return Ok(Value::Bool(same == (op == BinOp::Is)));
            }
            BinOp::In | BinOp::NotIn => {
                let found = self.contains(&b, &a)?;
                return Ok(Value::Bool(found == (op == BinOp::In)));
            }
            _ => {}
        }
        if matches!(a, Value::Instance(_)) || matches!(b, Value::Instance(_)) {
            if let Some(result) = self.instance_binary(op, &a, &b) {
                return result;
            }
        }
        // `str % x` is `str.__mod__` first, whatever `x` is (`'%.4f' % loss.data.numpy()`).
        if let (BinOp::Mod, Value::Str(template)) = (op, &a) {
            return self.percent_format(template, &b).map(Value::Str);
        }
        let numpy = |v: &Value| matches!(v, Value::NdArray(_) | Value::NpScalar(..));
        if numpy(&a) || numpy(&b) {
            return self.numpy_binary(op, &a, &b);
        }
        if matches!(a, Value::Tensor(_)) || matches!(b, Value::Tensor(_)) {
            return self.tensor_binary(op, &a, &b);
        }
        python_binary(op, &a, &b)
    }
}

/// The `OverflowError` of an int result past 64 bits.
pub(crate) fn overflow() -> ScriptError {
    ScriptError::Overflow("Python int too large to convert to C long".into())
}
