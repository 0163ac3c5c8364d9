//! The losses PyTorch composes from other ops, composed here from the same ops in the same
//! order so that their values, autograd nodes, saved tensors and buffers are PyTorch's:
//! from ATen's C++ (`Loss.cpp`) `kl_div`, `margin_ranking_loss`, `hinge_embedding_loss`,
//! `cosine_embedding_loss`, `triplet_margin_loss` and `poisson_nll_loss` (a C++ expression's
//! temporaries live until its end, its right operand is evaluated first, its locals until
//! the function returns; `tensor + double` records `AddBackward1`, `double - tensor` is
//! `empty_like(t).fill_(d).sub_(t)`), and from `functional.py`
//! `triplet_margin_with_distance_loss`, `gaussian_nll_loss` and
//! `multilabel_soft_margin_loss` (Python's operators, temporaries freed at once).

use crate::core::tensor::ScriptError;
use crate::interp::python::repr::size_repr;
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::nn::functional::{functional, tensor_arg};
use crate::interp::torch::nn::losses_extra::{apply_reduction, legacy_reduction, reduction_arg};
use crate::interp::torch::ops::Reduction;
use crate::interp::torch::optim::call_torch;
use crate::interp::torch::registry::{OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(
        &["kl_div"],
        &["input, target, size_average=None, reduce=None, reduction='mean', log_target=False"],
        kl_div,
        Grad::UNTRACKED,
    ),
    functional(
        &["margin_ranking_loss"],
        &["input1, input2, target, margin=0, size_average=None, reduce=None, reduction='mean'"],
        margin_ranking_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["hinge_embedding_loss"],
        &["input, target, margin=1.0, size_average=None, reduce=None, reduction='mean'"],
        hinge_embedding_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["cosine_embedding_loss"],
        &["input1, input2, target, margin=0, size_average=None, reduce=None, reduction='mean'"],
        cosine_embedding_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["triplet_margin_loss"],
        &["anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None, reduce=None, reduction='mean'"],
        triplet_margin_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["triplet_margin_with_distance_loss"],
        &["anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction='mean'"],
        triplet_margin_with_distance_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["poisson_nll_loss"],
        &["input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction='mean'"],
        poisson_nll_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["gaussian_nll_loss"],
        &["input, target, var, full=False, eps=1e-6, reduction='mean'"],
        gaussian_nll_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["multilabel_soft_margin_loss"],
        &["input, target, weight=None, size_average=None, reduce=None, reduction='mean'"],
        multilabel_soft_margin_loss,
        Grad::UNTRACKED,
    ),
];

/// `recv.name(*pos)`.
fn m(ev: &mut Evaluator, recv: &Value, name: &str, pos: Vec<Value>) -> R<Value> {
    ev.method(recv.clone(), name, pos)
}

/// A tensor argument as a value.
fn tensor_value(call: &OpCall, name: &str) -> R<Value> {
    tensor_arg(call, name).map(Value::Tensor)
}

/// A tensor value's dimensions.
fn ndim(v: &Value) -> usize {
    v.as_tensor().map_or(0, |t| t.ndim())
}

/// A tensor value's shape.
fn shape(v: &Value) -> Vec<i64> {
    v.as_tensor()
        .map(|t| t.shape().to_vec())
        .unwrap_or_default()
}

/// A float argument of a call (a number, or a one-element tensor), or `default`.
fn float(ev: &mut Evaluator, call: &OpCall, name: &str, default: f64) -> R<f64> {
    ev.arg_float(call, name, default)
}

/// A flag argument by Python's truthiness.
fn flag(ev: &mut Evaluator, call: &OpCall, name: &str, default: bool) -> R<bool> {
    match call.value(name) {
        Some(v) => {
            let v = v.clone();
            ev.truthy(&v)
        }
        None => Ok(default),
    }
}

