//! `torch.optim.lr_scheduler` (`torch/optim/lr_scheduler.py`): `LRScheduler` (the
//! `initial_lr` it adds to the groups, `base_lrs`, `last_epoch`, the initial step, `step`,
//! `get_last_lr`, `state_dict`), `StepLR` (the chainable form: the group's current `lr`
//! times `gamma` every `step_size` epochs; the closed form `base_lr * gamma ** (epoch //
//! step_size)` when `step(epoch)` is given one) and `LambdaLR` (`base_lr * lr_lambda(epoch)`).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, native_of, ModuleDef};
use crate::interp::torch::optim::optimizer::has_attr;
use crate::interp::torch::optim::{attr, get, has, param_groups, put, set_attr, set_param_groups};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// `LRScheduler`, `StepLR` and `LambdaLR`.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        class_methods: &[],
        name: "LRScheduler",
        path: "torch.optim.lr_scheduler",
        base: None,
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "optimizer, last_epoch=-1",
                "LRScheduler.__init__",
                &pos,
                &kw,
            )?;
            setup(ev, o, arg(&args, "optimizer"), arg(&args, "last_epoch"))
        }),
        forward: None,
        extra_repr: None,
        methods: &[
            ("__repr__", |_, o, _, _| Ok(Value::Str(repr(o)))),
            ("step", |ev, o, pos, kw| {
                let what = format!("{}.step", o.class.name);
                let args = bind_python("epoch=None", &what, &pos, &kw)?;
                step(ev, o, arg(&args, "epoch")).map(|()| Value::None)
            }),
            ("_initial_step", |ev, o, pos, kw| {
                bind_python("", "LRScheduler._initial_step", &pos, &kw)?;
                initial_step(ev, o).map(|()| Value::None)
            }),
            ("_update_lr", |ev, o, pos, kw| {
                let args = bind_python("epoch=None", "LRScheduler._update_lr", &pos, &kw)?;
                update_lr(ev, o, arg(&args, "epoch")).map(|()| Value::None)
            }),
            ("get_last_lr", |_, o, pos, kw| {
                bind_python("", "LRScheduler.get_last_lr", &pos, &kw)?;
                Ok(attr(o, "_last_lr"))
            }),
            ("get_lr", |ev, o, pos, kw| {
                bind_python("", "LRScheduler.get_lr", &pos, &kw)?;
                get_lr(ev, o)
            }),
            ("state_dict", |_, o, pos, kw| {
                bind_python("", "LRScheduler.state_dict", &pos, &kw)?;
                Ok(state_dict(o))
            }),
            ("load_state_dict", |ev, o, pos, kw| {
                let args = bind_python("state_dict", "LRScheduler.load_state_dict", &pos, &kw)?;
                load_state_dict(ev, o, arg(&args, "state_dict")).map(|()| Value::None)
            }),
        ],
    },
    ModuleDef {
        class_methods: &[],
        name: "StepLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "optimizer, step_size, gamma=0.1, last_epoch=-1",
                "StepLR.__init__",
                &pos,
                &kw,
            )?;
            set_attr(o, "step_size", arg(&args, "step_size"));
            set_attr(o, "gamma", arg(&args, "gamma"));
            setup(ev, o, arg(&args, "optimizer"), arg(&args, "last_epoch"))
        }),
        forward: None,
        extra_repr: None,
        methods: &[],
    },
    ModuleDef {
        class_methods: &[],
        name: "LambdaLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "optimizer, lr_lambda, last_epoch=-1",
                "LambdaLR.__init__",
                &pos,
                &kw,
            )?;
            let optimizer = arg(&args, "optimizer");
            crate::interp::torch::optim::scheduler_factor::lr_lambdas(
                ev,
                o,
                &optimizer,
                arg(&args, "lr_lambda"),
            )?;
            setup(ev, o, optimizer, arg(&args, "last_epoch"))
        }),
        forward: None,
        extra_repr: None,
        methods: &[],
    },
];

/// The name of a scheduler's nearest built-in class.
pub(crate) fn kind(o: &Rc<Instance>) -> &'static str {
    native_of(&o.class).map_or("", |d| d.name)
}

