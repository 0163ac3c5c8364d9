//! `nn.Module` and the built-in modules, as PyTorch's `torch/nn/modules/module.py` defines
//! them: a module is an instance of a class whose MRO ends in a built-in class (`Module`,
//! `Linear`, `Sequential`, ...). Attribute assignment registers parameters, buffers and
//! submodules in its [`ModuleState`] (PyTorch's `_parameters`, `_buffers`, `_modules`), and
//! attribute reads find them there after the instance's and its class's own attributes.
//!
//! Each built-in class is one [`ModuleDef`]: its name, its Python module, its native base,
//! its `__init__`, its `forward`, its `extra_repr` and the other methods it adds. The
//! families are `containers.rs` and the layer files of `crate::interp::torch::nn::layers`;
//! `Module`'s own methods are in [`methods`], its repr in [`repr`].
//!
//! Where a new built-in module goes: one [`ModuleDef`] in the family file that fits, with
//! its `__init__` (which creates its parameters in PyTorch's order, so the generator draws
//! the same numbers) and its `forward` (which calls the functional op).

pub(crate) mod containers;
mod convert;
mod generator;
pub(crate) mod hooks;
pub(crate) mod methods;
pub(crate) mod parameter;
mod parameter_containers;
mod registration;
pub(crate) mod repr;
mod state;

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::signature::{bind, CallArgs, Schema};
use crate::interp::value::{ClassObject, Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// An `nn.Module`'s registries (PyTorch's `_parameters`, `_buffers`, `_modules`,
/// `_non_persistent_buffers_set` and `training`), in registration order.
#[derive(Debug, Default)]
pub struct ModuleState {
    /// `self.training`.
    pub training: bool,
    /// `_parameters`: a name may hold `None` (`register_parameter("bias", None)`).
    pub parameters: Vec<(String, Option<TensorRef>)>,
    /// `_buffers`.
    pub buffers: Vec<(String, Option<TensorRef>)>,
    /// The buffers left out of `state_dict` (`persistent=False`).
    pub non_persistent: Vec<String>,
    /// `_modules`: the submodules.
    pub modules: Vec<(String, Option<Rc<Instance>>)>,
    /// The hooks run around `__call__` and during backward, in the order they run.
    pub(crate) hooks: Vec<hooks::ModuleHook>,
}

impl ModuleState {
    /// A fresh state, as `Module.__init__` leaves it (training).
    pub fn new() -> ModuleState {
        ModuleState {
            training: true,
            ..ModuleState::default()
        }
    }

    /// Everything the state holds, as values (what memory's walk follows, and what a drop
    /// hands on).
    pub fn into_children(self) -> Vec<Value> {
        let tensors = self.parameters.into_iter().chain(self.buffers);
        tensors
            .filter_map(|(_, t)| t.map(Value::Tensor))
            .chain(
                self.modules
                    .into_iter()
                    .filter_map(|(_, m)| m.map(Value::Instance)),
            )
            .chain(self.hooks.into_iter().map(|h| h.hook))
            .collect()
    }

    /// Everything the state holds, as values.
    pub fn values(&self) -> Vec<Value> {
        let tensors = self.parameters.iter().chain(&self.buffers);
        tensors
            .filter_map(|(_, t)| t.clone().map(Value::Tensor))
            .chain(
                self.modules
                    .iter()
                    .filter_map(|(_, m)| m.clone().map(Value::Instance)),
            )
            .chain(self.hooks.iter().map(|h| h.hook.clone()))
            .collect()
    }

    /// Removes `name` from every registry.
    fn forget(&mut self, name: &str) {
        self.parameters.retain(|(n, _)| n != name);
        self.buffers.retain(|(n, _)| n != name);
        self.non_persistent.retain(|n| n != name);
        self.modules.retain(|(n, _)| n != name);
    }
}

/// A built-in module's `__init__`: the new instance and the call's arguments.
pub(crate) type InitFn =
    fn(&mut Evaluator, &Rc<Instance>, Vec<Value>, Vec<(String, Value)>) -> R<()>;
/// A built-in module's `forward` (or another method): the instance and the arguments.
pub(crate) type MethodFn =
    fn(&mut Evaluator, &Rc<Instance>, Vec<Value>, Vec<(String, Value)>) -> R<Value>;
/// A built-in class's class method (`Embedding.from_pretrained`, `Function.apply`): the
/// class it was called on and the arguments.
pub(crate) type ClassMethodFn =
    fn(&mut Evaluator, &Rc<ClassObject>, Vec<Value>, Vec<(String, Value)>) -> R<Value>;
/// A built-in module's `extra_repr`.
pub(crate) type ReprFn = fn(&mut Evaluator, &Rc<Instance>) -> R<String>;

/// One built-in module class.
pub struct ModuleDef {
    /// Its class name (`Linear`).
    pub name: &'static str,
    /// The Python module that defines it (`torch.nn.modules.linear`), as its `type()` shows.
    pub path: &'static str,
    /// Its built-in base class (`Module`); `None` for `Module` itself.
    pub base: Option<&'static str>,
    /// `__init__`; `None` inherits the base's.
    pub init: Option<InitFn>,
    /// `forward`; `None` inherits the base's (`Module.forward` raises).
    pub forward: Option<MethodFn>,
    /// `extra_repr`; `None` inherits the base's (`Module`'s is empty).
    pub extra_repr: Option<ReprFn>,
    /// The other methods it defines, by name, each with its rule.
    pub methods: &'static [(&'static str, MethodFn)],
    /// Its class methods (and static methods), by name.
    pub class_methods: &'static [(&'static str, ClassMethodFn)],
}