/// C++'s `tensor <op> double` (`add`/`sub`/`mul` with a `Scalar`): the op's `Backward1`
/// node, which keeps no tensor.
fn with_scalar(ev: &mut Evaluator, op: BinOp, t: &Value, x: f64) -> R<Value> {
    let out = ev.binary(op, t.clone(), Value::Float(x))?;
    let node = match op {
        BinOp::Add => "AddBackward1",
        BinOp::Sub => "SubBackward1",
        _ => "MulBackward1",
    };
    ev.rename_node(&out, node);
    Ok(out)
}

/// C++'s `double - tensor`: `empty_like(t).fill_(d).sub_(t)` (a `SubBackward0` on the
/// filled tensor).
fn scalar_minus(ev: &mut Evaluator, x: f64, t: &Value) -> R<Value> {
    let out = call_torch(ev, "empty_like", vec![t.clone()], vec![])?;
    m(ev, &out, "fill_", vec![Value::Float(x)])?;
    m(ev, &out, "sub_", vec![t.clone()])?;
    Ok(out)
}

/// The reduction of a loss that keeps `size_average`/`reduce` (the legacy flags win).
fn reduction_of(ev: &mut Evaluator, call: &OpCall) -> R<Reduction> {
    reduction_arg(ev, call)
}

/// `F.kl_div(input, target, reduction='mean', log_target=False)`: ATen's `xlogy(target,
/// target) - target * input` (or `exp(target) * (target - input)`) reduced; `'batchmean'`
/// sums and divides by the batch size in Python.
fn kl_div(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_value(call, "input")?;
    let target = tensor_value(call, "target")?;
    let (size_average, reduce) = (call.value("size_average"), call.value("reduce"));
    let mut batchmean = false;
    let reduction = if size_average.is_some() || reduce.is_some() {
        Reduction::parse(legacy_reduction(ev, size_average, reduce)?)?
    } else {
        let name = match call.value("reduction") {
            Some(Value::Str(r)) => r.to_string(),
            Some(other) => {
                let other = other.clone();
                ev.str_of(&other)?
            }
            None => "mean".into(),
        };
        if name == "mean" {
            ev.recorder.warn("UserWarning: reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed to behave the same as 'batchmean' in the next major release.".into());
        }
        if name == "batchmean" {
            batchmean = true;
            Reduction::Sum
        } else {
            Reduction::parse(&name)?
        }
    };
    let log_target = flag(ev, call, "log_target", false)?;
    let dtypes = [&input, &target].map(|v| v.as_tensor().map(|t| t.dtype));
    if dtypes.iter().flatten().any(|d| d.is_complex()) {
        return Err(ScriptError::Runtime(
            "kl_div: Complex inputs not supported.".into(),
        ));
    }
    if dtypes.iter().flatten().any(|d| !d.is_floating()) {
        return Err(ScriptError::Runtime(
            "kl_div: Integral inputs not supported.".into(),
        ));
    }
    let output = if log_target {
        let diff = ev.binary(BinOp::Sub, target.clone(), input.clone())?;
        let e = m(ev, &target, "exp", vec![])?;
        let out = ev.binary(BinOp::Mul, e.clone(), diff.clone());
        drop((diff, e));
        out?
    } else {
        let product = ev.binary(BinOp::Mul, target.clone(), input.clone())?;
        let xl = m(ev, &target, "xlogy", vec![target.clone()])?;
        let out = ev.binary(BinOp::Sub, xl.clone(), product.clone());
        drop((product, xl));
        out?
    };
    let reduced = apply_reduction(ev, output.clone(), reduction);
    drop(output);
    let reduced = reduced?;
    match shape(&input).first() {
        Some(&batch) if batchmean => ev.binary(BinOp::Div, reduced, Value::Int(batch)),
        _ => Ok(reduced),
    }
}

