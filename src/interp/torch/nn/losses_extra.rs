//! The pointwise losses ATen computes in one kernel each: `F.smooth_l1_loss` (`beta`),
//! `F.huber_loss` (`delta`, `weight`) and `F.soft_margin_loss`, with `functional.py`'s
//! checks (the size-mismatch warning, the legacy `size_average`/`reduce` flags, the
//! broadcast) and ATen's nodes (`SmoothL1LossBackward0`, `HuberLossBackward0`,
//! `SoftMarginLossBackward0`) whose gradients round as ATen's CPU kernels do: the AVX2
//! build's vectorized loop over each run of 16 floats (8 doubles), its scalar loop over the
//! rest. The shared parts of the other losses (`reduction=`, the legacy flags) are here too.

use crate::core::tensor::layout::broadcast_shapes;
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::python::repr::size_repr;
use crate::interp::torch::autograd::backward::unsupported;
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::{Grad, GradOp};
use crate::interp::torch::nn::functional::{functional, tensor_arg};
use crate::interp::torch::ops::Reduction;
use crate::interp::torch::registry::{OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(
        &["smooth_l1_loss"],
        &["input, target, size_average=None, reduce=None, reduction='mean', beta=1.0"],
        smooth_l1_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["huber_loss"],
        &["input, target, reduction='mean', delta=1.0, weight=None"],
        huber_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["soft_margin_loss"],
        &["input, target, size_average=None, reduce=None, reduction='mean'"],
        soft_margin_loss,
        Grad::UNTRACKED,
    ),
];

/// PyTorch's `_Reduction.legacy_get_string`: the old `size_average`/`reduce` flags as a
/// reduction's name, with its deprecation warning.
pub(crate) fn legacy_reduction(
    ev: &mut Evaluator,
    size_average: Option<&Value>,
    reduce: Option<&Value>,
) -> R<&'static str> {
    let flag = |ev: &mut Evaluator, v: Option<&Value>| match v {
        None | Some(Value::None) => Ok(true),
        Some(v) => ev.truthy(v),
    };
    let size_average = flag(ev, size_average)?;
    let reduce = flag(ev, reduce)?;
    let name = match (size_average, reduce) {
        (_, false) => "none",
        (true, true) => "mean",
        (false, true) => "sum",
    };
    ev.recorder.warn(format!(
        "UserWarning: size_average and reduce args will be deprecated, please use reduction='{name}' instead."
    ));
    Ok(name)
}

/// A loss's reduction as `functional.py` reads it: the legacy flags when either is given,
/// else `reduction=` (`'mean'` when not given), checked as `_Reduction.get_enum` checks it.
pub(crate) fn reduction_arg(ev: &mut Evaluator, call: &OpCall) -> R<Reduction> {
    let (size_average, reduce) = (call.value("size_average"), call.value("reduce"));
    if size_average.is_some() || reduce.is_some() {
        return Reduction::parse(legacy_reduction(ev, size_average, reduce)?);
    }
    match call.value("reduction") {
        Some(Value::Str(r)) => Reduction::parse(r),
        Some(other) => Err(ScriptError::Value(format!(
            "{} is not a valid value for reduction",
            ev.str_of(other)?
        ))),
        None => Ok(Reduction::Mean),
    }
}

/// The enum ATen keeps for a reduction (`_saved_reduction`: 0 none, 1 mean, 2 sum).
pub(super) fn reduction_enum(reduction: Reduction) -> Value {
    Value::Int(match reduction {
        Reduction::None => 0,
        Reduction::Mean => 1,
        Reduction::Sum => 2,
    })
}

/// The reduction a node kept as its enum.
pub(super) fn kept_reduction(b: &Backward) -> Reduction {
    match b.arg("reduction") {
        Some(Value::Int(0)) => Reduction::None,
        Some(Value::Int(2)) => Reduction::Sum,
        _ => Reduction::Mean,
    }
}

/// `functional.py`'s warning when the target's size is not the input's.
pub(super) fn warn_size_mismatch(ev: &mut Evaluator, input: &Tensor, target: &Tensor) {
    if input.shape() != target.shape() {
        ev.recorder.warn(format!(
            "UserWarning: Using a target size ({}) that is different to the input size ({}). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            size_repr(target.shape()),
            size_repr(input.shape())
        ));
    }
}

