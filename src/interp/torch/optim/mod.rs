//! `torch.optim`: the optimizers (`Optimizer` and `SGD`, `Adam`, `AdamW`, `RMSprop`,
//! `Adagrad`) and the learning-rate schedulers (`LRScheduler`, `StepLR`, `LambdaLR`), as
//! PyTorch 2.15's `torch/optim/*.py` define them. Each class is one
//! [`ModuleDef`](crate::interp::torch::nn::module::ModuleDef) (a built-in class that is not
//! an `nn.Module`); an instance keeps what PyTorch keeps in its `__dict__` as plain
//! attributes (`defaults`, `state`, `param_groups`; a scheduler's `base_lrs`, `last_epoch`,
//! ...), so `opt.param_groups[0]['lr'] = 0.1` changes what the next `step()` reads.
//!
//! An optimizer's `step()` runs PyTorch's single-tensor CPU algorithm (what `foreach=None`
//! picks for CPU tensors) as the same tensor ops in the same order, through the evaluator,
//! so every intermediate rounds as PyTorch's does: [`optimizer`] holds the base class,
//! [`sgd`], [`adam`] and [`adaptive`] (`RMSprop`, `Adagrad`) the algorithms,
//! [`adam_variants`] (`Adamax`, `NAdam`, `RAdam`), [`classic`] (`Adadelta`, `Rprop`, `ASGD`)
//! and [`lbfgs`] (`LBFGS`, whose `step(closure)` evaluates the closure itself) the later
//! ones, [`scheduler`] and the `scheduler_*` files the schedulers.

pub(crate) mod adam;
pub(crate) mod adam_variants;
pub(crate) mod adaptive;
pub(crate) mod classic;
pub(crate) mod lbfgs;
pub(crate) mod lbfgs_search;
pub(crate) mod optimizer;
pub(crate) mod scheduler;
pub(crate) mod scheduler_compose;
pub(crate) mod scheduler_cyclic;
pub(crate) mod scheduler_factor;
pub(crate) mod scheduler_more;
pub(crate) mod scheduler_plateau;
pub(crate) mod scheduler_warm;
pub(crate) mod sgd;

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::ModuleDef;
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// The optimizers' tables (`torch.optim`).
fn optimizer_tables() -> [&'static [ModuleDef]; 7] {
    [
        optimizer::CLASSES,
        sgd::CLASSES,
        adam::CLASSES,
        adaptive::CLASSES,
        adam_variants::CLASSES,
        classic::CLASSES,
        lbfgs::CLASSES,
    ]
}

/// The schedulers' tables (`torch.optim.lr_scheduler`).
fn scheduler_tables() -> [&'static [ModuleDef]; 7] {
    [
        scheduler::CLASSES,
        scheduler_more::CLASSES,
        scheduler_factor::CLASSES,
        scheduler_compose::CLASSES,
        scheduler_plateau::CLASSES,
        scheduler_cyclic::CLASSES,
        scheduler_warm::CLASSES,
    ]
}

/// Every class of `torch.optim` and `torch.optim.lr_scheduler`.
pub(crate) fn tables() -> impl Iterator<Item = &'static [ModuleDef]> {
    optimizer_tables().into_iter().chain(scheduler_tables())
}

/// Whether the Python module `module` defines the class `name` (`torch.optim`: the
/// optimizers and `Optimizer`; `torch.optim.lr_scheduler`: the schedulers).
pub(crate) fn exports(module: &str, name: &str) -> bool {
    let among = |tables: &[&[ModuleDef]]| tables.iter().any(|t| t.iter().any(|d| d.name == name));
    match module {
        "torch.optim" => among(&optimizer_tables()),
        "torch.optim.lr_scheduler" => among(&scheduler_tables()),
        _ => false,
    }
}

/// An attribute of an optimizer or scheduler (`None` when absent).
pub(crate) fn attr(o: &Rc<Instance>, name: &str) -> Value {
    o.attrs
        .borrow()
        .iter()
        .find(|(n, _)| n == name)
        .map_or(Value::None, |(_, v)| v.clone())
}

/// Sets an attribute of an optimizer or scheduler (in place when it is there).
pub(crate) fn set_attr(o: &Rc<Instance>, name: &str, value: Value) {
    let mut attrs = o.attrs.borrow_mut();
    match attrs.iter_mut().find(|(n, _)| n == name) {
        Some(slot) => slot.1 = value,
        None => attrs.push((name.to_string(), value)),
    }
}

/// The entry `key` of a dict's entries (`None` when absent).
pub(crate) fn get(entries: &[(Value, Value)], key: &str) -> Value {
    entries
        .iter()
        .find(|(k, _)| matches!(k, Value::Str(s) if s == key))
        .map_or(Value::None, |(_, v)| v.clone())
}

/// Whether a dict's entries have the key `key`.
pub(crate) fn has(entries: &[(Value, Value)], key: &str) -> bool {
    entries
        .iter()
        .any(|(k, _)| matches!(k, Value::Str(s) if s == key))
}

/// Sets `key` of a dict's entries (in place when it is there, else at the end).
pub(crate) fn put(entries: &mut Vec<(Value, Value)>, key: &str, value: Value) {
    match entries
        .iter_mut()
        .find(|(k, _)| matches!(k, Value::Str(s) if s == key))
    {
        Some(slot) => slot.1 = value,
        None => entries.push((Value::Str(key.into()), value)),
    }
}

