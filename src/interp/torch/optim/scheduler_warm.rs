//! `torch.optim.lr_scheduler.CosineAnnealingWarmRestarts`: cosine annealing restarted
//! every `T_i` epochs (`T_i` times `T_mult` after each restart), with its own `step(epoch)`
//! (fractional epochs included; it never counts `_step_count`), as PyTorch 2.15 defines it.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::scheduler::{check_optimizer, group_values, scheduler_setup};
use crate::interp::torch::optim::scheduler_cyclic::{is_int, update_val};
use crate::interp::torch::optim::{
    attr, cos, number, param_groups, py, set_attr, set_param_groups, test,
};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp::{Add, Div, Eq, Ge, Le, Lt, Mod, Mul, Pow, Sub};

/// `CosineAnnealingWarmRestarts`.
pub(crate) static CLASSES: &[ModuleDef] = &[ModuleDef {
    name: "CosineAnnealingWarmRestarts",
    path: "torch.optim.lr_scheduler",
    base: Some("LRScheduler"),
    init: Some(init),
    forward: None,
    extra_repr: None,
    methods: &[("step", |ev, o, pos, kw| {
        let args = bind_python("epoch=None", "CosineAnnealingWarmRestarts.step", &pos, &kw)?;
        step(ev, o, arg(&args, "epoch")).map(|()| Value::None)
    })],
    class_methods: &[],
}];

