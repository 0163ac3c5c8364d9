//! The losses of `torch.nn.functional` (`nll_loss`, `cross_entropy`, `binary_cross_entropy`
//! with and without logits, `mse_loss`): entries of the op table with their rules and
//! backward formulas (the kernels are in the `losses` family of [`crate::interp::torch::ops`]).

use crate::core::tensor::{DType, Layout, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::backward::{scalar, unsupported};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::{number as value_number, Grad, GradOp};
use crate::interp::torch::nn::functional::{functional, number, tensor_arg};
use crate::interp::torch::ops::Reduction;
use crate::interp::torch::registry::{OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(
        &["nll_loss"],
        &["input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean'"],
        nll_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["cross_entropy"],
        &["input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean', label_smoothing=0.0"],
        nll_loss,
        Grad::UNTRACKED,
    ),
    functional(
        &["binary_cross_entropy"],
        &["input, target, weight=None, size_average=None, reduce=None, reduction='mean'"],
        binary_cross_entropy,
        Grad::UNTRACKED,
    ),
    functional(
        &["binary_cross_entropy_with_logits"],
        &["input, target, weight=None, size_average=None, reduce=None, reduction='mean', pos_weight=None"],
        binary_cross_entropy,
        Grad::UNTRACKED,
    ),
    functional(
        &["mse_loss"],
        &["input, target, size_average=None, reduce=None, reduction='mean', weight=None"],
        mse_loss,
        Grad::formula(&MSE_LOSS),
    ),
];

/// A loss's `reduction=` (`'mean'` when not given).
fn reduction_of(call: &OpCall) -> R<Reduction> {
    match call.value("reduction") {
        Some(Value::Str(r)) => Reduction::parse(r),
        _ => Ok(Reduction::Mean),
    }
}

/// `F.nll_loss` and `F.cross_entropy` (`nll_loss` of `log_softmax`) of class indices.
fn nll_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let name = call.name.as_str();
    let input = tensor_arg(call, "input")?;
    let target = tensor_arg(call, "target")?;
    let weight = match call.value("weight") {
        Some(Value::Tensor(w)) => Some(Value::Tensor(w.clone())),
        _ => None,
    };
    let classes = {
        let x = input.borrow();
        match x.tensor.shape() {
            [c] | [_, c] => *c,
            _ => 0,
        }
    };
    let smoothing = if name == "cross_entropy" {
        number(call, "label_smoothing", 0.0)
    } else {
        0.0
    };
    if !(0.0..=1.0).contains(&smoothing) {
        return Err(ScriptError::Runtime(format!(
            "label_smoothing must be between 0.0 and 1.0. Got: {smoothing}"
        )));
    }
    let ignore_index = number(call, "ignore_index", -100.0) as i64;
    let reduction = reduction_of(call)?;
    let mut log_probs = Value::Tensor(input);
    if name == "cross_entropy" {
        // `nll_loss(log_softmax(input, 1), target)`: two nodes, the first keeping its result.
        let x = tensor_of(&log_probs)?;
        let dim = if x.ndim() == 1 { 0 } else { 1 };
        let out = Value::tensor(ev.softmax(&x, dim, None, true)?, "log_softmax", None);
        let dim_v = Value::Int(dim);
        ev.record_grad(
            GradOp::Named {
                name: "log_softmax",
                grad: &CROSS_ENTROPY_LOG_SOFTMAX,
                args: &[("dim", &dim_v)],
            },
            &[&log_probs],
            &out,
        );
        log_probs = out;
    }
    // ATen checks the weights in `nll_loss`, after `log_softmax` ran.
    let weights: Option<Vec<f64>> = match &weight {
        Some(w) => {
            let w = tensor_of(w)?;
            if w.ndim() != 1 || w.numel() != classes {
                return Err(ScriptError::Runtime(format!(
                    "weight tensor should be defined either for all {classes} classes or no classes but got weight tensor of shape: [{}]",
                    w.shape().iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
                )));
            }
            Some(ev.nn_read_host(&w))
        }
        None => None,
    };
    let t = tensor_of(&log_probs)?;
    let target_v = Value::Tensor(target);
    let out = ev.nll_loss(
        &t,
        &tensor_of(&target_v)?,
        weights.as_deref(),
        ignore_index,
        reduction,
    )?;
    // ATen's second output, the total weight of the counted targets (a 0-d tensor), which
    // `NllLossBackward0` keeps.
    let counted: f64 = ev
        .engine
        .values(&tensor_of(&target_v)?)
        .iter()
        .map(|v| v.to_f64() as i64)
        .filter(|&c| c != ignore_index)
        .map(|c| match &weights {
            Some(w) => w.get(c.max(0) as usize).copied().unwrap_or(0.0),
            None => 1.0,
        })
        .sum();
    let total = ev.full(
        &[],
        t.dtype.round(Scalar::Float(counted)),
        t.dtype,
        "nll_loss",
    )?;
    let total = Value::tensor(total, "nll_loss", None);
    let given: Vec<(&str, Value)> = ["reduction", "ignore_index"]
        .into_iter()
        .filter_map(|k| call.value(k).map(|v| (k, v.clone())))
        .collect();
    let args: Vec<(&str, &Value)> = given.iter().map(|(k, v)| (*k, v)).collect();
    ev.record_grad(
        GradOp::Named {
            name: "nll_loss",
            grad: &NLL_LOSS_GRAD,
            args: &args,
        },
        &[&log_probs, &target_v],
        &out,
    );
    match &weight {
        Some(w) => ev.save_extras(&out, &[("total_weight", &total), ("weight", w)]),
        None => ev.save_extras(&out, &[("total_weight", &total)]),
    }
    drop(total);
    if smoothing > 0.0 {
        return label_smoothed(
            ev,
            &log_probs,
            &target_v,
            weight.as_ref(),
            out,
            smoothing,
            ignore_index,
            reduction,
        );
    }
    Ok(out)
}

