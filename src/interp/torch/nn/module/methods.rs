//! `nn.Module`'s own methods, as `torch/nn/modules/module.py` defines them: the walks
//! (`parameters`, `named_modules`, ...), `state_dict` and `load_state_dict`, modes
//! (`train`, `eval`, `requires_grad_`), `zero_grad`, `apply`, dtype conversions and the
//! registration methods.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, is_module, typename, ModuleDef};
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The `Module` class itself.
pub(crate) static MODULES: &[ModuleDef] = &[ModuleDef {
    name: "Module",
    path: "torch.nn.modules.module",
    base: None,
    init: Some(init),
    forward: Some(missing_forward),
    extra_repr: Some(|_, _| Ok(String::new())),
    methods: &[
        ("__repr__", |ev, o, _, _| ev.module_repr(o).map(Value::Str)),
        ("_get_name", |_, o, _, _| {
            Ok(Value::Str(o.class.name.clone()))
        }),
        ("parameters", parameters),
        ("named_parameters", named_parameters),
        ("buffers", buffers),
        ("named_buffers", named_buffers),
        ("children", children),
        ("named_children", named_children),
        ("modules", modules),
        ("named_modules", named_modules),
        ("state_dict", state_dict),
        ("load_state_dict", load_state_dict),
        ("train", train),
        ("eval", |ev, o, pos, kw| {
            bind_python("", "Module.eval", &pos, &kw)?;
            set_training(ev, o, false)
        }),
        ("requires_grad_", requires_grad),
        ("zero_grad", zero_grad),
        ("apply", apply),
        ("register_buffer", register_buffer),
        ("register_parameter", register_parameter),
        ("add_module", add_module),
        ("register_module", add_module),
        ("get_submodule", get_submodule),
        ("get_parameter", get_parameter),
        ("float", |ev, o, p, k| convert(ev, o, p, k, "float")),
        ("double", |ev, o, p, k| convert(ev, o, p, k, "double")),
        ("half", |ev, o, p, k| convert(ev, o, p, k, "half")),
        ("bfloat16", |ev, o, p, k| convert(ev, o, p, k, "bfloat16")),
        ("cpu", |ev, o, p, k| convert(ev, o, p, k, "cpu")),
        ("to", |ev, o, p, k| convert(ev, o, p, k, "to")),
    ],
}];

/// `Module.__init__`.
fn init(
    ev: &mut Evaluator,
    object: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    ev.module_init(object, &pos, &kw)
}

/// `Module.forward`: a class that did not define one.
fn missing_forward(
    _: &mut Evaluator,
    object: &Rc<Instance>,
    _: Vec<Value>,
    _: Vec<(String, Value)>,
) -> R<Value> {
    Err(ScriptError::NotImplemented(format!(
        "Module [{}] is missing the required \"forward\" function",
        object.class.name
    )))
}

/// A module's submodules by name (`named_modules`): itself first, then depth first, each
/// object once.
pub(crate) fn walk_modules(root: &Rc<Instance>, prefix: &str) -> Vec<(String, Rc<Instance>)> {
    let mut out: Vec<(String, Rc<Instance>)> = Vec::new();
    let mut pending = vec![(prefix.to_string(), Rc::clone(root))];
    while let Some((name, module)) = pending.pop() {
        if out.iter().any(|(_, m)| Rc::ptr_eq(m, &module)) {
            continue;
        }
        let children: Vec<(String, Rc<Instance>)> = module
            .module
            .borrow()
            .as_ref()
            .map(|s| {
                s.modules
                    .iter()
                    .filter_map(|(n, m)| m.clone().map(|m| (n.clone(), m)))
                    .collect()
            })
            .unwrap_or_default();
        out.push((name.clone(), module));
        for (child, m) in children.into_iter().rev() {
            let full = if name.is_empty() {
                child
            } else {
                format!("{name}.{child}")
            };
            pending.push((full, m));
        }
    }
    out
}

