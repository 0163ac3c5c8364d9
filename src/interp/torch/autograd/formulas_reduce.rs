//! The backward formulas of the reductions that pick or combine values (`derivatives.yaml`
//! with `FunctionsManual.cpp`): `max`/`min` (whole tensor: `evenly_distribute_backward`;
//! along a dim: `value_selecting_reduction_backward`; against another tensor: `maximum`'s),
//! `maximum`/`minimum`/`fmax`/`fmin`, `amax`/`amin` (`scale_grad_by_count`), `prod`,
//! `var`/`std`, `cumsum`/`cumprod`, `logsumexp`, `median`/`kthvalue`, `sort`/`topk`, the
//! vector norms and `nansum`.
//!
//! A node is recorded per floating output, so an op that returns `(values, indices)`
//! computes its indices again from the saved input, with the same rule as its forward.

use crate::interp::torch::autograd::backward::{scalar, shape_value, unsupported};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::number;
use crate::interp::torch::optim::{call_method, call_torch};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// `recv.name(*pos)`.
pub(crate) fn m(ev: &mut Evaluator, recv: &Value, name: &str, pos: Vec<Value>) -> R<Value> {
    call_method(ev, recv, name, pos, vec![])
}

/// `v.isnan()` as `v != v`.
pub(crate) fn isnan(ev: &mut Evaluator, v: &Value) -> R<Value> {
    ev.binary(BinOp::Ne, v.clone(), v.clone())
}

/// The ints of an argument (`1`, `(0, 2)`, `[1]`).
pub(crate) fn ints_of(v: Option<&Value>) -> Option<Vec<i64>> {
    match v? {
        Value::Int(i) => Some(vec![*i]),
        Value::Tuple(items) | Value::List(items) => items
            .iter()
            .map(|i| match i {
                Value::Int(i) => Some(*i),
                _ => None,
            })
            .collect(),
        Value::Size(dims) => Some(dims.clone()),
        _ => None,
    }
}

/// `d` wrapped into `0..ndim` (a 0-d tensor's dim 0 and -1 are 0).
pub(crate) fn wrap(d: i64, ndim: usize) -> i64 {
    let n = ndim.max(1) as i64;
    if d < 0 {
        d + n
    } else {
        d
    }
}

/// A bool argument, `default` when not given.
pub(crate) fn flag(b: &Backward, name: &str, default: bool) -> bool {
    match b.arg(name) {
        Some(Value::Bool(v)) => *v,
        Some(v) => number(v).map_or(default, |x| x != 0.0),
        None => default,
    }
}

/// The reduced dims (sorted, wrapped): `dim` as given, every dim when absent or empty.
fn reduced_dims(b: &Backward, name: &str, ndim: usize) -> Vec<i64> {
    let mut dims: Vec<i64> = match ints_of(b.arg(name)) {
        Some(d) if !d.is_empty() => d.iter().map(|&d| wrap(d, ndim)).collect(),
        _ => (0..ndim as i64).collect(),
    };
    dims.sort_unstable();
    dims.dedup();
    dims
}

/// `unsqueeze_multiple(v, dims)`: the reduced dims put back as size 1 (`keepdim=False`).
fn restore(ev: &mut Evaluator, v: Value, dims: &[i64], keepdim: bool, ndim: usize) -> R<Value> {
    if keepdim || ndim == 0 {
        return Ok(v);
    }
    let mut v = v;
    for &d in dims {
        v = m(ev, &v, "unsqueeze", vec![Value::Int(d)])?;
    }
    Ok(v)
}

/// A reduction's `dim` and `keepdim` as its node recorded them, over an input of `ndim`
/// dims.
struct Reduced {
    dims: Vec<i64>,
    keepdim: bool,
    ndim: usize,
}

impl Reduced {
    /// The reduction that made `b`'s node.
    fn of(b: &Backward) -> Reduced {
        let ndim = b.shape(0).len();
        Reduced {
            dims: reduced_dims(b, "dim", ndim),
            keepdim: flag(b, "keepdim", false),
            ndim,
        }
    }