/// `cross_entropy` with `label_smoothing` of class indices, as ATen composes it: the
/// `nll_loss` of the log-probabilities, the smoothing term `-(log_probs [* weight]).sum(1)`
/// with the ignored rows zeroed and reduced like the loss (a weighted mean divides by the
/// counted rows' weights), and `(1 - s) * nll + smooth * (s / classes)`.
#[allow(clippy::too_many_arguments)]
fn label_smoothed(
    ev: &mut Evaluator,
    log_probs: &Value,
    target_v: &Value,
    weight: Option<&Value>,
    nll: Value,
    smoothing: f64,
    ignore_index: i64,
    reduction: Reduction,
) -> R<Value> {
    let x = tensor_of(log_probs)?;
    let class_dim = if x.ndim() == 1 { 0 } else { 1 };
    let classes = x.shape().get(class_dim).copied().unwrap_or(1);
    let m = |ev: &mut Evaluator, v: &Value, name: &str, pos: Vec<Value>| {
        ev.call(Value::Method(Box::new(v.clone()), name.into()), pos, vec![])
    };
    // ATen's order: the smoothing sum (its weighted product freed after the negation), then
    // the ignore mask; a mean's divisor before the sum it divides.
    let (summed, weighted) = match weight {
        Some(w) => {
            let shape: Vec<Value> = (0..x.ndim())
                .map(|d| Value::Int(if d == class_dim { classes } else { 1 }))
                .collect();
            let w_view = m(ev, w, "view", shape)?;
            let weighted = ev.binary(BinOp::Mul, log_probs.clone(), w_view)?;
            let summed = m(ev, &weighted, "sum", vec![Value::Int(class_dim as i64)])?;
            (summed, Some(weighted))
        }
        None => (
            m(ev, log_probs, "sum", vec![Value::Int(class_dim as i64)])?,
            None,
        ),
    };
    let smooth = ev.neg_value(&summed)?;
    drop(summed);
    drop(weighted);
    let ignore_mask = ev.binary(BinOp::Eq, target_v.clone(), Value::Int(ignore_index))?;
    m(
        ev,
        &smooth,
        "masked_fill_",
        vec![ignore_mask.clone(), Value::Float(0.0)],
    )?;
    let ret = match reduction {
        Reduction::Mean => {
            let kept = m(ev, &ignore_mask, "logical_not", vec![])?;
            let divisor = match weight {
                Some(w) => {
                    let picked = m(ev, target_v, "masked_select", vec![kept.clone()])?;
                    let flat = m(ev, &picked, "flatten", vec![])?;
                    let gathered = m(ev, w, "gather", vec![Value::Int(0), flat])?;
                    m(ev, &gathered, "sum", vec![])?
                }
                None => m(ev, &kept, "sum", vec![])?,
            };
            let total = m(ev, &smooth, "sum", vec![])?;
            ev.binary(BinOp::Div, total, divisor)?
        }
        Reduction::Sum => m(ev, &smooth, "sum", vec![])?,
        Reduction::None => smooth.clone(),
    };
    // The loss, the smoothing term and the mask are ATen's locals: freed after the sum.
    let kept_nll = scalar_times(ev, &nll, 1.0 - smoothing)?;
    let kept_smooth = scalar_times(ev, &ret, smoothing / classes as f64)?;
    let out = ev.binary(BinOp::Add, kept_nll, kept_smooth);
    drop((nll, ret, smooth, ignore_mask));
    out
}