/// `F.margin_ranking_loss(input1, input2, target, margin=0)`: `(-target * (input1 - input2)
/// + margin).clamp_min_(0)`, reduced.
fn margin_ranking_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let x1 = tensor_value(call, "input1")?;
    let x2 = tensor_value(call, "input2")?;
    let target = tensor_value(call, "target")?;
    let reduction = reduction_of(ev, call)?;
    if ndim(&x1) != ndim(&x2) || ndim(&x1) != ndim(&target) {
        return Err(ScriptError::Runtime(format!(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: {}, input2: {}, target: {} ",
            size_repr(&shape(&x1)),
            size_repr(&shape(&x2)),
            size_repr(&shape(&target))
        )));
    }
    let margin = float(ev, call, "margin", 0.0)?;
    let diff = ev.binary(BinOp::Sub, x1, x2)?;
    let negated = ev.neg_value(&target)?;
    let product = ev.binary(BinOp::Mul, negated.clone(), diff.clone())?;
    let unclamped = with_scalar(ev, BinOp::Add, &product, margin);
    drop((product, negated, diff));
    let unclamped = unclamped?;
    m(ev, &unclamped, "clamp_min_", vec![Value::Int(0)])?;
    let out = apply_reduction(ev, unclamped.clone(), reduction);
    drop(unclamped);
    out
}

/// `F.hinge_embedding_loss(input, target, margin=1.0)`: `where(target != 1, (margin -
/// input).clamp_min_(0), 0) + where(target != -1, input, 0)`, reduced.
fn hinge_embedding_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_value(call, "input")?;
    let target = tensor_value(call, "target")?;
    let reduction = reduction_of(ev, call)?;
    let margin = float(ev, call, "margin", 1.0)?;
    let zeros = call_torch(ev, "zeros_like", vec![input.clone()], vec![])?;
    let margin_clamp = scalar_minus(ev, margin, &input)?;
    m(ev, &margin_clamp, "clamp_min_", vec![Value::Int(0)])?;
    let not_one = ev.binary(BinOp::Ne, target.clone(), Value::Int(1))?;
    let output_margin = call_torch(
        ev,
        "where",
        vec![not_one, margin_clamp.clone(), zeros.clone()],
        vec![],
    )?;
    let not_minus_one = ev.binary(BinOp::Ne, target, Value::Int(-1))?;
    let output_self = call_torch(
        ev,
        "where",
        vec![not_minus_one, input, zeros.clone()],
        vec![],
    )?;
    let output = ev.binary(BinOp::Add, output_margin.clone(), output_self.clone())?;
    let out = apply_reduction(ev, output.clone(), reduction);
    drop((zeros, margin_clamp, output_margin, output_self, output));
    out
}

/// ATen's `EPSILON` of `cosine_embedding_loss`.
const EPSILON: f64 = 1e-12;

