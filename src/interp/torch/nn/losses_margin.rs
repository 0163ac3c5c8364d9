//! The two multi-class margin losses ATen computes in one CPU kernel each:
//! `F.multi_margin_loss` (`p`, `margin`, `weight`) and `F.multilabel_margin_loss`, with
//! `functional.py`'s checks, ATen's shape checks and messages, its loops' float rounding
//! (each row's sum in the input's dtype, the batch's in `double`), its buffers (the
//! multilabel loss's `is_target` and the `min()`/`max()` of the targets it checks) and its
//! nodes (`MultiMarginLossBackward0`, `MultilabelMarginLossBackward0`).

use crate::core::tensor::{DType, ScriptError, Tensor};
use crate::interp::torch::autograd::backward::unsupported;
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::{Grad, GradOp};
use crate::interp::torch::nn::functional::{functional, tensor_arg};
use crate::interp::torch::nn::losses_extra::{
    fresh, host_values, kept_reduction, reduction_arg, reduction_enum, rounder,
};
use crate::interp::torch::ops::Reduction;
use crate::interp::torch::registry::{OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(
        &["multi_margin_loss"],
        &["input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction='mean'"],
        multi_margin_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["multilabel_margin_loss"],
        &["input, target, size_average=None, reduce=None, reduction='mean'"],
        multilabel_margin_loss,
        Grad::UNTRACKED,
    ),
];

/// ATen's rows and classes of a 0-, 1- or 2-D input (`nframe`, `dim`), or its message for
/// another shape.
fn frames(x: &Tensor) -> R<(usize, usize)> {
    let shape = x.shape();
    match shape {
        [] => Ok((1, 1)),
        [d] if *d != 0 => Ok((1, *d as usize)),
        [n, d] if *d != 0 => Ok((*n as usize, *d as usize)),
        _ => Err(ScriptError::Runtime(format!(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: {}",
            sizes(shape)
        ))),
    }
}

/// `[3, 4]`, as ATen prints sizes.
fn sizes(shape: &[i64]) -> String {
    let s: Vec<String> = shape.iter().map(i64::to_string).collect();
    format!("[{}]", s.join(", "))
}

/// The input's dtype, which the kernels dispatch on (floating types only).
fn kernel_dtype(x: &Tensor, kernel: &str) -> R<DType> {
    if matches!(x.dtype, DType::Float32 | DType::Float64) {
        return Ok(x.dtype);
    }
    Err(ScriptError::NotImplemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        x.dtype.scalar_type_name()
    )))
}

/// The class indices of an int64 target (`data_ptr<int64_t>`'s check).
fn class_indices(ev: &mut Evaluator, t: &Tensor) -> R<Vec<i64>> {
    if t.dtype != DType::Int64 {
        return Err(ScriptError::Runtime(format!(
            "expected scalar type Long but found {}",
            t.dtype.scalar_type_name()
        )));
    }
    Ok(host_values(ev, t).iter().map(|&v| v as i64).collect())
}

