//! The schedulers of `torch.optim.lr_scheduler` that drive others: `SequentialLR` (one
//! scheduler after another at the milestones: the next one restarts with
//! `_update_lr(0)`, its closed form where it has one) and `ChainedScheduler` (every
//! scheduler's `step()` in turn), with their `state_dict`s (the children's nested under
//! `_schedulers`), as PyTorch 2.15 defines them.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::scheduler::group_values;
use crate::interp::torch::optim::{
    attr, call_method, get, param_groups, put, set_attr, set_param_groups, test,
};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// `SequentialLR` and `ChainedScheduler`.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        name: "SequentialLR",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(sequential_init),
        forward: None,
        extra_repr: None,
        methods: &[
            ("step", |ev, o, pos, kw| {
                bind_python("", "SequentialLR.step", &pos, &kw)?;
                sequential_step(ev, o).map(|()| Value::None)
            }),
            ("recursive_undo", |ev, o, pos, kw| {
                let args = bind_python("sched=None", "SequentialLR.recursive_undo", &pos, &kw)?;
                let sched = match arg(&args, "sched") {
                    Value::None => Value::Instance(Rc::clone(o)),
                    other => other,
                };
                recursive_undo(ev, &sched).map(|()| Value::None)
            }),
            ("state_dict", |ev, o, pos, kw| {
                bind_python("", "SequentialLR.state_dict", &pos, &kw)?;
                state_dict(ev, o)
            }),
            ("load_state_dict", |ev, o, pos, kw| {
                let args = bind_python("state_dict", "SequentialLR.load_state_dict", &pos, &kw)?;
                load_state_dict(ev, o, arg(&args, "state_dict")).map(|()| Value::None)
            }),
        ],
        class_methods: &[],
    },
    ModuleDef {
        name: "ChainedScheduler",
        path: "torch.optim.lr_scheduler",
        base: Some("LRScheduler"),
        init: Some(chained_init),
        forward: None,
        extra_repr: None,
        methods: &[
            ("step", |ev, o, pos, kw| {
                bind_python("", "ChainedScheduler.step", &pos, &kw)?;
                for s in ev.iterate(&attr(o, "_schedulers"))? {
                    call_method(ev, &s, "step", vec![], vec![])?;
                }
                last_lr_of_last(ev, o).map(|()| Value::None)
            }),
            ("state_dict", |ev, o, pos, kw| {
                bind_python("", "ChainedScheduler.state_dict", &pos, &kw)?;
                state_dict(ev, o)
            }),
            ("load_state_dict", |ev, o, pos, kw| {
                let args =
                    bind_python("state_dict", "ChainedScheduler.load_state_dict", &pos, &kw)?;
                load_state_dict(ev, o, arg(&args, "state_dict")).map(|()| Value::None)
            }),
        ],
        class_methods: &[],
    },
];

/// Whether a value is a `ReduceLROnPlateau` (or of a class derived from it).
fn is_plateau(v: &Value) -> bool {
    matches!(v, Value::Instance(s) if s.class.mro().iter().any(|c| c.native.is_some_and(|d| d.name == "ReduceLROnPlateau")))
}

/// The checks `SequentialLR` and `ChainedScheduler` make of their schedulers: each has an
/// `optimizer`, none is a `ReduceLROnPlateau`, all drive `optimizer`.
fn check_schedulers(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    schedulers: &[Value],
    optimizer: &Value,
) -> R<()> {
    let name = o.class.name.clone();
    for (i, s) in schedulers.iter().enumerate() {
        let has = ev.call_builtin(
            "hasattr",
            vec![s.clone(), Value::Str("optimizer".into())],
            vec![],
        )?;
        if !ev.truthy(&has)? {
            return Err(ScriptError::Type(format!(
                "{name} at index {i} should have `optimizer` as its attribute."
            )));
        }
        if is_plateau(s) {
            return Err(ScriptError::Value(format!(
                "{name} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be specified when calling `step`, but got one at index {i} in the given schedulers sequence."
            )));
        }
        let theirs = ev.attribute(s.clone(), "optimizer")?;
        let same = match (optimizer, &theirs) {
            (Value::Instance(a), Value::Instance(b)) => Rc::ptr_eq(a, b),
            _ => !test(ev, optimizer.clone(), BinOp::Ne, theirs.clone())?,
        };
        if !same {
            let class = match s {
                Value::Instance(s) => s.class.name.clone(),
                other => other.type_name().to_string(),
            };
            let text = ev.str_of(&theirs)?;
            return Err(ScriptError::Value(format!(
                "{name} expects all schedulers to belong to the same optimizer, but got scheduler {class} at index {i} has {text}, which is different from {}.",
                optimizer.type_name()
            )));
        }
    }
    Ok(())
}