    /// `v` (a reduced value) with the reduced dims put back as size 1.
    fn restore(&self, ev: &mut Evaluator, v: Value) -> R<Value> {
        restore(ev, v, &self.dims, self.keepdim, self.ndim)
    }
}

/// `value_selecting_reduction_backward`: `zeros(sizes).scatter_(dim, indices, grad)`, the
/// gradient unsqueezed first without `keepdim`.
fn value_selecting(
    ev: &mut Evaluator,
    b: &Backward,
    dim: i64,
    indices: Value,
    keepdim: bool,
) -> R<Value> {
    let shape = b.shape(0);
    let mut g = b.g();
    let mut indices = indices;
    if !keepdim && !shape.is_empty() {
        g = m(ev, &g, "unsqueeze", vec![Value::Int(dim)])?;
        indices = m(ev, &indices, "unsqueeze", vec![Value::Int(dim)])?;
    }
    // `grad_in = zeros(sizes); grad_in.scatter_(dim, indices, grad)`: one buffer.
    let zeros = m(ev, &g, "new_zeros", vec![shape_value(&shape)])?;
    m(ev, &zeros, "scatter_", vec![Value::Int(dim), indices, g])
}

/// `evenly_distribute_backward` (CPU): `zeros.masked_fill_(mask, grad / mask.sum())`, the
/// mask where `self == result` (or where `self` is NaN when the result is).
fn evenly_distribute(ev: &mut Evaluator, b: &Backward) -> R<Value> {
    let this = ev.saved_input(b, "self")?;
    let result = ev.saved_input(b, "result")?;
    let nan = isnan(ev, &result)?;
    let mask = if ev.truthy(&nan)? {
        isnan(ev, &this)?
    } else {
        ev.binary(BinOp::Eq, this.clone(), result)?
    };
    drop(nan);
    // `grad.new_zeros(sizes).masked_fill_(mask, grad / mask.sum())`, in that order.
    let zeros = m(ev, &b.g(), "new_zeros", vec![shape_value(&b.shape(0))])?;
    let count = m(ev, &mask, "sum", vec![])?;
    let share = ev.binary(BinOp::Div, b.g(), count)?;
    m(ev, &zeros, "masked_fill_", vec![mask, share])
}

/// `max`/`min`: the whole tensor (`MaxBackward1`), along `dim` (`MaxBackward0`), or against
/// `other` (`MaximumBackward0`).
pub(crate) static MAX_MIN: Formula = Formula {
    inputs: &["self", "other"],
    saves: &["self", "other", "result", "indices"],
    args: &["dim", "keepdim"],
    backward: max_min,
};

fn max_min(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let is_min = b.node.name.starts_with("Min");
    let pair = b.node.operands.len() >= 2 && b.arg("dim").is_none();
    let other_is_tensor = matches!(
        b.node.operands.get(1).map(|o| &o.saved),
        Some(crate::interp::torch::autograd::Saved::Tensor(_))
    ) || b.needs(1);
    if pair && other_is_tensor {
        return pairwise(ev, b, if is_min { "minimum" } else { "maximum" });
    }
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let Some(dim) = b.arg("dim").and_then(number) else {
        out[0] = Some(evenly_distribute(ev, b)?);
        return Ok(out);
    };
    let ndim = b.shape(0).len();
    let dim = wrap(dim as i64, ndim);
    let keepdim = flag(b, "keepdim", false);
    let indices = ev.saved_input(b, "indices")?;
    out[0] = Some(value_selecting(ev, b, dim, indices, keepdim)?);
    Ok(out)
}

/// `maximum`, `minimum`, `fmax`, `fmin` (and `max`/`min` against `other`).
pub(crate) static MAXIMUM: Formula = Formula {
    inputs: &["self", "other"],
    saves: &["self", "other"],
    args: &[],
    backward: maximum,
};

