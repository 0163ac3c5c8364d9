//! `torch.optim.Optimizer` (`torch/optim/optimizer.py`): `__init__(params, defaults)`,
//! `add_param_group`, `zero_grad`, `state_dict`, `load_state_dict`, `__repr__`, and the
//! frame every optimizer's `step()` runs in (the closure under grad mode, the update
//! without it). `state` is a dict keyed by the parameters themselves (tensor keys compare
//! by identity, as Python's do).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, typename, ModuleDef};
use crate::interp::torch::optim::{
    attr, call_method, call_torch, get, group_params, has, param_groups, put, set_attr,
    set_param_groups, with_grad,
};
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// A dict's entries.
pub(crate) type Entries = Vec<(Value, Value)>;

/// `Optimizer`, the base class.
pub(crate) static CLASSES: &[ModuleDef] = &[ModuleDef {
    class_methods: &[],
    name: "Optimizer",
    path: "torch.optim.optimizer",
    base: None,
    init: Some(|ev, o, pos, kw| {
        let args = bind_python("params, defaults", "Optimizer.__init__", &pos, &kw)?;
        let defaults = match arg(&args, "defaults") {
            Value::Dict(entries) => entries,
            other => {
                return Err(ScriptError::Type(format!(
                    "'{}' object is not iterable",
                    other.type_name()
                )))
            }
        };
        setup(ev, o, arg(&args, "params"), defaults)
    }),
    forward: None,
    extra_repr: None,
    methods: &[
        ("__repr__", |ev, o, _, _| repr(ev, o).map(Value::Str)),
        ("add_param_group", |ev, o, pos, kw| {
            let args = bind_python("param_group", "Optimizer.add_param_group", &pos, &kw)?;
            add_param_group(ev, o, arg(&args, "param_group")).map(|()| Value::None)
        }),
        ("zero_grad", |ev, o, pos, kw| {
            let args = bind_python("set_to_none=True", "Optimizer.zero_grad", &pos, &kw)?;
            let to_none = ev.truthy(&arg(&args, "set_to_none"))?;
            for group in param_groups(o) {
                for p in group_params(&group) {
                    ev.zero_tensor_grad(&p, to_none)?;
                }
            }
            Ok(Value::None)
        }),
        ("state_dict", |ev, o, pos, kw| {
            bind_python("", "Optimizer.state_dict", &pos, &kw)?;
            state_dict(ev, o)
        }),
        ("load_state_dict", |ev, o, pos, kw| {
            let args = bind_python("state_dict", "Optimizer.load_state_dict", &pos, &kw)?;
            load_state_dict(ev, o, &arg(&args, "state_dict")).map(|()| Value::None)
        }),
        ("step", |ev, o, pos, kw| {
            bind_python("closure=None", "Optimizer.step", &pos, &kw)?;
            let _ = (ev, o);
            Err(ScriptError::NotImplemented(String::new()))
        }),
    ],
}];

/// `Optimizer.__init__(self, params, defaults)`.
pub(crate) fn setup(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    params: Value,
    defaults: Entries,
) -> R<()> {
    set_attr(o, "defaults", Value::Dict(defaults));
    if let Value::Tensor(_) = params {
        return Err(ScriptError::Type(format!(
            "params argument given to the optimizer should be an iterable of Tensors or dicts, but got {}",
            typename(&params)
        )));
    }
    set_attr(o, "state", Value::Dict(Vec::new()));
    set_attr(o, "param_groups", Value::List(Vec::new()));
    let items = ev.iterate(&params)?;
    if items.is_empty() {
        return Err(ScriptError::Value(
            "optimizer got an empty parameter list".into(),
        ));
    }
    let groups = if matches!(items[0], Value::Dict(_)) {
        items
    } else {
        vec![Value::Dict(vec![(
            Value::Str("params".into()),
            Value::List(items),
        )])]
    };
    for group in groups {
        add_param_group(ev, o, group)?;
    }
    Ok(())
}

