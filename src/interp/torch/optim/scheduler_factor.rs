//! The factor schedulers of `torch.optim.lr_scheduler`: `MultiplicativeLR` (the group's `lr`
//! times `lr_lambda(epoch)` every epoch), `ConstantLR` (times `factor` until
//! `total_iters`), `LinearLR` (from `start_factor` to `end_factor` over `total_iters`,
//! PyTorch's chainable ratio form) and `PolynomialLR` (`(1 - t/T) ** power`), each with the
//! closed form `step(epoch)` uses where PyTorch 2.15 defines one. The arithmetic is
//! Python's on the values themselves (ints stay ints, a tensor `lr` stays a tensor), in
//! the order of `lr_scheduler.py`'s expressions, so the floats are PyTorch's bit for bit.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::python::operators::values_equal;
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::scheduler::{group_values, scheduler_setup};
use crate::interp::torch::optim::{attr, get, param_groups, py, set_attr, test};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp::{Add, Div, Ge, Gt, Le, Lt, Mul, Ne, Pow, Sub};

/// `MultiplicativeLR`, `ConstantLR`, `LinearLR` and `PolynomialLR`.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        name: "MultiplicativeLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "optimizer, lr_lambda, last_epoch=-1",
                "MultiplicativeLR.__init__",
                &pos,
                &kw,
            )?;
            let optimizer = arg(&args, "optimizer");
            let lambdas = lr_lambdas(ev, o, &optimizer, arg(&args, "lr_lambda"))?;
            for f in &lambdas {
                let callable = ev.call_builtin("callable", vec![f.clone()], vec![])?;
                if !ev.truthy(&callable)? {
                    return Err(ScriptError::Type(format!(
                        "lr_lambda should be a function, but got {}",
                        f.type_name()
                    )));
                }
            }
            scheduler_setup(ev, o, optimizer, arg(&args, "last_epoch"))
        }),
        forward: None,
        extra_repr: None,
        methods: &[],
        class_methods: &[],
    },
    ModuleDef {
        name: "ConstantLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "optimizer, factor=0.3333333333333333, total_iters=5, last_epoch=-1",
                "ConstantLR.__init__",
                &pos,
                &kw,
            )?;
            let factor = arg(&args, "factor");
            if test(ev, factor.clone(), Gt, Value::Float(1.0))?
                || test(ev, factor.clone(), Lt, Value::Int(0))?
            {
                return Err(ScriptError::Value(
                    "Constant multiplicative factor expected to be between 0 and 1.".into(),
                ));
            }
            set_attr(o, "factor", factor);
            set_attr(o, "total_iters", arg(&args, "total_iters"));
            scheduler_setup(ev, o, arg(&args, "optimizer"), arg(&args, "last_epoch"))
        }),
        forward: None,
        extra_repr: None,
        methods: &[],
        class_methods: &[],
    },
    ModuleDef {
        name: "LinearLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "optimizer, start_factor=0.3333333333333333, end_factor=1.0, total_iters=5, last_epoch=-1",
                "LinearLR.__init__",
                &pos,
                &kw,
            )?;
            let start = arg(&args, "start_factor");
            if test(ev, start.clone(), Gt, Value::Float(1.0))?
                || test(ev, start.clone(), Le, Value::Int(0))?
            {
                return Err(ScriptError::Value(
                    "Starting multiplicative factor expected to be greater than 0 and less or equal to 1.".into(),
                ));
            }
            let end = arg(&args, "end_factor");
            if test(ev, end.clone(), Gt, Value::Float(1.0))?
                || test(ev, end.clone(), Lt, Value::Int(0))?
            {
                return Err(ScriptError::Value(
                    "Ending multiplicative factor expected to be between 0 and 1.".into(),
                ));
            }
            set_attr(o, "start_factor", start);
            set_attr(o, "end_factor", end);
            set_attr(o, "total_iters", arg(&args, "total_iters"));
            scheduler_setup(ev, o, arg(&args, "optimizer"), arg(&args, "last_epoch"))
        }),
        forward: None,
        extra_repr: None,
        methods: &[],
        class_methods: &[],
    },
    ModuleDef {
        name: "PolynomialLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "optimizer, total_iters=5, power=1.0, last_epoch=-1",
                "PolynomialLR.__init__",
                &pos,
                &kw,
            )?;
            set_attr(o, "total_iters", arg(&args, "total_iters"));
            set_attr(o, "power", arg(&args, "power"));
            scheduler_setup(ev, o, arg(&args, "optimizer"), arg(&args, "last_epoch"))
        }),
        forward: None,
        extra_repr: None,
        methods: &[],
        class_methods: &[],
    },
];

/// `LambdaLR`'s and `MultiplicativeLR`'s `self.optimizer = optimizer` and `self.lr_lambdas`
/// (one function for every group, or a list or tuple of one per group).
pub(crate) fn lr_lambdas(
    _ev: &mut Evaluator,
    o: &Rc<Instance>,
    optimizer: &Value,
    lr_lambda: Value,
) -> R<Vec<Value>> {
    set_attr(o, "optimizer", optimizer.clone());
    let groups = match optimizer {
        Value::Instance(opt) => param_groups(opt).len(),
        other => {
            return Err(ScriptError::Attribute(format!(
                "'{}' object has no attribute 'param_groups'",
                other.type_name()
            )))
        }
    };
    let lambdas = match lr_lambda {
        Value::List(items) | Value::Tuple(items) => {
            if items.len() != groups {
                return Err(ScriptError::Value(format!(
                    "Expected {groups} lr_lambdas, but got {}",
                    items.len()
                )));
            }
            items
        }
        f => vec![f; groups],
    };
    set_attr(o, "lr_lambdas", Value::List(lambdas.clone()));
    Ok(lambdas)
}