/// `SequentialLR.__init__(optimizer, schedulers, milestones, last_epoch=-1)`.
fn sequential_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "optimizer, schedulers, milestones, last_epoch=-1",
        "SequentialLR.__init__",
        &pos,
        &kw,
    )?;
    let optimizer = arg(&args, "optimizer");
    let schedulers = ev.iterate(&arg(&args, "schedulers"))?;
    if schedulers.is_empty() {
        return Err(ScriptError::Value(format!(
            "{} expects at least one scheduler, but got no scheduler.",
            o.class.name
        )));
    }
    check_schedulers(ev, o, &schedulers, &optimizer)?;
    let milestones = arg(&args, "milestones");
    let count = ev.iterate(&milestones)?.len();
    if count != schedulers.len() - 1 {
        return Err(ScriptError::Value(format!(
            "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone points, but got number of schedulers {} and the number of milestones to be equal to {count}",
            schedulers.len()
        )));
    }
    set_attr(o, "_schedulers", arg(&args, "schedulers"));
    set_attr(o, "_milestones", milestones.clone());
    let last = ev.binary(BinOp::Add, arg(&args, "last_epoch"), Value::Int(1))?;
    set_attr(o, "last_epoch", last);
    set_attr(o, "optimizer", optimizer.clone());
    let opt = match &optimizer {
        Value::Instance(opt) => Rc::clone(opt),
        other => {
            return Err(ScriptError::Attribute(format!(
                "'{}' object has no attribute 'param_groups'",
                other.type_name()
            )))
        }
    };
    let mut groups = param_groups(&opt);
    for group in &mut groups {
        let initial = crate::interp::torch::optim::optimizer::option(group, "initial_lr")?;
        match get(group, "lr") {
            current @ Value::Tensor(_) => {
                let value = crate::interp::torch::optim::number(ev, &initial)?;
                call_method(ev, &current, "fill_", vec![Value::Float(value)], vec![])?;
            }
            _ => put(group, "lr", initial),
        }
    }
    set_param_groups(&opt, groups);
    recursive_undo(ev, &Value::Instance(Rc::clone(o)))?;
    let idx = bisect_right(ev, &milestones, &Value::Int(0))?;
    let first = schedulers[idx].clone();
    call_method(ev, &first, "_initial_step", vec![], vec![])?;
    let last_lr = call_method(ev, &first, "get_last_lr", vec![], vec![])?;
    set_attr(o, "_last_lr", last_lr);
    Ok(())
}