/// `<torch.optim.lr_scheduler.StepLR object at 0x...>`.
fn repr(o: &Rc<Instance>) -> String {
    let module = o.class.native.map_or("__main__", |d| d.path);
    let address = 0x7f00_0000_0000_u64 + (Rc::as_ptr(o) as usize as u64 & 0xff_fff0);
    format!("<{module}.{} object at 0x{address:x}>", o.class.qualname)
}

/// The optimizer a scheduler drives.
pub(crate) fn optimizer(o: &Rc<Instance>) -> R<Rc<Instance>> {
    match attr(o, "optimizer") {
        Value::Instance(opt) => Ok(opt),
        other => Err(ScriptError::Attribute(format!(
            "'{}' object has no attribute 'param_groups'",
            other.type_name()
        ))),
    }
}

/// Each group's `key` (`_param_groups_val_list`).
pub(crate) fn group_values(ev: &mut Evaluator, opt: &Rc<Instance>, key: &str) -> R<Vec<Value>> {
    let mut out = Vec::new();
    for group in param_groups(opt) {
        if !has(&group, key) {
            return Err(ScriptError::Key(ev.repr(&Value::Str(key.into()))?));
        }
        let value = get(&group, key);
        out.push(match value {
            Value::Tensor(_) => {
                crate::interp::torch::optim::call_method(ev, &value, "clone", vec![], vec![])?
            }
            other => other,
        });
    }
    Ok(out)
}

/// `LRScheduler.__init__(optimizer, last_epoch)`.
pub(crate) fn scheduler_setup(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    optimizer: Value,
    last_epoch: Value,
) -> R<()> {
    setup(ev, o, optimizer, last_epoch)
}

/// `if not isinstance(optimizer, Optimizer): raise TypeError(...)`: the optimizer.
pub(crate) fn check_optimizer(optimizer: &Value) -> R<Rc<Instance>> {
    match optimizer {
        Value::Instance(opt)
            if std::iter::successors(native_of(&opt.class), |d| {
                d.base.and_then(crate::interp::torch::nn::module::find)
            })
            .any(|d| d.name == "Optimizer") =>
        {
            Ok(Rc::clone(opt))
        }
        other => {
            let name = match other {
                Value::Tensor(t) if t.borrow().is_parameter => "Parameter".into(),
                other => other.type_name(),
            };
            Err(ScriptError::Type(format!("{name} is not an Optimizer")))
        }
    }
}

fn setup(ev: &mut Evaluator, o: &Rc<Instance>, optimizer: Value, last_epoch: Value) -> R<()> {
    let opt = &check_optimizer(&optimizer)?;
    set_attr(o, "optimizer", optimizer.clone());
    let fresh = crate::interp::python::operators::values_equal(&last_epoch, &Value::Int(-1));
    let mut groups = param_groups(opt);
    for (i, group) in groups.iter_mut().enumerate() {
        if fresh {
            if !has(group, "initial_lr") {
                let lr = get(group, "lr");
                let lr = match lr {
                    Value::Tensor(_) => {
                        crate::interp::torch::optim::call_method(ev, &lr, "clone", vec![], vec![])?
                    }
                    other => other,
                };
                put(group, "initial_lr", lr);
            }
        } else if !has(group, "initial_lr") {
            let message = format!(
                "param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler with last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume training from a checkpoint but haven't properly loaded the optimizer state\n2. You're using last_epoch >= 0 for a fresh training run (not recommended)"
            );
            return Err(ScriptError::Key(ev.repr(&Value::Str(message))?));
        }
    }
    set_param_groups(opt, groups);
    let base_lrs = group_values(ev, opt, "initial_lr")?;
    set_attr(o, "base_lrs", Value::List(base_lrs));
    set_attr(o, "last_epoch", last_epoch);
    if !has_attr(opt, "_opt_called") {
        set_attr(opt, "_opt_called", Value::Bool(false));
    }
    initial_step(ev, o)
}

/// `_initial_step`: `_step_count = 0`, then `self.step()` (a class's own `step` included)
/// in the initial mode.
pub(crate) fn initial_step(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    set_attr(o, "_step_count", Value::Int(0));
    set_attr(o, "_is_initial", Value::Bool(true));
    let receiver = Value::Instance(Rc::clone(o));
    let result = crate::interp::torch::optim::call_method(ev, &receiver, "step", vec![], vec![]);
    set_attr(o, "_is_initial", Value::Bool(false));
    result.map(|_| ())
}