/// `Optimizer.add_param_group(param_group)`.
pub(crate) fn add_param_group(ev: &mut Evaluator, o: &Rc<Instance>, group: Value) -> R<()> {
    let Value::Dict(mut entries) = group else {
        return Err(ScriptError::Type(format!(
            "param_group must be a dict, but got <class '{}'>",
            group.type_name()
        )));
    };
    if !has(&entries, "params") {
        return Err(ScriptError::Key("'params'".into()));
    }
    let params = match get(&entries, "params") {
        t @ Value::Tensor(_) => vec![t],
        other => ev.iterate(&other)?,
    };
    let mut tensors = Vec::with_capacity(params.len());
    let mut names = Vec::new();
    for p in params {
        match p {
            Value::Tuple(pair) if pair.len() == 2 => {
                names.push(pair[0].clone());
                tensors.push(pair[1].clone());
            }
            other => tensors.push(other),
        }
    }
    put(&mut entries, "params", Value::List(tensors.clone()));
    if !names.is_empty() {
        if names.len() != tensors.len() {
            return Err(ScriptError::Value(
                "all optimizer params should be with/without names. Some param names are missing"
                    .into(),
            ));
        }
        put(&mut entries, "param_names", Value::List(names));
    }
    let defaults = match attr(o, "defaults") {
        Value::Dict(d) => d,
        _ => Vec::new(),
    };
    let differentiable = get(&defaults, "differentiable");
    let differentiable = ev.truthy(&differentiable)?;
    for p in &tensors {
        let Value::Tensor(t) = p else {
            return Err(ScriptError::Type(format!(
                "optimizer can only optimize Tensors, but one of the params is {}",
                typename(p)
            )));
        };
        if !differentiable && t.borrow().grad_fn.is_some() {
            return Err(ScriptError::Value(
                "can't optimize a non-leaf Tensor".into(),
            ));
        }
    }
    for (name, default) in defaults {
        if let Value::Str(n) = &name {
            if !has(&entries, n) {
                entries.push((name, default));
            }
        }
    }
    let refs: Vec<TensorRef> = tensors
        .iter()
        .filter_map(|v| match v {
            Value::Tensor(t) => Some(Rc::clone(t)),
            _ => None,
        })
        .collect();
    let duplicated = refs
        .iter()
        .enumerate()
        .any(|(i, p)| refs[..i].iter().any(|q| Rc::ptr_eq(p, q)));
    if duplicated {
        ev.recorder.warn(
            "UserWarning: optimizer contains a parameter group with duplicate parameters; in future, this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more information".into(),
        );
    }
    let mut groups = param_groups(o);
    let mut overlap = false;
    for g in &groups {
        if has(&entries, "param_names") != has(g, "param_names") {
            let text = if has(&entries, "param_names") {
                "with names"
            } else {
                "without names"
            };
            return Err(ScriptError::Value(format!(
                "all optimizer param groups should be with/without names. cannot add param group {text} to the optimizer"
            )));
        }
        overlap |= group_params(g)
            .iter()
            .any(|q| refs.iter().any(|p| Rc::ptr_eq(p, q)));
    }
    if overlap {
        return Err(ScriptError::Value(
            "some parameters appear in more than one parameter group".into(),
        ));
    }
    groups.push(entries);
    set_param_groups(o, groups);
    Ok(())
}

/// `repr(optimizer)`: the class name, then each group's options by sorted key.
fn repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let mut text = format!("{} (", o.class.name);
    for (i, group) in param_groups(o).into_iter().enumerate() {
        text.push_str(&format!("\nParameter Group {i}\n"));
        let mut keys: Vec<(String, Value)> = group
            .into_iter()
            .filter_map(|(k, v)| match k {
                Value::Str(k) if k != "params" => Some((k, v)),
                _ => None,
            })
            .collect();
        keys.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, value) in keys {
            text.push_str(&format!("    {key}: {}\n", ev.str_of(&value)?));
        }
    }
    text.push(')');
    Ok(text)
}

/// `optimizer.state`'s entries.
pub(crate) fn state(o: &Rc<Instance>) -> Entries {
    match attr(o, "state") {
        Value::Dict(entries) => entries,
        _ => Vec::new(),
    }
}