/// `F.cosine_embedding_loss(input1, input2, target, margin=0)`: the cosine from the summed
/// products (squares plus `EPSILON`, `sqrt_` of their product), `1 - cos` where the target
/// is 1 and `(cos - margin).clamp_min_(0)` where it is -1, reduced.
fn cosine_embedding_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let x1 = tensor_value(call, "input1")?;
    let x2 = tensor_value(call, "input2")?;
    let target = tensor_value(call, "target")?;
    let reduction = reduction_of(ev, call)?;
    let margin = float(ev, call, "margin", 0.0)?;
    let targ_dim = ndim(&target);
    let sizes = |v: &Value| {
        let s: Vec<String> = shape(v).iter().map(i64::to_string).collect();
        format!("[{}]", s.join(", "))
    };
    match targ_dim {
        1 if ndim(&x1) != 2 || ndim(&x2) != 2 => {
            return Err(ScriptError::Runtime(format!(
                "1D target tensor expects 2D input tensors, but found inputs with sizes {} and {}.",
                sizes(&x1),
                sizes(&x2)
            )))
        }
        0 if ndim(&x1) != 1 || ndim(&x2) != 1 => {
            return Err(ScriptError::Runtime(format!(
                "0D target tensor expects 1D input tensors, but found inputs with sizes {} and {}.",
                sizes(&x1),
                sizes(&x2)
            )))
        }
        0 | 1 => {}
        _ => {
            return Err(ScriptError::Runtime(
                "0D or 1D target tensor expected, multi-target not supported".into(),
            ))
        }
    }
    let dim = vec![Value::Int(targ_dim as i64)];
    let summed = |ev: &mut Evaluator, a: &Value, b: &Value| -> R<Value> {
        let product = ev.binary(BinOp::Mul, a.clone(), b.clone())?;
        let out = m(ev, &product, "sum", dim.clone());
        drop(product);
        out
    };
    let prod_sum = summed(ev, &x1, &x2)?;
    let square = |ev: &mut Evaluator, a: &Value| -> R<Value> {
        let product = ev.binary(BinOp::Mul, a.clone(), a.clone())?;
        let sum = m(ev, &product, "sum", dim.clone())?;
        let out = with_scalar(ev, BinOp::Add, &sum, EPSILON);
        drop((sum, product));
        out
    };
    let mag_square1 = square(ev, &x1)?;
    let mag_square2 = square(ev, &x2)?;
    let denom = ev.binary(BinOp::Mul, mag_square1.clone(), mag_square2.clone())?;
    m(ev, &denom, "sqrt_", vec![])?;
    let cos = ev.binary(BinOp::Div, prod_sum.clone(), denom.clone())?;
    let zeros = call_torch(ev, "zeros_like", vec![cos.clone()], vec![])?;
    let pos = scalar_minus(ev, 1.0, &cos)?;
    let neg = with_scalar(ev, BinOp::Sub, &cos, margin)?;
    m(ev, &neg, "clamp_min_", vec![Value::Int(0)])?;
    let is_pos = ev.binary(BinOp::Eq, target.clone(), Value::Int(1))?;
    let output_pos = call_torch(
        ev,
        "where",
        vec![is_pos, pos.clone(), zeros.clone()],
        vec![],
    )?;
    let is_neg = ev.binary(BinOp::Eq, target, Value::Int(-1))?;
    let output_neg = call_torch(
        ev,
        "where",
        vec![is_neg, neg.clone(), zeros.clone()],
        vec![],
    )?;
    let output = ev.binary(BinOp::Add, output_pos.clone(), output_neg.clone())?;
    let out = apply_reduction(ev, output.clone(), reduction);
    drop((output, output_neg, output_pos, neg, pos, zeros, cos));
    drop((denom, mag_square2, mag_square1, prod_sum));
    out
}

/// The dimensions check of both triplet losses.
fn check_triplet_dims(a: &Value, p: &Value, n: &Value) -> R<()> {
    let (da, dp, dn) = (ndim(a), ndim(p), ndim(n));
    if da == dp && dp == dn {
        return Ok(());
    }
    Err(ScriptError::Runtime(format!(
        "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: anchor {da}D, positive {dp}D, and negative {dn}D inputs"
    )))
}

/// `functional.py`'s `margin <= 0` check of both triplet losses.
fn check_margin(ev: &mut Evaluator, call: &OpCall, margin: f64) -> R<()> {
    if margin > 0.0 {
        return Ok(());
    }
    let text = match call.value("margin") {
        Some(v) => {
            let v = v.clone();
            ev.str_of(&v)?
        }
        None => "1.0".into(),
    };
    Err(ScriptError::Value(format!(
        "margin must be greater than 0, got {text}"
    )))
}

/// `F.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6,
/// swap=False)`: ATen's `clamp_min(margin + d(a, p) - d(a, n), 0)` of pairwise distances
/// (`min` with `d(p, n)` under `swap`), reduced.
fn triplet_margin_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let anchor = tensor_value(call, "anchor")?;
    let positive = tensor_value(call, "positive")?;
    let negative = tensor_value(call, "negative")?;
    let reduction = reduction_of(ev, call)?;
    let margin = float(ev, call, "margin", 1.0)?;
    check_margin(ev, call, margin)?;
    let p = float(ev, call, "p", 2.0)?;
    let eps = float(ev, call, "eps", 1e-6)?;
    let swap = flag(ev, call, "swap", false)?;
    check_triplet_dims(&anchor, &positive, &negative)?;
    let distance = |ev: &mut Evaluator, a: &Value, b: &Value| {
        call_torch(
            ev,
            "pairwise_distance",
            vec![a.clone(), b.clone(), Value::Float(p), Value::Float(eps)],
            vec![],
        )
    };
    let dist_pos = distance(ev, &anchor, &positive)?;
    let mut dist_neg = distance(ev, &anchor, &negative)?;
    let mut dist_swap = None;
    if swap {
        let d = distance(ev, &positive, &negative)?;
        dist_neg = call_torch(ev, "min", vec![dist_neg, d.clone()], vec![])?;
        dist_swap = Some(d);
    }
    let shifted = with_scalar(ev, BinOp::Add, &dist_pos, margin)?;
    let gap = ev.binary(BinOp::Sub, shifted.clone(), dist_neg.clone())?;
    let output = call_torch(ev, "clamp_min", vec![gap.clone(), Value::Int(0)], vec![]);
    drop((gap, shifted));
    let output = output?;
    let out = apply_reduction(ev, output.clone(), reduction);
    drop((output, dist_swap, dist_neg, dist_pos));
    out
}