/// `torch.broadcast_tensors(a, b)`: each tensor itself where it has the broadcast size, else
/// its `expand` (an `ExpandBackward0` node).
pub(super) fn broadcast_pair(ev: &mut Evaluator, a: Value, b: Value) -> R<(Value, Value)> {
    let shape_of = |v: &Value| {
        v.as_tensor()
            .map(|t| t.shape().to_vec())
            .unwrap_or_default()
    };
    let (sa, sb) = (shape_of(&a), shape_of(&b));
    let shape = broadcast_shapes(&sa, &sb).map_err(ScriptError::Runtime)?;
    let mut expand = |v: Value, s: &[i64]| -> R<Value> {
        if s == shape.as_slice() {
            return Ok(v);
        }
        let sizes = Value::Tuple(shape.iter().map(|&n| Value::Int(n)).collect());
        ev.method(v, "expand", vec![sizes])
    };
    Ok((expand(a, &sa)?, expand(b, &sb)?))
}

/// A tensor's values in row-major order as `f64` (zeros on the meta device, which has none).
pub(super) fn host_values(ev: &mut Evaluator, t: &Tensor) -> Vec<f64> {
    if ev.torch.device.meta_op {
        return vec![0.0; t.numel().max(0) as usize];
    }
    ev.engine.values(t).iter().map(|s| s.to_f64()).collect()
}

/// Rounds to `dtype` as ATen's kernels compute in it (`float` for float32).
pub(super) fn rounder(dtype: DType) -> impl Fn(f64) -> f64 {
    move |v| match dtype {
        DType::Float64 => v,
        DType::Float32 => f64::from(v as f32),
        other => other.round(Scalar::Float(v)).to_f64(),
    }
}

/// A fresh contiguous tensor holding `values` (rounded to `dtype`).
pub(super) fn fresh(
    ev: &mut Evaluator,
    shape: &[i64],
    dtype: DType,
    values: &[f64],
    what: &str,
) -> R<Value> {
    let scalars: Vec<Scalar> = values
        .iter()
        .map(|&v| dtype.round(Scalar::Float(v)))
        .collect();
    let t = ev.tensor_from_values(shape, dtype, &scalars, what)?;
    Ok(Value::tensor(t, what, None))
}

/// `loss.mean()` / `loss.sum()` (or `loss` itself for `'none'`).
pub(crate) fn apply_reduction(ev: &mut Evaluator, loss: Value, reduction: Reduction) -> R<Value> {
    match reduction {
        Reduction::None => Ok(loss),
        Reduction::Mean => ev.method(loss, "mean", vec![]),
        Reduction::Sum => ev.method(loss, "sum", vec![]),
    }
}

/// A structured loss kernel's reduced result (`smooth_l1_loss`): the output ATen sized like
/// the input, the elementwise losses in a second buffer reduced into it (a mean divides: a
/// wrapped int64 and its cast), that buffer freed; the loss is a 0-d view of the first.
/// `soft_margin_loss` reduces its own buffer and resizes it (`keep_losses`: the buffer keeps
/// the elementwise losses after the reduced first element).
fn reduce_into_buffer(
    ev: &mut Evaluator,
    losses: Value,
    reduction: Reduction,
    keep_losses: bool,
    what: &str,
) -> R<Value> {
    let Some(t) = losses.as_tensor() else {
        return Ok(losses);
    };
    if reduction == Reduction::None {
        return Ok(losses);
    }
    let (numel, dtype) = (t.numel().max(0), t.dtype);
    let item = dtype.item_size() as i64;
    let division = if reduction == Reduction::Mean {
        8 + item
    } else {
        0
    };
    let reduced = ev.uncounted(|ev| apply_reduction(ev, losses.clone(), reduction))?;
    let value = reduced
        .as_tensor()
        .map(|r| host_values(ev, &r))
        .and_then(|v| v.first().copied())
        .unwrap_or(0.0);
    drop(reduced);
    let mut values = if keep_losses {
        host_values(ev, &t)
    } else {
        vec![0.0; numel as usize]
    };
    if let Some(first) = values.first_mut() {
        *first = value;
    }
    if keep_losses {
        // The kernel's own output, reduced by `mean()` (a 0-d result) and copied back.
        ev.note_kernel_events(&[item + division]);
    } else {
        ev.note_kernel_events(&[numel * item + division]);
    }
    let buffer = if keep_losses {
        // The losses are that buffer: it is not allocated twice.
        let b = ev.uncounted(|ev| fresh(ev, &[numel], dtype, &values, what))?;
        drop(losses);
        b
    } else {
        let b = fresh(ev, &[numel], dtype, &values, what)?;
        drop(losses);
        b
    };
    let Some(b) = buffer.as_tensor() else {
        return Ok(buffer);
    };
    let out = Tensor {
        layout: crate::core::tensor::Layout::contiguous(&[]),
        ..b
    };
    drop(buffer);
    Ok(Value::tensor(out, what, None))
}