/// The state of parameter `p` (`None` when it has none yet).
pub(crate) fn param_state(state: &Entries, p: &TensorRef) -> Option<Entries> {
    state.iter().find_map(|(k, v)| match (k, v) {
        (Value::Tensor(t), Value::Dict(d)) if Rc::ptr_eq(t, p) => Some(d.clone()),
        _ => None,
    })
}

/// Sets the state of parameter `p` (in place when it has one, else at the end).
pub(crate) fn set_param_state(state: &mut Entries, p: &TensorRef, entries: Entries) {
    let slot = state
        .iter_mut()
        .find(|(k, _)| matches!(k, Value::Tensor(t) if Rc::ptr_eq(t, p)));
    match slot {
        Some(slot) => slot.1 = Value::Dict(entries),
        None => state.push((Value::Tensor(Rc::clone(p)), Value::Dict(entries))),
    }
}

/// The update of one optimizer class: reads the groups and `state`, updates the
/// parameters in place and returns the new `state`.
pub(crate) type Update = fn(&mut Evaluator, &Rc<Instance>, Entries) -> R<Entries>;

/// `optimizer.step(closure=None)`: the closure (if any) under `enable_grad`, then the
/// update under `no_grad` (PyTorch's `_use_grad_for_differentiable`); returns the loss.
pub(crate) fn run_step(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
    update: Update,
) -> R<Value> {
    let what = format!("{}.step", o.class.name);
    let args = bind_python("closure=None", &what, &pos, &kw)?;
    let closure = arg(&args, "closure");
    let loss = match closure {
        Value::None => Value::None,
        f => with_grad(ev, true, |ev| ev.call(f, vec![], vec![]))?,
    };
    if has_attr(o, "_opt_called") {
        set_attr(o, "_opt_called", Value::Bool(true));
    }
    let differentiable = match attr(o, "defaults") {
        Value::Dict(d) => get(&d, "differentiable"),
        _ => Value::None,
    };
    let mode = ev.truthy(&differentiable)?;
    let before = state(o);
    let new_state = with_grad(ev, mode, |ev| update(ev, o, before))?;
    set_attr(o, "state", Value::Dict(new_state));
    Ok(loss)
}

/// Whether an instance has the attribute `name` of its own.
pub(crate) fn has_attr(o: &Rc<Instance>, name: &str) -> bool {
    o.attrs.borrow().iter().any(|(n, _)| n == name)
}

/// A group's option `key` (`KeyError` when the group has none, as `group[key]` raises).
pub(crate) fn option(group: &[(Value, Value)], key: &str) -> R<Value> {
    if !has(group, key) {
        return Err(ScriptError::Key(format!("'{key}'")));
    }
    Ok(get(group, key))
}

/// The parameters of a group that have a gradient, with it.
pub(crate) fn with_grads(group: &[(Value, Value)]) -> Vec<(TensorRef, TensorRef)> {
    group_params(group)
        .into_iter()
        .filter_map(|p| {
            let grad = p.borrow().grad.clone()?;
            Some((p, grad))
        })
        .collect()
}

/// `torch.tensor(0.0, dtype=torch.float32)`: a state's `step` (`_get_scalar_dtype()`).
pub(crate) fn step_tensor(ev: &mut Evaluator, value: f64) -> R<Value> {
    call_torch(
        ev,
        "tensor",
        vec![Value::Float(value)],
        vec![("dtype", Value::DType(crate::core::tensor::DType::Float32))],
    )
}

/// `torch.zeros_like(p, memory_format=torch.preserve_format)`.
pub(crate) fn zeros_like(ev: &mut Evaluator, p: &TensorRef) -> R<Value> {
    call_torch(
        ev,
        "zeros_like",
        vec![Value::Tensor(Rc::clone(p))],
        vec![(
            "memory_format",
            Value::MemoryFormat(crate::core::tensor::MemoryFormat::Preserve),
        )],
    )
}