/// The tensors of one registry of every module (`parameters` or `buffers`), by full name,
/// each object once.
fn walk_tensors(
    root: &Rc<Instance>,
    prefix: &str,
    recurse: bool,
    buffers: bool,
) -> Vec<(String, TensorRef)> {
    let modules = if recurse {
        walk_modules(root, prefix)
    } else {
        vec![(prefix.to_string(), Rc::clone(root))]
    };
    let mut out: Vec<(String, TensorRef)> = Vec::new();
    for (name, module) in modules {
        let state = module.module.borrow();
        let Some(state) = state.as_ref() else {
            continue;
        };
        let entries = if buffers {
            &state.buffers
        } else {
            &state.parameters
        };
        for (key, tensor) in entries {
            let Some(tensor) = tensor else { continue };
            if out.iter().any(|(_, t)| Rc::ptr_eq(t, tensor)) {
                continue;
            }
            let full = if name.is_empty() {
                key.clone()
            } else {
                format!("{name}.{key}")
            };
            out.push((full, Rc::clone(tensor)));
        }
    }
    out
}

/// Named values as a list of `(name, value)` tuples.
fn pairs(items: Vec<(String, Value)>) -> Value {
    Value::List(
        items
            .into_iter()
            .map(|(n, v)| Value::Tuple(vec![Value::Str(n), v]))
            .collect(),
    )
}

fn recurse_flag(ev: &mut Evaluator, args: &[(String, Value)]) -> R<bool> {
    ev.truthy(&arg(args, "recurse"))
}

fn prefix_of(args: &[(String, Value)]) -> String {
    match arg(args, "prefix") {
        Value::Str(s) => s,
        _ => String::new(),
    }
}

fn parameters(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("recurse=True", "Module.parameters", &pos, &kw)?;
    let recurse = recurse_flag(ev, &args)?;
    Ok(Value::List(
        walk_tensors(o, "", recurse, false)
            .into_iter()
            .map(|(_, t)| Value::Tensor(t))
            .collect(),
    ))
}

fn named_parameters(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "prefix='', recurse=True, remove_duplicate=True",
        "Module.named_parameters",
        &pos,
        &kw,
    )?;
    let recurse = recurse_flag(ev, &args)?;
    Ok(pairs(
        walk_tensors(o, &prefix_of(&args), recurse, false)
            .into_iter()
            .map(|(n, t)| (n, Value::Tensor(t)))
            .collect(),
    ))
}

fn buffers(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("recurse=True", "Module.buffers", &pos, &kw)?;
    let recurse = recurse_flag(ev, &args)?;
    Ok(Value::List(
        walk_tensors(o, "", recurse, true)
            .into_iter()
            .map(|(_, t)| Value::Tensor(t))
            .collect(),
    ))
}

fn named_buffers(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "prefix='', recurse=True, remove_duplicate=True",
        "Module.named_buffers",
        &pos,
        &kw,
    )?;
    let recurse = recurse_flag(ev, &args)?;
    Ok(pairs(
        walk_tensors(o, &prefix_of(&args), recurse, true)
            .into_iter()
            .map(|(n, t)| (n, Value::Tensor(t)))
            .collect(),
    ))
}

/// The direct submodules, each object once.
fn direct_children(o: &Rc<Instance>) -> Vec<(String, Rc<Instance>)> {
    let mut out: Vec<(String, Rc<Instance>)> = Vec::new();
    if let Some(state) = o.module.borrow().as_ref() {
        for (name, m) in &state.modules {
            if let Some(m) = m {
                if !out.iter().any(|(_, seen)| Rc::ptr_eq(seen, m)) {
                    out.push((name.clone(), Rc::clone(m)));
                }
            }
        }
    }
    out
}

fn children(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    bind_python("", "Module.children", &pos, &kw)?;
    Ok(Value::List(
        direct_children(o)
            .into_iter()
            .map(|(_, m)| Value::Instance(m))
            .collect(),
    ))
}

fn named_children(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    bind_python("", "Module.named_children", &pos, &kw)?;
    Ok(pairs(
        direct_children(o)
            .into_iter()
            .map(|(n, m)| (n, Value::Instance(m)))
            .collect(),
    ))
}