impl std::fmt::Debug for ModuleDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ModuleDef({})", self.name)
    }
}

impl ModuleDef {
    /// A module class of `path` derived from `Module`, with no rules yet.
    pub(crate) const fn new(name: &'static str, path: &'static str) -> ModuleDef {
        ModuleDef {
            name,
            path,
            base: Some("Module"),
            init: None,
            forward: None,
            extra_repr: None,
            methods: &[],
            class_methods: &[],
        }
    }
}

/// The built-in classes, every family's table (the modules, and other built-in classes
/// made the same way, such as the optimizers).
fn families() -> impl Iterator<Item = &'static ModuleDef> {
    [
        methods::MODULES,
        containers::MODULES,
        parameter_containers::MODULES,
    ]
    .into_iter()
    .chain(crate::interp::torch::nn::layers::tables())
    .chain(crate::interp::torch::optim::tables())
    .chain(crate::interp::torch::utils::tables())
    .chain([crate::interp::python::dict_views::CLASSES])
    .chain([generator::CLASSES])
    .chain([crate::interp::torch::autograd::custom_function::CLASSES])
    .chain([crate::interp::torch::autograd::saved_hooks::CLASSES])
    .chain([crate::interp::torch::grad_scaler::CLASSES])
    .flatten()
}

/// The built-in module class named `name`, if there is one.
pub(crate) fn find(name: &str) -> Option<&'static ModuleDef> {
    families().find(|d| d.name == name)
}

/// The built-in class of a class's MRO (its nearest), if any.
pub(crate) fn native_of(class: &Rc<ClassObject>) -> Option<&'static ModuleDef> {
    class.mro().iter().find_map(|c| c.native)
}

