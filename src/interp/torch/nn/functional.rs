//! `torch.nn.functional`: entries of the op table ([`Forms::Functional`]) whose schemas are
//! the Python signatures, each rule mapping its function to the op that computes it
//! (`F.softmax` -> `softmax`, `F.gelu` -> the `gelu` activation, ...), `inplace=` included.
//! The losses are in [`crate::interp::torch::nn::losses`].

use crate::core::tensor::ScriptError;
use crate::interp::torch::autograd::{formulas, Grad};
use crate::interp::torch::ops::Activation;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// A `torch.nn.functional` entry: a Python function, whose rule hands complex tensors to the
/// ops it calls (they decide).
pub(crate) const fn functional(
    names: &'static [&'static str],
    schemas: &'static [&'static str],
    rule: crate::interp::torch::registry::Rule,
    grad: Grad,
) -> OpDef {
    OpDef {
        names,
        schemas,
        forms: Forms::Functional,
        rule,
        grad,
        complex: true,
        ..OpDef::PLAIN
    }
}

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(
        &["relu"],
        &["input, inplace=False"],
        relu,
        Grad::formula(&formulas::RELU),
    ),
    functional(&["relu_"], &["input"], relu, Grad::NONE),
    functional(
        &["sigmoid"],
        &["input"],
        method,
        Grad::formula(&formulas::SIGMOID),
    ),
    functional(
        &["tanh"],
        &["input"],
        method,
        Grad::formula(&formulas::TANH),
    ),
    functional(
        &["softmin"],
        &["input, dim=None, _stacklevel=3, dtype=None"],
        softmin,
        Grad::UNTRACKED,
    ),
    functional(
        &["softmax", "log_softmax"],
        &["input, dim=None, _stacklevel=3, dtype=None"],
        softmax,
        Grad::by(
            crate::interp::torch::nn::activation_backward::softmax_node,
            Some(&crate::interp::torch::nn::activation_backward::SOFTMAX_FAMILY),
        ),
    ),
    functional(
        &["gelu"],
        &["input, *, approximate='none'"],
        gelu,
        Grad::formula(&crate::interp::torch::nn::activation_backward::GELU),
    ),
    functional(
        &["leaky_relu"],
        &["input, negative_slope=0.01, inplace=False"],
        leaky_relu,
        Grad::formula(&crate::interp::torch::nn::activation_backward::LEAKY_RELU),
    ),
    functional(
        &["leaky_relu_"],
        &["input, negative_slope=0.01"],
        leaky_relu,
        Grad::NONE,
    ),
    functional(
        &["elu", "celu"],
        &["input, alpha=1.0, inplace=False"],
        elu,
        Grad::formula(&crate::interp::torch::nn::activation_backward::ELU_FAMILY),
    ),
    functional(&["elu_"], &["input, alpha=1.0"], elu, Grad::NONE),
    functional(
        &["silu", "mish", "hardswish", "hardsigmoid", "selu"],
        &["input, inplace=False"],
        plain_activation,
        Grad::by(
            crate::interp::torch::nn::activation_backward::plain_activation_node,
            Some(&crate::interp::torch::nn::activation_backward::PLAIN_ACTIVATIONS),
        ),
    ),
    functional(
        &["softplus"],
        &["input, beta=1.0, threshold=20.0"],
        softplus,
        Grad::formula(&crate::interp::torch::nn::activation_backward::SOFTPLUS),
    ),
    functional(&["logsigmoid"], &["input"], logsigmoid, Grad::UNTRACKED),
    functional(
        &["relu6"],
        &["input, inplace=False"],
        hardtanh,
        Grad::named(
            "HardtanhBackward0",
            &crate::interp::torch::nn::activation_backward::RELU6,
        ),
    ),
    functional(
        &["hardtanh"],
        &["input, min_val=-1.0, max_val=1.0, inplace=False"],
        hardtanh,
        Grad::formula(&crate::interp::torch::nn::activation_backward::HARDTANH),
    ),
    functional(
        &["hardtanh_"],
        &["input, min_val=-1.0, max_val=1.0"],
        hardtanh,
        Grad::NONE,
    ),
    functional(
        &["one_hot"],
        &["tensor, num_classes=-1"],
        one_hot,
        Grad::NONE,
    ),
    functional(
        &["pad"],
        &["input, pad, mode='constant', value=None"],
        pad,
        // The rule records the node of the mode's op (`nn/pad.rs`).
        Grad::UNTRACKED,
    ),
    functional(
        &["normalize"],
        &["input, p=2.0, dim=1, eps=1e-12, out=None"],
        normalize,
        Grad::NONE,
    ),
];