/// `scheduler.step(epoch=None)`.
fn step(ev: &mut Evaluator, o: &Rc<Instance>, epoch: Value) -> R<()> {
    let opt = optimizer(o)?;
    let count = attr(o, "_step_count");
    if crate::interp::python::operators::values_equal(&count, &Value::Int(1)) {
        let called = attr(&opt, "_opt_called");
        // A script class's own `step` is not seen being called here: no warning then.
        let own_step = opt
            .class
            .mro()
            .iter()
            .any(|c| c.native.is_none() && c.attrs.borrow().iter().any(|(n, _)| n == "step"));
        if !own_step && !ev.truthy(&called)? {
            ev.recorder.warn("UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule. See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate".into());
        }
    }
    let count = ev.binary(BinOp::Add, count, Value::Int(1))?;
    set_attr(o, "_step_count", count);
    if !matches!(epoch, Value::None) {
        ev.recorder.warn("UserWarning: The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed form is used instead of the new chainable form, where available. Please open an issue if you are unable to replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.".into());
    }
    update_lr(ev, o, epoch)
}

/// `_update_lr(epoch)`: the next learning rates (`get_lr`, or the closed form for an
/// epoch given) into the groups, and `_last_lr`.
pub(crate) fn update_lr(ev: &mut Evaluator, o: &Rc<Instance>, epoch: Value) -> R<()> {
    let opt = optimizer(o)?;
    set_attr(o, "_get_lr_called_within_step", Value::Bool(true));
    let values = next_lrs(ev, o, epoch);
    set_attr(o, "_get_lr_called_within_step", Value::Bool(false));
    let values = ev.iterate(&values?)?;
    let mut groups = param_groups(&opt);
    if values.len() != groups.len() {
        return Err(ScriptError::Value(format!(
            "zip() argument 2 is {} than argument 1",
            if values.len() < groups.len() {
                "shorter"
            } else {
                "longer"
            }
        )));
    }
    for (group, lr) in groups.iter_mut().zip(values) {
        match get(group, "lr") {
            current @ Value::Tensor(_) => {
                crate::interp::torch::optim::call_method(ev, &current, "fill_", vec![lr], vec![])?;
            }
            _ => put(group, "lr", lr),
        }
    }
    set_param_groups(&opt, groups);
    let last = group_values(ev, &opt, "lr")?;
    set_attr(o, "_last_lr", Value::List(last));
    Ok(())
}

/// `_update_lr`'s learning rates: `last_epoch` advanced and `self.get_lr()` (a script
/// subclass's own included), or with an epoch given, the closed form where the class has
/// one.
fn next_lrs(ev: &mut Evaluator, o: &Rc<Instance>, epoch: Value) -> R<Value> {
    if matches!(epoch, Value::None) {
        let last = attr(o, "last_epoch");
        let next = ev.binary(BinOp::Add, last, Value::Int(1))?;
        set_attr(o, "last_epoch", next);
    } else {
        set_attr(o, "last_epoch", epoch);
        if kind(o) == "StepLR" {
            return closed_form(ev, o);
        }
        if let Some(values) =
            crate::interp::torch::optim::scheduler_more::closed_form(ev, o, kind(o))?
        {
            return Ok(values);
        }
        if let Some(values) =
            crate::interp::torch::optim::scheduler_factor::closed_form(ev, o, kind(o))?
        {
            return Ok(values);
        }
    }
    let method = ev.instance_attribute(o, "get_lr")?;
    ev.call(method, vec![], vec![])
}