/// The chain of built-in classes from `def` up to `Module`.
fn chain(def: &'static ModuleDef) -> impl Iterator<Item = &'static ModuleDef> {
    std::iter::successors(Some(def), |d| d.base.and_then(find))
}

/// Whether a built-in class (or one of its bases) defines the method `name`.
pub(crate) fn native_has(def: &'static ModuleDef, name: &str) -> bool {
    chain(def).any(|d| {
        (name == "forward" && d.forward.is_some())
            || (name == "extra_repr" && d.extra_repr.is_some())
            || (name == "__init__" && d.init.is_some())
            || d.methods.iter().any(|(n, _)| *n == name)
    })
}

/// The class method `name` of a class's built-in bases, if one defines it.
pub(crate) fn native_class_method(class: &Rc<ClassObject>, name: &str) -> Option<ClassMethodFn> {
    let def = native_of(class)?;
    chain(def).find_map(|d| {
        d.class_methods
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
    })
}

/// Whether a value is an `nn.Module` (an instance of a class derived from `Module`).
pub(crate) fn is_module(value: &Value) -> bool {
    matches!(value, Value::Instance(o) if is_module_class(&o.class))
}

/// Whether a class derives from `nn.Module` (other built-in classes, such as the
/// optimizers, do not).
pub(crate) fn is_module_class(class: &Rc<ClassObject>) -> bool {
    native_of(class).is_some_and(|d| chain(d).any(|d| d.name == "Module"))
}

/// A default's Python text as a value (`None`, `False`, `0.01`, `'none'`, `(1, 1)`).
pub(crate) fn default_value(text: &str) -> Value {
    match text {
        "None" => Value::None,
        "True" => Value::Bool(true),
        "False" => Value::Bool(false),
        _ => {
            if let Some(s) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
                Value::Str(s.into())
            } else if let Ok(i) = text.parse::<i64>() {
                Value::Int(i)
            } else {
                text.parse::<f64>().map_or(Value::None, Value::Float)
            }
        }
    }
}

/// Binds a method call's arguments to its Python signature without the receiver
/// (`"in_features, out_features, bias=True"`), with Python's messages naming `what`
/// (`Linear.__init__`), which count the receiver: every parameter by name, defaults
/// filled in.
pub(crate) fn bind_python(
    signature: &str,
    what: &str,
    pos: &[Value],
    kw: &[(String, Value)],
) -> R<Vec<(String, Value)>> {
    // A method's signature counts its receiver (`self`, `cls`) in CPython's messages (the
    // binder already counts it for `__init__`).
    if what.ends_with(".__init__") {
        let schema = Schema::parse_python(signature).map_err(ScriptError::Runtime)?;
        let bound = bind(
            std::slice::from_ref(&schema),
            &CallArgs {
                name: what,
                pos,
                kw,
            },
        )?;
        return Ok(schema
            .params
            .iter()
            .zip(bound.values)
            .map(|(p, v)| {
                let value =
                    v.unwrap_or_else(|| p.default.as_deref().map_or(Value::None, default_value));
                (p.name.clone(), value)
            })
            .collect());
    }
    let with_self = if signature.trim().is_empty() {
        "self".to_string()
    } else {
        format!("self, {signature}")
    };
    let schema = Schema::parse_python(&with_self).map_err(ScriptError::Runtime)?;
    let mut all = Vec::with_capacity(pos.len() + 1);
    all.push(Value::None);
    all.extend_from_slice(pos);
    let bound = bind(
        std::slice::from_ref(&schema),
        &CallArgs {
            name: what,
            pos: &all,
            kw,
        },
    )?;
    Ok(schema
        .params
        .iter()
        .zip(bound.values)
        .skip(1)
        .map(|(p, v)| {
            let value =
                v.unwrap_or_else(|| p.default.as_deref().map_or(Value::None, default_value));
            (p.name.clone(), value)
        })
        .collect())
}

/// The argument `name` of bound arguments (`None` when absent).
pub(crate) fn arg(args: &[(String, Value)], name: &str) -> Value {
    args.iter()
        .find(|(n, _)| n == name)
        .map_or(Value::None, |(_, v)| v.clone())
}