/// `tensor * factor` for a C++ `double`: a `MulBackward1` node, which keeps the number.
fn scalar_times(ev: &mut Evaluator, x: &Value, factor: f64) -> R<Value> {
    let out = ev.binary(BinOp::Mul, x.clone(), Value::Float(factor))?;
    ev.rename_node(&out, "MulBackward1");
    Ok(out)
}

/// The tensor of a value the rule made or took.
fn tensor_of(v: &Value) -> R<Tensor> {
    v.as_tensor()
        .ok_or_else(|| ScriptError::Runtime("nll_loss: expected a tensor".into()))
}

/// `nll_loss`'s node.
const NLL_LOSS_GRAD: Grad = Grad::named("NllLossBackward0", &NLL_LOSS);
/// The `log_softmax` node `cross_entropy` records (its backward rounds as ATen's fused one).
const CROSS_ENTROPY_LOG_SOFTMAX: Grad = Grad::named(
    "LogSoftmaxBackward0",
    &crate::interp::torch::nn::activation_backward::CROSS_ENTROPY_LOG_SOFTMAX,
);

/// `F.binary_cross_entropy` and `F.binary_cross_entropy_with_logits`.
fn binary_cross_entropy(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let name = call.name.as_str();
    let input = tensor_arg(call, "input")?;
    let target = tensor_arg(call, "target")?;
    let reduction = reduction_of(call)?;
    let weight = match call.value("weight") {
        Some(Value::Tensor(w)) => Some(Value::Tensor(w.clone())),
        _ => None,
    };
    let pos_weight = match call.value("pos_weight") {
        Some(Value::Tensor(w)) if name == "binary_cross_entropy_with_logits" => {
            Some(Value::Tensor(w.clone()))
        }
        _ => None,
    };
    let input_v = Value::Tensor(input.clone());
    // `F.binary_cross_entropy` expands its weight to the target's size first (the node keeps
    // that view); the logits form passes it on as given.
    let weight = match weight {
        Some(w) if name == "binary_cross_entropy" => Some(ev.call(
            Value::Method(Box::new(w), "expand_as".into()),
            vec![Value::Tensor(target.clone())],
            vec![],
        )?),
        other => other,
    };
    let mut spread = |w: &Option<Value>| -> R<Option<Vec<f64>>> {
        let Some(w) = w else { return Ok(None) };
        let wide = ev.call(
            Value::Method(Box::new(w.clone()), "expand_as".into()),
            vec![input_v.clone()],
            vec![],
        )?;
        let wide = tensor_of(&wide)?;
        Ok(Some(
            ev.engine
                .values(&wide)
                .into_iter()
                .map(Scalar::to_f64)
                .collect(),
        ))
    };
    let weights = spread(&weight)?;
    let pos_weights = spread(&pos_weight)?;
    let (x, y) = (
        input.borrow().tensor.clone(),
        target.borrow().tensor.clone(),
    );
    let logits = name == "binary_cross_entropy_with_logits";
    // The logits form first runs `log_sigmoid` (its output, and a buffer it frees), whose
    // output lives until the loss returns.
    let log_sigmoid = if logits {
        let t = ev.empty(x.shape(), x.dtype, MemoryFormat::Contiguous, name)?;
        let buffer = t.numel().max(0) * x.dtype.item_size() as i64;
        let mut events = vec![buffer, -buffer];
        if let Some(Value::Tensor(pw)) = &pos_weight {
            events.extend(pos_weight_events(&pw.borrow().tensor, &y));
        }
        ev.note_kernel_events(&events);
        Some(Value::tensor(t, name, None))
    } else {
        None
    };
    let elements = ev.binary_cross_entropy_elements(
        &x,
        &y,
        logits,
        weights.as_deref(),
        pos_weights.as_deref(),
    )?;
    // ATen's CPU kernel of the plain loss reduces into its buffer of elementwise losses;
    // the logits one returns a fresh tensor.
    let out = ev.reduce_loss(
        Value::tensor(elements, name, None),
        reduction,
        !logits,
        name,
    );
    drop(log_sigmoid);
    let out = out?;
    let given: Vec<(&str, Value)> = call
        .value("reduction")
        .map(|v| ("reduction", v.clone()))
        .into_iter()
        .collect();
    let args: Vec<(&str, &Value)> = given.iter().map(|(k, v)| (*k, v)).collect();
    ev.record_grad(
        GradOp::Named {
            name,
            grad: if logits {
                &BCE_WITH_LOGITS_GRAD
            } else {
                &BCE_GRAD
            },
            args: &args,
        },
        &[&input_v, &Value::Tensor(target)],
        &out,
    );
    // The node keeps the weights it scales by.
    let kept: Vec<(&'static str, &Value)> = [("weight", &weight), ("pos_weight", &pos_weight)]
        .into_iter()
        .filter_map(|(slot, w)| w.as_ref().map(|w| (slot, w)))
        .collect();
    if !kept.is_empty() {
        ev.save_extras(&out, &kept);
    }
    Ok(out)
}

/// What ATen allocates for `log_weight = (pos_weight - 1).mul(target).add_(1)` before it
/// scales the log-sigmoid: each scalar wrapped as an int64 and cast to the tensor's dtype,
/// `pos_weight - 1`, and the broadcast product; both freed once the log-sigmoid is scaled.
fn pos_weight_events(pos_weight: &Tensor, target: &Tensor) -> Vec<i64> {
    let wrapped = |dtype: DType| -> [i64; 2] {
        let cast = if dtype == DType::Int64 {
            0
        } else {
            dtype.item_size() as i64
        };
        [8, cast]
    };
    let [w1, c1] = wrapped(pos_weight.dtype);
    let shifted = pos_weight.numel().max(0) * pos_weight.dtype.item_size() as i64;
    let dtype = DType::promote(pos_weight.dtype, target.dtype);
    let numel = crate::core::tensor::layout::broadcast_shapes(pos_weight.shape(), target.shape())
        .map_or(target.numel(), |s| s.iter().product());
    let log_weight = numel.max(0) * dtype.item_size() as i64;
    let [w2, c2] = wrapped(dtype);
    vec![
        w1,
        c1,
        shifted,
        -c1,
        -w1,
        log_weight,
        w2,
        c2,
        -c2,
        -w2,
        -shifted,
        -log_weight,
    ]
}

/// `binary_cross_entropy`'s node.
const BCE_GRAD: Grad = Grad::named("BinaryCrossEntropyBackward0", &BINARY_CROSS_ENTROPY);
/// `binary_cross_entropy_with_logits`'s node.
const BCE_WITH_LOGITS_GRAD: Grad = Grad::named(
    "BinaryCrossEntropyWithLogitsBackward0",
    &BINARY_CROSS_ENTROPY_WITH_LOGITS,
);

/// `F.mse_loss`.
fn mse_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let target = tensor_arg(call, "target")?;
    let reduction = reduction_of(call)?;
    let (x, y) = (Value::Tensor(input), Value::Tensor(target));
    // ATen computes `(x - y)^2` in one kernel: the difference is no allocation of its.
    let diff = ev.uncounted(|ev| ev.binary(BinOp::Sub, x, y))?;
    let squared = ev.binary(BinOp::Mul, diff.clone(), diff)?;
    let method = match reduction {
        Reduction::None => return Ok(squared),
        Reduction::Mean => "mean",
        Reduction::Sum => "sum",
    };
    // With a reduction, ATen allocates the (input-sized) result first, the elementwise losses
    // next, and reduces them into the result (a mean divides by the count: a wrapped int64
    // and its cast); then the losses are freed.
    let item = squared.as_tensor().map_or(4, |t| t.dtype.item_size()) as i64;
    let elements = squared.as_tensor().map_or(1, |t| t.numel()).max(1);
    let reduced = ev.uncounted(|ev| {
        ev.call(
            Value::Method(Box::new(squared.clone()), method.into()),
            vec![],
            vec![],
        )
    })?;
    let division = if method == "mean" { 8 + item } else { 0 };
    ev.note_kernel_events(&[elements * item + division]);
    let Some(scalar) = reduced.as_tensor() else {
        return Ok(reduced);
    };
    ev.loss_in_buffer(&scalar, elements, &call.name)
}