/// `F.multi_margin_loss(input, target, p=1, margin=1.0, weight=None)`: ATen's
/// `multi_margin_loss_cpu`: per row the sum over the other classes of `max(0, margin -
/// x[y] + x[i])` (squared for `p=2`, times `weight[y]`) divided by the classes.
fn multi_margin_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = Value::Tensor(tensor_arg(call, "input")?);
    let target = Value::Tensor(tensor_arg(call, "target")?);
    let reduction = reduction_arg(ev, call)?;
    let p_value = call.value("p").cloned().unwrap_or(Value::Int(1));
    let p = ev.arg_float(call, "p", 1.0)?;
    if p != 1.0 && p != 2.0 {
        return Err(ScriptError::Value(
            "only p == 1 and p == 2 supported".into(),
        ));
    }
    let weight = match call.value("weight") {
        Some(w @ Value::Tensor(t)) => {
            if t.borrow().tensor.ndim() != 1 {
                return Err(ScriptError::Value("weight must be one-dimensional".into()));
            }
            Some(w.clone())
        }
        _ => None,
    };
    let margin_value = call.value("margin").cloned().unwrap_or(Value::Float(1.0));
    let margin = ev.arg_float(call, "margin", 1.0)?;
    let (Some(x), Some(t)) = (input.as_tensor(), target.as_tensor()) else {
        return Err(unsupported_input());
    };
    let (nframe, dim) = frames(&x)?;
    if t.ndim() > 1 || t.numel() != nframe as i64 {
        return Err(ScriptError::Runtime(format!(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples (batch size). Expected target size [{nframe}], but got {}. Input has shape {}.",
            sizes(t.shape()),
            sizes(x.shape())
        )));
    }
    let w = weight.as_ref().and_then(Value::as_tensor);
    if let Some(w) = &w {
        if w.numel() != dim as i64 {
            return Err(ScriptError::Runtime(format!(
                "inconsistent weight size, expected {dim} but got {}",
                sizes(w.shape())
            )));
        }
    }
    let per_row = reduction == Reduction::None && t.ndim() > 0;
    let out_shape: &[i64] = if per_row { &[nframe as i64] } else { &[] };
    // ATen sizes its output before the kernel's own checks.
    let checked = kernel_dtype(&x, "multi_margin_loss_cpu_kernel").and_then(|dtype| {
        let targets = class_indices(ev, &t)?;
        if targets.iter().any(|&y| y < 0 || y >= dim as i64) {
            return Err(ScriptError::Runtime("target out of range".into()));
        }
        Ok((dtype, targets))
    });
    let (dtype, targets) = match checked {
        Ok(v) => v,
        Err(e) => return failed_after(ev, &[(out_shape, x.dtype)], &[], e),
    };
    let r = rounder(dtype);
    let xs = host_values(ev, &x);
    let ws = w.as_ref().map(|w| host_values(ev, w));
    let m = r(margin);
    let mut rows = Vec::with_capacity(nframe);
    for (row, &y) in targets.iter().enumerate().take(nframe) {
        let values = &xs[row * dim..(row + 1) * dim];
        let xy = values[y as usize];
        let mut sum = 0.0;
        for (d, &v) in values.iter().enumerate() {
            if d == y as usize {
                continue;
            }
            let z = r(r(m - xy) + v);
            if z > 0.0 {
                let mut h = if p == 1.0 { z } else { r(z * z) };
                if let Some(ws) = &ws {
                    h = r(h * ws[y as usize]);
                }
                sum = r(sum + h);
            }
        }
        rows.push(r(sum / dim as f64));
    }
    let out = if per_row {
        fresh(ev, &[nframe as i64], dtype, &rows, "multi_margin_loss")?
    } else {
        fresh(
            ev,
            &[],
            dtype,
            &[batch_reduce(&rows, reduction)],
            "multi_margin_loss",
        )?
    };
    let saved_weight = weight.clone().unwrap_or(Value::None);
    let args = [
        ("p", &p_value),
        ("margin", &margin_value),
        ("reduction", &reduction_enum(reduction)),
    ];
    ev.record_grad(
        GradOp::Named {
            name: "multi_margin_loss",
            grad: &MULTI_MARGIN_GRAD,
            args: &args,
        },
        &[&input, &target],
        &out,
    );
    ev.save_extras(&out, &[("weight", &saved_weight)]);
    Ok(out)
}

/// The error of a kernel that failed after allocating `buffers` (shape and dtype each,
/// freed as it raised) and the scratch `events` after them.
fn failed_after(
    ev: &mut Evaluator,
    buffers: &[(&[i64], DType)],
    events: &[i64],
    error: ScriptError,
) -> R<Value> {
    let mut held = Vec::new();
    for (shape, dtype) in buffers {
        let n = shape.iter().product::<i64>().max(0) as usize;
        held.push(fresh(ev, shape, *dtype, &vec![0.0; n], "loss")?);
    }
    ev.note_kernel_events(events);
    drop(held);
    Err(error)
}

/// The reduced loss of ATen's `double` accumulator: the rows summed, a mean divided by
/// their number.
fn batch_reduce(rows: &[f64], reduction: Reduction) -> f64 {
    let mut sum = 0.0;
    for v in rows {
        sum += v;
    }
    if reduction == Reduction::Mean {
        sum /= rows.len() as f64;
    }
    sum
}

/// The message of a non-tensor operand.
fn unsupported_input() -> ScriptError {
    ScriptError::Type("expected Tensor as element 0 in argument 0".into())
}

