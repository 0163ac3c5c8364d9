//! The backward formulas of pointwise ops not in [`crate::interp::torch::autograd::formulas`]
//! (`derivatives.yaml`): the step functions (`floor`, `ceil`, `round`, `trunc`, `sign`:
//! `zeros_like(grad)`; `frac`: `grad`), `rsqrt`, `log2`, `log10`, `tan`, their in-place
//! forms with the other in-place pointwise ops (one formula dispatching on the node's
//! name), `lerp`, `addcmul`/`addcdiv`, `copy_`, `fill_`/`zero_` and `bmm`.

use crate::interp::torch::autograd::backward::unsupported;
use crate::interp::torch::autograd::formulas::{self as f, Backward, Formula};
use crate::interp::torch::autograd::formulas_reduce::m;
use crate::interp::torch::autograd::number;
use crate::interp::torch::optim::call_torch;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// A pointwise op of one input, its derivative chosen by the node's name (`FloorBackward0`,
/// `RsqrtBackward0`, `ExpBackward0` of `exp_`, ...).
pub(crate) static POINTWISE: Formula = Formula {
    inputs: &["self"],
    saves: &["self", "result"],
    args: &[],
    backward: pointwise,
};

fn pointwise(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let op = b
        .node
        .name
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .trim_end_matches("Backward")
        .to_string();
    // The formulas of `formulas.rs` for the in-place forms of their ops.
    let known: Option<&Formula> = match op.as_str() {
        "Exp" => Some(&f::EXP),
        "Log" => Some(&f::LOG),
        "Sqrt" => Some(&f::SQRT),
        "Sin" => Some(&f::SIN),
        "Cos" => Some(&f::COS),
        "Tanh" => Some(&f::TANH),
        "Sigmoid" => Some(&f::SIGMOID),
        _ => None,
    };
    if let Some(formula) = known {
        let slot = formula.saves.first().copied().unwrap_or("self");
        let mut out = b.none();
        if b.needs(0) {
            let saved = ev.saved_input(b, slot)?;
            let g = b.g();
            out[0] = Some(match op.as_str() {
                "Exp" => ev.binary(BinOp::Mul, g, saved)?,
                "Log" => ev.binary(BinOp::Div, g, saved)?,
                "Sqrt" => {
                    let twice = ev.binary(BinOp::Mul, Value::Int(2), saved)?;
                    ev.binary(BinOp::Div, g, twice)?
                }
                "Sin" => {
                    let c = m(ev, &saved, "cos", vec![])?;
                    ev.binary(BinOp::Mul, g, c)?
                }
                "Cos" => {
                    let s = m(ev, &saved, "sin", vec![])?;
                    let s = ev.neg_value(&s)?;
                    ev.binary(BinOp::Mul, g, s)?
                }
                "Tanh" => {
                    let sq = ev.binary(BinOp::Mul, saved.clone(), saved)?;
                    let d = ev.binary(BinOp::Sub, Value::Int(1), sq)?;
                    ev.binary(BinOp::Mul, g, d)?
                }
                _ => {
                    let d = ev.binary(BinOp::Sub, Value::Int(1), saved.clone())?;
                    let v = ev.binary(BinOp::Mul, g, d)?;
                    ev.binary(BinOp::Mul, v, saved)?
                }
            });
        }
        return Ok(out);
    }
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let g = b.g();
    out[0] = Some(match op.as_str() {
        "Floor" | "Ceil" | "Round" | "Trunc" | "Sign" | "Sgn" => {
            call_torch(ev, "zeros_like", vec![g], vec![])?
        }
        "Frac" => g,
        "Rsqrt" => {
            // -0.5 * grad * result.pow(3)
            let r = ev.saved_input(b, "result")?;
            let cube = ev.binary(BinOp::Pow, r, Value::Int(3))?;
            let h = ev.binary(BinOp::Mul, Value::Float(-0.5), g)?;
            ev.binary(BinOp::Mul, h, cube)?
        }
        "Log2" | "Log10" => {
            let x = ev.saved_input(b, "self")?;
            let ln = if op == "Log2" {
                std::f64::consts::LN_2
            } else {
                std::f64::consts::LN_10
            };
            let d = ev.binary(BinOp::Mul, x, Value::Float(ln))?;
            ev.binary(BinOp::Div, g, d)?
        }
        "Tan" => {
            // grad * (1 + result.pow(2))
            let r = ev.saved_input(b, "result")?;
            let sq = ev.binary(BinOp::Pow, r, Value::Int(2))?;
            let d = ev.binary(BinOp::Add, Value::Int(1), sq)?;
            ev.binary(BinOp::Mul, g, d)?
        }
        "Relu" => {
            let r = ev.saved_input(b, "result")?;
            let off = ev.binary(BinOp::Le, r, Value::Int(0))?;
            m(ev, &g, "masked_fill", vec![off, Value::Float(0.0)])?
        }
        "Neg" => ev.neg_value(&g)?,
        "Fill" | "Zero" => call_torch(ev, "zeros_like", vec![g], vec![])?,
        _ => return Err(unsupported(b.node)),
    });
    Ok(out)
}