/// `torch.typename(value)`: `torch.FloatTensor` for a tensor, the class's dotted name
/// otherwise (`int`, `__main__.Foo`, `torch.nn.modules.linear.Linear`).
pub(crate) fn typename(value: &Value) -> String {
    match value {
        Value::Tensor(t) => {
            let dtype = t.borrow().tensor.dtype;
            let class = [
                "Float", "Double", "Half", "BFloat16", "Byte", "Char", "Short", "Int", "Long",
                "Bool",
            ]
            .into_iter()
            .find(|c| {
                crate::interp::torch::env::legacy_class_dtype(&format!("{c}Tensor")) == Some(dtype)
            });
            format!("torch.{}Tensor", class.unwrap_or("Float"))
        }
        Value::Instance(o) => match o.class.native {
            Some(def) => format!("{}.{}", def.path, def.name),
            None => format!("__main__.{}", o.class.qualname),
        },
        other => other.type_name().into_owned(),
    }
}

impl Evaluator {
    /// The built-in class `torch.nn.<name>` (one object per script, so `isinstance` and
    /// `type(m) is nn.Linear` hold), if there is one.
    pub(crate) fn nn_class(&mut self, name: &str) -> Option<Rc<ClassObject>> {
        if let Some((_, class)) = self.torch.nn_classes.iter().find(|(n, _)| *n == name) {
            return Some(Rc::clone(class));
        }
        let def = find(name)?;
        let base = match def.base {
            Some(base) => Some(self.nn_class(base)?),
            None => None,
        };
        let class = Rc::new(ClassObject {
            name: def.name.into(),
            qualname: def.name.into(),
            base,
            attrs: std::cell::RefCell::new(Vec::new()),
            native: Some(def),
        });
        self.torch.nn_classes.push((def.name, Rc::clone(&class)));
        Some(class)
    }