/// The elementwise losses of two broadcast operands in their promoted floating dtype, or
/// the kernel's "not implemented" error (`kernel` names its dispatch).
fn pointwise_losses(
    ev: &mut Evaluator,
    x: &Value,
    y: &Value,
    kernel: &str,
    f: impl Fn(f64, f64, &dyn Fn(f64) -> f64) -> f64,
) -> R<Value> {
    let (Some(a), Some(b)) = (x.as_tensor(), y.as_tensor()) else {
        return Err(ScriptError::Runtime(format!("{kernel}: expected tensors")));
    };
    let dtype = DType::promote(a.dtype, b.dtype);
    if !dtype.is_floating() {
        return Err(ScriptError::NotImplemented(format!(
            "\"{kernel}\" not implemented for '{}'",
            dtype.scalar_type_name()
        )));
    }
    ev.check_work(a.numel(), kernel)?;
    let r = rounder(dtype);
    let (xs, ys) = (host_values(ev, &a), host_values(ev, &b));
    let values: Vec<f64> = xs
        .iter()
        .zip(&ys)
        .map(|(&p, &q)| f(r(p), r(q), &r))
        .collect();
    fresh(ev, a.shape(), dtype, &values, kernel)
}

/// The `input` and `target` of a two-operand loss, warned about and broadcast as
/// `functional.py` does.
fn broadcast_operands(ev: &mut Evaluator, call: &OpCall) -> R<(Value, Value)> {
    let input = tensor_arg(call, "input")?;
    let target = tensor_arg(call, "target")?;
    let (x, y) = (
        input.borrow().tensor.clone(),
        target.borrow().tensor.clone(),
    );
    warn_size_mismatch(ev, &x, &y);
    Ok((Value::Tensor(input), Value::Tensor(target)))
}

/// `F.smooth_l1_loss(input, target, reduction='mean', beta=1.0)`: `l1_loss` when `beta` is
/// 0, else ATen's kernel: `0.5 * z * z / beta` below `beta`, `z - 0.5 * beta` above.
fn smooth_l1_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let (input, target) = broadcast_operands(ev, call)?;
    let reduction = reduction_arg(ev, call)?;
    let beta = ev.arg_float(call, "beta", 1.0)?;
    let (x, y) = broadcast_pair(ev, input, target)?;
    if beta == 0.0 {
        let name = match reduction {
            Reduction::None => "none",
            Reduction::Mean => "mean",
            Reduction::Sum => "sum",
        };
        return crate::interp::torch::nn::layers::functional(
            ev,
            "l1_loss",
            vec![x, y],
            vec![("reduction".into(), Value::Str(name.into()))],
        );
    }
    if beta < 0.0 {
        return Err(ScriptError::Runtime(
            "smooth_l1_loss does not support negative values for beta.".into(),
        ));
    }
    let dtype = x.as_tensor().map_or(DType::Float32, |t| t.dtype);
    let b = rounder(dtype)(beta);
    let losses = pointwise_losses(ev, &x, &y, "smooth_l1_cpu", |p, q, r| {
        let z = r((p - q).abs());
        if z < b {
            r(r(r(0.5 * z) * z) / b)
        } else {
            r(z - r(0.5 * b))
        }
    })?;
    let out = reduce_into_buffer(ev, losses, reduction, false, "smooth_l1_loss")?;
    let args = [
        ("reduction", &reduction_enum(reduction)),
        ("beta", &Value::Float(beta)),
    ];
    ev.record_grad(
        GradOp::Named {
            name: "smooth_l1_loss",
            grad: &SMOOTH_L1_GRAD,
            args: &args,
        },
        &[&x, &y],
        &out,
    );
    Ok(out)
}