/// `F.triplet_margin_with_distance_loss(anchor, positive, negative, *,
/// distance_function=None, margin=1.0, swap=False, reduction='mean')`, as `functional.py`
/// writes it (`torch.pairwise_distance` when no function is given).
fn triplet_margin_with_distance_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let anchor = tensor_value(call, "anchor")?;
    let positive = tensor_value(call, "positive")?;
    let negative = tensor_value(call, "negative")?;
    let reduction = match call.value("reduction") {
        Some(Value::Str(r)) if matches!(r.as_str(), "mean" | "sum" | "none") => {
            Reduction::parse(r)?
        }
        None => Reduction::Mean,
        Some(other) => {
            let other = other.clone();
            return Err(ScriptError::Value(format!(
                "{} is not a valid value for reduction",
                ev.str_of(&other)?
            )));
        }
    };
    let margin_value = call.value("margin").cloned().unwrap_or(Value::Float(1.0));
    let margin = float(ev, call, "margin", 1.0)?;
    check_margin(ev, call, margin)?;
    let swap = flag(ev, call, "swap", false)?;
    check_triplet_dims(&anchor, &positive, &negative)?;
    let function = call.value("distance_function").cloned();
    let distance = |ev: &mut Evaluator, a: &Value, b: &Value| match &function {
        Some(f) => ev.call(f.clone(), vec![a.clone(), b.clone()], vec![]),
        None => call_torch(ev, "pairwise_distance", vec![a.clone(), b.clone()], vec![]),
    };
    let dist_pos = distance(ev, &anchor, &positive)?;
    let mut dist_neg = distance(ev, &anchor, &negative)?;
    if swap {
        let dist_swap = distance(ev, &positive, &negative)?;
        dist_neg = call_torch(ev, "minimum", vec![dist_neg, dist_swap], vec![])?;
    }
    let shifted = ev.binary(BinOp::Add, margin_value, dist_pos)?;
    let gap = ev.binary(BinOp::Sub, shifted, dist_neg)?;
    let loss = call_torch(ev, "clamp_min", vec![gap, Value::Int(0)], vec![])?;
    match reduction {
        Reduction::Sum => call_torch(ev, "sum", vec![loss], vec![]),
        Reduction::Mean => call_torch(ev, "mean", vec![loss], vec![]),
        Reduction::None => Ok(loss),
    }
}

