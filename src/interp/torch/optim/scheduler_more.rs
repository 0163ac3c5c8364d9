//! More schedulers of `torch.optim.lr_scheduler`: `MultiStepLR` (the group's `lr` times
//! `gamma ** count` at each milestone), `ExponentialLR` (times `gamma` every epoch) and
//! `CosineAnnealingLR` (PyTorch's recursive cosine form), each with the closed form
//! `step(epoch)` uses. The arithmetic is Python's, in PyTorch's order.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::python::operators::values_equal;
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::scheduler::{group_values, scheduler_setup};
use crate::interp::torch::optim::{attr, get, number, param_groups, set_attr};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// `MultiStepLR`, `ExponentialLR` and `CosineAnnealingLR`.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        name: "MultiStepLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "optimizer, milestones, gamma=0.1, last_epoch=-1",
                "MultiStepLR.__init__",
                &pos,
                &kw,
            )?;
            let mut counts: Vec<(Value, Value)> = Vec::new();
            for m in ev.iterate(&arg(&args, "milestones"))? {
                match counts.iter_mut().find(|(k, _)| values_equal(k, &m)) {
                    Some((_, Value::Int(n))) => *n += 1,
                    _ => counts.push((m, Value::Int(1))),
                }
            }
            set_attr(o, "milestones", Value::Dict(counts));
            set_attr(o, "gamma", arg(&args, "gamma"));
            scheduler_setup(ev, o, arg(&args, "optimizer"), arg(&args, "last_epoch"))
        }),
        forward: None,
        extra_repr: None,
        methods: &[],
        class_methods: &[],
    },
    ModuleDef {
        name: "ExponentialLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "optimizer, gamma, last_epoch=-1",
                "ExponentialLR.__init__",
                &pos,
                &kw,
            )?;
            set_attr(o, "gamma", arg(&args, "gamma"));
            scheduler_setup(ev, o, arg(&args, "optimizer"), arg(&args, "last_epoch"))
        }),
        forward: None,
        extra_repr: None,
        methods: &[],
        class_methods: &[],
    },
    ModuleDef {
        name: "CosineAnnealingLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "optimizer, T_max, eta_min=0.0, last_epoch=-1",
                "CosineAnnealingLR.__init__",
                &pos,
                &kw,
            )?;
            set_attr(o, "T_max", arg(&args, "T_max"));
            set_attr(o, "eta_min", arg(&args, "eta_min"));
            scheduler_setup(ev, o, arg(&args, "optimizer"), arg(&args, "last_epoch"))
        }),
        forward: None,
        extra_repr: None,
        methods: &[],
        class_methods: &[],
    },
];

/// Each group's `lr` times `factor` (`[group["lr"] * factor for group in ...]`).
fn scaled(ev: &mut Evaluator, opt: &Rc<Instance>, factor: &Value) -> R<Value> {
    let mut out = Vec::new();
    for group in param_groups(opt) {
        out.push(ev.binary(BinOp::Mul, get(&group, "lr"), factor.clone())?);
    }
    Ok(Value::List(out))
}

/// Whether a value is true as Python sees it.
fn truth(ev: &mut Evaluator, v: Value) -> R<bool> {
    ev.truthy(&v)
}

/// The chainable `get_lr` of these classes (`kind` is the class's name).
pub(crate) fn get_lr(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    opt: &Rc<Instance>,
    kind: &str,
) -> R<Value> {
    let last = attr(o, "last_epoch");
    let initial = truth(ev, attr(o, "_is_initial"))?;
    match kind {
        "MultiStepLR" => {
            let milestones = match attr(o, "milestones") {
                Value::Dict(d) => d,
                _ => Vec::new(),
            };
            match milestones.iter().find(|(k, _)| values_equal(k, &last)) {
                None => group_values(ev, opt, "lr").map(Value::List),
                Some((_, count)) => {
                    let factor = ev.binary(BinOp::Pow, attr(o, "gamma"), count.clone())?;
                    scaled(ev, opt, &factor)
                }
            }
        }
        "ExponentialLR" => {
            if initial {
                return group_values(ev, opt, "lr").map(Value::List);
            }
            scaled(ev, opt, &attr(o, "gamma"))
        }
        "CosineAnnealingLR" => {
            if initial {
                return group_values(ev, opt, "lr").map(Value::List);
            }
            let pi = std::f64::consts::PI;
            let epoch = number(ev, &last)?;
            let t_max = number(ev, &attr(o, "T_max"))?;
            let eta_min = number(ev, &attr(o, "eta_min"))?;
            if t_max == 0.0 {
                return Err(ScriptError::ZeroDivision("float division by zero".into()));
            }
            let first_step = values_equal(&attr(o, "_step_count"), &Value::Int(1));
            let bases = ev.iterate(&attr(o, "base_lrs"))?;
            let groups = param_groups(opt);
            let mut out = Vec::new();
            let restart = {
                let period = 2.0 * t_max;
                (epoch - 1.0 - t_max).rem_euclid(period) == 0.0
            };
            for (base, group) in bases.iter().zip(&groups) {
                let base = number(ev, base)?;
                let lr = number(ev, &get(group, "lr"))?;
                let value = if first_step && epoch > 0.0 {
                    eta_min + (base - eta_min) * (1.0 + (epoch * pi / t_max).cos()) / 2.0
                } else if restart {
                    lr + (base - eta_min) * (1.0 - (pi / t_max).cos()) / 2.0
                } else {
                    (1.0 + (pi * epoch / t_max).cos()) / (1.0 + (pi * (epoch - 1.0) / t_max).cos())
                        * (lr - eta_min)
                        + eta_min
                };
                out.push(Value::Float(value));
            }
            Ok(Value::List(out))
        }
        _ => Err(ScriptError::NotImplemented(String::new())),
    }
}

/// The closed form `step(epoch)` uses, for the classes that have one (`None` otherwise).
pub(crate) fn closed_form(ev: &mut Evaluator, o: &Rc<Instance>, kind: &str) -> R<Option<Value>> {
    let last = attr(o, "last_epoch");
    let bases = ev.iterate(&attr(o, "base_lrs"))?;
    let factor = match kind {
        "MultiStepLR" => {
            let mut passed = 0i64;
            if let Value::Dict(d) = attr(o, "milestones") {
                for (k, count) in d {
                    let le = ev.binary(BinOp::Le, k, last.clone())?;
                    if ev.truthy(&le)? {
                        passed += match count {
                            Value::Int(n) => n,
                            _ => 1,
                        };
                    }
                }
            }
            ev.binary(BinOp::Pow, attr(o, "gamma"), Value::Int(passed))?
        }
        "ExponentialLR" => ev.binary(BinOp::Pow, attr(o, "gamma"), last)?,
        "CosineAnnealingLR" => {
            let pi = std::f64::consts::PI;
            let epoch = number(ev, &last)?;
            let t_max = number(ev, &attr(o, "T_max"))?;
            let eta_min = number(ev, &attr(o, "eta_min"))?;
            let mut out = Vec::new();
            for base in bases {
                let base = number(ev, &base)?;
                out.push(Value::Float(
                    eta_min + (base - eta_min) * (1.0 + (pi * epoch / t_max).cos()) / 2.0,
                ));
            }
            return Ok(Some(Value::List(out)));
        }
        _ => return Ok(None),
    };
    let mut out = Vec::new();
    for base in bases {
        out.push(ev.binary(BinOp::Mul, base, factor.clone())?);
    }
    Ok(Some(Value::List(out)))
}