/// The first argument, which must be a tensor (PyTorch's message names it at position 1).
pub(super) fn tensor_arg(call: &OpCall, param: &str) -> R<TensorRef> {
    match call.value(param) {
        Some(Value::Tensor(t)) => Ok(std::rc::Rc::clone(t)),
        other => Err(ScriptError::Type(format!(
            "{}(): argument '{param}' (position 1) must be Tensor, not {}",
            call.name,
            other.map_or("NoneType".into(), Value::type_name)
        ))),
    }
}

/// A number argument, or `default`.
pub(super) fn number(call: &OpCall, name: &str, default: f64) -> f64 {
    match call.value(name) {
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Float(f)) => *f,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        _ => default,
    }
}

/// `inplace=` (Python's truthiness), `false` when not given.
fn inplace(ev: &mut Evaluator, call: &OpCall) -> R<bool> {
    match call.value("inplace") {
        Some(v) => ev.truthy(v),
        None => Ok(false),
    }
}

/// `input.name()`.
fn call_method(ev: &mut Evaluator, input: TensorRef, name: &str, pos: Vec<Value>) -> R<Value> {
    ev.call(
        Value::Method(Box::new(Value::Tensor(input)), name.into()),
        pos,
        vec![],
    )
}

/// `F.relu(input, inplace=False)`, `F.relu_(input)`: the tensor method.
fn relu(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let method = if call.name == "relu_" || inplace(ev, call)? {
        "relu_"
    } else {
        "relu"
    };
    call_method(ev, input, method, vec![])
}

/// `F.sigmoid(input)`, `F.tanh(input)`: the tensor method.
fn method(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    call_method(ev, input, &call.name, vec![])
}

/// `F.softmax`'s implicit dim (`_get_softmax_dim`).
fn softmax_dim(ndim: usize) -> i64 {
    if matches!(ndim, 0 | 1 | 3) {
        0
    } else {
        1
    }
}

/// `F.softmin`: `(-input).softmax(dim)`, as PyTorch runs it (a `NegBackward0` node, then a
/// `SoftmaxBackward0` one).
fn softmin(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let ndim = input.borrow().tensor.ndim();
    let dim = match call.value("dim") {
        Some(v) => {
            let v = v.clone();
            ev.index_int(&v)?
        }
        None => softmax_dim(ndim),
    };
    let negated = ev.neg_value(&Value::Tensor(input))?;
    let mut kwargs = vec![];
    if let Some(d) = call.value("dtype") {
        kwargs.push(("dtype".to_string(), d.clone()));
    }
    ev.call(
        Value::Method(Box::new(negated), "softmax".into()),
        vec![Value::Int(dim)],
        kwargs,
    )
}

/// `F.softmax`, `F.log_softmax`.
fn softmax(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let name = call.name.as_str();
    let t = input.borrow().tensor.clone();
    let dim = match call.value("dim") {
        Some(v) => {
            let v = v.clone();
            ev.index_int(&v)?
        }
        None => softmax_dim(t.ndim()),
    };
    let dtype = call.dtype("dtype");
    let out = ev.softmax(&t, dim, dtype, name == "log_softmax")?;
    Ok(Value::tensor(out, name, None))
}

/// `F.gelu(input, *, approximate='none')`.
fn gelu(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let act = match call.value("approximate") {
        None => Activation::Gelu { tanh: false },
        Some(Value::Str(s)) if s == "none" => Activation::Gelu { tanh: false },
        Some(Value::Str(s)) if s == "tanh" => Activation::Gelu { tanh: true },
        Some(Value::Str(_)) => {
            return Err(ScriptError::Runtime(
                "approximate argument must be either none or tanh.".into(),
            ))
        }
        Some(other) => {
            return Err(ScriptError::Type(format!(
                "gelu(): argument 'approximate' must be str, not {}",
                other.type_name()
            )))
        }
    };
    ev.activation(&input, act, false)
}

/// `F.leaky_relu(input, negative_slope=0.01, inplace=False)`, `F.leaky_relu_`.
fn leaky_relu(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let slope = number(call, "negative_slope", 0.01);
    let inplace = call.name == "leaky_relu_" || inplace(ev, call)?;
    ev.activation(&input, Activation::LeakyRelu(slope), inplace)
}

/// `F.elu(input, alpha=1.0, inplace=False)`, `F.elu_`, `F.celu`.
fn elu(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let alpha = number(call, "alpha", 1.0);
    let inplace = call.name == "elu_" || inplace(ev, call)?;
    let act = if call.name == "celu" {
        Activation::Celu(alpha)
    } else {
        Activation::Elu(alpha)
    };
    ev.activation(&input, act, inplace)
}