impl Evaluator {
    /// Elementwise `losses` reduced by `reduction`. With `in_buffer`, as ATen's CPU kernels of
    /// `mse_loss` and `binary_cross_entropy` leave it: a 0-d view of the buffer of elementwise
    /// losses (its other elements unspecified; zeros here).
    fn reduce_loss(
        &mut self,
        losses: Value,
        reduction: Reduction,
        in_buffer: bool,
        name: &str,
    ) -> R<Value> {
        let method = match reduction {
            Reduction::None => return Ok(losses),
            Reduction::Mean => "mean",
            Reduction::Sum => "sum",
        };
        let elements = losses.as_tensor().map_or(1, |t| t.numel()).max(1);
        let reduced = self.call(
            Value::Method(Box::new(losses), method.into()),
            vec![],
            vec![],
        )?;
        let Some(scalar) = reduced.as_tensor().filter(|_| in_buffer) else {
            return Ok(reduced);
        };
        self.loss_in_buffer(&scalar, elements, name)
    }

    /// The 0-d loss `scalar` as a view of a buffer of `elements` elementwise losses (its other
    /// elements unspecified; zeros here).
    fn loss_in_buffer(&mut self, scalar: &Tensor, elements: i64, name: &str) -> R<Value> {
        let mut values = vec![Scalar::Float(0.0); elements as usize];
        if let (Some(first), Some(v)) = (values.first_mut(), self.engine.values(scalar).first()) {
            *first = *v;
        }
        let buffer = self.tensor_from_values(&[elements], scalar.dtype, &values, name)?;
        let out = Tensor {
            layout: Layout::contiguous(&[]),
            ..buffer
        };
        Ok(Value::tensor(out, name, None))
    }
}