/// `F.poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8)`: ATen's
/// `exp(input) - target * input` (or `input - target * log(input + eps)`), plus with `full`
/// the Stirling term where the target is above 1, reduced.
fn poisson_nll_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_value(call, "input")?;
    let target = tensor_value(call, "target")?;
    let (size_average, reduce) = (call.value("size_average"), call.value("reduce"));
    let reduction = if size_average.is_some() || reduce.is_some() {
        legacy_reduction(ev, size_average, reduce)?.to_string()
    } else {
        match call.value("reduction") {
            Some(Value::Str(r)) => r.to_string(),
            Some(other) => {
                let other = other.clone();
                ev.str_of(&other)?
            }
            None => "mean".into(),
        }
    };
    if !matches!(reduction.as_str(), "none" | "mean" | "sum") {
        return Err(ScriptError::Value(format!(
            "{reduction} is not a valid value for reduction"
        )));
    }
    let reduction = Reduction::parse(&reduction)?;
    let log_input = flag(ev, call, "log_input", true)?;
    let full = flag(ev, call, "full", false)?;
    let eps = float(ev, call, "eps", 1e-8)?;
    let loss = if log_input {
        let product = ev.binary(BinOp::Mul, target.clone(), input.clone())?;
        let e = m(ev, &input, "exp", vec![])?;
        let out = ev.binary(BinOp::Sub, e.clone(), product.clone());
        drop((e, product));
        out?
    } else {
        let shifted = with_scalar(ev, BinOp::Add, &input, eps)?;
        let log = m(ev, &shifted, "log", vec![])?;
        let product = ev.binary(BinOp::Mul, target.clone(), log.clone())?;
        let out = ev.binary(BinOp::Sub, input.clone(), product.clone());
        drop((product, log, shifted));
        out?
    };
    if full {
        // `target * log(target) - target + 0.5 * log(2 * pi * target)`, its right side first.
        let scaled = with_scalar(ev, BinOp::Mul, &target, 2.0 * std::f64::consts::PI)?;
        let log_scaled = m(ev, &scaled, "log", vec![])?;
        let half = with_scalar(ev, BinOp::Mul, &log_scaled, 0.5)?;
        let log_target = m(ev, &target, "log", vec![])?;
        let t_log_t = ev.binary(BinOp::Mul, target.clone(), log_target.clone())?;
        let less = ev.binary(BinOp::Sub, t_log_t.clone(), target.clone())?;
        let stirling = ev.binary(BinOp::Add, less.clone(), half.clone())?;
        drop((less, t_log_t, log_target, half, log_scaled, scaled));
        let small = ev.binary(BinOp::Le, target.clone(), Value::Int(1))?;
        let masked = m(
            ev,
            &stirling,
            "masked_fill",
            vec![small.clone(), Value::Int(0)],
        )?;
        m(ev, &loss, "add_", vec![masked.clone()])?;
        drop((masked, small, stirling));
    }
    let out = apply_reduction(ev, loss.clone(), reduction);
    drop(loss);
    out
}

/// `F.gaussian_nll_loss(input, target, var, full=False, eps=1e-6)` as `functional.py`
/// writes it: the variance checked, broadcast, cloned and clamped (without grad), then
/// `0.5 * (log(var) + (input - target) ** 2 / var)` (plus the constant with `full`).
fn gaussian_nll_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_value(call, "input")?;
    let target = tensor_value(call, "target")?;
    let full = flag(ev, call, "full", false)?;
    let eps = float(ev, call, "eps", 1e-6)?;
    let negative = || ScriptError::Value("var has negative entry/entries".into());
    let mut var = match call.value("var").cloned() {
        Some(Value::Float(v)) => {
            if v < 0.0 {
                return Err(negative());
            }
            let ones = call_torch(ev, "ones_like", vec![input.clone()], vec![])?;
            ev.binary(BinOp::Mul, Value::Float(v), ones)?
        }
        Some(v @ Value::Tensor(_)) => {
            let below = ev.binary(BinOp::Lt, v.clone(), Value::Int(0))?;
            let any = call_torch(ev, "any", vec![below], vec![])?;
            if ev.truthy(&any)? {
                return Err(negative());
            }
            v
        }
        Some(other) => {
            let below = ev.binary(BinOp::Lt, other, Value::Int(0))?;
            call_torch(ev, "any", vec![below], vec![])?
        }
        None => {
            return Err(ScriptError::Type(
                "gaussian_nll_loss() missing 1 required positional argument: 'var'".into(),
            ))
        }
    };
    let (input_shape, var_shape) = (shape(&input), shape(&var));
    if var_shape != input_shape {
        let heteroscedastic = input_shape.len() == var_shape.len()
            && input_shape
                .iter()
                .zip(&var_shape)
                .filter(|(x, y)| x != y)
                .map(|(_, y)| *y)
                .sum::<i64>()
                == 1;
        if input_shape.split_last().map(|(_, rest)| rest) == Some(var_shape.as_slice()) {
            var = call_torch(ev, "unsqueeze", vec![var, Value::Int(-1)], vec![])?;
        } else if !heteroscedastic {
            return Err(ScriptError::Value("var is of incorrect size".into()));
        }
    }
    let reduction = match call.value("reduction") {
        Some(Value::Str(r)) => r.to_string(),
        Some(other) => {
            let other = other.clone();
            ev.str_of(&other)?
        }
        None => "mean".into(),
    };
    if !matches!(reduction.as_str(), "none" | "mean" | "sum") {
        return Err(ScriptError::Value(format!("{reduction} is not valid")));
    }
    let var = m(ev, &var, "clone", vec![])?;
    let before = ev.torch.grad_enabled;
    ev.torch.grad_enabled = false;
    let clamped = ev.call(
        Value::Method(Box::new(var.clone()), "clamp_".into()),
        vec![],
        vec![("min".into(), Value::Float(eps))],
    );
    ev.torch.grad_enabled = before;
    clamped?;
    let log = call_torch(ev, "log", vec![var.clone()], vec![])?;
    let diff = ev.binary(BinOp::Sub, input, target)?;
    let squared = ev.binary(BinOp::Pow, diff, Value::Int(2))?;
    let ratio = ev.binary(BinOp::Div, squared, var)?;
    let inner = ev.binary(BinOp::Add, log, ratio)?;
    let loss = ev.binary(BinOp::Mul, Value::Float(0.5), inner)?;
    if full {
        let constant = 0.5 * (2.0 * std::f64::consts::PI).ln();
        m(ev, &loss, "add_", vec![Value::Float(constant)])?;
    }
    apply_reduction(ev, loss, Reduction::parse(&reduction)?)
}