fn maximum(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let op = if b.node.name.starts_with("Maximum") {
        "maximum"
    } else if b.node.name.starts_with("Minimum") {
        "minimum"
    } else if b.node.name.starts_with("Fmax") {
        "fmax"
    } else {
        "fmin"
    };
    pairwise(ev, b, op)
}

fn pairwise(ev: &mut Evaluator, b: &Backward, op: &str) -> R<Vec<Option<Value>>> {
    let this = ev.saved_input(b, "self")?;
    let other = ev.saved_input(b, "other")?;
    let mut out = b.none();
    for (i, want) in [(0usize, true), (1, false)] {
        if !b.needs(i) {
            continue;
        }
        let g = match op {
            "maximum" | "minimum" => {
                // at::where(self == other, grad / 2, grad).masked_fill_(self < other, 0)
                let eq = ev.binary(BinOp::Eq, this.clone(), other.clone())?;
                let half = ev.binary(BinOp::Div, b.g(), Value::Int(2))?;
                let w = call_torch(ev, "where", vec![eq, half, b.g()], vec![])?;
                let loses = match (op == "maximum", want) {
                    (true, true) | (false, false) => BinOp::Lt,
                    _ => BinOp::Gt,
                };
                let mask = ev.binary(loses, this.clone(), other.clone())?;
                m(ev, &w, "masked_fill", vec![mask, Value::Int(0)])?
            }
            _ => {
                // fmax: grad.masked_fill((self >= other).logical_or_(other.isnan())[.logical_not_()], 0)
                let cmp = if op == "fmax" { BinOp::Ge } else { BinOp::Le };
                let c = ev.binary(cmp, this.clone(), other.clone())?;
                let nan = isnan(ev, &other)?;
                let mut mask = m(ev, &c, "logical_or", vec![nan])?;
                if want {
                    mask = m(ev, &mask, "logical_not", vec![])?;
                }
                m(ev, &b.g(), "masked_fill", vec![mask, Value::Int(0)])?
            }
        };
        out[i] = Some(ev.sum_to(g, &b.shape(i))?);
    }
    Ok(out)
}

/// `amax`/`amin`: `scale_grad_by_count(restore(grad), restore(result) == self, dim)`.
pub(crate) static AMAX: Formula = Formula {
    inputs: &["self"],
    saves: &["self", "result"],
    args: &["dim", "keepdim"],
    backward: amax,
};

fn amax(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let reduced = Reduced::of(b);
    let this = ev.saved_input(b, "self")?;
    let result = ev.saved_input(b, "result")?;
    let g = reduced.restore(ev, b.g())?;
    let r = reduced.restore(ev, result)?;
    let mask = ev.binary(BinOp::Eq, r, this)?;
    let count = call_method(
        ev,
        &mask,
        "sum",
        vec![dims_value(&reduced.dims)],
        vec![("keepdim", Value::Bool(true))],
    )?;
    let share = ev.binary(BinOp::Div, g, count)?;
    out[0] = Some(ev.binary(BinOp::Mul, share, mask)?);
    Ok(out)
}

fn dims_value(dims: &[i64]) -> Value {
    Value::Tuple(dims.iter().map(|&d| Value::Int(d)).collect())
}

/// `prod`: `grad * (result / self)` without zeros, else `prod_safe_zeros_backward`.
pub(crate) static PROD: Formula = Formula {
    inputs: &["self"],
    saves: &["self", "result"],
    args: &["dim", "keepdim"],
    backward: prod,
};