    /// `Module.__init__(self)`: fresh registries, training mode.
    pub(crate) fn module_init(
        &mut self,
        object: &Rc<Instance>,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> R<()> {
        if let Some((key, _)) = kw.first() {
            return Err(ScriptError::Type(format!(
                "{}.__init__() got an unexpected keyword argument '{key}'",
                object.class.name
            )));
        }
        if !pos.is_empty() {
            return Err(ScriptError::Type(format!(
                "{}.__init__() takes 1 positional argument but {} were given",
                object.class.name,
                pos.len() + 1
            )));
        }
        *object.module.borrow_mut() = Some(ModuleState::new());
        Ok(())
    }

    /// Calls the built-in method `name` of a module, from its nearest built-in class up.
    pub(crate) fn call_native_method(
        &mut self,
        object: &Rc<Instance>,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> Option<R<Value>> {
        if name.starts_with('\0') {
            return self.module_hook_relay(name, &pos);
        }
        let def = native_of(&object.class)?;
        for d in chain(def) {
            match name {
                "__init__" if d.init.is_some() => {
                    let init = d.init?;
                    // `device="meta"`: what the layer creates is made on that device, as
                    // its factory calls' `device=` would make it.
                    let device = kw
                        .iter()
                        .find(|(k, _)| k == "device")
                        .and_then(|(_, v)| crate::interp::torch::device::Device::of_value(v));
                    let Some(device) = device else {
                        return Some(init(self, object, pos, kw).map(|()| Value::None));
                    };
                    self.torch.device.defaults.push(device);
                    let result = init(self, object, pos, kw);
                    self.torch.device.defaults.pop();
                    return Some(result.map(|()| Value::None));
                }
                "forward" if d.forward.is_some() => {
                    return Some((d.forward?)(self, object, pos, kw))
                }
                "extra_repr" if d.extra_repr.is_some() => {
                    return Some((d.extra_repr?)(self, object).map(Value::Str))
                }
                _ => {}
            }
            if let Some((_, rule)) = d.methods.iter().find(|(n, _)| *n == name) {
                return Some(rule(self, object, pos, kw));
            }
        }
        None
    }

    /// `module.name` once the instance and its class have no such attribute: a built-in
    /// method, `training`, then a parameter, buffer or submodule (PyTorch's
    /// `Module.__getattr__`).
    pub(crate) fn nn_module_attribute(
        &mut self,
        object: &Rc<Instance>,
        name: &str,
    ) -> Option<Value> {
        let def = native_of(&object.class)?;
        if native_has(def, name) {
            return Some(Value::Method(
                Box::new(Value::Instance(Rc::clone(object))),
                name.into(),
            ));
        }
        if let Some(hooks) = hooks::hook_dict(object, name) {
            return Some(hooks);
        }
        let state = object.module.borrow();
        let state = state.as_ref()?;
        if name == "training" {
            return Some(Value::Bool(state.training));
        }
        if let Some(registry) = registry_dict(state, name) {
            return Some(registry);
        }
        let tensor = |entries: &[(String, Option<TensorRef>)]| {
            entries
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.clone().map_or(Value::None, Value::Tensor))
        };
        tensor(&state.parameters)
            .or_else(|| tensor(&state.buffers))
            .or_else(|| {
                state
                    .modules
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, m)| m.clone().map_or(Value::None, Value::Instance))
            })
    }

    /// `module.name = value` (PyTorch's `Module.__setattr__`): a parameter, a submodule or
    /// a buffer is registered; `false` when it is an ordinary attribute.
    pub(crate) fn module_set_attribute(
        &mut self,
        object: &Rc<Instance>,
        name: &str,
        value: &Value,
    ) -> R<bool> {
        if !is_module_class(&object.class) {
            return Ok(false);
        }
        let is_parameter = matches!(value, Value::Tensor(t) if t.borrow().is_parameter);
        let mut state = object.module.borrow_mut();
        if name == "training" {
            if let Some(state) = state.as_mut() {
                state.training = self.truthy(value)?;
                return Ok(true);
            }
            return Ok(false);
        }
        if let (Some(state), Value::Dict(entries) | Value::OrderedDict(entries)) =
            (state.as_mut(), value)
        {
            if set_registry(state, name, entries) {
                return Ok(true);
            }
        }
        let forget_plain =
            |object: &Rc<Instance>| object.attrs.borrow_mut().retain(|(n, _)| n != name);
        if is_parameter {
            let Some(state) = state.as_mut() else {
                return Err(ScriptError::Attribute(
                    "cannot assign parameters before Module.__init__() call".into(),
                ));
            };
            forget_plain(object);
            let Value::Tensor(t) = value else {
                return Ok(false);
            };
            set_entry(&mut state.parameters, name, Some(Rc::clone(t)));
            state.buffers.retain(|(n, _)| n != name);
            state.modules.retain(|(n, _)| n != name);
            return Ok(true);
        }
        let Some(state) = state.as_mut() else {
            if is_module(value) {
                return Err(ScriptError::Attribute(
                    "cannot assign module before Module.__init__() call".into(),
                ));
            }
            return Ok(false);
        };
        if state.parameters.iter().any(|(n, _)| n == name) {
            if !matches!(value, Value::None) {
                return Err(ScriptError::Type(format!(
                    "cannot assign '{}' as parameter '{name}' (torch.nn.Parameter or None expected)",
                    typename(value)
                )));
            }
            set_entry(&mut state.parameters, name, None);
            return Ok(true);
        }
        if let Value::Instance(child) = value {
            if is_module_class(&child.class) {
                forget_plain(object);
                state.parameters.retain(|(n, _)| n != name);
                state.buffers.retain(|(n, _)| n != name);
                state.non_persistent.retain(|n| n != name);
                set_entry(&mut state.modules, name, Some(Rc::clone(child)));
                return Ok(true);
            }
        }
        if state.modules.iter().any(|(n, _)| n == name) {
            if !matches!(value, Value::None) {
                return Err(ScriptError::Type(format!(
                    "cannot assign '{}' as child module '{name}' (torch.nn.Module or None expected)",
                    typename(value)
                )));
            }
            set_entry(&mut state.modules, name, None);
            return Ok(true);
        }
        if state.buffers.iter().any(|(n, _)| n == name) {
            match value {
                Value::None => set_entry(&mut state.buffers, name, None),
                Value::Tensor(t) => set_entry(&mut state.buffers, name, Some(Rc::clone(t))),
                other => {
                    return Err(ScriptError::Type(format!(
                        "cannot assign '{}' as buffer '{name}' (torch.Tensor or None expected)",
                        typename(other)
                    )))
                }
            }
            return Ok(true);
        }
        Ok(false)
    }

    /// `del module.name` for a parameter, buffer or submodule; `false` otherwise.
    pub(crate) fn module_delete_attribute(&mut self, object: &Rc<Instance>, name: &str) -> bool {
        let mut state = object.module.borrow_mut();
        let Some(state) = state.as_mut() else {
            return false;
        };
        let registered = state.parameters.iter().any(|(n, _)| n == name)
            || state.buffers.iter().any(|(n, _)| n == name)
            || state.modules.iter().any(|(n, _)| n == name);
        if registered {
            state.forget(name);
        }
        registered
    }

    /// `module(*args)`: PyTorch's `Module.__call__`, its `forward` (the class's own, or
    /// the built-in one).
    pub(crate) fn call_module_instance(
        &mut self,
        object: &Rc<Instance>,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        // The model summary's row of this layer: its output, what it saved, its peak.
        let mark = self.begin_module_call(object);
        let result = self.call_module_forward(object, pos, kw);
        self.end_module_call(mark, result.as_ref().ok());
        result
    }

    /// `module(*args)` without the summary's bookkeeping: its hooks, then `forward`.
    fn call_module_forward(
        &mut self,
        object: &Rc<Instance>,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let hooked = object
            .module
            .borrow()
            .as_ref()
            .is_some_and(|s| !s.hooks.is_empty());
        if hooked {
            return self.call_with_hooks(object, pos, kw);
        }
        let forward = self.instance_attribute(object, "forward")?;
        self.call(forward, pos, kw)
    }
}

