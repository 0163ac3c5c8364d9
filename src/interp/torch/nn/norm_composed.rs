//! The normalizations composed of other ops: `F.instance_norm` (and `torch.instance_norm`),
//! which ATen runs as `batch_norm` of the input viewed as one batch of `N * C` channels,
//! with the affine parameters and running statistics repeated `N` times and the running
//! statistics' means over the batch copied back (so its output's node is `ViewBackward0`
//! over a `NativeBatchNormBackward0` that keeps the repeated tensors), and
//! `F.local_response_norm`, as `torch/nn/functional.py` writes it (squares averaged over
//! neighbouring channels by `avg_pool2d`/`avg_pool3d` of a padded copy). Each calls the ops
//! in its source's order and keeps each temporary as long as its source does.

use crate::core::tensor::layout::list_str;
use crate::core::tensor::ScriptError;
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::nn::functional::functional;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(
        &["instance_norm"],
        &["input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, momentum=0.1, eps=1e-05"],
        instance_norm,
        Grad::UNTRACKED,
    ),
    OpDef {
        names: &["instance_norm"],
        schemas: &["Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool use_input_stats, float momentum, float eps, bool cudnn_enabled"],
        forms: Forms::Function,
        rule: instance_norm,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["constant_pad_nd"],
        schemas: &["Tensor input, int[] pad, Scalar value=0"],
        forms: Forms::Function,
        rule: constant_pad_nd,
        grad: Grad::formula(&CONSTANT_PAD_ND),
        ..OpDef::PLAIN
    },
    functional(
        &["local_response_norm"],
        &["input, size, alpha=0.0001, beta=0.75, k=1.0"],
        local_response_norm,
        Grad::UNTRACKED,
    ),
];

/// `torch.nn.functional.<name>(*pos)`.
fn nn_functional(ev: &mut Evaluator, name: &str, pos: Vec<Value>) -> R<Value> {
    ev.call_table_functional(name, &pos, &[])
        .unwrap_or_else(|| {
            Err(ScriptError::Attribute(format!(
                "module 'torch.nn.functional' has no attribute '{name}'"
            )))
        })
}

/// The input's shape, or the message of `input.size()` on something else.
fn input_shape(call: &OpCall) -> R<(Value, Vec<i64>)> {
    match call.value("input") {
        Some(v @ Value::Tensor(t)) => Ok((v.clone(), t.borrow().tensor.shape().to_vec())),
        other => Err(ScriptError::Attribute(format!(
            "'{}' object has no attribute 'size'",
            other.map_or("NoneType".into(), Value::type_name)
        ))),
    }
}

fn ints(v: &[i64]) -> Value {
    Value::Tuple(v.iter().map(|&n| Value::Int(n)).collect())
}

/// `F.instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
/// use_input_stats=True, momentum=0.1, eps=1e-05)` and `torch.instance_norm`.
fn instance_norm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let functional_form = call.args.names.iter().any(|n| n == "use_input_stats")
        && !call.args.names.iter().any(|n| n == "cudnn_enabled");
    let (input, shape) = input_shape(call)?;
    let use_stats = match call.value("use_input_stats") {
        Some(v) => {
            let v = v.clone();
            ev.truthy(&v)?
        }
        None => functional_form,
    };
    if functional_form && use_stats {
        // `_verify_spatial_size(input.size())`.
        let spatial: i64 = shape.iter().skip(2).product();
        if spatial == 1 {
            return Err(ScriptError::Value(format!(
                "Expected more than 1 spatial element when training, got input size torch.Size({})",
                list_str(&shape)
            )));
        }
    }
    let get = |n: &str| call.value(n).cloned().unwrap_or(Value::None);
    let (weight, bias) = (get("weight"), get("bias"));
    let (running_mean, running_var) = (get("running_mean"), get("running_var"));
    let momentum = call.value("momentum").cloned().unwrap_or(Value::Float(0.1));
    let eps = call.value("eps").cloned().unwrap_or(Value::Float(1e-5));
    let defined = |v: &Value| !matches!(v, Value::None);
    let running = defined(&running_mean) && defined(&running_var);
    if !use_stats && !running {
        return Err(ScriptError::Runtime(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
                .into(),
        ));
    }
    if shape.len() < 2 {
        let n = shape.len() as i64;
        return Err(ScriptError::Index(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got 1)",
            -n.max(1),
            n.max(1) - 1
        )));
    }
    let (b, c) = (shape[0], shape[1]);
    let mut reshaped = shape.clone();
    reshaped[1] = b * c;
    reshaped[0] = 1;
    // `repeat_if_defined(t, b)`, in this order.
    let repeat = |ev: &mut Evaluator, t: &Value| -> R<Value> {
        if defined(t) {
            ev.method(t.clone(), "repeat", vec![Value::Int(b)])
        } else {
            Ok(Value::None)
        }
    };
    let weight_ = repeat(ev, &weight)?;
    let bias_ = repeat(ev, &bias)?;
    let mean_ = repeat(ev, &running_mean)?;
    let var_ = repeat(ev, &running_var)?;
    let contiguous = ev.method(input, "contiguous", vec![])?;
    let input_reshaped = ev.method(contiguous, "view", vec![ints(&reshaped)])?;
    let out = nn_functional(
        ev,
        "batch_norm",
        vec![
            input_reshaped.clone(),
            mean_.clone(),
            var_.clone(),
            weight_.clone(),
            bias_.clone(),
            Value::Bool(use_stats),
            momentum,
            eps,
        ],
    )?;
    // `at::alias(running_mean).copy_(running_mean_.view({b, c}).mean(0, false))`.
    for (running, repeated) in [(&running_mean, &mean_), (&running_var, &var_)] {
        if defined(running) {
            let view = ev.method(repeated.clone(), "view", vec![ints(&[b, c])])?;
            let mean = ev.method(view, "mean", vec![Value::Int(0), Value::Bool(false)])?;
            ev.method(running.clone(), "copy_", vec![mean])?;
        }
    }
    let result = ev.method(out, "view", vec![ints(&shape)]);
    drop((weight_, bias_, mean_, var_, input_reshaped));
    result
}