/// `[group['lr'] * factor for group in self.optimizer.param_groups]`.
pub(crate) fn scaled(ev: &mut Evaluator, opt: &Rc<Instance>, factor: &Value) -> R<Value> {
    let mut out = Vec::new();
    for group in param_groups(opt) {
        out.push(py(ev, get(&group, "lr"), Mul, factor.clone())?);
    }
    Ok(Value::List(out))
}

/// `[base_lr * factor for base_lr in self.base_lrs]`.
fn from_bases(ev: &mut Evaluator, o: &Rc<Instance>, factor: &Value) -> R<Value> {
    let mut out = Vec::new();
    for base in ev.iterate(&attr(o, "base_lrs"))? {
        out.push(py(ev, base, Mul, factor.clone())?);
    }
    Ok(Value::List(out))
}

/// The chainable `get_lr` of these classes (`None` for another class).
pub(crate) fn get_lr(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    opt: &Rc<Instance>,
    kind: &str,
) -> R<Option<Value>> {
    let last = attr(o, "last_epoch");
    let initial = ev.truthy(&attr(o, "_is_initial"))?;
    let current = |ev: &mut Evaluator| group_values(ev, opt, "lr").map(Value::List);
    let values = match kind {
        "MultiplicativeLR" => {
            if initial {
                return current(ev).map(Some);
            }
            let lambdas = ev.iterate(&attr(o, "lr_lambdas"))?;
            let groups = param_groups(opt);
            let mut out = Vec::new();
            for (f, group) in lambdas.into_iter().zip(groups) {
                let factor = ev.call(f, vec![last.clone()], vec![])?;
                out.push(py(ev, get(&group, "lr"), Mul, factor)?);
            }
            Value::List(out)
        }
        "ConstantLR" => {
            let factor = attr(o, "factor");
            if values_equal(&last, &Value::Int(0)) {
                scaled(ev, opt, &factor)?
            } else if test(ev, last, Ne, attr(o, "total_iters"))? {
                current(ev)?
            } else {
                let inverse = py(ev, Value::Float(1.0), Div, factor)?;
                scaled(ev, opt, &inverse)?
            }
        }
        "LinearLR" => {
            let (start, end) = (attr(o, "start_factor"), attr(o, "end_factor"));
            let total = attr(o, "total_iters");
            if values_equal(&last, &Value::Int(0)) {
                return scaled(ev, opt, &start).map(Some);
            }
            if initial || test(ev, last.clone(), Gt, total.clone())? {
                return current(ev).map(Some);
            }
            // 1.0 + (end - start) / (total * start + (last - 1) * (end - start))
            let span = py(ev, end, Sub, start.clone())?;
            let first = py(ev, total, Mul, start)?;
            let before = py(ev, last, Sub, Value::Int(1))?;
            let walked = py(ev, before, Mul, span.clone())?;
            let denominator = py(ev, first, Add, walked)?;
            let ratio = py(ev, span, Div, denominator)?;
            let factor = py(ev, Value::Float(1.0), Add, ratio)?;
            scaled(ev, opt, &factor)?
        }
        "PolynomialLR" => {
            let total = attr(o, "total_iters");
            if initial || test(ev, last.clone(), Gt, total.clone())? {
                return current(ev).map(Some);
            }
            // ((1.0 - last / total) / (1.0 - (last - 1) / total)) ** power
            let now = py(ev, last.clone(), Div, total.clone())?;
            let numerator = py(ev, Value::Float(1.0), Sub, now)?;
            let before = py(ev, last, Sub, Value::Int(1))?;
            let then = py(ev, before, Div, total)?;
            let denominator = py(ev, Value::Float(1.0), Sub, then)?;
            let ratio = py(ev, numerator, Div, denominator)?;
            let decay = py(ev, ratio, Pow, attr(o, "power"))?;
            scaled(ev, opt, &decay)?
        }
        _ => return Ok(None),
    };
    Ok(Some(values))
}

/// `_get_closed_form_lr` of these classes (`None` for another class).
pub(crate) fn closed_form(ev: &mut Evaluator, o: &Rc<Instance>, kind: &str) -> R<Option<Value>> {
    let last = attr(o, "last_epoch");
    let total = attr(o, "total_iters");
    let factor = match kind {
        "ConstantLR" => {
            // factor + (last >= total) * (1 - factor)
            let factor = attr(o, "factor");
            let reached = py(ev, last, Ge, total)?;
            let rest = py(ev, Value::Int(1), Sub, factor.clone())?;
            let extra = py(ev, reached, Mul, rest)?;
            py(ev, factor, Add, extra)?
        }
        "LinearLR" => {
            // start + (end - start) * min(total, last) / total
            let (start, end) = (attr(o, "start_factor"), attr(o, "end_factor"));
            let span = py(ev, end, Sub, start.clone())?;
            let walked = ev.call_builtin("min", vec![total.clone(), last], vec![])?;
            let scaled = py(ev, span, Mul, walked)?;
            let part = py(ev, scaled, Div, total)?;
            py(ev, start, Add, part)?
        }
        "PolynomialLR" => {
            // (1.0 - min(total, last) / total) ** power
            let walked = ev.call_builtin("min", vec![total.clone(), last], vec![])?;
            let part = py(ev, walked, Div, total)?;
            let rest = py(ev, Value::Float(1.0), Sub, part)?;
            py(ev, rest, Pow, attr(o, "power"))?
        }
        _ => return Ok(None),
    };
    from_bases(ev, o, &factor).map(Some)
}