/// A loss's `reduction=` as the node kept it.
fn reduction(b: &Backward) -> Reduction {
    match b.arg("reduction") {
        Some(Value::Str(r)) => Reduction::parse(r.as_str()).unwrap_or(Reduction::Mean),
        _ => Reduction::Mean,
    }
}

// ----- backward -----

/// `mse_loss(Tensor self, Tensor target, int reduction=Mean)`.
pub(crate) static MSE_LOSS: Formula = Formula {
    inputs: &["self", "target"],
    saves: &["self", "target"],
    args: &["reduction"],
    backward: mse_loss_backward,
};

fn mse_loss_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    let (x, y) = (ev.saved_input(b, "self")?, ev.saved_input(b, "target")?);
    let n = b.shape(0).iter().product::<i64>();
    let norm = match reduction(b) {
        Reduction::Mean => 2.0 / n as f64,
        _ => 2.0,
    };
    // ATen computes `norm * (self - target) * grad` in one kernel into `zeros_like(self)`:
    // only the result is allocated.
    let scaled = ev.uncounted(|ev| {
        let diff = ev.binary(BinOp::Sub, x, y)?;
        ev.binary(BinOp::Mul, diff, scalar(norm))
    })?;
    let v = ev.binary(BinOp::Mul, scaled, b.g())?;
    if b.needs(1) {
        out[1] = Some(ev.neg_value(&v)?);
    }
    if b.needs(0) {
        out[0] = Some(v);
    }
    Ok(out)
}

