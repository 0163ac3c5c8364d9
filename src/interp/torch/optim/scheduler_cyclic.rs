//! The cyclic schedulers of `torch.optim.lr_scheduler`: `CyclicLR` (triangular,
//! triangular2, exp_range or a scale function) and `OneCycleLR` (two or three phases,
//! cosine or linear annealing), both cycling the momentum (`momentum`, or `betas[0]`)
//! against the learning rate, as PyTorch 2.15 defines them, in the order of
//! `lr_scheduler.py`'s expressions on the values themselves.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::scheduler::{check_optimizer, scheduler_setup};
use crate::interp::torch::optim::{
    attr, call_method, cos, get, has, number, param_groups, put, py, set_attr, set_param_groups,
    test,
};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp::{Add, Div, Eq, Gt, Le, Lt, Mul, Pow, Sub};

/// `CyclicLR` and `OneCycleLR`.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        name: "CyclicLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(cyclic_init),
        forward: None,
        extra_repr: None,
        methods: &[
            ("scale_fn", |ev, o, pos, kw| {
                let args = bind_python("x", "CyclicLR.scale_fn", &pos, &kw)?;
                scale_fn(ev, o, arg(&args, "x"))
            }),
            ("state_dict", |ev, o, pos, kw| {
                bind_python("", "CyclicLR.state_dict", &pos, &kw)?;
                let Value::Dict(mut entries) =
                    crate::interp::torch::optim::scheduler::state_dict(o)
                else {
                    return Ok(Value::None);
                };
                let custom = get(&entries, "_scale_fn_custom");
                entries.retain(|(k, _)| !matches!(k, Value::Str(s) if s == "_scale_fn_custom"));
                let saved = match custom {
                    Value::Instance(obj) => Value::Dict(
                        obj.attrs
                            .borrow()
                            .iter()
                            .map(|(k, v)| (Value::Str(k.clone()), v.clone()))
                            .collect(),
                    ),
                    _ => Value::None,
                };
                let _ = ev;
                entries.push((Value::Str("_scale_fn_custom".into()), saved));
                Ok(Value::Dict(entries))
            }),
        ],
        class_methods: &[],
    },
    ModuleDef {
        name: "OneCycleLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(one_cycle_init),
        forward: None,
        extra_repr: None,
        methods: &[],
        class_methods: &[],
    },
];

/// `_format_param(name, optimizer, param)`: one value per group (tensors cloned).
fn format_param(ev: &mut Evaluator, name: &str, groups: usize, param: Value) -> R<Vec<Value>> {
    let items = match param {
        Value::List(items) | Value::Tuple(items) => {
            if items.len() != groups {
                return Err(ScriptError::Value(format!(
                    "{name} must have the same length as optimizer.param_groups. {name} has {} values, param_groups has {groups}.",
                    items.len()
                )));
            }
            items
        }
        other => vec![other; groups],
    };
    items
        .into_iter()
        .map(|v| match v {
            Value::Tensor(_) => call_method(ev, &v, "clone", vec![], vec![]),
            other => Ok(other),
        })
        .collect()
}

/// `_update_param_group_val(group, key, value)`: a tensor filled, another value replaced.
pub(crate) fn update_val(
    ev: &mut Evaluator,
    group: &mut Vec<(Value, Value)>,
    key: &str,
    v: Value,
) -> R<()> {
    let current = crate::interp::torch::optim::optimizer::option(group, key)?;
    match current {
        Value::Tensor(_) => {
            call_method(ev, &current, "fill_", vec![v], vec![])?;
        }
        _ => put(group, key, v),
    }
    Ok(())
}

/// `group['betas'] = (m, *group['betas'][1:])` or `group['momentum'] = m`.
fn set_momentum(
    ev: &mut Evaluator,
    group: &mut Vec<(Value, Value)>,
    use_beta1: bool,
    m: Value,
) -> R<()> {
    if use_beta1 {
        let betas = crate::interp::torch::optim::optimizer::option(group, "betas")?;
        let mut items = vec![m];
        items.extend(ev.iterate(&betas)?.into_iter().skip(1));
        put(group, "betas", Value::Tuple(items));
    } else {
        put(group, "momentum", m);
    }
    Ok(())
}

