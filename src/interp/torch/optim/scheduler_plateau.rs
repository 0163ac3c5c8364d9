//! `torch.optim.lr_scheduler.ReduceLROnPlateau`: the learning rates times `factor` (down to
//! `min_lr`, a change smaller than `eps` skipped) once the metric given to `step(metrics)`
//! has not improved (`mode`, `threshold`, `threshold_mode`) for more than `patience`
//! epochs, then `cooldown` epochs of rest, as PyTorch 2.15 defines it (it never calls
//! `LRScheduler.__init__`: no initial step, no `base_lrs`).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::scheduler::{check_optimizer, group_values};
use crate::interp::torch::optim::{
    attr, call_method, get, param_groups, py, set_attr, set_param_groups, test,
};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp::{Add, Ge, Gt, Lt, Mul, Sub};

/// `ReduceLROnPlateau`.
pub(crate) static CLASSES: &[ModuleDef] = &[ModuleDef {
    name: "ReduceLROnPlateau",
    path: "torch.optim.lr_scheduler",
    base: Some("LRScheduler"),
    init: Some(init),
    forward: None,
    extra_repr: None,
    methods: &[
        ("step", |ev, o, pos, kw| {
            let args = bind_python("metrics, epoch=None", "ReduceLROnPlateau.step", &pos, &kw)?;
            step(ev, o, arg(&args, "metrics"), arg(&args, "epoch")).map(|()| Value::None)
        }),
        ("load_state_dict", |ev, o, pos, kw| {
            let args = bind_python("state_dict", "ReduceLROnPlateau.load_state_dict", &pos, &kw)?;
            crate::interp::torch::optim::scheduler::load_state_dict(
                ev,
                o,
                arg(&args, "state_dict"),
            )?;
            let (mode, threshold) = (attr(o, "mode"), attr(o, "threshold"));
            init_is_better(ev, o, mode, threshold, attr(o, "threshold_mode")).map(|()| Value::None)
        }),
    ],
    class_methods: &[],
}];

