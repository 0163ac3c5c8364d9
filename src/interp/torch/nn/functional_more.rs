//! More of `torch.nn.functional`'s activations, as entries of the op table: `softsign` and
//! `tanhshrink` (composed in Python from tensor ops, so their nodes are those ops'),
//! `threshold`/`threshold_` and `rrelu`/`rrelu_` (which call `torch.`'s), `hardshrink`,
//! `softshrink` and `glu` (ATen ops of their own).

use crate::core::tensor::ScriptError;
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::nn::activation_more_backward as grads;
use crate::interp::torch::nn::functional::{functional, number, tensor_arg};
use crate::interp::torch::registry::OpCall;
use crate::interp::torch::registry::OpDef;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(&["softsign"], &["input"], softsign, Grad::UNTRACKED),
    functional(&["tanhshrink"], &["input"], tanhshrink, Grad::UNTRACKED),
    functional(
        &["threshold"],
        &["input, threshold, value, inplace=False"],
        threshold,
        Grad::UNTRACKED,
    ),
    functional(
        &["threshold_"],
        &["input, threshold, value"],
        threshold,
        Grad::UNTRACKED,
    ),
    functional(
        &["hardshrink"],
        &["input, lambd=0.5"],
        shrink,
        Grad::formula(&grads::HARDSHRINK),
    ),
    functional(
        &["softshrink"],
        &["input, lambd=0.5"],
        shrink,
        Grad::formula(&grads::SOFTSHRINK),
    ),
    functional(
        &["glu"],
        &["input, dim=-1"],
        glu,
        Grad::formula(&grads::GLU),
    ),
    functional(
        &["rrelu"],
        &["input, lower=0.125, upper=0.3333333333333333, training=False, inplace=False"],
        rrelu,
        Grad::UNTRACKED,
    ),
    functional(
        &["rrelu_"],
        &["input, lower=0.125, upper=0.3333333333333333, training=False"],
        rrelu,
        Grad::UNTRACKED,
    ),
];

/// `input.name()`.
fn method(ev: &mut Evaluator, input: Value, name: &str) -> R<Value> {
    ev.call(Value::Method(Box::new(input), name.into()), vec![], vec![])
}

/// `F.softsign(input)`: `input / (input.abs() + 1)`.
fn softsign(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = Value::Tensor(tensor_arg(call, "input")?);
    let abs = method(ev, input.clone(), "abs")?;
    let plus = ev.binary(BinOp::Add, abs, Value::Int(1))?;
    ev.binary(BinOp::Div, input, plus)
}

/// `F.tanhshrink(input)`: `input - input.tanh()`.
fn tanhshrink(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = Value::Tensor(tensor_arg(call, "input")?);
    let tanh = method(ev, input.clone(), "tanh")?;
    ev.binary(BinOp::Sub, input, tanh)
}

/// Python's truth of an optional flag argument.
fn flag(ev: &mut Evaluator, call: &OpCall, name: &str) -> R<bool> {
    match call.value(name) {
        Some(v) => {
            let v = v.clone();
            ev.truthy(&v)
        }
        None => Ok(false),
    }
}

/// `F.threshold(input, threshold, value, inplace=False)` (`_VF.threshold(_)`), `F.threshold_`.
fn threshold(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let inplace = call.name == "threshold_" || flag(ev, call, "inplace")?;
    let name = if inplace { "threshold_" } else { "threshold" };
    let pos = vec![
        Value::Tensor(input),
        call.value("threshold").cloned().unwrap_or(Value::None),
        call.value("value").cloned().unwrap_or(Value::None),
    ];
    ev.call_table_function(name, &pos, &[])
        .unwrap_or_else(|| Err(ScriptError::Attribute(format!("no torch.{name}"))))
}

/// `F.hardshrink(input, lambd=0.5)`, `F.softshrink(input, lambd=0.5)`.
fn shrink(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let lambd = number(call, "lambd", 0.5);
    ev.shrink(&input, lambd, call.name == "softshrink")
}

/// `F.glu(input, dim=-1)`.
fn glu(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let dim = match call.value("dim") {
        Some(v) => {
            let v = v.clone();
            ev.index_int(&v)?
        }
        None => -1,
    };
    ev.glu(&input, dim)
}

/// `F.rrelu(input, lower, upper, training=False, inplace=False)`, `F.rrelu_`.
fn rrelu(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let lower = number(call, "lower", 0.125);
    let upper = number(call, "upper", 1.0 / 3.0);
    let training = flag(ev, call, "training")?;
    let inplace = call.name == "rrelu_" || flag(ev, call, "inplace")?;
    ev.rrelu(&input, lower, upper, training, inplace)
}