/// The momentum setup `CyclicLR` and `OneCycleLR` share when `cycle_momentum` is on:
/// `use_beta1`, the formatted momentums (returned as `(base, max)`), and, when starting
/// fresh, each group's momentum at its maximum with `max_momentum`/`base_momentum`.
fn momentum_setup(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    opt: &Rc<Instance>,
    base_momentum: Value,
    max_momentum: Value,
    fresh: bool,
    base_first: bool,
) -> R<(Vec<Value>, Vec<Value>)> {
    let defaults = match attr(opt, "defaults") {
        Value::Dict(d) => d,
        _ => Vec::new(),
    };
    if !has(&defaults, "momentum") && !has(&defaults, "betas") {
        return Err(ScriptError::Value(
            "optimizer must support momentum or beta1 with `cycle_momentum` option enabled".into(),
        ));
    }
    let use_beta1 = has(&defaults, "betas");
    set_attr(o, "use_beta1", Value::Bool(use_beta1));
    let n = param_groups(opt).len();
    let (bases, maxes) = if base_first {
        let bases = format_param(ev, "base_momentum", n, base_momentum)?;
        set_attr(o, "base_momentums", Value::List(bases.clone()));
        let maxes = format_param(ev, "max_momentum", n, max_momentum)?;
        set_attr(o, "max_momentums", Value::List(maxes.clone()));
        (bases, maxes)
    } else {
        let maxes = format_param(ev, "max_momentum", n, max_momentum)?;
        let bases = format_param(ev, "base_momentum", n, base_momentum)?;
        (bases, maxes)
    };
    if fresh {
        let mut groups = param_groups(opt);
        for ((m, b), group) in maxes.iter().zip(&bases).zip(groups.iter_mut()) {
            set_momentum(ev, group, use_beta1, m.clone())?;
            put(group, "max_momentum", m.clone());
            put(group, "base_momentum", b.clone());
        }
        set_param_groups(opt, groups);
    }
    Ok((bases, maxes))
}

/// Whether `last_epoch == -1`.
fn fresh(ev: &mut Evaluator, last_epoch: &Value) -> R<bool> {
    test(ev, last_epoch.clone(), Eq, Value::Int(-1))
}

fn cyclic_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode='triangular', gamma=1.0, scale_fn=None, scale_mode='cycle', cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1",
        "CyclicLR.__init__",
        &pos,
        &kw,
    )?;
    let optimizer = arg(&args, "optimizer");
    let opt = check_optimizer(&optimizer)?;
    set_attr(o, "optimizer", optimizer.clone());
    let n = param_groups(&opt).len();
    let base_lrs = format_param(ev, "base_lr", n, arg(&args, "base_lr"))?;
    let last_epoch = arg(&args, "last_epoch");
    let fresh = fresh(ev, &last_epoch)?;
    if fresh {
        let mut groups = param_groups(&opt);
        for (lr, group) in base_lrs.iter().zip(groups.iter_mut()) {
            update_val(ev, group, "lr", lr.clone())?;
        }
        set_param_groups(&opt, groups);
    }
    let max_lrs = format_param(ev, "max_lr", n, arg(&args, "max_lr"))?;
    set_attr(o, "max_lrs", Value::List(max_lrs));
    let up = ev.call_builtin("float", vec![arg(&args, "step_size_up")], vec![])?;
    let down = match arg(&args, "step_size_down") {
        Value::None => up.clone(),
        given => ev.call_builtin("float", vec![given], vec![])?,
    };
    let total = py(ev, up.clone(), Add, down)?;
    set_attr(o, "total_size", total.clone());
    let ratio = py(ev, up, Div, total)?;
    set_attr(o, "step_ratio", ratio);
    let mode = arg(&args, "mode");
    let scale = arg(&args, "scale_fn");
    let known = matches!(&mode, Value::Str(m) if ["triangular", "triangular2", "exp_range"].contains(&m.as_str()));
    if !known && matches!(scale, Value::None) {
        return Err(ScriptError::Value(
            "mode is invalid and scale_fn is None".into(),
        ));
    }
    set_attr(o, "mode", mode);
    set_attr(o, "gamma", arg(&args, "gamma"));
    set_attr(o, "_scale_fn_custom", scale);
    set_attr(o, "scale_mode", arg(&args, "scale_mode"));
    init_scale_fn(o);
    let cycle_momentum = arg(&args, "cycle_momentum");
    set_attr(o, "cycle_momentum", cycle_momentum.clone());
    if ev.truthy(&cycle_momentum)? {
        momentum_setup(
            ev,
            o,
            &opt,
            arg(&args, "base_momentum"),
            arg(&args, "max_momentum"),
            fresh,
            true,
        )?;
    }
    scheduler_setup(ev, o, optimizer, last_epoch)?;
    set_attr(o, "base_lrs", Value::List(base_lrs));
    Ok(())
}