/// `F.multilabel_margin_loss(input, target)`: ATen's `multilabel_margin_loss_forward`: per
/// row, for each listed class `j` (up to the first `-1`) and each unlisted class `i`, the sum
/// of `max(0, 1 - x[j] + x[i])`, divided by the classes. Its `is_target` buffer (1 at the
/// listed classes, the input's dtype) is kept for the backward.
fn multilabel_margin_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = Value::Tensor(tensor_arg(call, "input")?);
    let target = Value::Tensor(tensor_arg(call, "target")?);
    let reduction = reduction_arg(ev, call)?;
    let (Some(x), Some(t)) = (input.as_tensor(), target.as_tensor()) else {
        return Err(unsupported_input());
    };
    let (nframe, dim) = frames(&x)?;
    let consistent = if x.ndim() <= 1 {
        t.ndim() <= 1 && t.numel() == dim as i64
    } else {
        t.shape() == [nframe as i64, dim as i64]
    };
    if !consistent {
        return Err(ScriptError::Runtime(format!(
            "inconsistent target size: {} for input of size: {}",
            sizes(t.shape()),
            sizes(x.shape())
        )));
    }
    // ATen sizes its output and `is_target` first, then checks `target.min()` and
    // `target.max()` (each a buffer, freed), then dispatches.
    let accumulate = reduction != Reduction::None || t.ndim() <= 1;
    let out_shape: &[i64] = if accumulate { &[] } else { &[nframe as i64] };
    let buffers = [(out_shape, x.dtype), (t.shape(), x.dtype)];
    let listed = host_values(ev, &t);
    let out_of_range = || ScriptError::Runtime("argument #2 'target' is out of range".into());
    if listed.iter().any(|&c| c < -1.0) {
        return failed_after(ev, &buffers, &[8, -8], out_of_range());
    }
    if listed.iter().any(|&c| c >= dim as f64) {
        return failed_after(ev, &buffers, &[8, -8, 8, -8], out_of_range());
    }
    let checked = kernel_dtype(&x, "multilabel_margin_loss_forward_out_frame")
        .and_then(|dtype| Ok((dtype, class_indices(ev, &t)?)));
    let (dtype, targets) = match checked {
        Ok(v) => v,
        Err(e) => return failed_after(ev, &buffers, &[8, -8, 8, -8], e),
    };
    let r = rounder(dtype);
    let xs = host_values(ev, &x);
    let mut is_target = vec![0.0; nframe * dim];
    let mut rows = Vec::with_capacity(nframe);
    for row in 0..nframe {
        let (values, listed) = (
            &xs[row * dim..(row + 1) * dim],
            &targets[row * dim..(row + 1) * dim],
        );
        let flags = &mut is_target[row * dim..(row + 1) * dim];
        for &c in listed.iter().take_while(|&&c| c >= 0) {
            flags[c as usize] = 1.0;
        }
        // The inner sum is an `accscalar_t` (`double`).
        let mut sum = 0.0;
        for &c in listed.iter().take_while(|&&c| c >= 0) {
            let xj = values[c as usize];
            for (d, &v) in values.iter().enumerate() {
                if flags[d] == 0.0 {
                    let z = r(r(1.0 - xj) + v);
                    if z > 0.0 {
                        sum += z;
                    }
                }
            }
        }
        // It returns the row's sum as a `scalar_t`.
        let sum = r(sum);
        rows.push(if accumulate { sum } else { r(sum / dim as f64) });
    }
    let out = if accumulate {
        let mut sum = 0.0;
        for v in &rows {
            sum += v;
        }
        sum /= dim as f64;
        if reduction == Reduction::Mean {
            sum /= nframe as f64;
        }
        fresh(ev, &[], dtype, &[sum], "multilabel_margin_loss")?
    } else {
        fresh(ev, &[nframe as i64], dtype, &rows, "multilabel_margin_loss")?
    };
    let flags = fresh(ev, t.shape(), dtype, &is_target, "multilabel_margin_loss")?;
    // `target.min()` and `target.max()`, checked and freed.
    ev.note_kernel_events(&[8, -8, 8, -8]);
    let args = [("reduction", &reduction_enum(reduction))];
    ev.record_grad(
        GradOp::Named {
            name: "multilabel_margin_loss",
            grad: &MULTILABEL_MARGIN_GRAD,
            args: &args,
        },
        &[&input, &target],
        &out,
    );
    ev.save_extras(&out, &[("is_target", &flags)]);
    Ok(out)
}

// ----- backward -----

const MULTI_MARGIN_GRAD: Grad = Grad::named("MultiMarginLossBackward0", &MULTI_MARGIN_LOSS);
const MULTILABEL_MARGIN_GRAD: Grad =
    Grad::named("MultilabelMarginLossBackward0", &MULTILABEL_MARGIN_LOSS);

/// `multi_margin_loss(Tensor self, Tensor target, Scalar p, Scalar margin, Tensor? weight,
/// int reduction)`.
pub(crate) static MULTI_MARGIN_LOSS: Formula = Formula {
    inputs: &["self", "target"],
    saves: &["self", "target"],
    args: &["margin", "p", "reduction"],
    backward: multi_margin_backward,
};

/// `multilabel_margin_loss_forward(Tensor self, Tensor target, int reduction)`.
pub(crate) static MULTILABEL_MARGIN_LOSS: Formula = Formula {
    inputs: &["self", "target"],
    saves: &["self", "target"],
    args: &["reduction"],
    backward: multilabel_margin_backward,
};

/// The incoming gradient's values (one for a 0-d gradient).
fn grad_values(ev: &mut Evaluator, b: &Backward) -> Vec<f64> {
    match b.grad.as_tensor() {
        Some(g) => host_values(ev, &g),
        None => vec![crate::interp::torch::autograd::number(b.grad).unwrap_or(1.0)],
    }
}