/// `binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean)`.
pub(crate) static BINARY_CROSS_ENTROPY: Formula = Formula {
    inputs: &["self", "target"],
    saves: &["self", "target"],
    args: &["reduction"],
    backward: binary_cross_entropy_backward,
};

/// `binary_cross_entropy_with_logits(Tensor self, Tensor target, ...)`.
pub(crate) static BINARY_CROSS_ENTROPY_WITH_LOGITS: Formula = Formula {
    inputs: &["self", "target"],
    saves: &["self", "target"],
    args: &["reduction"],
    backward: binary_cross_entropy_with_logits_backward,
};

fn binary_cross_entropy_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    bce(ev, b, false)
}

fn binary_cross_entropy_with_logits_backward(
    ev: &mut Evaluator,
    b: &Backward,
) -> R<Vec<Option<Value>>> {
    bce(ev, b, true)
}

/// ATen's `binary_cross_entropy[_with_logits]_backward`: one fresh tensor (the plain loss's
/// kernel output, or the logits form's `sigmoid`), then in-place steps (fresh tensors while
/// grad mode is on, for a double backward): times the incoming gradient, then the weight,
/// then a mean's `div_(numel)`. With `pos_weight`, `t = pos_weight * y` and
/// `(t + 1 - y) * sigmoid(x) - t`.
fn bce(ev: &mut Evaluator, b: &Backward, logits: bool) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let (x, y) = (ev.saved_input(b, "self")?, ev.saved_input(b, "target")?);
    let weight = ev.saved_input(b, "weight")?;
    let pos_weight = ev.saved_input(b, "pos_weight")?;
    let n = b.shape(0).iter().product::<i64>();
    let in_place = !ev.torch.grad_enabled;
    let step = |ev: &mut Evaluator, v: Value, op: &str, arg: Value| -> R<Value> {
        if in_place {
            ev.method(v.clone(), &format!("{op}_"), vec![arg])?;
            Ok(v)
        } else {
            ev.method(v, op, vec![arg])
        }
    };
    let v = if logits {
        if matches!(pos_weight, Value::Tensor(_)) {
            let t = ev.binary(BinOp::Mul, pos_weight, y.clone())?;
            let t1 = ev.binary(BinOp::Add, t.clone(), Value::Int(1))?;
            let t1y = step(ev, t1, "sub", y)?;
            let s = ev.method(x, "sigmoid", vec![])?;
            let scaled = step(ev, t1y, "mul", s)?;
            step(ev, scaled, "sub", t)?
        } else {
            let s = ev.method(x, "sigmoid", vec![])?;
            step(ev, s, "sub", y)?
        }
    } else {
        // One kernel: grad * (x - y) / max((1 - x) * x, 1e-12), each step rounded.
        let (num, den) = ev.uncounted(|ev| -> R<(Value, Value)> {
            let d = ev.binary(BinOp::Sub, x.clone(), y)?;
            let num = ev.binary(BinOp::Mul, b.g(), d)?;
            let one_minus = ev.binary(BinOp::Sub, Value::Int(1), x.clone())?;
            let den = ev.binary(BinOp::Mul, one_minus, x)?;
            let den = ev.method(den, "clamp_min", vec![Value::Float(1e-12)])?;
            Ok((num, den))
        })?;
        ev.binary(BinOp::Div, num, den)?
    };
    let v = if logits {
        step(ev, v, "mul", b.g())?
    } else {
        v
    };
    let v = match &weight {
        Value::Tensor(_) => step(ev, v, "mul", weight.clone())?,
        _ => v,
    };
    out[0] = Some(match reduction(b) {
        Reduction::Mean => {
            ev.method(v.clone(), "div_", vec![Value::Int(n)])?;
            v
        }
        _ => v,
    });
    Ok(out)
}