/// `_init_scale_fn`: the scale mode the built-in modes imply (a custom function keeps
/// the one given).
fn init_scale_fn(o: &Rc<Instance>) {
    if !matches!(attr(o, "_scale_fn_custom"), Value::None) {
        return;
    }
    match attr(o, "mode") {
        Value::Str(m) if m == "triangular" || m == "triangular2" => {
            set_attr(o, "scale_mode", Value::Str("cycle".into()));
        }
        Value::Str(m) if m == "exp_range" => {
            set_attr(o, "scale_mode", Value::Str("iterations".into()));
        }
        _ => {}
    }
}

/// `CyclicLR.scale_fn(x)`.
fn scale_fn(ev: &mut Evaluator, o: &Rc<Instance>, x: Value) -> R<Value> {
    let custom = attr(o, "_scale_fn_custom");
    if !matches!(custom, Value::None) {
        return ev.call(custom, vec![x], vec![]);
    }
    match attr(o, "mode") {
        Value::Str(m) if m == "triangular2" => {
            // 1 / 2.0 ** (x - 1)
            let less = py(ev, x, Sub, Value::Int(1))?;
            let power = py(ev, Value::Float(2.0), Pow, less)?;
            py(ev, Value::Int(1), Div, power)
        }
        Value::Str(m) if m == "exp_range" => py(ev, attr(o, "gamma"), Pow, x),
        _ => Ok(Value::Float(1.0)),
    }
}

/// `CyclicLR.get_lr()` (the momentums set in the groups on the way).
fn cyclic_get_lr(ev: &mut Evaluator, o: &Rc<Instance>, opt: &Rc<Instance>) -> R<Value> {
    let last = attr(o, "last_epoch");
    let total = attr(o, "total_size");
    let ratio = attr(o, "step_ratio");
    // cycle = math.floor(1 + last_epoch / total_size)
    let part = py(ev, last.clone(), Div, total.clone())?;
    let shifted = py(ev, Value::Int(1), Add, part.clone())?;
    let cycle = Value::Int(number(ev, &shifted)?.floor() as i64);
    // x = 1.0 + last_epoch / total_size - cycle
    let x = py(ev, Value::Float(1.0), Add, part)?;
    let x = py(ev, x, Sub, cycle.clone())?;
    let scale_factor = if test(ev, x.clone(), Le, ratio.clone())? {
        py(ev, x, Div, ratio)?
    } else {
        let above = py(ev, x, Sub, Value::Int(1))?;
        let span = py(ev, ratio, Sub, Value::Int(1))?;
        py(ev, above, Div, span)?
    };
    let by_cycle = matches!(attr(o, "scale_mode"), Value::Str(m) if m == "cycle");
    let at = if by_cycle { cycle } else { last };
    let bases = ev.iterate(&attr(o, "base_lrs"))?;
    let maxes = ev.iterate(&attr(o, "max_lrs"))?;
    let mut lrs = Vec::new();
    for (base, max) in bases.into_iter().zip(maxes) {
        let span = py(ev, max, Sub, base.clone())?;
        let height = py(ev, span, Mul, scale_factor.clone())?;
        let scale = call_method(
            ev,
            &Value::Instance(Rc::clone(o)),
            "scale_fn",
            vec![at.clone()],
            vec![],
        )?;
        let lifted = py(ev, height, Mul, scale)?;
        lrs.push(py(ev, base, Add, lifted)?);
    }
    if ev.truthy(&attr(o, "cycle_momentum"))? {
        let bases = ev.iterate(&attr(o, "base_momentums"))?;
        let maxes = ev.iterate(&attr(o, "max_momentums"))?;
        let mut momentums = Vec::new();
        for (base, max) in bases.into_iter().zip(maxes) {
            let span = py(ev, max.clone(), Sub, base)?;
            let height = py(ev, span, Mul, scale_factor.clone())?;
            let scale = call_method(
                ev,
                &Value::Instance(Rc::clone(o)),
                "scale_fn",
                vec![at.clone()],
                vec![],
            )?;
            let lowered = py(ev, height, Mul, scale)?;
            momentums.push(py(ev, max, Sub, lowered)?);
        }
        let use_beta1 = ev.truthy(&attr(o, "use_beta1"))?;
        let mut groups = param_groups(opt);
        for (group, m) in groups.iter_mut().zip(momentums) {
            set_momentum(ev, group, use_beta1, m)?;
        }
        set_param_groups(opt, groups);
    }
    Ok(Value::List(lrs))
}