fn modules(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    bind_python("", "Module.modules", &pos, &kw)?;
    Ok(Value::List(
        walk_modules(o, "")
            .into_iter()
            .map(|(_, m)| Value::Instance(m))
            .collect(),
    ))
}

fn named_modules(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "memo=None, prefix='', remove_duplicate=True",
        "Module.named_modules",
        &pos,
        &kw,
    )?;
    Ok(pairs(
        walk_modules(o, &prefix_of(&args))
            .into_iter()
            .map(|(n, m)| (n, Value::Instance(m)))
            .collect(),
    ))
}

/// `t.detach()` (what `state_dict` holds).
fn detached(ev: &mut Evaluator, t: &TensorRef) -> R<Value> {
    let method = Value::Method(Box::new(Value::Tensor(Rc::clone(t))), "detach".into());
    ev.call(method, vec![], vec![])
}

/// The entries of `state_dict`: every module's parameters and persistent buffers, by full
/// name, submodules after their parent's own (shared tensors appear under each name).
pub(crate) fn state_entries(root: &Rc<Instance>, prefix: &str) -> Vec<(String, TensorRef)> {
    let mut out = Vec::new();
    let mut pending = vec![(prefix.to_string(), Rc::clone(root))];
    let mut visited = 0usize;
    while let Some((prefix, module)) = pending.pop() {
        visited += 1;
        if visited > 1_000_000 {
            break;
        }
        let state = module.module.borrow();
        let Some(state) = state.as_ref() else {
            continue;
        };
        for (name, t) in &state.parameters {
            if let Some(t) = t {
                out.push((format!("{prefix}{name}"), Rc::clone(t)));
            }
        }
        for (name, t) in &state.buffers {
            if let Some(t) = t {
                if !state.non_persistent.contains(name) {
                    out.push((format!("{prefix}{name}"), Rc::clone(t)));
                }
            }
        }
        for (name, m) in state.modules.iter().rev() {
            if let Some(m) = m {
                pending.push((format!("{prefix}{name}."), Rc::clone(m)));
            }
        }
    }
    out
}

fn state_dict(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "*, destination=None, prefix='', keep_vars=False",
        "Module.state_dict",
        &pos,
        &kw,
    )?;
    let keep_vars = ev.truthy(&arg(&args, "keep_vars"))?;
    let mut entries = Vec::new();
    for (name, t) in state_entries(o, &prefix_of(&args)) {
        let value = if keep_vars {
            Value::Tensor(t)
        } else {
            detached(ev, &t)?
        };
        entries.push((Value::Str(name), value));
    }
    Ok(Value::OrderedDict(entries))
}

