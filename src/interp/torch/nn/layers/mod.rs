//! The built-in layers of `torch.nn`, one family file each, as `torch/nn/modules/*.py`
//! defines them: each layer is one [`ModuleDef`] whose `__init__` stores its arguments as
//! attributes and creates its parameters and buffers in PyTorch's order (so
//! `torch.manual_seed(0); nn.Linear(3, 2).weight` draws PyTorch's numbers), whose
//! `forward` calls the `torch.nn.functional` op with them, and whose `extra_repr` is
//! PyTorch's.

pub(crate) mod activation;
pub(crate) mod activation_extra;
pub(crate) mod activation_more;
pub(crate) mod conv;
pub(crate) mod embedding_bag;
pub(crate) mod lazy;
pub(crate) mod linear;
pub(crate) mod loss;
pub(crate) mod loss_more;
mod mha_parts;
pub(crate) mod norm;
pub(crate) mod padding;
pub(crate) mod pooling;
pub(crate) mod rnn;
pub(crate) mod rnn_loop;
pub(crate) mod rnn_mkldnn;
pub(crate) mod transformer;
pub(crate) mod upsample;

use std::rc::Rc;

use crate::core::tensor::{DType, ScriptError};
use crate::interp::torch::nn::module::ModuleDef;
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// Every layer family's table.
pub(crate) fn tables() -> [&'static [ModuleDef]; 15] {
    [
        activation::MODULES,
        linear::MODULES,
        conv::MODULES,
        norm::MODULES,
        loss::MODULES,
        rnn::MODULES,
        lazy::MODULES,
        transformer::MODULES,
        activation_extra::MODULES,
        upsample::MODULES,
        loss_more::MODULES,
        activation_more::MODULES,
        padding::MODULES,
        pooling::MODULES,
        embedding_bag::MODULES,
    ]
}

/// An attribute of a layer (`self.in_features`): its own, `None` when absent.
pub(crate) fn attr(o: &Rc<Instance>, name: &str) -> Value {
    if let Some(state) = o.module.borrow().as_ref() {
        let tensor = state
            .parameters
            .iter()
            .chain(&state.buffers)
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone().map_or(Value::None, Value::Tensor));
        if let Some(t) = tensor {
            return t;
        }
    }
    o.attrs
        .borrow()
        .iter()
        .find(|(n, _)| n == name)
        .map_or(Value::None, |(_, v)| v.clone())
}

/// Sets plain attributes of a layer, in order.
pub(crate) fn set_attrs(o: &Rc<Instance>, values: Vec<(&str, Value)>) {
    let mut attrs = o.attrs.borrow_mut();
    for (name, value) in values {
        match attrs.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => attrs.push((name.to_string(), value)),
        }
    }
}

/// Registers a parameter (or `None`) of a layer.
pub(crate) fn set_parameter(o: &Rc<Instance>, name: &str, p: Option<TensorRef>) {
    if let Some(state) = o.module.borrow_mut().as_mut() {
        match state.parameters.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = p,
            None => state.parameters.push((name.to_string(), p)),
        }
    }
}

/// Registers a buffer (or `None`) of a layer.
pub(crate) fn set_buffer(o: &Rc<Instance>, name: &str, t: Option<TensorRef>) {
    if let Some(state) = o.module.borrow_mut().as_mut() {
        match state.buffers.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = t,
            None => state.buffers.push((name.to_string(), t)),
        }
    }
}

/// A Python value's `str()` as `str.format` writes it in an `extra_repr` (`5`, `(3, 3)`,
/// `same`, `True`, `0.1`).
pub(crate) fn fmt(ev: &mut Evaluator, v: &Value) -> R<String> {
    ev.str_of(v)
}

/// The `dtype=` of a layer's `__init__`.
pub(crate) fn dtype_arg(v: &Value) -> R<Option<DType>> {
    match v {
        Value::None => Ok(None),
        Value::DType(d) => Ok(Some(*d)),
        other => Err(ScriptError::Type(format!(
            "empty() received an invalid combination of arguments - got (tuple, dtype={}), but expected one of:",
            other.type_name()
        ))),
    }
}

/// Calls `torch.nn.functional.name(*pos, **kw)`.
pub(crate) fn functional(
    ev: &mut Evaluator,
    name: &str,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    ev.call_table_functional(name, &pos, &kw)
        .unwrap_or_else(|| {
            Err(ScriptError::Attribute(format!(
                "module 'torch.nn.functional' has no attribute '{name}'"
            )))
        })
}

/// Calls `torch.nn.init.name(*pos, **kw)`.
pub(crate) fn init(
    ev: &mut Evaluator,
    name: &str,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    ev.call_module("torch.nn.init", name, pos, kw)
}

/// Calls `tensor.name(*pos)`.
pub(crate) fn method(ev: &mut Evaluator, t: &Value, name: &str, pos: Vec<Value>) -> R<Value> {
    let m = Value::Method(Box::new(t.clone()), name.into());
    ev.call(m, pos, vec![])
}

/// An int argument (`in_features`), with the type error `torch.empty` would raise.
pub(crate) fn int_arg(ev: &mut Evaluator, v: &Value) -> R<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::Tensor(_) => ev.index_int(v),
        other => Err(ScriptError::Type(format!(
            "empty(): argument 'size' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got {}\"",
            other.type_name()
        ))),
    }
}

/// `_ntuple(n)(v)`: an int repeated `n` times, a sequence as a tuple.
pub(crate) fn ntuple(v: &Value, n: usize) -> Value {
    match v {
        Value::Tuple(items) | Value::List(items) => Value::Tuple(items.clone()),
        Value::Size(dims) => Value::Tuple(dims.iter().map(|&d| Value::Int(d)).collect()),
        other => Value::Tuple(vec![other.clone(); n]),
    }
}

/// Runs `self.reset_parameters()` (the instance's own override if its class has one).
pub(crate) fn reset_parameters(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    let method = ev.instance_attribute(o, "reset_parameters")?;
    ev.call(method, vec![], vec![])?;
    Ok(())
}

/// Runs `f` with grad mode off (what `nn.init` and the running statistics need).
pub(crate) fn no_grad<T>(ev: &mut Evaluator, f: impl FnOnce(&mut Evaluator) -> R<T>) -> R<T> {
    let mode = ev.torch.grad_enabled;
    ev.torch.grad_enabled = false;
    let out = f(ev);
    ev.torch.grad_enabled = mode;
    out
}

/// The `device=` of a layer's `__init__`: the CPU (or none given) is what this build runs.
pub(crate) fn check_device(ev: &mut Evaluator, v: &Value) -> R<()> {
    match v {
        Value::None => Ok(()),
        Value::Str(d) | Value::Device(d) if d == "cpu" || d == "meta" => Ok(()),
        Value::Str(d) | Value::Device(d) => Err(ev.device_refusal(d)),
        other => Err(ScriptError::Type(format!(
            "empty() received an invalid combination of arguments - got (tuple, device={}), but expected one of:",
            other.type_name()
        ))),
    }
}