/// Whether a value is a Python `int` (a `bool` included, as `isinstance` sees it).
pub(crate) fn is_int(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Bool(_))
}

/// `value <= 0 or not isinstance(value, int)` (`first_sign`: the comparison first, as
/// `total_steps`' check; else the type first, as `epochs`').
fn not_positive_int(ev: &mut Evaluator, v: &Value, first_sign: bool) -> R<bool> {
    if first_sign {
        let negative = test(ev, v.clone(), Le, Value::Int(0))?;
        return Ok(negative || !is_int(v));
    }
    Ok(!is_int(v) || test(ev, v.clone(), Le, Value::Int(0))?)
}

/// A `_schedule_phases` entry.
fn phase(end_step: Value, lr: [&str; 2], momentum: [&str; 2]) -> Value {
    let s = |t: &str| Value::Str(t.into());
    Value::Dict(vec![
        (s("end_step"), end_step),
        (s("start_lr"), s(lr[0])),
        (s("end_lr"), s(lr[1])),
        (s("start_momentum"), s(momentum[0])),
        (s("end_momentum"), s(momentum[1])),
    ])
}

fn one_cycle_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3, anneal_strategy='cos', cycle_momentum=True, base_momentum=0.85, max_momentum=0.95, div_factor=25.0, final_div_factor=10000.0, three_phase=False, last_epoch=-1",
        "OneCycleLR.__init__",
        &pos,
        &kw,
    )?;
    let optimizer = arg(&args, "optimizer");
    let opt = check_optimizer(&optimizer)?;
    set_attr(o, "optimizer", optimizer.clone());
    let total_steps = arg(&args, "total_steps");
    let (epochs, per_epoch) = (arg(&args, "epochs"), arg(&args, "steps_per_epoch"));
    let total = if !matches!(total_steps, Value::None) {
        if not_positive_int(ev, &total_steps, true)? {
            let text = ev.str_of(&total_steps)?;
            return Err(ScriptError::Value(format!(
                "Expected positive integer total_steps, but got {text}"
            )));
        }
        total_steps
    } else if !matches!(epochs, Value::None) && !matches!(per_epoch, Value::None) {
        if not_positive_int(ev, &epochs, false)? {
            let text = ev.str_of(&epochs)?;
            return Err(ScriptError::Value(format!(
                "Expected positive integer epochs, but got {text}"
            )));
        }
        if not_positive_int(ev, &per_epoch, false)? {
            let text = ev.str_of(&per_epoch)?;
            return Err(ScriptError::Value(format!(
                "Expected positive integer steps_per_epoch, but got {text}"
            )));
        }
        py(ev, epochs, Mul, per_epoch)?
    } else {
        return Err(ScriptError::Value(
            "You must define either total_steps OR (epochs AND steps_per_epoch)".into(),
        ));
    };
    set_attr(o, "total_steps", total.clone());
    let pct = arg(&args, "pct_start");
    // float(pct_start * total_steps) - 1
    let up = py(ev, pct.clone(), Mul, total.clone())?;
    let up = ev.call_builtin("float", vec![up], vec![])?;
    let up_end = py(ev, up, Sub, Value::Int(1))?;
    let last_end = py(ev, total.clone(), Sub, Value::Int(1))?;
    let phases = if ev.truthy(&arg(&args, "three_phase"))? {
        // float(2 * pct_start * total_steps) - 2
        let twice = py(ev, Value::Int(2), Mul, pct.clone())?;
        let down = py(ev, twice, Mul, total.clone())?;
        let down = ev.call_builtin("float", vec![down], vec![])?;
        let down_end = py(ev, down, Sub, Value::Int(2))?;
        vec![
            phase(
                up_end,
                ["initial_lr", "max_lr"],
                ["max_momentum", "base_momentum"],
            ),
            phase(
                down_end,
                ["max_lr", "initial_lr"],
                ["base_momentum", "max_momentum"],
            ),
            phase(
                last_end,
                ["initial_lr", "min_lr"],
                ["max_momentum", "max_momentum"],
            ),
        ]
    } else {
        vec![
            phase(
                up_end,
                ["initial_lr", "max_lr"],
                ["max_momentum", "base_momentum"],
            ),
            phase(
                last_end,
                ["max_lr", "min_lr"],
                ["base_momentum", "max_momentum"],
            ),
        ]
    };
    set_attr(o, "_schedule_phases", Value::List(phases));
    if test(ev, pct.clone(), Lt, Value::Int(0))?
        || test(ev, pct.clone(), Gt, Value::Int(1))?
        || !matches!(pct, Value::Float(_))
    {
        let text = ev.str_of(&pct)?;
        return Err(ScriptError::Value(format!(
            "Expected float between 0 and 1 pct_start, but got {text}"
        )));
    }
    let strategy = arg(&args, "anneal_strategy");
    if !matches!(&strategy, Value::Str(s) if s == "cos" || s == "linear") {
        let text = ev.str_of(&strategy)?;
        return Err(ScriptError::Value(format!(
            "anneal_strategy must be one of 'cos' or 'linear', instead got {text}"
        )));
    }
    set_attr(o, "_anneal_func_type", strategy);
    let n = param_groups(&opt).len();
    let max_lrs = format_param(ev, "max_lr", n, arg(&args, "max_lr"))?;
    let last_epoch = arg(&args, "last_epoch");
    let fresh = fresh(ev, &last_epoch)?;
    if fresh {
        let (div, final_div) = (arg(&args, "div_factor"), arg(&args, "final_div_factor"));
        let mut groups = param_groups(&opt);
        for (max_lr, group) in max_lrs.into_iter().zip(groups.iter_mut()) {
            let initial = py(ev, max_lr.clone(), Div, div.clone())?;
            put(group, "initial_lr", initial.clone());
            put(group, "max_lr", max_lr);
            let min = py(ev, initial, Div, final_div.clone())?;
            put(group, "min_lr", min);
        }
        set_param_groups(&opt, groups);
    }
    let cycle_momentum = arg(&args, "cycle_momentum");
    set_attr(o, "cycle_momentum", cycle_momentum.clone());
    if ev.truthy(&cycle_momentum)? {
        momentum_setup(
            ev,
            o,
            &opt,
            arg(&args, "base_momentum"),
            arg(&args, "max_momentum"),
            fresh,
            false,
        )?;
    }
    scheduler_setup(ev, o, optimizer, last_epoch)
}

