//! Python `complex` numbers: arithmetic and comparisons between a `complex` and another
//! Python number, as CPython computes them (`1+2j`, `3-1j`, `2*1j`, `-(1j)`).

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::R;
use crate::lang::ast::BinOp;

/// The real and imaginary parts of a Python number (`None` for anything else).
fn parts(v: &Value) -> Option<(f64, f64)> {
    match v {
        Value::Bool(b) => Some((f64::from(u8::from(*b)), 0.0)),
        Value::Int(i) => Some((*i as f64, 0.0)),
        Value::Float(f) => Some((*f, 0.0)),
        Value::Complex(re, im) => Some((*re, *im)),
        _ => None,
    }
}

/// `a op b` when either side is a Python `complex` and the other a number; `None` when
/// neither is complex (or the other side is no number), leaving the op to the caller.
pub(crate) fn complex_binary(op: BinOp, a: &Value, b: &Value) -> Option<R<Value>> {
    if !matches!(a, Value::Complex(..)) && !matches!(b, Value::Complex(..)) {
        return None;
    }
    let ((ar, ai), (br, bi)) = (parts(a)?, parts(b)?);
    // Python 3.11 (torch's) converts a real operand to `complex(x, 0)` first.
    Some(match op {
        BinOp::Add => Ok(Value::Complex(ar + br, ai + bi)),
        BinOp::Sub => Ok(Value::Complex(ar - br, ai - bi)),
        BinOp::Mul => Ok(Value::Complex(ar * br - ai * bi, ar * bi + ai * br)),
        BinOp::Div => complex_div((ar, ai), (br, bi)),
        BinOp::Eq => Ok(Value::Bool(ar == br && ai == bi)),
        BinOp::Ne => Ok(Value::Bool(ar != br || ai != bi)),
        _ => {
            let op_text = match op {
                BinOp::Lt => "<",
                BinOp::Le => "<=",
                BinOp::Gt => ">",
                BinOp::Ge => ">=",
                BinOp::FloorDiv => "//",
                BinOp::Mod => "%",
                BinOp::Pow => "**",
                BinOp::MatMul => "@",
                BinOp::BitAnd => "&",
                BinOp::BitOr => "|",
                BinOp::BitXor => "^",
                _ => "?",
            };
            if matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
                Err(ScriptError::Type(format!(
                    "'{op_text}' not supported between instances of '{}' and '{}'",
                    a.type_name(),
                    b.type_name()
                )))
            } else if matches!(op, BinOp::Pow) {
                Err(ScriptError::NotImplemented(
                    "complex ** is not supported by Stridescope".into(),
                ))
            } else {
                Err(ScriptError::Type(format!(
                    "unsupported operand type(s) for {op_text}: '{}' and '{}'",
                    a.type_name(),
                    b.type_name()
                )))
            }
        }
    })
}

/// CPython's `_Py_c_quot` (Smith's algorithm).
fn complex_div((ar, ai): (f64, f64), (br, bi): (f64, f64)) -> R<Value> {
    let (abs_br, abs_bi) = (br.abs(), bi.abs());
    if abs_br >= abs_bi {
        if abs_br == 0.0 {
            return Err(ScriptError::ZeroDivision("division by zero".into()));
        }
        let ratio = bi / br;
        let denom = br + bi * ratio;
        Ok(Value::Complex(
            (ar + ai * ratio) / denom,
            (ai - ar * ratio) / denom,
        ))
    } else if abs_bi >= abs_br {
        let ratio = br / bi;
        let denom = br * ratio + bi;
        Ok(Value::Complex(
            (ar * ratio + ai) / denom,
            (ai * ratio - ar) / denom,
        ))
    } else {
        Ok(Value::Complex(f64::NAN, f64::NAN))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_arithmetic_is_cpython_s() {
        let c = |re, im| Value::Complex(re, im);
        let ok = |op, a: &Value, b: &Value| match complex_binary(op, a, b) {
            Some(Ok(Value::Complex(re, im))) => (re, im),
            other => panic!("{other:?}"),
        };
        assert_eq!(ok(BinOp::Add, &Value::Int(1), &c(0.0, 2.0)), (1.0, 2.0));
        assert_eq!(ok(BinOp::Sub, &Value::Int(3), &c(0.0, 1.0)), (3.0, -1.0));
        assert_eq!(ok(BinOp::Mul, &c(1.0, 2.0), &c(3.0, -1.0)), (5.0, 5.0));
        assert_eq!(
            ok(BinOp::Div, &c(1.0, 2.0), &c(3.0, -1.0)),
            (0.1, 0.7000000000000001)
        );
        assert!(complex_binary(BinOp::Add, &Value::Int(1), &Value::Int(2)).is_none());
        assert!(matches!(
            complex_binary(BinOp::Div, &c(1.0, 0.0), &Value::Int(0)),
            Some(Err(ScriptError::ZeroDivision(_)))
        ));
        assert!(matches!(
            complex_binary(BinOp::Lt, &c(1.0, 0.0), &Value::Int(0)),
            Some(Err(ScriptError::Type(_)))
        ));
    }
}