fn load_state_dict(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "state_dict, strict=True, assign=False",
        "Module.load_state_dict",
        &pos,
        &kw,
    )?;
    let strict = ev.truthy(&arg(&args, "strict"))?;
    let given = match arg(&args, "state_dict") {
        Value::Dict(entries) | Value::OrderedDict(entries) => entries,
        other => {
            return Err(ScriptError::Type(format!(
                "Expected state_dict to be dict-like, got {}.",
                typename(&other).replace("__main__.", "")
            )))
        }
    };
    let own = state_entries(o, "");
    let mut missing = Vec::new();
    let mut mismatched = Vec::new();
    let mut copies = Vec::new();
    for (name, target) in &own {
        let found = given
            .iter()
            .find(|(k, _)| matches!(k, Value::Str(s) if s == name));
        match found {
            Some((_, Value::Tensor(source))) => {
                let (want, got) = (
                    target.borrow().tensor.shape().to_vec(),
                    source.borrow().tensor.shape().to_vec(),
                );
                if want != got {
                    mismatched.push(format!(
                        "size mismatch for {name}: copying a param with shape torch.Size([{}]) from checkpoint, the shape in current model is torch.Size([{}]).",
                        list(&got),
                        list(&want)
                    ));
                } else {
                    copies.push((Rc::clone(target), Rc::clone(source)));
                }
            }
            Some((_, other)) => mismatched.push(format!(
                "While copying the parameter named \"{name}\", expected torch.Tensor or Tensor-like object from checkpoint but received {}",
                typename(other)
            )),
            None => missing.push(name.clone()),
        }
    }
    let unexpected: Vec<String> = given
        .iter()
        .filter_map(|(k, _)| match k {
            Value::Str(s) if !own.iter().any(|(n, _)| n == s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    let quoted = |names: &[String]| {
        names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut problems = Vec::new();
    if strict {
        if !unexpected.is_empty() {
            problems.push(format!(
                "Unexpected key(s) in state_dict: {}. ",
                quoted(&unexpected)
            ));
        }
        if !missing.is_empty() {
            problems.push(format!(
                "Missing key(s) in state_dict: {}. ",
                quoted(&missing)
            ));
        }
    }
    problems.extend(mismatched);
    if !problems.is_empty() {
        return Err(ScriptError::Runtime(format!(
            "Error(s) in loading state_dict for {}:\n\t{}",
            o.class.name,
            problems.join("\n\t")
        )));
    }
    let grad_mode = ev.torch.grad_enabled;
    ev.torch.grad_enabled = false;
    let mut result = Ok(());
    for (target, source) in copies {
        let method = Value::Method(Box::new(Value::Tensor(target)), "copy_".into());
        if let Err(e) = ev.call(method, vec![Value::Tensor(source)], vec![]) {
            result = Err(e);
            break;
        }
    }
    ev.torch.grad_enabled = grad_mode;
    result?;
    if missing.is_empty() && unexpected.is_empty() {
        return Ok(Value::Printed("<All keys matched successfully>".into()));
    }
    let names = |v: &[String]| Value::List(v.iter().map(|s| Value::Str(s.clone())).collect());
    Ok(Value::NamedTuple(
        "_IncompatibleKeys".into(),
        vec![
            ("missing_keys".into(), names(&missing)),
            ("unexpected_keys".into(), names(&unexpected)),
        ],
    ))
}

fn list(dims: &[i64]) -> String {
    dims.iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Sets `training` on a module and every submodule; returns the module.
fn set_training(_: &mut Evaluator, o: &Rc<Instance>, mode: bool) -> R<Value> {
    for (_, m) in walk_modules(o, "") {
        if let Some(state) = m.module.borrow_mut().as_mut() {
            state.training = mode;
        }
    }
    Ok(Value::Instance(Rc::clone(o)))
}

fn train(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("mode=True", "Module.train", &pos, &kw)?;
    let Value::Bool(mode) = arg(&args, "mode") else {
        return Err(ScriptError::Value(
            "training mode is expected to be boolean".into(),
        ));
    };
    set_training(ev, o, mode)
}

fn requires_grad(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("requires_grad=True", "Module.requires_grad_", &pos, &kw)?;
    let flag = arg(&args, "requires_grad");
    for (_, p) in walk_tensors(o, "", true, false) {
        let method = Value::Method(Box::new(Value::Tensor(p)), "requires_grad_".into());
        ev.call(method, vec![flag.clone()], vec![])?;
    }
    Ok(Value::Instance(Rc::clone(o)))
}

fn zero_grad(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("set_to_none=True", "Module.zero_grad", &pos, &kw)?;
    let to_none = ev.truthy(&arg(&args, "set_to_none"))?;
    for (_, p) in walk_tensors(o, "", true, false) {
        ev.zero_tensor_grad(&p, to_none)?;
    }
    Ok(Value::None)
}

impl Evaluator {
    /// Clears a tensor's `.grad`: to `None`, or zeroed in place (detached from any graph),
    /// as `Module.zero_grad` and `Optimizer.zero_grad` do.
    pub(crate) fn zero_tensor_grad(&mut self, p: &TensorRef, to_none: bool) -> R<()> {
        let grad = p.borrow().grad.clone();
        let Some(grad) = grad else { return Ok(()) };
        if to_none {
            p.borrow_mut().grad = None;
            return Ok(());
        }
        {
            let mut g = grad.borrow_mut();
            g.grad_fn = None;
            g.requires_grad = false;
        }
        let method = Value::Method(Box::new(Value::Tensor(grad)), "zero_".into());
        self.call(method, vec![], vec![])?;
        Ok(())
    }
}

fn apply(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("fn", "Module.apply", &pos, &kw)?;
    let function = arg(&args, "fn");
    // Children first, depth first; then the module itself.
    let order: Vec<Rc<Instance>> = walk_modules(o, "")
        .into_iter()
        .rev()
        .map(|(_, m)| m)
        .collect();
    for module in post_order(o, order) {
        ev.count_step()?;
        ev.call(function.clone(), vec![Value::Instance(module)], vec![])?;
    }
    Ok(Value::Instance(Rc::clone(o)))
}

/// The modules under `root` in the order `apply` visits them: each module's children (in
/// order, recursively) before the module.
fn post_order(root: &Rc<Instance>, _known: Vec<Rc<Instance>>) -> Vec<Rc<Instance>> {
    let mut out = Vec::new();
    let mut stack = vec![(Rc::clone(root), false)];
    while let Some((module, expanded)) = stack.pop() {
        if expanded {
            out.push(module);
            continue;
        }
        stack.push((Rc::clone(&module), true));
        for (_, child) in direct_children(&module).into_iter().rev() {
            stack.push((child, false));
        }
        if out.len() + stack.len() > 2_000_000 {
            break;
        }
    }
    out
}

/// Checks a registration name as `register_buffer` and `register_parameter` do.
fn check_name(o: &Rc<Instance>, name: &Value, what: &str, registry_has: bool) -> R<String> {
    let Value::Str(name) = name else {
        return Err(ScriptError::Key(format!(
            "'{what} name should be a string. Got {}'",
            name.type_name()
        )));
    };
    if name.contains('.') {
        return Err(ScriptError::Key(format!(
            "'{what} name can\\'t contain \".\"'"
        )));
    }
    if name.is_empty() {
        return Err(ScriptError::Key(format!(
            "'{what} name can\\'t be empty string \"\"'"
        )));
    }
    let plain = o.attrs.borrow().iter().any(|(n, _)| n == name);
    if plain && !registry_has {
        return Err(ScriptError::Key(format!(
            "\"attribute '{name}' already exists\""
        )));
    }
    Ok(name.clone())
}

fn register_buffer(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "name, tensor, persistent=True",
        "Module.register_buffer",
        &pos,
        &kw,
    )?;
    if o.module.borrow().is_none() {
        return Err(ScriptError::Attribute(
            "cannot assign buffer before Module.__init__() call".into(),
        ));
    }
    let has = |o: &Rc<Instance>, n: &Value| matches!(n, Value::Str(n) if o.module.borrow().as_ref().is_some_and(|s| s.buffers.iter().any(|(b, _)| b == n)));
    let name_value = arg(&args, "name");
    let name = check_name(o, &name_value, "buffer", has(o, &name_value))?;
    let tensor = match arg(&args, "tensor") {
        Value::None => None,
        Value::Tensor(t) => Some(t),
        other => {
            return Err(ScriptError::Type(format!(
                "cannot assign '{}' object to buffer '{name}' (torch Tensor or None required)",
                typename(&other)
            )))
        }
    };
    let persistent = ev.truthy(&arg(&args, "persistent"))?;
    if let Some(state) = o.module.borrow_mut().as_mut() {
        if state.parameters.iter().any(|(n, _)| *n == name)
            || state.modules.iter().any(|(n, _)| *n == name)
        {
            return Err(ScriptError::Key(format!(
                "\"attribute '{name}' already exists\""
            )));
        }
        match state.buffers.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = tensor,
            None => state.buffers.push((name.clone(), tensor)),
        }
        state.non_persistent.retain(|n| *n != name);
        if !persistent {
            state.non_persistent.push(name);
        }
    }
    Ok(Value::None)
}

fn register_parameter(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("name, param", "Module.register_parameter", &pos, &kw)?;
    if o.module.borrow().is_none() {
        return Err(ScriptError::Attribute(
            "cannot assign parameter before Module.__init__() call".into(),
        ));
    }
    let has = |o: &Rc<Instance>, n: &Value| matches!(n, Value::Str(n) if o.module.borrow().as_ref().is_some_and(|s| s.parameters.iter().any(|(b, _)| b == n)));
    let name_value = arg(&args, "name");
    let name = check_name(o, &name_value, "parameter", has(o, &name_value))?;
    let param = match arg(&args, "param") {
        Value::None => None,
        Value::Tensor(t) if t.borrow().is_parameter => Some(t),
        other => {
            return Err(ScriptError::Type(format!(
            "cannot assign '{}' object to parameter '{name}' (torch.nn.Parameter or None required)",
            typename(&other)
        )))
        }
    };
    if let Some(state) = o.module.borrow_mut().as_mut() {
        match state.parameters.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = param,
            None => state.parameters.push((name, param)),
        }
    }
    Ok(Value::None)
}

fn add_module(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("name, module", "Module.add_module", &pos, &kw)?;
    let module = match arg(&args, "module") {
        Value::None => None,
        Value::Instance(m) if is_module(&Value::Instance(Rc::clone(&m))) => Some(m),
        other => {
            return Err(ScriptError::Type(format!(
                "{} is not a Module subclass",
                typename(&other)
            )))
        }
    };
    let name = match arg(&args, "name") {
        Value::Str(s) => s,
        other => {
            return Err(ScriptError::Type(format!(
                "module name should be a string. Got {}",
                typename(&other)
            )))
        }
    };
    if name.contains('.') {
        return Err(ScriptError::Key(format!(
            "'module name can\\'t contain \".\", got: {name}'"
        )));
    }
    if name.is_empty() {
        return Err(ScriptError::Key(
            "'module name can\\'t be empty string \"\"'".into(),
        ));
    }
    let mut state = o.module.borrow_mut();
    let Some(state) = state.as_mut() else {
        return Err(ScriptError::Attribute(
            "cannot assign module before Module.__init__() call".into(),
        ));
    };
    match state.modules.iter_mut().find(|(n, _)| *n == name) {
        Some(slot) => slot.1 = module,
        None => state.modules.push((name, module)),
    }
    Ok(Value::None)
}

fn get_submodule(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("target", "Module.get_submodule", &pos, &kw)?;
    let Value::Str(target) = arg(&args, "target") else {
        return Err(ScriptError::Type("target should be a string".into()));
    };
    let mut module = Rc::clone(o);
    if target.is_empty() {
        return Ok(Value::Instance(module));
    }
    for item in target.split('.') {
        let next = module.module.borrow().as_ref().and_then(|s| {
            s.modules
                .iter()
                .find(|(n, _)| n == item)
                .and_then(|(_, m)| m.clone())
        });
        match next {
            Some(m) => module = m,
            None => {
                return Err(ScriptError::Attribute(format!(
                    "{} has no attribute `{item}`",
                    module.class.name
                )))
            }
        }
    }
    Ok(Value::Instance(module))
}

fn get_parameter(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("target", "Module.get_parameter", &pos, &kw)?;
    let Value::Str(target) = arg(&args, "target") else {
        return Err(ScriptError::Type("target should be a string".into()));
    };
    let (path, name) = target.rsplit_once('.').unwrap_or(("", &target));
    let Value::Instance(module) = get_submodule(ev, o, vec![Value::Str(path.into())], vec![])?
    else {
        return Err(ScriptError::Attribute(format!(
            "`{name}` is not an nn.Parameter"
        )));
    };
    let found = module.module.borrow().as_ref().and_then(|s| {
        s.parameters
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, t)| t.clone())
    });
    match found {
        Some(t) => Ok(Value::Tensor(t)),
        None => Err(ScriptError::Attribute(format!(
            "{} has no attribute `{name}`",
            module.class.name
        ))),
    }
}