/// `_annealing_cos` or `_annealing_linear` (`start`, `end`, `pct`).
fn anneal(ev: &mut Evaluator, o: &Rc<Instance>, start: Value, end: Value, pct: Value) -> R<Value> {
    match attr(o, "_anneal_func_type") {
        Value::Str(s) if s == "cos" => {
            // cos_out = math.cos(math.pi * pct) + 1; end + (start - end) / 2.0 * cos_out
            let angle = py(ev, Value::Float(std::f64::consts::PI), Mul, pct)?;
            let c = cos(ev, &angle)?;
            let cos_out = py(ev, c, Add, Value::Int(1))?;
            let span = py(ev, start, Sub, end.clone())?;
            let half = py(ev, span, Div, Value::Float(2.0))?;
            let part = py(ev, half, Mul, cos_out)?;
            py(ev, end, Add, part)
        }
        Value::Str(s) if s == "linear" => {
            let span = py(ev, end, Sub, start.clone())?;
            let part = py(ev, span, Mul, pct)?;
            py(ev, part, Add, start)
        }
        other => {
            let text = ev.str_of(&other)?;
            Err(ScriptError::Value(format!(
                "Unknown _anneal_func_type: {text}"
            )))
        }
    }
}

/// A group's entry named by a phase's `key` (`group[phase[key]]`).
fn by_phase(ev: &mut Evaluator, group: &[(Value, Value)], phase: &Value, key: &str) -> R<Value> {
    let name = ev.get_item(phase.clone(), &Value::Str(key.into()))?;
    let Value::Str(name) = name else {
        return Err(ScriptError::Key(ev.repr(&name)?));
    };
    crate::interp::torch::optim::optimizer::option(group, &name)
}