fn init(ev: &mut Evaluator, o: &Rc<Instance>, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<()> {
    let args = bind_python(
        "optimizer, mode='min', factor=0.1, patience=10, threshold=0.0001, threshold_mode='rel', cooldown=0, min_lr=0, eps=1e-08",
        "ReduceLROnPlateau.__init__",
        &pos,
        &kw,
    )?;
    let factor = arg(&args, "factor");
    if test(ev, factor.clone(), Ge, Value::Float(1.0))? {
        return Err(ScriptError::Value("Factor should be < 1.0.".into()));
    }
    set_attr(o, "factor", factor);
    let optimizer = arg(&args, "optimizer");
    let opt = check_optimizer(&optimizer)?;
    set_attr(o, "optimizer", optimizer);
    let groups = param_groups(&opt).len();
    match arg(&args, "min_lr") {
        Value::List(items) | Value::Tuple(items) => {
            if items.len() != groups {
                return Err(ScriptError::Value(format!(
                    "expected {groups} min_lrs, got {}",
                    items.len()
                )));
            }
            set_attr(o, "default_min_lr", Value::None);
            set_attr(o, "min_lrs", Value::List(items));
        }
        min_lr => {
            set_attr(o, "default_min_lr", min_lr.clone());
            set_attr(o, "min_lrs", Value::List(vec![min_lr; groups]));
        }
    }
    set_attr(o, "patience", arg(&args, "patience"));
    set_attr(o, "cooldown", arg(&args, "cooldown"));
    set_attr(o, "eps", arg(&args, "eps"));
    set_attr(o, "last_epoch", Value::Int(0));
    let last = group_values(ev, &opt, "lr")?;
    set_attr(o, "_last_lr", Value::List(last));
    init_is_better(
        ev,
        o,
        arg(&args, "mode"),
        arg(&args, "threshold"),
        arg(&args, "threshold_mode"),
    )?;
    reset(o);
    Ok(())
}

/// `_reset`: `best`, `cooldown_counter`, `num_bad_epochs`.
fn reset(o: &Rc<Instance>) {
    set_attr(o, "best", attr(o, "mode_worse"));
    set_attr(o, "cooldown_counter", Value::Int(0));
    set_attr(o, "num_bad_epochs", Value::Int(0));
}

/// `x in {'min', 'max'}` for a set of strings.
fn one_of(x: &Value, words: &[&str]) -> bool {
    matches!(x, Value::Str(s) if words.contains(&s.as_str()))
}

/// `_init_is_better(mode, threshold, threshold_mode)`.
fn init_is_better(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    mode: Value,
    threshold: Value,
    threshold_mode: Value,
) -> R<()> {
    if !one_of(&mode, &["min", "max"]) {
        let text = py(ev, Value::Str("mode ".into()), Add, mode)?;
        let text = py(ev, text, Add, Value::Str(" is unknown!".into()))?;
        return Err(ScriptError::Value(ev.str_of(&text)?));
    }
    if !one_of(&threshold_mode, &["rel", "abs"]) {
        let text = py(
            ev,
            Value::Str("threshold mode ".into()),
            Add,
            threshold_mode,
        )?;
        let text = py(ev, text, Add, Value::Str(" is unknown!".into()))?;
        return Err(ScriptError::Value(ev.str_of(&text)?));
    }
    let worse = if one_of(&mode, &["min"]) {
        f64::INFINITY
    } else {
        f64::NEG_INFINITY
    };
    set_attr(o, "mode_worse", Value::Float(worse));
    set_attr(o, "mode", mode);
    set_attr(o, "threshold", threshold);
    set_attr(o, "threshold_mode", threshold_mode);
    Ok(())
}

/// `_is_better(a, best)`.
fn is_better(ev: &mut Evaluator, o: &Rc<Instance>, a: Value, best: Value) -> R<bool> {
    let min = one_of(&attr(o, "mode"), &["min"]);
    let rel = one_of(&attr(o, "threshold_mode"), &["rel"]);
    let threshold = attr(o, "threshold");
    match (min, rel) {
        (true, true) => {
            let rel_epsilon = py(ev, Value::Float(1.0), Sub, threshold)?;
            let bound = py(ev, best, Mul, rel_epsilon)?;
            test(ev, a, Lt, bound)
        }
        (true, false) => {
            let bound = py(ev, best, Sub, threshold)?;
            test(ev, a, Lt, bound)
        }
        (false, true) => {
            let rel_epsilon = py(ev, threshold, Add, Value::Float(1.0))?;
            let bound = py(ev, best, Mul, rel_epsilon)?;
            test(ev, a, Gt, bound)
        }
        (false, false) => {
            let bound = py(ev, best, Add, threshold)?;
            test(ev, a, Gt, bound)
        }
    }
}

/// `step(metrics, epoch=None)`.
fn step(ev: &mut Evaluator, o: &Rc<Instance>, metrics: Value, epoch: Value) -> R<()> {
    let current = ev.call_builtin("float", vec![metrics], vec![])?;
    let epoch = match epoch {
        Value::None => py(ev, attr(o, "last_epoch"), Add, Value::Int(1))?,
        given => {
            ev.recorder.warn("UserWarning: The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed form is used instead of the new chainable form, where available. Please open an issue if you are unable to replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.".into());
            given
        }
    };
    set_attr(o, "last_epoch", epoch);
    if is_better(ev, o, current.clone(), attr(o, "best"))? {
        set_attr(o, "best", current);
        set_attr(o, "num_bad_epochs", Value::Int(0));
    } else {
        let bad = py(ev, attr(o, "num_bad_epochs"), Add, Value::Int(1))?;
        set_attr(o, "num_bad_epochs", bad);
    }
    if test(ev, attr(o, "cooldown_counter"), Gt, Value::Int(0))? {
        let counter = py(ev, attr(o, "cooldown_counter"), Sub, Value::Int(1))?;
        set_attr(o, "cooldown_counter", counter);
        set_attr(o, "num_bad_epochs", Value::Int(0));
    }
    if test(ev, attr(o, "num_bad_epochs"), Gt, attr(o, "patience"))? {
        reduce_lr(ev, o)?;
        set_attr(o, "cooldown_counter", attr(o, "cooldown"));
        set_attr(o, "num_bad_epochs", Value::Int(0));
    }
    let opt = check_optimizer(&attr(o, "optimizer"))?;
    let last = group_values(ev, &opt, "lr")?;
    set_attr(o, "_last_lr", Value::List(last));
    Ok(())
}

/// `_reduce_lr(epoch)`: each group's `lr` times `factor`, not below its `min_lr`.
fn reduce_lr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    let opt = check_optimizer(&attr(o, "optimizer"))?;
    let mut groups = param_groups(&opt);
    let min_lrs = ev.iterate(&attr(o, "min_lrs"))?;
    if groups.len() != min_lrs.len() {
        let default = attr(o, "default_min_lr");
        if matches!(default, Value::None) {
            return Err(ScriptError::Runtime(format!(
                "The number of param groups in the `optimizer` ({}) differs from when `ReduceLROnPlateau` was initialized ({}), usually due to a new param group being added to the optimizer. Please modify the `min_lrs` field to match the length of the `optimizer` param groups.",
                groups.len(),
                min_lrs.len()
            )));
        }
        set_attr(o, "min_lrs", Value::List(vec![default; groups.len()]));
    }
    let factor = attr(o, "factor");
    let eps = attr(o, "eps");
    for (i, group) in groups.iter_mut().enumerate() {
        let lr = crate::interp::torch::optim::optimizer::option(group, "lr")?;
        let old_lr = ev.call_builtin("float", vec![lr.clone()], vec![])?;
        let scaled = py(ev, old_lr.clone(), Mul, factor.clone())?;
        let floor = ev.get_item(attr(o, "min_lrs"), &Value::Int(i as i64))?;
        let new_lr = ev.call_builtin("max", vec![scaled, floor], vec![])?;
        let change = py(ev, old_lr, Sub, new_lr.clone())?;
        if test(ev, change, Gt, eps.clone())? {
            match get(group, "lr") {
                current @ Value::Tensor(_) => {
                    call_method(ev, &current, "fill_", vec![new_lr], vec![])?;
                }
                _ => crate::interp::torch::optim::put(group, "lr", new_lr),
            }
        }
    }
    set_param_groups(&opt, groups);
    Ok(())
}