/// `F.huber_loss(input, target, reduction='mean', delta=1.0, weight=None)`: ATen's kernel
/// (`0.5 * z * z` below `delta`, `delta * (z - 0.5 * delta)` above) into a fresh tensor,
/// then `mean()`/`sum()`; with `weight`, the unreduced loss times the weight, reduced.
fn huber_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let (input, target) = broadcast_operands(ev, call)?;
    let weight = match call.value("weight") {
        Some(w @ Value::Tensor(_)) => Some(w.clone()),
        _ => None,
    };
    let (x, y) = broadcast_pair(ev, input.clone(), target)?;
    let reduction = match (call.value("reduction"), &weight) {
        (Some(Value::Str(r)), Some(_)) if !matches!(r.as_str(), "none" | "mean" | "sum") => None,
        _ => Some(reduction_arg(ev, call)?),
    };
    let delta = ev.arg_float(call, "delta", 1.0)?;
    if let Some(w) = &weight {
        let (ws, is) = (
            w.as_tensor().map(|t| t.shape().to_vec()),
            input.as_tensor().map(|t| t.shape().to_vec()),
        );
        if ws != is {
            return Err(ScriptError::Value(
                "Weights and input must have the same size.".into(),
            ));
        }
    }
    let kernel_reduction = if weight.is_some() {
        Reduction::None
    } else {
        reduction.unwrap_or(Reduction::Mean)
    };
    if delta <= 0.0 {
        return Err(ScriptError::Runtime(
            "huber_loss does not support non-positive values for delta.".into(),
        ));
    }
    let dtype = x.as_tensor().map_or(DType::Float32, |t| t.dtype);
    let d = rounder(dtype)(delta);
    let losses = pointwise_losses(ev, &x, &y, "huber_cpu", |p, q, r| {
        let z = r((p - q).abs());
        if z < d {
            r(r(0.5 * z) * z)
        } else {
            r(d * r(z - r(0.5 * d)))
        }
    })?;
    let args = [
        ("reduction", &reduction_enum(kernel_reduction)),
        ("delta", &Value::Float(delta)),
    ];
    let record = |ev: &mut Evaluator, out: &Value| {
        ev.record_grad(
            GradOp::Named {
                name: "huber_loss",
                grad: &HUBER_GRAD,
                args: &args,
            },
            &[&x, &y],
            out,
        );
    };
    let Some(w) = weight else {
        // `apply_loss_reduction`: the unreduced loss is ATen's local, freed on return.
        let out = apply_reduction(ev, losses.clone(), kernel_reduction)?;
        record(ev, &out);
        drop(losses);
        return Ok(out);
    };
    record(ev, &losses);
    // `unweighted_loss` is a local of `functional.py`: alive until it returns.
    let weighted = ev.binary(crate::lang::ast::BinOp::Mul, losses.clone(), w)?;
    let out = match reduction {
        Some(Reduction::None) => Ok(weighted),
        Some(Reduction::Sum) => {
            crate::interp::torch::optim::call_torch(ev, "sum", vec![weighted], vec![])
        }
        Some(Reduction::Mean) => ev.method(weighted, "mean", vec![]),
        None => Err(ScriptError::Value(format!(
            "Invalid reduction mode: {}. Expected one of 'none', 'mean', 'sum'.",
            match call.value("reduction") {
                Some(Value::Str(r)) => r.to_string(),
                _ => String::new(),
            }
        ))),
    };
    drop(losses);
    out
}

/// `F.soft_margin_loss(input, target)`: ATen's `neg_out(output, input).mul_(target).exp_()
/// .log1p_()` (each step rounded), reduced into the same buffer.
fn soft_margin_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let target = tensor_arg(call, "target")?;
    let reduction = reduction_arg(ev, call)?;
    let (x, y) = (Value::Tensor(input), Value::Tensor(target));
    let (Some(a), Some(b)) = (x.as_tensor(), y.as_tensor()) else {
        return Err(ScriptError::Runtime(
            "soft_margin_loss: expected tensors".into(),
        ));
    };
    // `mul_(target)` writes into the input-shaped output: the target must broadcast to it.
    let shape = broadcast_shapes(a.shape(), b.shape()).map_err(ScriptError::Runtime)?;
    if shape != a.shape() {
        return Err(ScriptError::Runtime(format!(
            "output with shape [{}] doesn't match the broadcast shape [{}]",
            join(a.shape()),
            join(&shape)
        )));
    }
    let target_view = ev.expand(&b, a.shape())?;
    let target_view = Value::tensor(target_view, "soft_margin_loss", None);
    let losses = pointwise_losses(ev, &x, &target_view, "soft_margin_loss", |p, q, r| {
        let v = r(-p * q);
        let v = r(v.exp());
        r(v.ln_1p())
    })?;
    drop(target_view);
    let out = reduce_into_buffer(ev, losses, reduction, true, "soft_margin_loss")?;
    let args = [("reduction", &reduction_enum(reduction))];
    ev.record_grad(
        GradOp::Named {
            name: "soft_margin_loss",
            grad: &SOFT_MARGIN_GRAD,
            args: &args,
        },
        &[&x, &y],
        &out,
    );
    Ok(out)
}