/// `optimizer.state_dict()`: the state keyed by parameter index, and the groups with their
/// parameters as indices (`'params'` last).
fn state_dict(_ev: &mut Evaluator, o: &Rc<Instance>) -> R<Value> {
    let mut mapping: Vec<(TensorRef, i64)> = Vec::new();
    let mut start = 0i64;
    let mut packed_groups = Vec::new();
    for group in param_groups(o) {
        let params = group_params(&group);
        for (i, p) in params.iter().enumerate() {
            if !mapping.iter().any(|(q, _)| Rc::ptr_eq(p, q)) {
                mapping.push((Rc::clone(p), start + i as i64));
            }
        }
        let ids: Vec<Value> = params
            .iter()
            .filter_map(|p| {
                mapping
                    .iter()
                    .find(|(q, _)| Rc::ptr_eq(p, q))
                    .map(|(_, i)| Value::Int(*i))
            })
            .collect();
        start += ids.len() as i64;
        let mut packed: Entries = group
            .into_iter()
            .filter(|(k, _)| !matches!(k, Value::Str(s) if s == "params"))
            .collect();
        packed.push((Value::Str("params".into()), Value::List(ids)));
        packed_groups.push(Value::Dict(packed));
    }
    let mut packed_state = Vec::new();
    for (k, v) in state(o) {
        let key = match &k {
            Value::Tensor(t) => match mapping.iter().find(|(q, _)| Rc::ptr_eq(t, q)) {
                Some((_, i)) => Value::Int(*i),
                None => return Err(ScriptError::Key(format!("{}", Rc::as_ptr(t) as usize))),
            },
            _ => k,
        };
        packed_state.push((key, v));
    }
    Ok(Value::Dict(vec![
        (Value::Str("state".into()), Value::Dict(packed_state)),
        (
            Value::Str("param_groups".into()),
            Value::List(packed_groups),
        ),
    ]))
}

/// `optimizer.load_state_dict(state_dict)`.
fn load_state_dict(ev: &mut Evaluator, o: &Rc<Instance>, sd: &Value) -> R<()> {
    let Value::Dict(sd) = sd else {
        return Err(ScriptError::Attribute(format!(
            "'{}' object has no attribute 'copy'",
            sd.type_name()
        )));
    };
    let groups = param_groups(o);
    let saved_groups: Vec<Entries> = match option(sd, "param_groups")? {
        Value::List(items) | Value::Tuple(items) => items
            .into_iter()
            .map(|g| match g {
                Value::Dict(d) => Ok(d),
                other => Err(ScriptError::Type(format!(
                    "'{}' object is not subscriptable",
                    other.type_name()
                ))),
            })
            .collect::<R<_>>()?,
        other => {
            return Err(ScriptError::Type(format!(
                "'{}' object is not iterable",
                other.type_name()
            )))
        }
    };
    if groups.len() != saved_groups.len() {
        return Err(ScriptError::Value(
            "loaded state dict has a different number of parameter groups".into(),
        ));
    }
    let mut saved_ids = Vec::new();
    for (g, s) in groups.iter().zip(&saved_groups) {
        let ids = ev.iterate(&option(s, "params")?)?;
        if ids.len() != group_params(g).len() {
            return Err(ScriptError::Value(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group".into(),
            ));
        }
        saved_ids.extend(ids);
    }
    let params: Vec<TensorRef> = groups.iter().flat_map(|g| group_params(g)).collect();
    let id_map: Vec<(Value, TensorRef)> = saved_ids.into_iter().zip(params).collect();
    let mut new_state = Vec::new();
    let saved_state = match option(sd, "state")? {
        Value::Dict(d) => d,
        _ => Vec::new(),
    };
    for (k, v) in saved_state {
        let param = id_map
            .iter()
            .find(|(id, _)| crate::interp::python::operators::values_equal(id, &k))
            .map(|(_, p)| Rc::clone(p));
        match param {
            Some(p) => {
                let value = cast(ev, &p, v, None)?;
                new_state.push((Value::Tensor(p), value));
            }
            None => new_state.push((k, v)),
        }
    }
    let mut new_groups = Vec::new();
    for (g, mut ng) in groups.into_iter().zip(saved_groups) {
        put(&mut ng, "params", get(&g, "params"));
        if has(&g, "param_names") && !has(&ng, "param_names") {
            put(&mut ng, "param_names", get(&g, "param_names"));
        }
        new_groups.push(ng);
    }
    set_attr(o, "state", Value::Dict(new_state));
    set_param_groups(o, new_groups);
    setstate(ev, o)
}