fn prod(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let shape = b.shape(0);
    if shape.is_empty() {
        out[0] = Some(b.g());
        return Ok(out);
    }
    let this = ev.saved_input(b, "self")?;
    let result = ev.saved_input(b, "result")?;
    let zeros = ev.binary(BinOp::Eq, this.clone(), Value::Int(0))?;
    let count = m(ev, &zeros, "sum", vec![])?;
    let count = number(&m(ev, &count, "item", vec![])?).unwrap_or(0.0) as i64;
    let Some(dim) = b.arg("dim").and_then(number) else {
        let g = if count == 0 {
            let q = ev.binary(BinOp::Div, result, this)?;
            ev.binary(BinOp::Mul, b.g(), q)?
        } else if count > 1 && !ev.torch.grad_enabled {
            call_torch(ev, "zeros_like", vec![this.clone()], vec![])?
        } else {
            let flat = m(ev, &this, "contiguous", vec![])?;
            let flat = m(ev, &flat, "view", vec![Value::Int(-1)])?;
            let g = safe_zeros(ev, b.g(), flat, 0)?;
            m(ev, &g, "view", vec![shape_value(&shape)])?
        };
        out[0] = Some(g);
        return Ok(out);
    };
    let dim = wrap(dim as i64, shape.len());
    let keepdim = flag(b, "keepdim", false);
    let g = restore(ev, b.g(), &[dim], keepdim, shape.len())?;
    let r = restore(ev, result, &[dim], keepdim, shape.len())?;
    out[0] = Some(if count == 0 {
        let q = ev.binary(BinOp::Div, r, this)?;
        ev.binary(BinOp::Mul, g, q)?
    } else {
        safe_zeros(ev, g, this, dim)?
    });
    Ok(out)
}

/// `prod_safe_zeros_backward`: the exclusive cumulative products from both ends.
fn safe_zeros(ev: &mut Evaluator, g: Value, input: Value, dim: i64) -> R<Value> {
    let shape = input
        .as_tensor()
        .map(|t| t.shape().to_vec())
        .unwrap_or_default();
    let n = shape.get(dim as usize).copied().unwrap_or(0);
    if shape.contains(&0) {
        return m(ev, &g, "expand_as", vec![input]);
    }
    let mut ones_size = shape.clone();
    ones_size[dim as usize] = 1;
    let dtype = g.as_tensor().map(|t| t.dtype);
    let ones = call_torch(
        ev,
        "ones",
        vec![shape_value(&ones_size)],
        dtype.map_or(vec![], |d| vec![("dtype", Value::DType(d))]),
    )?;
    let d = Value::Int(dim);
    let head = m(
        ev,
        &input,
        "narrow",
        vec![d.clone(), Value::Int(0), Value::Int(n - 1)],
    )?;
    let normal = call_torch(
        ev,
        "cat",
        vec![Value::List(vec![ones.clone(), head]), d.clone()],
        vec![],
    )?;
    let normal = m(ev, &normal, "cumprod", vec![d.clone()])?;
    let tail = m(
        ev,
        &input,
        "narrow",
        vec![d.clone(), Value::Int(1), Value::Int(n - 1)],
    )?;
    let tail = m(ev, &tail, "flip", vec![Value::List(vec![d.clone()])])?;
    let reverse = call_torch(
        ev,
        "cat",
        vec![Value::List(vec![ones, tail]), d.clone()],
        vec![],
    )?;
    let reverse = m(ev, &reverse, "cumprod", vec![d.clone()])?;
    let reverse = m(ev, &reverse, "flip", vec![Value::List(vec![d])])?;
    let both = ev.binary(BinOp::Mul, normal, reverse)?;
    ev.binary(BinOp::Mul, g, both)
}

/// `var`/`std`: `var_backward`, `std_backward` (`(grad / (result * 2)).masked_fill_(result
/// == 0, 0)` then `var_backward`).
pub(crate) static VAR_STD: Formula = Formula {
    inputs: &["self"],
    saves: &["self", "result"],
    args: &["dim", "unbiased", "correction", "keepdim"],
    backward: var_std,
};