/// `nll_loss(Tensor self, Tensor target, Tensor? weight, int reduction, int ignore_index)`.
pub(crate) static NLL_LOSS: Formula = Formula {
    inputs: &["self", "target"],
    saves: &["self", "target"],
    args: &["reduction", "ignore_index"],
    backward: nll_loss_backward,
};

fn nll_loss_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        let ignore_index = b
            .arg("ignore_index")
            .and_then(value_number)
            .unwrap_or(-100.0) as i64;
        out[0] = Some(nll_grad(ev, b, reduction(b), ignore_index)?);
    }
    Ok(out)
}

/// `nll_loss`'s input gradient, as ATen computes it: `-grad / total_weight` at each row's
/// target.
fn nll_grad(ev: &mut Evaluator, b: &Backward, reduction: Reduction, ignore_index: i64) -> R<Value> {
    let input = ev.saved_input(b, "self")?;
    let target = ev.saved_input(b, "target")?;
    let (Some(x), Some(t)) = (input.as_tensor(), target.as_tensor()) else {
        return Err(unsupported(b.node));
    };
    let dtype = x.dtype;
    if let Some(dx) = crate::interp::torch::nn::dense_backward::meta_grad(ev, x.shape(), dtype)? {
        return Ok(dx);
    }
    let round = |v: f64| dtype.round(Scalar::Float(v)).to_f64();
    let (rows, classes) = match x.shape() {
        [c] => (1, *c),
        [n, c] => (*n, *c),
        _ => return Err(unsupported(b.node)),
    };
    let targets: Vec<i64> = ev
        .engine
        .values(&t)
        .iter()
        .map(|s| s.to_f64() as i64)
        .collect();
    let g_values: Vec<f64> = match b.grad.as_tensor() {
        Some(g) => ev.engine.values(&g).iter().map(|s| s.to_f64()).collect(),
        None => vec![value_number(b.grad).unwrap_or(1.0)],
    };
    // With class weights, each row's gradient is scaled by its class's weight and a mean
    // divides by the total weight the forward kept.
    let weights: Option<Vec<f64>> = match ev.saved_input(b, "weight")? {
        Value::Tensor(w) => {
            let w = w.borrow().tensor.clone();
            Some(ev.nn_read_host(&w))
        }
        _ => None,
    };
    let counted = match (&weights, ev.saved_input(b, "total_weight")?) {
        (Some(_), Value::Tensor(total)) => {
            let total = total.borrow().tensor.clone();
            ev.engine.values(&total).first().map_or(1.0, |s| s.to_f64())
        }
        _ => targets.iter().filter(|t| **t != ignore_index).count() as f64,
    };
    let mut values = vec![0f64; (rows * classes) as usize];
    for (i, &target) in targets.iter().enumerate().take(rows as usize) {
        if target == ignore_index || target < 0 || target >= classes {
            continue;
        }
        let up = match reduction {
            Reduction::None => g_values.get(i).copied().unwrap_or(0.0),
            Reduction::Sum => g_values.first().copied().unwrap_or(0.0),
            Reduction::Mean => round(g_values.first().copied().unwrap_or(0.0) / counted),
        };
        let g = round(-up);
        values[i * classes as usize + target as usize] = match &weights {
            Some(w) => round(w.get(target as usize).copied().unwrap_or(1.0) * g),
            None => g,
        };
    }
    let scalars: Vec<Scalar> = values.into_iter().map(Scalar::Float).collect();
    let out = ev.tensor_from_values(x.shape(), dtype, &scalars, "backward")?;
    Ok(Value::tensor(out, "backward", None))
}