fn init(ev: &mut Evaluator, o: &Rc<Instance>, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<()> {
    let args = bind_python(
        "optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1",
        "CosineAnnealingWarmRestarts.__init__",
        &pos,
        &kw,
    )?;
    let t0 = arg(&args, "T_0");
    if test(ev, t0.clone(), Le, Value::Int(0))? || !is_int(&t0) {
        let text = ev.str_of(&t0)?;
        return Err(ScriptError::Value(format!(
            "Expected positive integer T_0, but got {text}"
        )));
    }
    let t_mult = arg(&args, "T_mult");
    if test(ev, t_mult.clone(), Lt, Value::Int(1))? || !is_int(&t_mult) {
        let text = ev.str_of(&t_mult)?;
        return Err(ScriptError::Value(format!(
            "Expected integer T_mult >= 1, but got {text}"
        )));
    }
    let eta_min = arg(&args, "eta_min");
    if !matches!(eta_min, Value::Float(_) | Value::Int(_) | Value::Bool(_)) {
        let text = ev.str_of(&eta_min)?;
        let kind = ev.call_builtin("type", vec![eta_min.clone()], vec![])?;
        let kind = ev.str_of(&kind)?;
        return Err(ScriptError::Value(format!(
            "Expected float or int eta_min, but got {text} of type {kind}"
        )));
    }
    set_attr(o, "T_0", t0.clone());
    set_attr(o, "T_i", t0);
    set_attr(o, "T_mult", t_mult);
    set_attr(o, "eta_min", eta_min);
    let last_epoch = arg(&args, "last_epoch");
    set_attr(o, "T_cur", last_epoch.clone());
    scheduler_setup(ev, o, arg(&args, "optimizer"), last_epoch)
}

/// `CosineAnnealingWarmRestarts.step(epoch=None)`.
fn step(ev: &mut Evaluator, o: &Rc<Instance>, epoch: Value) -> R<()> {
    let mut epoch = epoch;
    if matches!(epoch, Value::None) && test(ev, attr(o, "last_epoch"), Lt, Value::Int(0))? {
        epoch = Value::Int(0);
    }
    let (t0, t_mult) = (attr(o, "T_0"), attr(o, "T_mult"));
    if matches!(epoch, Value::None) {
        epoch = py(ev, attr(o, "last_epoch"), Add, Value::Int(1))?;
        let t_cur = py(ev, attr(o, "T_cur"), Add, Value::Int(1))?;
        set_attr(o, "T_cur", t_cur.clone());
        if test(ev, t_cur.clone(), Ge, attr(o, "T_i"))? {
            let wrapped = py(ev, t_cur, Mod, attr(o, "T_i"))?;
            set_attr(o, "T_cur", wrapped);
            let t_i = py(ev, attr(o, "T_i"), Mul, t_mult)?;
            set_attr(o, "T_i", t_i);
        }
    } else {
        if test(ev, epoch.clone(), Lt, Value::Int(0))? {
            let text = ev.str_of(&epoch)?;
            return Err(ScriptError::Value(format!(
                "Expected non-negative epoch, but got {text}"
            )));
        }
        if test(ev, epoch.clone(), Ge, t0.clone())? {
            if test(ev, t_mult.clone(), Eq, Value::Int(1))? {
                let t_cur = py(ev, epoch.clone(), Mod, t0)?;
                set_attr(o, "T_cur", t_cur);
            } else {
                // n = int(math.log(epoch / T_0 * (T_mult - 1) + 1, T_mult))
                let ratio = py(ev, epoch.clone(), Div, t0.clone())?;
                let less = py(ev, t_mult.clone(), Sub, Value::Int(1))?;
                let scaled = py(ev, ratio, Mul, less.clone())?;
                let x = py(ev, scaled, Add, Value::Int(1))?;
                let (x, base) = (number(ev, &x)?, number(ev, &t_mult)?);
                if x <= 0.0 {
                    return Err(ScriptError::Value("math domain error".into()));
                }
                let n = Value::Int((x.ln() / base.ln()).trunc() as i64);
                // T_cur = epoch - T_0 * (T_mult ** n - 1) / (T_mult - 1)
                let power = py(ev, t_mult.clone(), Pow, n.clone())?;
                let power_less = py(ev, power, Sub, Value::Int(1))?;
                let passed = py(ev, t0.clone(), Mul, power_less)?;
                let passed = py(ev, passed, Div, less)?;
                let t_cur = py(ev, epoch.clone(), Sub, passed)?;
                set_attr(o, "T_cur", t_cur);
                let power = py(ev, t_mult, Pow, n)?;
                let t_i = py(ev, t0, Mul, power)?;
                set_attr(o, "T_i", t_i);
            }
        } else {
            set_attr(o, "T_i", t0);
            set_attr(o, "T_cur", epoch.clone());
        }
    }
    let floor = match &epoch {
        Value::Float(f) => Value::Int(f.floor() as i64),
        other => other.clone(),
    };
    set_attr(o, "last_epoch", floor);
    let opt = check_optimizer(&attr(o, "optimizer"))?;
    set_attr(o, "_get_lr_called_within_step", Value::Bool(true));
    let values = ev
        .instance_attribute(o, "get_lr")
        .and_then(|method| ev.call(method, vec![], vec![]));
    set_attr(o, "_get_lr_called_within_step", Value::Bool(false));
    let values = ev.iterate(&values?)?;
    let mut groups = param_groups(&opt);
    for (group, lr) in groups.iter_mut().zip(values) {
        update_val(ev, group, "lr", lr)?;
    }
    set_param_groups(&opt, groups);
    let last = group_values(ev, &opt, "lr")?;
    set_attr(o, "_last_lr", Value::List(last));
    Ok(())
}

/// `CosineAnnealingWarmRestarts.get_lr()`:
/// `eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * T_cur / T_i)) / 2`.
pub(crate) fn get_lr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<Value> {
    let eta_min = attr(o, "eta_min");
    let angle = py(
        ev,
        Value::Float(std::f64::consts::PI),
        Mul,
        attr(o, "T_cur"),
    )?;
    let angle = py(ev, angle, Div, attr(o, "T_i"))?;
    let c = cos(ev, &angle)?;
    let factor = py(ev, Value::Int(1), Add, c)?;
    let mut out = Vec::new();
    for base in ev.iterate(&attr(o, "base_lrs"))? {
        let span = py(ev, base, Sub, eta_min.clone())?;
        let scaled = py(ev, span, Mul, factor.clone())?;
        let half = py(ev, scaled, Div, Value::Int(2))?;
        out.push(py(ev, eta_min.clone(), Add, half)?);
    }
    Ok(Value::List(out))
}