fn var_std(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let shape = b.shape(0);
    // `x.var(False)` binds `unbiased` positionally in the place of `dim`.
    let (dim_arg, unbiased) = match b.arg("dim") {
        Some(Value::Bool(u)) => (None, *u),
        other => (other.cloned(), flag(b, "unbiased", true)),
    };
    let correction = match b.arg("correction").and_then(number) {
        Some(c) => c,
        None => f64::from(u8::from(unbiased)),
    };
    let this = ev.saved_input(b, "self")?;
    let mut g = b.g();
    if b.node.name.starts_with("Std") {
        let result = ev.saved_input(b, "result")?;
        let twice = ev.binary(BinOp::Mul, result.clone(), Value::Int(2))?;
        let q = ev.binary(BinOp::Div, g, twice)?;
        let zero = ev.binary(BinOp::Eq, result, Value::Int(0))?;
        g = m(ev, &q, "masked_fill", vec![zero, Value::Int(0)])?;
    }
    let dims = ints_of(dim_arg.as_ref());
    let v = match dims {
        Some(dims) if !shape.is_empty() => {
            let ndim = shape.len();
            let mut dims: Vec<i64> = dims.iter().map(|&d| wrap(d, ndim)).collect();
            dims.sort_unstable();
            if dims.is_empty() {
                dims = (0..ndim as i64).collect();
            }
            let keepdim = flag(b, "keepdim", false);
            if !keepdim && ndim > 1 {
                g = restore(ev, g, &dims, false, ndim)?;
            }
            let n: i64 = dims.iter().map(|&d| shape[d as usize]).product();
            let mean = call_method(
                ev,
                &this,
                "mean",
                vec![dims_value(&dims)],
                vec![("keepdim", Value::Bool(true))],
            )?;
            scaled_centered(ev, g, this, mean, n as f64 - correction)?
        }
        _ => {
            let n: i64 = shape.iter().product();
            let mean = m(ev, &this, "mean", vec![])?;
            scaled_centered(ev, g, this, mean, n as f64 - correction)?
        }
    };
    out[0] = Some(v);
    Ok(out)
}

/// `(2 / dof) * grad * (self - mean)`.
fn scaled_centered(ev: &mut Evaluator, g: Value, this: Value, mean: Value, dof: f64) -> R<Value> {
    let factor = if dof <= 0.0 { f64::NAN } else { 2.0 / dof };
    let s = ev.binary(BinOp::Mul, Value::Float(factor), g)?;
    let centered = ev.binary(BinOp::Sub, this, mean)?;
    ev.binary(BinOp::Mul, s, centered)
}

/// `cumsum` (`grad.flip(dim).cumsum(dim).flip(dim)`) and `cumprod` (`cumprod_backward`, the
/// input without zeros: the reversed cumulative sum of `result * grad`, divided by `self`).
pub(crate) static CUMULATIVE: Formula = Formula {
    inputs: &["self"],
    saves: &["self", "result"],
    args: &["dim"],
    backward: cumulative,
};

fn reversed_cumsum(ev: &mut Evaluator, w: Value, dim: i64) -> R<Value> {
    let d = Value::List(vec![Value::Int(dim)]);
    let f = m(ev, &w, "flip", vec![d.clone()])?;
    let c = m(ev, &f, "cumsum", vec![Value::Int(dim)])?;
    m(ev, &c, "flip", vec![d])
}

fn cumulative(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let shape = b.shape(0);
    let dim = wrap(
        b.arg("dim").and_then(number).unwrap_or(0.0) as i64,
        shape.len(),
    );
    let numel: i64 = shape.iter().product();
    let size = shape.get(dim as usize).copied().unwrap_or(1);
    let dtype = b.node.operands.first().and_then(|o| o.dtype);
    let g = match dtype {
        Some(d) => ev.grad_in_dtype(b.g(), d)?,
        None => b.g(),
    };
    if numel <= 1 || size == 1 {
        out[0] = Some(g);
        return Ok(out);
    }
    if b.node.name.starts_with("Cumsum") {
        out[0] = Some(reversed_cumsum(ev, g, dim)?);
        return Ok(out);
    }
    let this = ev.saved_input(b, "self")?;
    let zero = ev.binary(BinOp::Eq, this.clone(), Value::Int(0))?;
    let any = m(ev, &zero, "any", vec![])?;
    if ev.truthy(&any)? {
        return Err(unsupported(b.node));
    }
    let result = ev.saved_input(b, "result")?;
    let w = ev.binary(BinOp::Mul, result, g)?;
    let r = reversed_cumsum(ev, w, dim)?;
    out[0] = Some(ev.binary(BinOp::Div, r, this)?);
    Ok(out)
}