/// The built-in `get_lr` of a scheduler's class.
fn get_lr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<Value> {
    let within = attr(o, "_get_lr_called_within_step");
    if !ev.truthy(&within)? {
        ev.recorder.warn(
            "UserWarning: To get the last learning rate computed by the scheduler, please use `get_last_lr()`."
                .into(),
        );
    }
    let opt = optimizer(o)?;
    let last_epoch = attr(o, "last_epoch");
    match kind(o) {
        "StepLR" => {
            let step_size = attr(o, "step_size");
            let at_zero =
                crate::interp::python::operators::values_equal(&last_epoch, &Value::Int(0));
            let keep = at_zero || {
                let rest = ev.binary(BinOp::Mod, last_epoch, step_size)?;
                let nonzero = ev.binary(BinOp::Ne, rest, Value::Int(0))?;
                ev.truthy(&nonzero)?
            };
            if keep {
                return group_values(ev, &opt, "lr").map(Value::List);
            }
            let gamma = attr(o, "gamma");
            let mut out = Vec::new();
            for group in param_groups(&opt) {
                out.push(ev.binary(BinOp::Mul, get(&group, "lr"), gamma.clone())?);
            }
            Ok(Value::List(out))
        }
        "LambdaLR" => {
            let lambdas = ev.iterate(&attr(o, "lr_lambdas"))?;
            let bases = ev.iterate(&attr(o, "base_lrs"))?;
            let mut out = Vec::new();
            for (f, base) in lambdas.into_iter().zip(bases) {
                let factor = ev.call(f, vec![last_epoch.clone()], vec![])?;
                out.push(ev.binary(BinOp::Mul, base, factor)?);
            }
            Ok(Value::List(out))
        }
        other => {
            use crate::interp::torch::optim::{scheduler_cyclic, scheduler_factor};
            if let Some(values) = scheduler_factor::get_lr(ev, o, &opt, other)? {
                return Ok(values);
            }
            if let Some(values) = scheduler_cyclic::get_lr(ev, o, &opt, other)? {
                return Ok(values);
            }
            crate::interp::torch::optim::scheduler_more::get_lr(ev, o, &opt, other)
        }
    }
}

/// `StepLR._get_closed_form_lr`: `base_lr * gamma ** (last_epoch // step_size)`.
fn closed_form(ev: &mut Evaluator, o: &Rc<Instance>) -> R<Value> {
    let periods = ev.binary(BinOp::FloorDiv, attr(o, "last_epoch"), attr(o, "step_size"))?;
    let factor = ev.binary(BinOp::Pow, attr(o, "gamma"), periods)?;
    let mut out = Vec::new();
    for base in ev.iterate(&attr(o, "base_lrs"))? {
        out.push(ev.binary(BinOp::Mul, base, factor.clone())?);
    }
    Ok(Value::List(out))
}

/// `scheduler.state_dict()`: every attribute but the optimizer (`LambdaLR`: the lambdas
/// as `None`, or a callable object's attributes, last).
pub(crate) fn state_dict(o: &Rc<Instance>) -> Value {
    let lambda = matches!(kind(o), "LambdaLR" | "MultiplicativeLR");
    let mut entries: Vec<(Value, Value)> = o
        .attrs
        .borrow()
        .iter()
        .filter(|(k, _)| k != "optimizer" && !(lambda && k == "lr_lambdas"))
        .map(|(k, v)| (Value::Str(k.clone()), v.clone()))
        .collect();
    if lambda {
        let saved = match attr(o, "lr_lambdas") {
            Value::List(items) => items
                .into_iter()
                .map(|f| match f {
                    Value::Instance(obj) => Value::Dict(
                        obj.attrs
                            .borrow()
                            .iter()
                            .map(|(k, v)| (Value::Str(k.clone()), v.clone()))
                            .collect(),
                    ),
                    _ => Value::None,
                })
                .collect(),
            _ => Vec::new(),
        };
        entries.push((Value::Str("lr_lambdas".into()), Value::List(saved)));
    }
    Value::Dict(entries)
}

/// `scheduler.load_state_dict(state_dict)`: the attributes updated from it (`LambdaLR`
/// keeps its lambdas).
pub(crate) fn load_state_dict(ev: &mut Evaluator, o: &Rc<Instance>, sd: Value) -> R<()> {
    let lambda = matches!(kind(o), "LambdaLR" | "MultiplicativeLR");
    let Value::Dict(entries) = sd else {
        return Err(ScriptError::Type(format!(
            "'{}' object is not iterable",
            sd.type_name()
        )));
    };
    if lambda && !has(&entries, "lr_lambdas") {
        return Err(ScriptError::Key(ev.repr(&Value::Str("lr_lambdas".into()))?));
    }
    for (k, v) in entries {
        match k {
            Value::Str(k) if !(lambda && k == "lr_lambdas") => set_attr(o, &k, v),
            Value::Str(_) => {}
            other => {
                return Err(ScriptError::Type(format!(
                    "attribute name must be string, not '{}'",
                    other.type_name()
                )))
            }
        }
    }
    Ok(())
}