/// `lerp(end, weight)`: `self: grad * (1 - weight)`, `end: grad * weight`, a tensor
/// `weight: grad * (end - self)`.
pub(crate) static LERP: Formula = Formula {
    inputs: &["self", "end", "weight"],
    saves: &["self", "end", "weight"],
    args: &[],
    backward: lerp,
};

fn lerp(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let weight = ev.saved_input(b, "weight")?;
    let mut out = b.none();
    if b.needs(0) {
        let one_minus = match number(&weight) {
            Some(w) => Value::Float(1.0 - w),
            None => ev.binary(BinOp::Sub, Value::Int(1), weight.clone())?,
        };
        let v = ev.binary(BinOp::Mul, b.g(), one_minus)?;
        out[0] = Some(ev.sum_to(v, &b.shape(0))?);
    }
    if b.needs(1) {
        let v = ev.binary(BinOp::Mul, b.g(), weight.clone())?;
        out[1] = Some(ev.sum_to(v, &b.shape(1))?);
    }
    if b.needs(2) {
        let this = ev.saved_input(b, "self")?;
        let end = ev.saved_input(b, "end")?;
        let d = ev.binary(BinOp::Sub, end, this)?;
        let v = ev.binary(BinOp::Mul, b.g(), d)?;
        out[2] = Some(ev.sum_to(v, &b.shape(2))?);
    }
    Ok(out)
}

/// `addcmul(tensor1, tensor2, value)` and `addcdiv`.
pub(crate) static ADDC: Formula = Formula {
    inputs: &["self", "tensor1", "tensor2"],
    saves: &["tensor1", "tensor2"],
    args: &["value"],
    backward: addc,
};

fn addc(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let value = b.arg("value").cloned().unwrap_or(Value::Int(1));
    let div = b.node.name.starts_with("Addcdiv");
    let mut out = b.none();
    if b.needs(0) {
        out[0] = Some(ev.sum_to(b.g(), &b.shape(0))?);
    }
    let t1 = ev.saved_input(b, "tensor1")?;
    let t2 = ev.saved_input(b, "tensor2")?;
    if b.needs(1) {
        // addcmul: grad * (tensor2 * value); addcdiv: grad * (value / tensor2)
        let d = if div {
            ev.binary(BinOp::Div, value.clone(), t2.clone())?
        } else {
            ev.binary(BinOp::Mul, t2.clone(), value.clone())?
        };
        let v = ev.binary(BinOp::Mul, b.g(), d)?;
        out[1] = Some(ev.sum_to(v, &b.shape(1))?);
    }
    if b.needs(2) {
        let v = if div {
            // -grad * ((value * tensor1) / (tensor2 * tensor2))
            let num = ev.binary(BinOp::Mul, value, t1)?;
            let den = ev.binary(BinOp::Mul, t2.clone(), t2)?;
            let q = ev.binary(BinOp::Div, num, den)?;
            let ng = ev.neg_value(b.grad)?;
            ev.binary(BinOp::Mul, ng, q)?
        } else {
            let d = ev.binary(BinOp::Mul, t1, value)?;
            ev.binary(BinOp::Mul, b.g(), d)?
        };
        out[2] = Some(ev.sum_to(v, &b.shape(2))?);
    }
    Ok(out)
}

/// `copy_(src)`: `self: zeros_like(grad)`, `src: grad` in `src`'s dtype, summed to its shape.
pub(crate) static COPY: Formula = Formula {
    inputs: &["self", "src"],
    saves: &[],
    args: &[],
    backward: copy,
};

fn copy(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        out[0] = Some(call_torch(ev, "zeros_like", vec![b.g()], vec![])?);
    }
    if b.needs(1) {
        let dtype = b.node.operands.get(1).and_then(|o| o.dtype);
        let g = match dtype {
            Some(d) => ev.grad_in_dtype(b.g(), d)?,
            None => b.g(),
        };
        out[1] = Some(ev.sum_to(g, &b.shape(1))?);
    }
    Ok(out)
}

/// `fill_(value)` and `zero_()`: `self: zeros_like(grad)`, a tensor `value: grad.sum()`.
pub(crate) static FILL: Formula = Formula {
    inputs: &["self", "value"],
    saves: &[],
    args: &[],
    backward: fill,
};

fn fill(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        out[0] = Some(call_torch(ev, "zeros_like", vec![b.g()], vec![])?);
    }
    if b.needs(1) {
        out[1] = Some(m(ev, &b.g(), "sum", vec![])?);
    }
    Ok(out)
}

/// `bmm(mat2)`: `self: grad.bmm(mat2.transpose(1, 2))`, `mat2: self.transpose(1, 2).bmm(grad)`.
pub(crate) static BMM: Formula = Formula {
    inputs: &["self", "other"],
    saves: &["self", "other"],
    args: &[],
    backward: bmm,
};

fn bmm(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    let t12 = vec![Value::Int(1), Value::Int(2)];
    if b.needs(0) {
        let other = ev.saved_input(b, "other")?;
        let ot = m(ev, &other, "transpose", t12.clone())?;
        out[0] = Some(m(ev, &b.g(), "bmm", vec![ot])?);
    }
    if b.needs(1) {
        let this = ev.saved_input(b, "self")?;
        let st = m(ev, &this, "transpose", t12)?;
        out[1] = Some(m(ev, &st, "bmm", vec![b.g()])?);
    }
    Ok(out)
}