/// `F.multilabel_soft_margin_loss(input, target, weight=None)` as `functional.py` writes it:
/// `-(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))` (times the weight),
/// summed over the classes and divided by their number, then reduced (an invalid reduction
/// raises after the loss is computed).
fn multilabel_soft_margin_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_value(call, "input")?;
    let target = tensor_value(call, "target")?;
    let (size_average, reduce) = (call.value("size_average"), call.value("reduce"));
    let reduction = if size_average.is_some() || reduce.is_some() {
        legacy_reduction(ev, size_average, reduce)?.to_string()
    } else {
        match call.value("reduction") {
            Some(Value::Str(r)) => r.to_string(),
            Some(other) => {
                let other = other.clone();
                ev.str_of(&other)?
            }
            None => "mean".into(),
        }
    };
    let logsigmoid = |ev: &mut Evaluator, x: Value| {
        crate::interp::torch::nn::layers::functional(ev, "logsigmoid", vec![x], vec![])
    };
    let positive = {
        let ls = logsigmoid(ev, input.clone())?;
        ev.binary(BinOp::Mul, target.clone(), ls)?
    };
    let negative = {
        let rest = ev.binary(BinOp::Sub, Value::Int(1), target)?;
        let flipped = ev.neg_value(&input)?;
        let ls = logsigmoid(ev, flipped)?;
        ev.binary(BinOp::Mul, rest, ls)?
    };
    let both = ev.binary(BinOp::Add, positive, negative)?;
    let mut loss = ev.neg_value(&both)?;
    drop(both);
    if let Some(w @ Value::Tensor(_)) = call.value("weight") {
        loss = ev.binary(BinOp::Mul, loss, w.clone())?;
    }
    let class_dim = ndim(&input).saturating_sub(1);
    let classes = shape(&input).get(class_dim).copied().unwrap_or(1);
    let summed = ev.call(
        Value::Method(Box::new(loss), "sum".into()),
        vec![],
        vec![("dim".into(), Value::Int(class_dim as i64))],
    )?;
    let loss = ev.binary(BinOp::Div, summed, Value::Int(classes))?;
    match reduction.as_str() {
        "none" => Ok(loss),
        "mean" => m(ev, &loss, "mean", vec![]),
        "sum" => m(ev, &loss, "sum", vec![]),
        other => Err(ScriptError::Value(format!("{other} is not valid"))),
    }
}