/// `module._parameters`, `_buffers`, `_modules`: the registry as a dict (a change made
/// through it is stored back by [`set_registry`]).
fn registry_dict(state: &ModuleState, name: &str) -> Option<Value> {
    let tensors = |entries: &[(String, Option<TensorRef>)]| {
        entries
            .iter()
            .map(|(n, t)| {
                (
                    Value::Str(n.clone()),
                    t.clone().map_or(Value::None, Value::Tensor),
                )
            })
            .collect()
    };
    Some(Value::Dict(match name {
        "_parameters" => tensors(&state.parameters),
        "_buffers" => tensors(&state.buffers),
        "_modules" => state
            .modules
            .iter()
            .map(|(n, m)| {
                (
                    Value::Str(n.clone()),
                    m.clone().map_or(Value::None, Value::Instance),
                )
            })
            .collect(),
        _ => return None,
    }))
}

/// `module._modules = d` (and `self._modules[k] = m`, stored back): the registry becomes
/// the dict's string keys with their modules (tensors for `_parameters` and `_buffers`).
/// `false` for other names.
fn set_registry(state: &mut ModuleState, name: &str, entries: &[(Value, Value)]) -> bool {
    let named = entries.iter().filter_map(|(k, v)| match k {
        Value::Str(k) => Some((k.clone(), v)),
        _ => None,
    });
    match name {
        "_modules" => {
            state.modules = named
                .filter_map(|(k, v)| match v {
                    Value::Instance(m) => Some((k, Some(Rc::clone(m)))),
                    Value::None => Some((k, None)),
                    _ => None,
                })
                .collect();
        }
        "_parameters" | "_buffers" => {
            let tensors = named
                .filter_map(|(k, v)| match v {
                    Value::Tensor(t) => Some((k, Some(Rc::clone(t)))),
                    Value::None => Some((k, None)),
                    _ => None,
                })
                .collect();
            if name == "_parameters" {
                state.parameters = tensors;
            } else {
                state.buffers = tensors;
            }
        }
        _ => return false,
    }
    true
}

/// Sets `name` in an ordered registry, keeping its place if it is there.
fn set_entry<T>(entries: &mut Vec<(String, T)>, name: &str, value: T) {
    match entries.iter_mut().find(|(n, _)| n == name) {
        Some(slot) => slot.1 = value,
        None => entries.push((name.to_string(), value)),
    }
}