/// `module.float()`, `.double()`, `.half()`, `.bfloat16()`, `.cpu()`, `.to(...)`: each
/// parameter (and its `.grad`) takes the converted data in place, as `param.data = ...`
/// does; each buffer is replaced by its converted tensor. Only floating tensors change
/// dtype.
fn convert(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
    how: &str,
) -> R<Value> {
    let target: Option<crate::core::tensor::DType> = match how {
        "float" => Some(crate::core::tensor::DType::Float32),
        "double" => Some(crate::core::tensor::DType::Float64),
        "half" => Some(crate::core::tensor::DType::Float16),
        "bfloat16" => Some(crate::core::tensor::DType::BFloat16),
        "cpu" => None,
        _ => {
            let mut dtype = None;
            for v in pos.iter().chain(kw.iter().map(|(_, v)| v)) {
                match v {
                    Value::DType(d) => dtype = Some(*d),
                    Value::Tensor(t) => dtype = Some(t.borrow().tensor.dtype),
                    Value::Str(s) if s == "cpu" => {}
                    Value::Device(d) if d == "cpu" => {}
                    Value::Bool(_) | Value::None => {}
                    Value::Str(s) | Value::Device(s) => {
                        return Err(ev.device_refusal(s));
                    }
                    other => {
                        return Err(ScriptError::Type(format!(
                            "to() received an invalid combination of arguments - got ({}, ), but expected one of:",
                            other.type_name()
                        )))
                    }
                }
            }
            dtype
        }
    };
    if !matches!(how, "float" | "double" | "half" | "bfloat16" | "cpu" | "to") {
        return Ok(Value::Instance(Rc::clone(o)));
    }
    let Some(dtype) = target else {
        return Ok(Value::Instance(Rc::clone(o)));
    };
    if !dtype.is_floating() && !dtype.is_complex() {
        return Err(ScriptError::Type(format!(
            "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
        )));
    }
    for (_, m) in walk_modules(o, "") {
        let (params, buffers): (
            Vec<(String, Option<TensorRef>)>,
            Vec<(String, Option<TensorRef>)>,
        ) = {
            let state = m.module.borrow();
            match state.as_ref() {
                Some(s) => (s.parameters.clone(), s.buffers.clone()),
                None => continue,
            }
        };
        for (_, p) in params.iter() {
            let Some(p) = p else { continue };
            ev.convert_in_place(p, dtype)?;
            let grad = p.borrow().grad.clone();
            if let Some(g) = grad {
                ev.convert_in_place(&g, dtype)?;
            }
        }
        for (name, b) in buffers {
            let Some(b) = b else { continue };
            if !b.borrow().tensor.dtype.is_floating() {
                continue;
            }
            let method = Value::Method(Box::new(Value::Tensor(b)), "to".into());
            let converted = ev.call(method, vec![Value::DType(dtype)], vec![])?;
            if let (Value::Tensor(t), Some(state)) = (converted, m.module.borrow_mut().as_mut()) {
                if let Some(slot) = state.buffers.iter_mut().find(|(n, _)| *n == name) {
                    slot.1 = Some(t);
                }
            }
        }
    }
    Ok(Value::Instance(Rc::clone(o)))
}