/// `logsumexp`: `grad * (self - result).exp()`, both unsqueezed without `keepdim`.
pub(crate) static LOGSUMEXP: Formula = Formula {
    inputs: &["self"],
    saves: &["self", "result"],
    args: &["dim", "keepdim"],
    backward: logsumexp,
};

fn logsumexp(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let reduced = Reduced::of(b);
    let this = ev.saved_input(b, "self")?;
    let result = ev.saved_input(b, "result")?;
    let g = reduced.restore(ev, b.g())?;
    let r = reduced.restore(ev, result)?;
    let d = ev.binary(BinOp::Sub, this, r)?;
    let e = m(ev, &d, "exp", vec![])?;
    out[0] = Some(ev.binary(BinOp::Mul, g, e)?);
    Ok(out)
}

/// `median`/`nanmedian` (whole tensor: evenly distributed; along `dim`: at its index) and
/// `kthvalue`.
pub(crate) static SELECTING: Formula = Formula {
    inputs: &["self"],
    saves: &["self", "result", "indices"],
    args: &["k", "dim", "keepdim"],
    backward: selecting,
};

fn selecting(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let kth = b.node.name.starts_with("Kthvalue");
    if !kth && b.arg("dim").is_none() {
        out[0] = Some(evenly_distribute(ev, b)?);
        return Ok(out);
    }
    let ndim = b.shape(0).len();
    let dim = wrap(b.arg("dim").and_then(number).unwrap_or(-1.0) as i64, ndim);
    let keepdim = flag(b, "keepdim", false);
    let indices = ev.saved_input(b, "indices")?;
    out[0] = Some(value_selecting(ev, b, dim, indices, keepdim)?);
    Ok(out)
}

/// `sort` and `topk`: `value_selecting_reduction_backward(grad, dim, indices, sizes, true)`.
pub(crate) static SORTED: Formula = Formula {
    inputs: &["self"],
    saves: &["indices"],
    args: &["k", "dim", "descending", "stable", "largest", "sorted"],
    backward: sorted,
};

fn sorted(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let ndim = b.shape(0).len();
    let dim = wrap(b.arg("dim").and_then(number).unwrap_or(-1.0) as i64, ndim);
    let indices = ev.saved_input(b, "indices")?;
    out[0] = Some(value_selecting(ev, b, dim, indices, true)?);
    Ok(out)
}

/// `norm`, `linalg.vector_norm`, `linalg.norm` of vectors: `norm_backward`.
pub(crate) static VECTOR_NORM: Formula = Formula {
    inputs: &["self"],
    saves: &["self", "result"],
    args: &["p", "ord", "dim", "keepdim"],
    backward: vector_norm,
};