/// `bisect.bisect_right(items, x)`: how many of the (sorted) items are `<= x`.
fn bisect_right(ev: &mut Evaluator, items: &Value, x: &Value) -> R<usize> {
    let items = ev.iterate(items)?;
    let (mut lo, mut hi) = (0, items.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if test(ev, x.clone(), BinOp::Lt, items[mid].clone())? {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(lo)
}

/// `SequentialLR.recursive_undo(sched)`: `last_epoch -= 1` of every scheduler it holds,
/// through nested ones.
fn recursive_undo(ev: &mut Evaluator, sched: &Value) -> R<()> {
    let Value::Instance(s) = sched else {
        return Ok(());
    };
    let has = |name: &str| s.attrs.borrow().iter().any(|(n, _)| n == name);
    if has("_schedulers") {
        for child in ev.iterate(&attr(s, "_schedulers"))? {
            recursive_undo(ev, &child)?;
        }
    } else if has("last_epoch") {
        let last = ev.binary(BinOp::Sub, attr(s, "last_epoch"), Value::Int(1))?;
        set_attr(s, "last_epoch", last);
    }
    Ok(())
}

/// `SequentialLR.step()`.
fn sequential_step(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    let last = ev.binary(BinOp::Add, attr(o, "last_epoch"), Value::Int(1))?;
    set_attr(o, "last_epoch", last.clone());
    let milestones = attr(o, "_milestones");
    let idx = bisect_right(ev, &milestones, &last)?;
    let scheduler = ev.get_item(attr(o, "_schedulers"), &Value::Int(idx as i64))?;
    let restart = idx > 0 && {
        let at = ev.get_item(milestones, &Value::Int(idx as i64 - 1))?;
        test(ev, at, BinOp::Eq, last)?
    };
    if restart {
        call_method(ev, &scheduler, "_update_lr", vec![Value::Int(0)], vec![])?;
    } else {
        call_method(ev, &scheduler, "step", vec![], vec![])?;
    }
    let last_lr = call_method(ev, &scheduler, "get_last_lr", vec![], vec![])?;
    set_attr(o, "_last_lr", last_lr);
    Ok(())
}

/// `ChainedScheduler.__init__(schedulers, optimizer=None)`.
fn chained_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "schedulers, optimizer=None",
        "ChainedScheduler.__init__",
        &pos,
        &kw,
    )?;
    let schedulers = ev.iterate(&arg(&args, "schedulers"))?;
    let Some(first) = schedulers.first() else {
        return Err(ScriptError::Value(format!(
            "{} expects at least one scheduler to be chained, but got no scheduler.",
            o.class.name
        )));
    };
    let given = arg(&args, "optimizer");
    let optimizer = if ev.truthy(&given)? {
        given
    } else {
        ev.attribute(first.clone(), "optimizer")?
    };
    check_schedulers(ev, o, &schedulers, &optimizer)?;
    set_attr(o, "_schedulers", arg(&args, "schedulers"));
    set_attr(o, "optimizer", optimizer);
    last_lr_of_last(ev, o)
}

/// `self._last_lr = _param_groups_val_list(self._schedulers[-1].optimizer, "lr")`.
fn last_lr_of_last(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    let last = ev.get_item(attr(o, "_schedulers"), &Value::Int(-1))?;
    let optimizer = ev.attribute(last, "optimizer")?;
    let Value::Instance(opt) = optimizer else {
        return Err(ScriptError::Attribute(format!(
            "'{}' object has no attribute 'param_groups'",
            optimizer.type_name()
        )));
    };
    let values = group_values(ev, &opt, "lr")?;
    set_attr(o, "_last_lr", Value::List(values));
    Ok(())
}

/// `state_dict()`: every attribute but the optimizer and the schedulers, then
/// `_schedulers` as each one's `state_dict()`.
fn state_dict(ev: &mut Evaluator, o: &Rc<Instance>) -> R<Value> {
    let mut entries: Vec<(Value, Value)> = o
        .attrs
        .borrow()
        .iter()
        .filter(|(k, _)| k != "optimizer" && k != "_schedulers")
        .map(|(k, v)| (Value::Str(k.clone()), v.clone()))
        .collect();
    let mut children = Vec::new();
    for s in ev.iterate(&attr(o, "_schedulers"))? {
        children.push(call_method(ev, &s, "state_dict", vec![], vec![])?);
    }
    entries.push((Value::Str("_schedulers".into()), Value::List(children)));
    Ok(Value::Dict(entries))
}

/// `load_state_dict(state_dict)`: the attributes from it, then each scheduler's own.
fn load_state_dict(ev: &mut Evaluator, o: &Rc<Instance>, sd: Value) -> R<()> {
    let Value::Dict(entries) = sd else {
        return Err(ScriptError::Attribute(format!(
            "'{}' object has no attribute 'pop'",
            sd.type_name()
        )));
    };
    let children = crate::interp::torch::optim::optimizer::option(&entries, "_schedulers")?;
    for (k, v) in entries {
        if let Value::Str(k) = k {
            if k != "_schedulers" {
                set_attr(o, &k, v);
            }
        }
    }
    let schedulers = attr(o, "_schedulers");
    for (i, child) in ev.iterate(&children)?.into_iter().enumerate() {
        let s = ev.get_item(schedulers.clone(), &Value::Int(i as i64))?;
        call_method(ev, &s, "load_state_dict", vec![child], vec![])?;
    }
    Ok(())
}