/// `F.silu`, `F.mish`, `F.hardswish`, `F.hardsigmoid`, `F.selu` (`input, inplace=False`).
fn plain_activation(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let inplace = inplace(ev, call)?;
    let act = match call.name.as_str() {
        "silu" => Activation::Silu,
        "mish" => Activation::Mish,
        "hardswish" => Activation::Hardswish,
        "hardsigmoid" => Activation::Hardsigmoid,
        _ => Activation::Selu,
    };
    ev.activation(&input, act, inplace)
}

/// `F.softplus(input, beta=1.0, threshold=20.0)`.
fn softplus(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let beta = number(call, "beta", 1.0);
    let threshold = number(call, "threshold", 20.0);
    ev.activation(&input, Activation::Softplus { beta, threshold }, false)
}

/// `F.logsigmoid(input)`.
/// `log_sigmoid(Tensor self)`'s node.
const LOGSIGMOID_GRAD: Grad = Grad::named(
    "LogSigmoidBackward0",
    &crate::interp::torch::nn::activation_backward::LOGSIGMOID,
);

/// `F.logsigmoid(input)`: ATen's `log_sigmoid_forward`, whose second output `buffer`
/// (`exp(-|x|)`, allocated after the result) its node keeps (freed at once without one).
fn logsigmoid(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let out = ev.activation(&input, Activation::LogSigmoid, false)?;
    let x = input.borrow().tensor.clone();
    let input = Value::Tensor(input);
    ev.record_grad(
        crate::interp::torch::autograd::GradOp::Named {
            name: "logsigmoid",
            grad: &LOGSIGMOID_GRAD,
            args: &[],
        },
        &[&input],
        &out,
    );
    if ev.torch.device.meta_op {
        return Ok(out);
    }
    let r = super::losses_extra::rounder(x.dtype);
    let values: Vec<f64> = super::losses_extra::host_values(ev, &x)
        .into_iter()
        .map(|v| r(r(-v.abs()).exp()))
        .collect();
    let buffer = super::losses_extra::fresh(ev, x.shape(), x.dtype, &values, "log_sigmoid")?;
    ev.save_extras(&out, &[("buffer", &buffer)]);
    Ok(out)
}

/// `F.hardtanh` is a clamp (`F.relu6` is `hardtanh(0, 6)`), in place or not.
fn hardtanh(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let (low, high) = if call.name == "relu6" {
        (Value::Float(0.0), Value::Float(6.0))
    } else {
        (
            call.value("min_val").cloned().unwrap_or(Value::Float(-1.0)),
            call.value("max_val").cloned().unwrap_or(Value::Float(1.0)),
        )
    };
    let inplace = call.name == "hardtanh_" || inplace(ev, call)?;
    // An integer input keeps its dtype: its bounds are cast to it.
    let integral = input.borrow().tensor.dtype.is_integral();
    let cast = |v: Value| match v {
        Value::Float(f) if integral => Value::Int(f as i64),
        v => v,
    };
    let (low, high) = (cast(low), cast(high));
    let method = if inplace { "clamp_" } else { "clamp" };
    call_method(ev, input, method, vec![low, high])
}

/// `F.one_hot(tensor, num_classes=-1)`.
fn one_hot(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "tensor")?;
    let t = input.borrow().tensor.clone();
    let classes = match call.value("num_classes") {
        Some(v) => {
            let v = v.clone();
            ev.index_int(&v)?
        }
        None => -1,
    };
    ev.one_hot(&t, classes)
}

/// `F.pad(input, pad, mode='constant', value=None)`.
fn pad(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let pad = match call.value("pad") {
        Some(v) => {
            let v = v.clone();
            ev.int_list(&v, "pad", "pad")?
        }
        None => vec![],
    };
    let mode = match call.value("mode") {
        Some(Value::Str(s)) => s.clone(),
        _ => "constant".into(),
    };
    let value = call.value("value").and_then(|v| ev.scalar_of(v));
    ev.pad_tracked(&input, &pad, &mode, value)
}

/// `F.normalize(input, p=2.0, dim=1, eps=1e-12, out=None)`.
fn normalize(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let t = input.borrow().tensor.clone();
    let p = number(call, "p", 2.0);
    let dim = match call.value("dim") {
        Some(v) => {
            let v = v.clone();
            ev.index_int(&v)?
        }
        None => 1,
    };
    let eps = number(call, "eps", 1e-12);
    ev.normalize(&t, p, dim, eps)
}