fn vector_norm(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let p = match b.arg("p").or_else(|| b.arg("ord")) {
        None | Some(Value::None) => 2.0,
        Some(Value::Str(s)) if s == "fro" => 2.0,
        Some(v) => number(v).ok_or_else(|| unsupported(b.node))?,
    };
    let reduced = Reduced::of(b);
    let this = ev.saved_input(b, "self")?;
    let norm = ev.saved_input(b, "result")?;
    let g = reduced.restore(ev, b.g())?;
    let norm = reduced.restore(ev, norm)?;
    let sgn = |ev: &mut Evaluator, x: &Value| m(ev, x, "sign", vec![]);
    let v = if p == 0.0 {
        call_torch(ev, "zeros_like", vec![this], vec![])?
    } else if p == 1.0 {
        let s = sgn(ev, &this)?;
        ev.binary(BinOp::Mul, s, g)?
    } else if p == 2.0 {
        // `grad * (self / norm).masked_fill_(norm == 0, 0)`.
        let q = ev.binary(BinOp::Div, this, norm.clone())?;
        let zero = ev.binary(BinOp::Eq, norm, Value::Int(0))?;
        m(ev, &q, "masked_fill_", vec![zero.clone(), Value::Int(0)])?;
        let v = ev.binary(BinOp::Mul, g, q)?;
        drop(zero);
        v
    } else if p.is_infinite() {
        let a = m(ev, &this, "abs", vec![])?;
        let eq = ev.binary(BinOp::Eq, a.clone(), norm)?;
        let nan = isnan(ev, &a)?;
        let mask = m(ev, &eq, "logical_or", vec![nan])?;
        let count = call_method(
            ev,
            &mask,
            "sum",
            vec![dims_value(&reduced.dims)],
            vec![("keepdim", Value::Bool(true))],
        )?;
        let share = ev.binary(BinOp::Div, g, count)?;
        let share = ev.binary(BinOp::Mul, share, mask)?;
        let s = sgn(ev, &this)?;
        ev.binary(BinOp::Mul, s, share)?
    } else if p < 1.0 {
        let s = sgn(ev, &this)?;
        let a = m(ev, &this, "abs", vec![])?;
        let pw = ev.binary(BinOp::Pow, a, scalar(p - 1.0))?;
        let zero = ev.binary(BinOp::Eq, this, Value::Int(0))?;
        let pw = m(ev, &pw, "masked_fill", vec![zero, Value::Int(0)])?;
        let scaled = ev.binary(BinOp::Mul, s, pw)?;
        let v = ev.binary(BinOp::Mul, scaled, g)?;
        let np = ev.binary(BinOp::Pow, norm, scalar(1.0 - p))?;
        ev.binary(BinOp::Mul, v, np)?
    } else {
        let scaled = if p < 2.0 {
            let s = sgn(ev, &this)?;
            let a = m(ev, &this, "abs", vec![])?;
            let pw = ev.binary(BinOp::Pow, a, scalar(p - 1.0))?;
            ev.binary(BinOp::Mul, s, pw)?
        } else {
            let a = m(ev, &this, "abs", vec![])?;
            let pw = ev.binary(BinOp::Pow, a, scalar(p - 2.0))?;
            ev.binary(BinOp::Mul, this, pw)?
        };
        let np = ev.binary(BinOp::Pow, norm.clone(), scalar(p - 1.0))?;
        let scale = ev.binary(BinOp::Div, g, np)?;
        let zero = ev.binary(BinOp::Eq, norm, Value::Int(0))?;
        let scale = m(ev, &scale, "masked_fill", vec![zero, Value::Int(0)])?;
        ev.binary(BinOp::Mul, scaled, scale)?
    };
    out[0] = Some(v);
    Ok(out)
}

/// `nansum`: the gradient expanded back, zero where `self` is NaN.
pub(crate) static NANSUM: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: &["dim", "keepdim"],
    backward: nansum,
};

fn nansum(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let shape = b.shape(0);
    let reduced = Reduced::of(b);
    let this = ev.saved_input(b, "self")?;
    let g = reduced.restore(ev, b.g())?;
    let mut g = m(ev, &g, "expand", vec![shape_value(&shape)])?;
    if b.node.name.starts_with("Nanmean") {
        let nan = isnan(ev, &this)?;
        let valid = m(ev, &nan, "logical_not", vec![])?;
        let count = call_method(
            ev,
            &valid,
            "sum",
            vec![dims_value(&reduced.dims)],
            vec![("keepdim", Value::Bool(true))],
        )?;
        g = ev.binary(BinOp::Div, g, count)?;
    }
    let nan = isnan(ev, &this)?;
    let keep = m(ev, &nan, "logical_not", vec![])?;
    out[0] = Some(ev.binary(BinOp::Mul, g, keep)?);
    Ok(out)
}