impl Evaluator {
    /// Gives a floating tensor object the data of itself converted to `dtype` (a new
    /// storage), keeping the object: what `param.data = param.to(dtype)` does.
    pub(crate) fn convert_in_place(
        &mut self,
        t: &TensorRef,
        dtype: crate::core::tensor::DType,
    ) -> R<()> {
        let current = t.borrow().tensor.clone();
        if current.dtype == dtype || !current.dtype.is_floating() {
            return Ok(());
        }
        let grad_mode = self.torch.grad_enabled;
        self.torch.grad_enabled = false;
        let plain = Value::tensor(current, "to", None);
        let method = Value::Method(Box::new(plain), "to".into());
        let converted = self.call(method, vec![Value::DType(dtype)], vec![]);
        self.torch.grad_enabled = grad_mode;
        if let Value::Tensor(c) = converted? {
            let tensor = c.borrow().tensor.clone();
            t.borrow_mut().tensor = tensor;
        }
        Ok(())
    }

    /// The error for a device this build has no backend for (`cuda`, `mps`).
    pub(crate) fn device_refusal(&self, device: &str) -> ScriptError {
        if device.starts_with("cuda") {
            ScriptError::Other {
                class: "AssertionError".into(),
                message: "Torch not compiled with CUDA enabled".into(),
            }
        } else {
            ScriptError::Runtime(format!(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {device}"
            ))
        }
    }
}