/// An optimizer's `param_groups`, each group's entries.
pub(crate) fn param_groups(o: &Rc<Instance>) -> Vec<Vec<(Value, Value)>> {
    match attr(o, "param_groups") {
        Value::List(groups) => groups
            .into_iter()
            .filter_map(|g| match g {
                Value::Dict(entries) => Some(entries),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Replaces an optimizer's `param_groups`.
pub(crate) fn set_param_groups(o: &Rc<Instance>, groups: Vec<Vec<(Value, Value)>>) {
    set_attr(
        o,
        "param_groups",
        Value::List(groups.into_iter().map(Value::Dict).collect()),
    );
}

/// The tensors of a group's `'params'`.
pub(crate) fn group_params(group: &[(Value, Value)]) -> Vec<TensorRef> {
    match get(group, "params") {
        Value::List(items) | Value::Tuple(items) => items
            .into_iter()
            .filter_map(|v| match v {
                Value::Tensor(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Calls `receiver.name(*pos, **kw)`.
pub(crate) fn call_method(
    ev: &mut Evaluator,
    receiver: &Value,
    name: &str,
    pos: Vec<Value>,
    kw: Vec<(&str, Value)>,
) -> R<Value> {
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    ev.call(
        Value::Method(Box::new(receiver.clone()), name.into()),
        pos,
        kw,
    )
}

/// Calls `torch.name(*pos, **kw)`.
pub(crate) fn call_torch(
    ev: &mut Evaluator,
    name: &str,
    pos: Vec<Value>,
    kw: Vec<(&str, Value)>,
) -> R<Value> {
    call_method(ev, &Value::Torch, name, pos, kw)
}

/// A hyperparameter as a Python float (`_to_scalar`, then `.item()` for a tensor).
pub(crate) fn number(ev: &mut Evaluator, v: &Value) -> R<f64> {
    match v {
        Value::Bool(b) => Ok(f64::from(u8::from(*b))),
        Value::Int(i) => Ok(*i as f64),
        Value::Float(f) => Ok(*f),
        Value::Tensor(_) => {
            let item = call_method(ev, v, "item", vec![], vec![])?;
            number(ev, &item)
        }
        other => Err(ScriptError::Type(format!(
            "must be real number, not {}",
            other.type_name()
        ))),
    }
}

/// Python's `a < b` (with Python's errors), as a bool.
pub(crate) fn less(ev: &mut Evaluator, a: &Value, b: &Value) -> R<bool> {
    let result = ev.binary(BinOp::Lt, a.clone(), b.clone())?;
    ev.truthy(&result)
}

/// Python's `a != b` as a bool.
pub(crate) fn nonzero(ev: &mut Evaluator, a: &Value) -> R<bool> {
    let result = ev.binary(BinOp::Ne, a.clone(), Value::Int(0))?;
    ev.truthy(&result)
}

/// Python's `truth(v)`.
pub(crate) fn flag(ev: &mut Evaluator, v: &Value) -> R<bool> {
    ev.truthy(v)
}

/// `raise ValueError(f"{what}: {value}")`, the optimizers' range checks.
pub(crate) fn invalid(ev: &mut Evaluator, what: &str, value: &Value) -> R<()> {
    Err(ScriptError::Value(format!("{what}: {}", ev.str_of(value)?)))
}

/// Refuses `value < 0.0` (`Invalid {what}: {value}`), as `if value < 0.0: raise` does.
pub(crate) fn check_not_negative(ev: &mut Evaluator, what: &str, value: &Value) -> R<()> {
    if less(ev, value, &Value::Float(0.0))? {
        return invalid(ev, what, value);
    }
    Ok(())
}

/// Refuses `not 0.0 <= value` (NaN included), as `if not 0.0 <= value: raise` does.
pub(crate) fn check_at_least_zero(ev: &mut Evaluator, what: &str, value: &Value) -> R<()> {
    let result = ev.binary(BinOp::Le, Value::Float(0.0), value.clone())?;
    if !ev.truthy(&result)? {
        return invalid(ev, what, value);
    }
    Ok(())
}

/// Runs `f` with grad mode `mode`, restoring the mode before it afterwards.
pub(crate) fn with_grad<T>(
    ev: &mut Evaluator,
    mode: bool,
    f: impl FnOnce(&mut Evaluator) -> R<T>,
) -> R<T> {
    let before = ev.torch.grad_enabled;
    ev.torch.grad_enabled = mode;
    let out = f(ev);
    ev.torch.grad_enabled = before;
    out
}

/// Python's `a <op> b` (the schedulers' arithmetic, with Python's types and errors).
pub(crate) fn py(ev: &mut Evaluator, a: Value, op: BinOp, b: Value) -> R<Value> {
    ev.binary(op, a, b)
}

/// Python's `a <op> b` for a comparison, as a bool (`bool(a < b)`).
pub(crate) fn test(ev: &mut Evaluator, a: Value, op: BinOp, b: Value) -> R<bool> {
    let result = ev.binary(op, a, b)?;
    ev.truthy(&result)
}

/// `math.cos(x)` (a float, from an int or a float).
pub(crate) fn cos(ev: &mut Evaluator, x: &Value) -> R<Value> {
    Ok(Value::Float(number(ev, x)?.cos()))
}