/// `_cast`: a saved state value for parameter `p` (tensors converted to its dtype, except
/// `step`).
fn cast(ev: &mut Evaluator, p: &TensorRef, value: Value, key: Option<&str>) -> R<Value> {
    match value {
        Value::Tensor(_) => {
            let dtype = p.borrow().tensor.dtype;
            if key == Some("step") || !dtype.is_floating() {
                return Ok(value);
            }
            call_method(
                ev,
                &value,
                "to",
                vec![],
                vec![("dtype", Value::DType(dtype))],
            )
        }
        Value::Dict(entries) => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let key = match &k {
                    Value::Str(s) => Some(s.clone()),
                    _ => None,
                };
                let v = cast(ev, p, v, key.as_deref())?;
                out.push((k, v));
            }
            Ok(Value::Dict(out))
        }
        Value::List(items) => Ok(Value::List(
            items
                .into_iter()
                .map(|v| cast(ev, p, v, None))
                .collect::<R<_>>()?,
        )),
        Value::Tuple(items) => Ok(Value::Tuple(
            items
                .into_iter()
                .map(|v| cast(ev, p, v, None))
                .collect::<R<_>>()?,
        )),
        other => Ok(other),
    }
}

/// `__setstate__` after a load: each class's options a saved group may lack, and `step`
/// made a tensor again where the class keeps it as one.
fn setstate(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    if let Value::Dict(mut defaults) = attr(o, "defaults") {
        if !has(&defaults, "differentiable") {
            put(&mut defaults, "differentiable", Value::Bool(false));
        }
        set_attr(o, "defaults", Value::Dict(defaults));
    }
    let class = crate::interp::torch::nn::module::native_of(&o.class).map_or("", |d| d.name);
    let (options, step_tensor_kept) = match class {
        "SGD" => (crate::interp::torch::optim::sgd::setstate_options(), false),
        "Adam" | "AdamW" => (crate::interp::torch::optim::adam::setstate_options(), true),
        "RMSprop" => (
            crate::interp::torch::optim::adaptive::rmsprop_setstate_options(),
            true,
        ),
        "Adagrad" => (
            crate::interp::torch::optim::adaptive::adagrad_setstate_options(),
            true,
        ),
        "Adamax" | "NAdam" | "RAdam" => (
            crate::interp::torch::optim::adam_variants::setstate_options(class),
            true,
        ),
        "Adadelta" | "Rprop" | "ASGD" => (
            crate::interp::torch::optim::classic::setstate_options(),
            true,
        ),
        _ => (Vec::new(), false),
    };
    let mut groups = param_groups(o);
    for group in &mut groups {
        for (key, value) in &options {
            if !has(group, key) {
                put(group, key, value.clone());
            }
        }
        if class == "AdamW" {
            put(group, "decoupled_weight_decay", Value::Bool(true));
        }
    }
    set_param_groups(o, groups);
    if step_tensor_kept {
        let mut entries = state(o);
        for (_, v) in entries.iter_mut() {
            let Value::Dict(d) = v else { continue };
            let keys: &[&str] = match class {
                "NAdam" => &["step", "mu_product"],
                "ASGD" => &["step", "eta", "mu"],
                _ => &["step"],
            };
            for key in keys {
                let value = get(d, key);
                if has(d, key) && !matches!(value, Value::Tensor(_)) {
                    let value = crate::interp::torch::optim::number(ev, &value)?;
                    let t = step_tensor(ev, value)?;
                    put(d, key, t);
                }
            }
        }
        set_attr(o, "state", Value::Dict(entries));
    }
    Ok(())
}