/// ATen's `g`: `1 / (nframe * dim)` for a mean, else `1 / dim`, in the dtype.
fn unit(reduction: Reduction, nframe: usize, dim: usize) -> f64 {
    if reduction == Reduction::Mean {
        1.0 / (nframe * dim) as f64
    } else {
        1.0 / dim as f64
    }
}

/// Each row's gradient times the incoming one (a scalar for a reduced or 0-d loss).
fn scale_rows(values: &mut [f64], gs: &[f64], dim: usize, r: &dyn Fn(f64) -> f64) {
    for (i, v) in values.iter_mut().enumerate() {
        let g = if gs.len() == 1 { gs[0] } else { gs[i / dim] };
        *v = r(*v * g);
    }
}

fn multi_margin_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let (Some(x), Some(t)) = (
        ev.saved_input(b, "self")?.as_tensor(),
        ev.saved_input(b, "target")?.as_tensor(),
    ) else {
        return Err(unsupported(b.node));
    };
    let (nframe, dim) = frames(&x)?;
    let dtype = x.dtype;
    let r = rounder(dtype);
    let p = b
        .arg("p")
        .and_then(crate::interp::torch::autograd::number)
        .unwrap_or(1.0);
    let margin = r(b
        .arg("margin")
        .and_then(crate::interp::torch::autograd::number)
        .unwrap_or(1.0));
    let g = r(unit(kept_reduction(b), nframe, dim));
    let ws = match ev.saved_input(b, "weight")? {
        Value::Tensor(w) => {
            let w = w.borrow().tensor.clone();
            Some(host_values(ev, &w))
        }
        _ => None,
    };
    let xs = host_values(ev, &x);
    let targets: Vec<i64> = host_values(ev, &t).iter().map(|&v| v as i64).collect();
    let mut values = vec![0.0; nframe * dim];
    for (row, &y) in targets.iter().enumerate().take(nframe) {
        let y = y.clamp(0, dim as i64 - 1) as usize;
        let (xr, gr) = (
            &xs[row * dim..(row + 1) * dim],
            &mut values[row * dim..(row + 1) * dim],
        );
        let mut grad_target = 0.0;
        for d in 0..dim {
            if d == y {
                continue;
            }
            let z = r(r(margin - xr[y]) + xr[d]);
            if z > 0.0 {
                let mut h = if p == 1.0 { g } else { r(r(2.0 * g) * z) };
                if let Some(ws) = &ws {
                    h = r(h * ws[y]);
                }
                grad_target = r(grad_target - h);
                gr[d] = h;
            }
        }
        gr[y] = grad_target;
    }
    let gs = grad_values(ev, b);
    scale_rows(&mut values, &gs, dim, &r);
    out[0] = Some(fresh(ev, x.shape(), dtype, &values, "backward")?);
    Ok(out)
}

fn multilabel_margin_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let (Some(x), Some(t)) = (
        ev.saved_input(b, "self")?.as_tensor(),
        ev.saved_input(b, "target")?.as_tensor(),
    ) else {
        return Err(unsupported(b.node));
    };
    let (nframe, dim) = frames(&x)?;
    let dtype = x.dtype;
    let r = rounder(dtype);
    let g = r(unit(kept_reduction(b), nframe, dim));
    let flags = match ev.saved_input(b, "is_target")? {
        Value::Tensor(f) => {
            let f = f.borrow().tensor.clone();
            host_values(ev, &f)
        }
        _ => vec![0.0; nframe * dim],
    };
    let xs = host_values(ev, &x);
    let targets: Vec<i64> = host_values(ev, &t).iter().map(|&v| v as i64).collect();
    let mut values = vec![0.0; nframe * dim];
    for row in 0..nframe {
        let span = row * dim..(row + 1) * dim;
        let (xr, listed, fr) = (
            &xs[span.clone()],
            &targets[span.clone()],
            &flags[span.clone()],
        );
        let gr = &mut values[span];
        for &c in listed.iter().take_while(|&&c| c >= 0) {
            let c = c as usize;
            for d in 0..dim {
                if fr[d] == 0.0 {
                    let z = r(r(1.0 - xr[c]) + xr[d]);
                    if z > 0.0 {
                        gr[c] = r(gr[c] - g);
                        gr[d] = r(gr[d] + g);
                    }
                }
            }
        }
    }
    let gs = grad_values(ev, b);
    scale_rows(&mut values, &gs, dim, &r);
    out[0] = Some(fresh(ev, x.shape(), dtype, &values, "backward")?);
    // `target.min()`/`max()` (int64) and `is_target.min()`/`max()` (the dtype), checked.
    let item = dtype.item_size() as i64;
    ev.note_kernel_events(&[8, -8, 8, -8, item, -item, item, -item]);
    Ok(out)
}
