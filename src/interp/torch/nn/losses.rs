//! The losses of `torch.nn.functional` (`nll_loss`, `cross_entropy`, `binary_cross_entropy`
//! with and without logits, `mse_loss`): entries of the op table with their rules and
//! backward formulas (the kernels are in the `losses` family of [`crate::interp::torch::ops`]).

use crate::core::tensor::{Layout, MemoryFormat, Scalar, ScriptError, Tensor};
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
        Grad::formula(&BINARY_CROSS_ENTROPY),
    ),
    functional(
        &["binary_cross_entropy_with_logits"],
        &["input, target, weight=None, size_average=None, reduce=None, reduction='mean', pos_weight=None"],
        binary_cross_entropy,
        Grad::formula(&BINARY_CROSS_ENTROPY_WITH_LOGITS),
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
    if call.value("weight").is_some() {
        return Err(ScriptError::NotImplemented(format!(
            "{name} with class weights (weight=) is not supported by Stridescope"
        )));
    }
    if name == "cross_entropy" && number(call, "label_smoothing", 0.0) != 0.0 {
        return Err(ScriptError::NotImplemented(
            "cross_entropy with label_smoothing is not supported by Stridescope".into(),
        ));
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
    let t = tensor_of(&log_probs)?;
    let target_v = Value::Tensor(target);
    let out = ev.nll_loss(&t, &tensor_of(&target_v)?, ignore_index, reduction)?;
    // ATen's second output, the total weight of the counted targets (a 0-d tensor), which
    // `NllLossBackward0` keeps.
    let counted = ev
        .engine
        .values(&tensor_of(&target_v)?)
        .iter()
        .filter(|v| v.to_f64() as i64 != ignore_index)
        .count();
    let total = ev.full(
        &[],
        t.dtype.round(Scalar::Float(counted as f64)),
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
    ev.save_extras(&out, &[("total_weight", &total)]);
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
    if let Some(what) = ["weight", "pos_weight"]
        .into_iter()
        .find(|what| call.value(what).is_some())
    {
        return Err(ScriptError::NotImplemented(format!(
            "{name} with {what}= is not supported by Stridescope"
        )));
    }
    let reduction = reduction_of(call)?;
    let (x, y) = (
        input.borrow().tensor.clone(),
        target.borrow().tensor.clone(),
    );
    let logits = name == "binary_cross_entropy_with_logits";
    // The logits form first runs `log_sigmoid` (its output, and a buffer it frees), whose
    // output lives until the loss returns.
    let log_sigmoid = if logits {
        let t = ev.empty(x.shape(), x.dtype, MemoryFormat::Contiguous, name)?;
        ev.note_kernel_events(&[t.numel().max(0) * x.dtype.item_size() as i64]);
        Some(Value::tensor(t, name, None))
    } else {
        None
    };
    let elements = ev.binary_cross_entropy_elements(&x, &y, logits)?;
    // ATen's CPU kernel of the plain loss reduces into its buffer of elementwise losses;
    // the logits one returns a fresh tensor.
    let out = ev.reduce_loss(
        Value::tensor(elements, name, None),
        reduction,
        !logits,
        name,
    );
    drop(log_sigmoid);
    out
}

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
    let diff = ev.binary(BinOp::Sub, x, y)?;
    let scaled = ev.binary(BinOp::Mul, diff, scalar(norm))?;
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

fn bce(ev: &mut Evaluator, b: &Backward, logits: bool) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let (x, y) = (ev.saved_input(b, "self")?, ev.saved_input(b, "target")?);
    let n = b.shape(0).iter().product::<i64>();
    let v = if logits {
        // (sigmoid(x) - y) * grad
        let s = ev.method(x, "sigmoid", vec![])?;
        let d = ev.binary(BinOp::Sub, s, y)?;
        ev.binary(BinOp::Mul, d, b.g())?
    } else {
        // grad * (x - y) / max((1 - x) * x, 1e-12)
        let d = ev.binary(BinOp::Sub, x.clone(), y)?;
        let num = ev.binary(BinOp::Mul, b.g(), d)?;
        let one_minus = ev.binary(BinOp::Sub, Value::Int(1), x.clone())?;
        let den = ev.binary(BinOp::Mul, one_minus, x)?;
        let den = ev.method(den, "clamp_min", vec![Value::Float(1e-12)])?;
        ev.binary(BinOp::Div, num, den)?
    };
    out[0] = Some(match reduction(b) {
        Reduction::Mean => ev.binary(BinOp::Div, v, Value::Int(n))?,
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
    let counted = targets.iter().filter(|t| **t != ignore_index).count();
    let mut values = vec![0f64; (rows * classes) as usize];
    for (i, &target) in targets.iter().enumerate().take(rows as usize) {
        if target == ignore_index || target < 0 || target >= classes {
            continue;
        }
        let up = match reduction {
            Reduction::None => g_values.get(i).copied().unwrap_or(0.0),
            Reduction::Sum => g_values.first().copied().unwrap_or(0.0),
            Reduction::Mean => round(g_values.first().copied().unwrap_or(0.0) / counted as f64),
        };
        values[i * classes as usize + target as usize] = round(-up);
    }
    let scalars: Vec<Scalar> = values.into_iter().map(Scalar::Float).collect();
    let out = ev.tensor_from_values(x.shape(), dtype, &scalars, "backward")?;
    Ok(Value::tensor(out, "backward", None))
}