/// A number argument as Python keeps it (an int or a float).
fn number(call: &OpCall, name: &str, default: Value) -> Value {
    call.value(name).cloned().unwrap_or(default)
}

/// `F.local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0)`.
fn local_response_norm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let (input, shape) = input_shape(call)?;
    let dim = shape.len();
    if dim < 3 {
        return Err(ScriptError::Value(format!(
            "Expected 3D or higher dimensionality                          input (got {dim} dimensions)"
        )));
    }
    let numel: i64 = shape.iter().product();
    if numel == 0 {
        return Ok(input);
    }
    let size = match call.value("size") {
        Some(Value::Int(n)) => *n,
        Some(Value::Bool(b)) => i64::from(*b),
        other => {
            return Err(ScriptError::Type(format!(
                "unsupported operand type(s) for //: '{}' and 'int'",
                other.map_or("NoneType".into(), Value::type_name)
            )))
        }
    };
    let alpha = number(call, "alpha", Value::Float(0.0001));
    let beta = number(call, "beta", Value::Float(0.75));
    let k = number(call, "k", Value::Float(1.0));
    let (before, after) = (size.div_euclid(2), (size - 1).div_euclid(2));
    let div = ev.method(input.clone(), "mul", vec![input.clone()])?;
    let div = if dim == 3 {
        let div = ev.method(div, "unsqueeze", vec![Value::Int(1)])?;
        let div = pad(ev, div, &[0, 0, before, after])?;
        let pooled = ev
            .call_table_functional(
                "avg_pool2d",
                &[div, ints(&[size, 1])],
                &[("stride".to_string(), Value::Int(1))],
            )
            .unwrap_or_else(|| Err(ScriptError::Runtime("avg_pool2d is missing".into())))?;
        ev.method(pooled, "squeeze", vec![Value::Int(1)])?
    } else {
        let view = ints(&[shape[0], 1, shape[1], shape[2], -1]);
        let div = ev.method(div, "view", vec![view])?;
        let div = pad(ev, div, &[0, 0, 0, 0, before, after])?;
        let pooled = ev
            .call_table_functional(
                "avg_pool3d",
                &[div, ints(&[size, 1, 1])],
                &[("stride".to_string(), Value::Int(1))],
            )
            .unwrap_or_else(|| Err(ScriptError::Runtime("avg_pool3d is missing".into())))?;
        let div = ev.method(pooled, "squeeze", vec![Value::Int(1)])?;
        ev.method(div, "view", vec![Value::Size(shape.clone())])?
    };
    // `div = div.mul(alpha).add(k).pow(beta)`: the old `div` is held until the chain ends.
    let scaled = ev.method(div.clone(), "mul", vec![alpha])?;
    let shifted = ev.method(scaled, "add", vec![k])?;
    let powered = ev.method(shifted, "pow", vec![beta])?;
    drop(div);
    ev.method(input, "div", vec![powered])
}

/// `pad(div, pad)` (constant, zeros): ATen's `constant_pad_nd`, which `F.pad` runs.
fn pad(ev: &mut Evaluator, t: Value, pad: &[i64]) -> R<Value> {
    ev.call(
        Value::Method(Box::new(Value::Torch), "constant_pad_nd".into()),
        vec![t, ints(pad)],
        vec![],
    )
}

/// `torch.constant_pad_nd(input, pad, value=0)`.
fn constant_pad_nd(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call
        .tensor("input")
        .ok_or_else(|| ScriptError::Runtime("constant_pad_nd: no input".into()))?;
    let pad = match call.value("pad").cloned() {
        Some(v) => ev.int_list(&v, "constant_pad_nd", "pad")?,
        None => vec![],
    };
    let value = call.value("value").and_then(|v| ev.scalar_of(v));
    ev.pad(&t, &pad, "constant", value)
}

/// `constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0)`: `self:
/// constant_pad_nd_backward(grad, pad)` (the gradient padded by the negated pads: cropped).
static CONSTANT_PAD_ND: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["pad"],
    backward: constant_pad_nd_backward,
};

fn constant_pad_nd_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let pad: Vec<i64> = match b.arg("pad") {
        Some(Value::Tuple(items) | Value::List(items)) => items
            .iter()
            .map(|v| match v {
                Value::Int(i) => -i,
                _ => 0,
            })
            .collect(),
        _ => vec![],
    };
    let g = b
        .g()
        .as_tensor()
        .ok_or_else(|| ScriptError::Runtime("constant_pad_nd: no gradient".into()))?;
    out[0] = Some(ev.pad(&g, &pad, "constant", None)?);
    Ok(out)
}
