//! The registration methods of `nn.Module`: `register_buffer`, `register_parameter`,
//! `add_module` and the lookups `get_submodule`, `get_parameter`.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, is_module, typename};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

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

pub(super) fn register_buffer(
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

pub(super) fn register_parameter(
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

pub(super) fn add_module(
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

pub(super) fn get_submodule(
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

pub(super) fn get_parameter(
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