/// `1, 2, 3` for an error's `[1, 2, 3]`.
fn join(shape: &[i64]) -> String {
    shape
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

// ----- backward -----

const SMOOTH_L1_GRAD: Grad = Grad::named("SmoothL1LossBackward0", &SMOOTH_L1_LOSS);
const HUBER_GRAD: Grad = Grad::named("HuberLossBackward0", &HUBER_LOSS);
const SOFT_MARGIN_GRAD: Grad = Grad::named("SoftMarginLossBackward0", &SOFT_MARGIN_LOSS);

/// `smooth_l1_loss(Tensor self, Tensor target, int reduction, float beta)`.
pub(crate) static SMOOTH_L1_LOSS: Formula = Formula {
    inputs: &["self", "target"],
    saves: &["self", "target"],
    args: &["beta", "reduction"],
    backward: smooth_l1_backward,
};

/// `huber_loss(Tensor self, Tensor target, int reduction, float delta)`.
pub(crate) static HUBER_LOSS: Formula = Formula {
    inputs: &["self", "target"],
    saves: &["self", "target"],
    args: &["delta", "reduction"],
    backward: huber_backward,
};

/// `soft_margin_loss(Tensor self, Tensor target, int reduction)`.
pub(crate) static SOFT_MARGIN_LOSS: Formula = Formula {
    inputs: &["self", "target"],
    saves: &["self", "target"],
    args: &["reduction"],
    backward: soft_margin_backward,
};

/// The lanes of one step of ATen's vectorized loop (two `Vectorized` registers of AVX2).
fn vector_step(dtype: DType) -> usize {
    if dtype == DType::Float64 {
        8
    } else {
        16
    }
}

/// A pointwise loss's backward (`self` from `(self, target)`, `target` from `(target,
/// self)`, as `derivatives.yaml` swaps them): `f(x, t, g, vectorized)` per element into a
/// zeroed gradient (`zeros_like(input)`), the vectorized form for each whole step of the
/// contiguous loop and the scalar one for the tail, or everywhere when an operand is
/// broadcast.
fn pointwise_backward(
    ev: &mut Evaluator,
    b: &Backward,
    f: &dyn Fn(f64, f64, f64, f64, bool) -> f64,
) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    let (Some(x), Some(t)) = (
        ev.saved_input(b, "self")?.as_tensor(),
        ev.saved_input(b, "target")?.as_tensor(),
    ) else {
        return Err(unsupported(b.node));
    };
    let numel = x.numel().max(0) as usize;
    let norm = match kept_reduction(b) {
        Reduction::Mean => 1.0 / numel as f64,
        _ => 1.0,
    };
    let g = b.grad.as_tensor();
    let dtype = g.as_ref().map_or(x.dtype, |g| g.dtype);
    let r = rounder(dtype);
    let norm = r(norm);
    let (xs, ts) = (host_values(ev, &x), host_values(ev, &t));
    let gs = match &g {
        Some(g) => host_values(ev, g),
        None => vec![crate::interp::torch::autograd::number(b.grad).unwrap_or(1.0)],
    };
    // ATen's vectorized loop runs where every operand is contiguous, or one of them is a
    // broadcast scalar (all strides 0: the incoming gradient of a reduction).
    let dense = |t: &Tensor| t.layout.is_contiguous();
    let scalar = |t: &Tensor| t.layout.strides.iter().all(|&s| s == 0);
    let g_scalar = g.as_ref().is_none_or(&scalar);
    let vectorized = match (dense(&x), dense(&t)) {
        (true, true) => g_scalar || g.as_ref().is_some_and(dense),
        (true, false) => scalar(&t) && g.as_ref().is_some_and(dense),
        (false, true) => scalar(&x) && g.as_ref().is_some_and(dense),
        (false, false) => false,
    };
    let whole = if vectorized {
        numel / vector_step(dtype) * vector_step(dtype)
    } else {
        0
    };
    let grad_of = |i: usize| {
        gs.get(if gs.len() == 1 { 0 } else { i })
            .copied()
            .unwrap_or(0.0)
    };
    for (slot, (first, second)) in [(0, (&xs, &ts)), (1, (&ts, &xs))] {
        if !b.needs(slot) {
            continue;
        }
        let values: Vec<f64> = (0..numel)
            .map(|i| f(first[i], second[i], grad_of(i), norm, i < whole))
            .collect();
        let shape = if slot == 0 { x.shape() } else { t.shape() };
        out[slot] = Some(fresh(ev, shape, dtype, &values, "backward")?);
    }
    Ok(out)
}

