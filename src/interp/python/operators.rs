//! Python's own operators on plain values: arithmetic and comparisons of numbers, sequence
//! concatenation and repetition, `==`, and the operator spellings its messages use.

use crate::core::tensor::ScriptError;
use crate::interp::python::complex;
use crate::interp::value::Value;
use crate::interp::{overflow, session, R};
use crate::lang::ast::BinOp;

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
        Err(ScriptError::Type(format!(
            "unsupported operand type(s) for {sym}: '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )))
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