/// `OneCycleLR.get_lr()` (the momentums set in the groups on the way).
fn one_cycle_get_lr(ev: &mut Evaluator, o: &Rc<Instance>, opt: &Rc<Instance>) -> R<Value> {
    let step_num = attr(o, "last_epoch");
    let total = attr(o, "total_steps");
    if test(ev, step_num.clone(), Gt, total.clone())? {
        let (s, t) = (ev.str_of(&step_num)?, ev.str_of(&total)?);
        return Err(ScriptError::Value(format!(
            "Tried to step {s} times. The specified number of total steps is {t}"
        )));
    }
    let phases = ev.iterate(&attr(o, "_schedule_phases"))?;
    let cycle_momentum = ev.truthy(&attr(o, "cycle_momentum"))?;
    let use_beta1 = cycle_momentum && ev.truthy(&attr(o, "use_beta1"))?;
    let mut groups = param_groups(opt);
    let mut lrs = Vec::new();
    for group in groups.iter_mut() {
        let mut start_step = Value::Float(0.0);
        let mut computed = None;
        for (i, phase) in phases.iter().enumerate() {
            let end_step = ev.get_item(phase.clone(), &Value::Str("end_step".into()))?;
            if test(ev, step_num.clone(), Le, end_step.clone())? || i == phases.len() - 1 {
                let walked = py(ev, step_num.clone(), Sub, start_step.clone())?;
                let span = py(ev, end_step, Sub, start_step.clone())?;
                let pct = py(ev, walked, Div, span)?;
                let (start, end) = (
                    by_phase(ev, group, phase, "start_lr")?,
                    by_phase(ev, group, phase, "end_lr")?,
                );
                let lr = anneal(ev, o, start, end, pct.clone())?;
                let momentum = if cycle_momentum {
                    let (start, end) = (
                        by_phase(ev, group, phase, "start_momentum")?,
                        by_phase(ev, group, phase, "end_momentum")?,
                    );
                    Some(anneal(ev, o, start, end, pct)?)
                } else {
                    None
                };
                computed = Some((lr, momentum));
                break;
            }
            start_step = end_step;
        }
        let Some((lr, momentum)) = computed else {
            return Err(ScriptError::Name(
                "cannot access local variable 'computed_lr' where it is not associated with a value".into(),
            ));
        };
        lrs.push(lr);
        if let Some(m) = momentum {
            set_momentum(ev, group, use_beta1, m)?;
        }
    }
    set_param_groups(opt, groups);
    Ok(Value::List(lrs))
}

/// The `get_lr` of these classes (`None` for another class).
pub(crate) fn get_lr(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    opt: &Rc<Instance>,
    kind: &str,
) -> R<Option<Value>> {
    match kind {
        "CyclicLR" => cyclic_get_lr(ev, o, opt).map(Some),
        "OneCycleLR" => one_cycle_get_lr(ev, o, opt).map(Some),
        "CosineAnnealingWarmRestarts" => {
            crate::interp::torch::optim::scheduler_warm::get_lr(ev, o).map(Some)
        }
        _ => Ok(None),
    }
}