/// A node's float argument.
fn float_arg(b: &Backward, name: &str, default: f64) -> f64 {
    b.arg(name)
        .and_then(crate::interp::torch::autograd::number)
        .unwrap_or(default)
}

fn smooth_l1_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let dtype = b.grad.as_tensor().map_or(DType::Float32, |g| g.dtype);
    let r = rounder(dtype);
    // The vectorized loop has `beta` as a `scalar_t`; the scalar one compares with and
    // divides by the `double`.
    let beta = float_arg(b, "beta", 1.0);
    let beta_vec = r(beta);
    pointwise_backward(ev, b, &|input, target, g, norm, vectorized| {
        let x = r(input - target);
        if vectorized {
            let sign = if x > 0.0 { 1.0 } else { -1.0 };
            let o = if x.abs() >= beta_vec {
                sign
            } else {
                r(x / beta_vec)
            };
            r(r(norm * o) * g)
        } else if x <= -beta {
            r(-norm * g)
        } else if x >= beta {
            r(norm * g)
        } else {
            r(r(r(norm * x) * g) / beta)
        }
    })
}

fn huber_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let dtype = b.grad.as_tensor().map_or(DType::Float32, |g| g.dtype);
    let r = rounder(dtype);
    // As `smooth_l1_loss`'s: the scalar loop multiplies by the `double`.
    let delta = float_arg(b, "delta", 1.0);
    let delta_vec = r(delta);
    pointwise_backward(ev, b, &|input, target, g, norm, vectorized| {
        let x = r(input - target);
        if vectorized {
            let sign = if x > 0.0 { 1.0 } else { -1.0 };
            let o = if x.abs() >= delta_vec {
                r(sign * delta_vec)
            } else {
                x
            };
            r(r(norm * o) * g)
        } else if x <= -delta {
            r(r(-norm * g) * delta)
        } else if x >= delta {
            r(r(norm * g) * delta)
        } else {
            r(r(norm * x) * g)
        }
    })
}

/// ATen's `soft_margin_loss_backward`: `z = exp(-target * input)` (two temporaries freed
/// after it), `grad_input = target * z * -norm`, `z + 1`, then `grad_input / z * grad`.
fn soft_margin_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(1) {
        return Err(ScriptError::Runtime(
            "the derivative for 'target' is not implemented.".into(),
        ));
    }
    if !b.needs(0) {
        return Ok(out);
    }
    let (Some(x), Some(t)) = (
        ev.saved_input(b, "self")?.as_tensor(),
        ev.saved_input(b, "target")?.as_tensor(),
    ) else {
        return Err(unsupported(b.node));
    };
    let numel = x.numel().max(0);
    let norm = match kept_reduction(b) {
        Reduction::Mean => 1.0 / numel as f64,
        _ => 1.0,
    };
    let dtype = x.dtype;
    let r = rounder(dtype);
    let item = dtype.item_size() as i64;
    let (xs, ts) = (host_values(ev, &x), host_values(ev, &t));
    let g = b.grad.as_tensor();
    let gs = match &g {
        Some(g) => host_values(ev, g),
        None => vec![1.0],
    };
    let tv = ev.expand(&t, x.shape())?;
    let ts_wide = if t.shape() == x.shape() {
        ts
    } else {
        host_values(ev, &tv)
    };
    let bytes = numel * item;
    // `-target`, its product with the input, `exp` of it (z, alive to the end), the two
    // freed; then the gradient, `mul_(-norm)`'s wrapped double and its cast.
    ev.note_kernel_events(&[
        bytes, bytes, bytes, -bytes, -bytes, bytes, 8, item, -item, -8,
    ]);
    let neg_norm = r(-norm);
    let values: Vec<f64> = (0..numel as usize)
        .map(|i| {
            let (p, q) = (xs[i], ts_wide[i]);
            let z = r(r(r(-q) * p).exp());
            let gi = r(r(q * z) * neg_norm);
            let z1 = r(z + 1.0);
            let gv = gs
                .get(if gs.len() == 1 { 0 } else { i })
                .copied()
                .unwrap_or(0.0);
            r(r(gi / z1) * gv)
        })
        .collect();
    out[0] = Some(fresh(ev, x.shape(), dtype, &values, "backward")?);
    Ok(out)
}
