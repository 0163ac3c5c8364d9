//! Classes a script defines: the `class` statement, instances and their attributes, method
//! binding, `super()`, and the special methods `__init__`, `__call__`, `__repr__` and
//! `__str__` (the protocols the builtins ask of an instance are in `instance_protocols.rs`).
//!
//! Single inheritance from script classes, `object` and the built-in `torch.nn` classes
//! (`nn.Module`, `nn.Linear`, ...: their registries and methods are
//! `crate::interp::torch::nn::module`'s). What is not supported yet (metaclasses,
//! `__slots__`, attribute hooks, several bases) is refused at the `class` line with a
//! `NotImplementedError`.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use crate::core::tensor::ScriptError;
use crate::interp::python::functions::Body;
use crate::interp::python::statements::Flow;
use crate::interp::torch::nn::module::{native_has, native_of};
use crate::interp::value::{ClassObject, Instance, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::{ClassDef, Expr, ExprKind, StatementKind, Target};

/// Special methods whose meaning (attribute hooks, object creation, finalizers) is not
/// modelled: a class that defines one is refused.
const UNSUPPORTED_METHODS: [&str; 7] = [
    "__getattr__",
    "__getattribute__",
    "__setattr__",
    "__delattr__",
    "__new__",
    "__del__",
    "__init_subclass__",
];

/// A refusal of what classes here do not support yet.
fn not_yet(what: impl std::fmt::Display) -> ScriptError {
    ScriptError::NotImplemented(format!("{what} is not supported here yet"))
}

/// The dotted name an expression spells (`nn.Module`), if it is one.
fn dotted(expr: &Expr) -> Option<String> {
    match &expr.kind {
        ExprKind::Name(name) => Some(name.clone()),
        ExprKind::Attribute { object, name } => Some(format!("{}.{name}", dotted(object)?)),
        _ => None,
    }
}

/// A value found in a class: the attribute and the class that holds it.
fn class_lookup(class: &Rc<ClassObject>, name: &str) -> Option<Value> {
    class.mro().iter().find_map(|c| {
        c.attrs
            .borrow()
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    })
}

/// Whether a class (a script class's own attributes, or a built-in base's methods) has the
/// method `name`.
pub(super) fn has_method(class: &Rc<ClassObject>, name: &str) -> bool {
    class_lookup(class, name).is_some() || native_of(class).is_some_and(|d| native_has(d, name))
}

/// A fake but stable address for an object's default repr.
fn address<T>(object: &Rc<T>) -> u64 {
    0x7f00_0000_0000_u64 + (Rc::as_ptr(object) as usize as u64 & 0xff_fff0)
}

/// `<class '__main__.Foo'>` (`<class 'torch.nn.modules.linear.Linear'>` for a built-in).
pub(crate) fn class_repr(class: &ClassObject) -> String {
    let module = class.native.map_or("__main__", |d| d.path);
    format!("<class '{module}.{}'>", class.qualname)
}

/// `<__main__.Foo object at 0x...>`.
pub(crate) fn default_repr(object: &Rc<Instance>) -> String {
    format!(
        "<__main__.{} object at 0x{:x}>",
        object.class.qualname,
        address(object)
    )
}

impl Evaluator {
    /// Runs a `class` statement: checks what it uses, runs its body in a namespace of its
    /// own (each statement a sub-step), builds the class and binds it to its name.
    pub(crate) fn define_class(&mut self, def: &Arc<ClassDef>) -> R<Flow> {
        if let Some((key, _)) = def.keywords.first() {
            return Err(if key == "metaclass" {
                not_yet("a metaclass (metaclass=)")
            } else {
                ScriptError::Type(format!(
                    "{}.__init_subclass__() takes no keyword arguments",
                    def.name
                ))
            });
        }
        for statement in &def.body {
            match &statement.kind {
                StatementKind::FunctionDef(f) if UNSUPPORTED_METHODS.contains(&f.name.as_str()) => {
                    return Err(not_yet(format!("'{}' in a class", f.name)));
                }
                StatementKind::FunctionDef(f)
                    if f.decorators.iter().any(|d| {
                        dotted(d).is_some_and(|d| d == "property" || d.ends_with(".setter"))
                    }) =>
                {
                    return Err(not_yet("'@property' in a class"));
                }
                StatementKind::Assign { targets, .. }
                    if targets
                        .iter()
                        .any(|t| matches!(t, Target::Name(n) if n == "__slots__")) =>
                {
                    return Err(not_yet("'__slots__' in a class"));
                }
                _ => {}
            }
        }
        let base = self.class_base(def)?;
        let decorators = self.eval_all(&def.decorators)?;
        let qualname = self.qualify(&def.name);
        self.check_depth()?;
        self.scope.push_frame(Vec::new());
        self.bodies.push(Body::Class(qualname.clone()));
        self.gc_floors.push(self.memory.births());
        let result = self.exec_block(&def.body);
        self.gc_floors.pop();
        self.bodies.pop();
        let mut attrs = self.scope.pop_frame();
        result?;
        if let Some(StatementKind::Expr(Expr {
            kind: ExprKind::Str(doc),
            ..
        })) = def.body.first().map(|s| &s.kind)
        {
            attrs.insert(0, ("__doc__".into(), Value::Str(doc.clone())));
        }
        let class = Rc::new(ClassObject {
            name: def.name.clone(),
            qualname,
            base,
            attrs: RefCell::new(attrs),
            native: None,
        });
        // The methods its body defined find their class for `super()`.
        let prefix = format!("{}.", class.qualname);
        for (_, value) in class.attrs.borrow().iter() {
            let function = match value {
                Value::StaticMethod(inner) | Value::ClassMethod(inner) => &**inner,
                other => other,
            };
            if let Value::Function(f) = function {
                if f.qualname.starts_with(&prefix) && f.owner.borrow().upgrade().is_none() {
                    *f.owner.borrow_mut() = Rc::downgrade(&class);
                }
            }
        }
        let mut value = Value::Class(class);
        for decorator in decorators.into_iter().rev() {
            value = self.call(decorator, vec![value], vec![])?;
        }
        self.scope.bind(&def.name, value);
        Ok(Flow::Next(None))
    }

    /// The base class of a `class` statement: a script class, or `None` for `object`.
    fn class_base(&mut self, def: &ClassDef) -> R<Option<Rc<ClassObject>>> {
        let base = match def.bases.as_slice() {
            [] => return Ok(None),
            [base] => base,
            _ => return Err(not_yet("a class with several base classes")),
        };
        let name = dotted(base);
        let value = match self.eval(base) {
            Ok(value) => value,
            // `nn.Module`, `torch.autograd.Function`: torch names that are not values here.
            Err(ScriptError::Attribute(_)) if matches!(base.kind, ExprKind::Attribute { .. }) => {
                return Err(not_yet(format!(
                    "a class derived from {}",
                    name.unwrap_or_else(|| "this base".into())
                )))
            }
            Err(e) => return Err(e),
        };
        match value {
            Value::Class(class) => Ok(Some(class)),
            Value::Method(owner, builtin)
                if matches!(*owner, Value::None) && builtin == "object" =>
            {
                Ok(None)
            }
            other => Err(not_yet(format!(
                "a class derived from {}",
                name.unwrap_or_else(|| format!("a '{}' object", other.type_name()))
            ))),
        }
    }

    /// `Cls(...)`: a new instance, initialized by the first `__init__` of the class's MRO.
    pub(crate) fn instantiate(
        &mut self,
        class: &Rc<ClassObject>,
        mut pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let instance = Value::Instance(Rc::new(Instance {
            class: Rc::clone(class),
            attrs: RefCell::new(Vec::new()),
            module: RefCell::new(None),
        }));
        match class_lookup(class, "__init__") {
            Some(Value::Function(init)) => {
                pos.insert(0, instance.clone());
                let result = self.call_function(&init, pos, kw)?;
                if !matches!(result, Value::None) {
                    return Err(ScriptError::Type(format!(
                        "__init__() should return None, not '{}'",
                        result.type_name()
                    )));
                }
            }
            Some(other) => {
                let init = self.bind(other, &instance, class);
                self.call(init, pos, kw)?;
            }
            None if native_of(class).is_some() => {
                if let Value::Instance(object) = &instance {
                    if let Some(result) = self.call_native_method(object, "__init__", pos, kw) {
                        result?;
                    }
                }
            }
            None if !pos.is_empty() || !kw.is_empty() => {
                return Err(ScriptError::Type(format!(
                    "{}() takes no arguments",
                    class.name
                )))
            }
            None => {}
        }
        Ok(instance)
    }

    /// A class attribute as read through `receiver` (an instance or the class): a function
    /// becomes a bound method, a `staticmethod` its function, a `classmethod` a method
    /// bound to the class.
    fn bind(&mut self, value: Value, receiver: &Value, class: &Rc<ClassObject>) -> Value {
        match value {
            Value::Function(f) if matches!(receiver, Value::Instance(_)) => {
                Value::BoundMethod(Box::new(receiver.clone()), f)
            }
            Value::StaticMethod(f) => *f,
            Value::ClassMethod(f) => match *f {
                Value::Function(f) => {
                    Value::BoundMethod(Box::new(Value::Class(Rc::clone(class))), f)
                }
                other => other,
            },
            other => other,
        }
    }

    /// `obj.name` on an instance: its own attributes, then its class's (bound).
    pub(crate) fn instance_attribute(&mut self, object: &Rc<Instance>, name: &str) -> R<Value> {
        let receiver = Value::Instance(Rc::clone(object));
        match name {
            "__class__" => return Ok(Value::Class(Rc::clone(&object.class))),
            "__dict__" => {
                let attrs = object.attrs.borrow();
                return Ok(Value::Dict(
                    attrs
                        .iter()
                        .map(|(k, v)| (Value::Str(k.clone()), v.clone()))
                        .collect(),
                ));
            }
            _ => {}
        }
        let own = object
            .attrs
            .borrow()
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone());
        if let Some(value) = own {
            return Ok(value);
        }
        if let Some(value) = class_lookup(&object.class, name) {
            return Ok(self.bind(value, &receiver, &object.class));
        }
        if let Some(value) = self.nn_module_attribute(object, name) {
            return Ok(value);
        }
        if let Some(value) = self.cuda_module_attribute(object, name) {
            return Ok(value);
        }
        match name {
            "__module__" => Ok(Value::Str(
                object.class.native.map_or("__main__", |d| d.path).into(),
            )),
            "__doc__" => Ok(Value::None),
            // `object`'s own methods, as `super().__init__` and `obj.__repr__` reach them.
            "__init__" | "__repr__" | "__str__" => {
                Ok(Value::Method(Box::new(receiver), name.into()))
            }
            _ => Err(ScriptError::Attribute(format!(
                "'{}' object has no attribute '{name}'",
                object.class.name
            ))),
        }
    }

    /// `Cls.name` on a class.
    pub(crate) fn class_attribute(&mut self, class: &Rc<ClassObject>, name: &str) -> R<Value> {
        match name {
            "__name__" => return Ok(Value::Str(class.name.clone())),
            "__qualname__" => return Ok(Value::Str(class.qualname.clone())),
            "__module__" => {
                return Ok(Value::Str(
                    class.native.map_or("__main__", |d| d.path).into(),
                ))
            }
            "__bases__" => {
                return Ok(Value::Tuple(vec![match &class.base {
                    Some(base) => Value::Class(Rc::clone(base)),
                    None => Value::Method(Box::new(Value::None), "object".into()),
                }]))
            }
            "__mro__" => {
                let mut mro: Vec<Value> = class.mro().into_iter().map(Value::Class).collect();
                mro.push(Value::Method(Box::new(Value::None), "object".into()));
                return Ok(Value::Tuple(mro));
            }
            _ => {}
        }
        if let Some(value) = class_lookup(class, name) {
            return Ok(self.bind(value, &Value::Class(Rc::clone(class)), class));
        }
        if crate::interp::torch::nn::module::native_class_method(class, name).is_some() {
            return Ok(Value::Method(
                Box::new(Value::Class(Rc::clone(class))),
                name.into(),
            ));
        }
        match name {
            "__doc__" => Ok(Value::None),
            _ => Err(ScriptError::Attribute(format!(
                "type object '{}' has no attribute '{name}'",
                class.name
            ))),
        }
    }

    /// `super().name`: the first class after `start` in the receiver's MRO that has it.
    pub(crate) fn super_attribute(
        &mut self,
        start: &Rc<ClassObject>,
        receiver: &Value,
        name: &str,
    ) -> R<Value> {
        let class = match receiver {
            Value::Instance(object) => Rc::clone(&object.class),
            Value::Class(class) => Rc::clone(class),
            _ => Rc::clone(start),
        };
        let mro = class.mro();
        let after = mro
            .iter()
            .position(|c| Rc::ptr_eq(c, start))
            .map_or(mro.len(), |i| i + 1);
        for c in &mro[after..] {
            let found = c
                .attrs
                .borrow()
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone());
            if let Some(value) = found {
                return Ok(self.bind(value, receiver, &class));
            }
        }
        let native = mro[after..].iter().find_map(|c| c.native);
        match name {
            _ if native.is_some_and(|d| native_has(d, name)) => {
                Ok(Value::Method(Box::new(receiver.clone()), name.into()))
            }
            "__init__" | "__repr__" | "__str__" if matches!(receiver, Value::Instance(_)) => {
                Ok(Value::Method(Box::new(receiver.clone()), name.into()))
            }
            _ => Err(ScriptError::Attribute(format!(
                "'super' object has no attribute '{name}'"
            ))),
        }
    }

    /// `super()` (the running method's class and first argument) or `super(Cls, obj)`.
    pub(crate) fn make_super(&mut self, pos: &[Value]) -> R<Value> {
        let (class, receiver) = match pos {
            [] => {
                let no_arguments = || ScriptError::Runtime("super(): no arguments".into());
                let Some(Body::Function(function)) = self.bodies.last() else {
                    return Err(no_arguments());
                };
                let function = Rc::clone(function);
                let Some((first, _)) = function.def.params.first() else {
                    return Err(no_arguments());
                };
                let receiver = self.scope.get(first).cloned().ok_or_else(no_arguments)?;
                let class = function.owner.borrow().upgrade().ok_or_else(|| {
                    ScriptError::Runtime("super(): __class__ cell not found".into())
                })?;
                (class, receiver)
            }
            [Value::Class(class), receiver] => (Rc::clone(class), receiver.clone()),
            [other, _] => {
                return Err(ScriptError::Type(format!(
                    "super() argument 1 must be a type, not {}",
                    other.type_name()
                )))
            }
            _ => return Err(not_yet("super() with one argument")),
        };
        let fits = match &receiver {
            Value::Instance(object) => object.class.is_subclass_of(&class),
            Value::Class(c) => c.is_subclass_of(&class),
            _ => false,
        };
        if !fits {
            return Err(ScriptError::Type(
                "super(type, obj): obj must be an instance or subtype of type".into(),
            ));
        }
        Ok(Value::Super(class, Box::new(receiver)))
    }

    /// `obj.name = value` on an instance or a class; `false` for other objects. An
    /// instance's `__dict__` set to a dict of string keys (also `obj.__dict__.update(...)`,
    /// stored back) replaces its attributes.
    pub(crate) fn set_class_attribute(
        &mut self,
        object: &Value,
        name: &str,
        value: Value,
    ) -> R<bool> {
        // A custom autograd function's `ctx` (`ctx.constant = 3`).
        if let Value::GradFn(f) = object {
            return Ok(self.set_ctx_attribute(f, name, value));
        }
        if let Value::Instance(instance) = object {
            if self.module_set_attribute(instance, name, &value)? {
                return Ok(true);
            }
        }
        let attrs = match object {
            Value::Instance(object) => &object.attrs,
            Value::Class(class) => &class.attrs,
            _ => return Ok(false),
        };
        let mut attrs = attrs.borrow_mut();
        if let (Value::Instance(_), "__dict__", Value::Dict(entries)) = (object, name, &value) {
            if entries.iter().all(|(k, _)| matches!(k, Value::Str(_))) {
                *attrs = entries
                    .iter()
                    .filter_map(|(k, v)| match k {
                        Value::Str(k) => Some((k.clone(), v.clone())),
                        _ => None,
                    })
                    .collect();
                return Ok(true);
            }
        }
        match attrs.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => attrs.push((name.to_string(), value)),
        }
        Ok(true)
    }

    /// `del obj.name` on an instance or a class.
    pub(crate) fn delete_class_attribute(&mut self, object: &Value, name: &str) -> R<()> {
        if let Value::Instance(instance) = object {
            if self.module_delete_attribute(instance, name) {
                return Ok(());
            }
        }
        let (attrs, missing) = match object {
            Value::Instance(o) => (
                &o.attrs,
                format!("'{}' object has no attribute '{name}'", o.class.name),
            ),
            Value::Class(c) => (
                &c.attrs,
                format!("type object '{}' has no attribute '{name}'", c.name),
            ),
            _ => return Ok(()),
        };
        let mut attrs = attrs.borrow_mut();
        match attrs.iter().position(|(n, _)| n == name) {
            Some(i) => {
                attrs.remove(i);
                Ok(())
            }
            None => Err(ScriptError::Attribute(missing)),
        }
    }

    /// Whether an instance's class defines the special method `name`.
    pub(crate) fn has_special(&self, object: &Instance, name: &str) -> bool {
        has_method(&object.class, name)
    }

    /// Calls the special method `name` of an instance's class, if it has one.
    pub(crate) fn call_special(
        &mut self,
        object: &Rc<Instance>,
        name: &str,
        args: Vec<Value>,
    ) -> Option<R<Value>> {
        let Some(method) = class_lookup(&object.class, name) else {
            return self.call_native_method(object, name, args, vec![]);
        };
        let receiver = Value::Instance(Rc::clone(object));
        let method = self.bind(method, &receiver, &object.class);
        Some(self.call(method, args, vec![]))
    }

    /// `obj(...)`: its class's `__call__`.
    pub(crate) fn call_instance(
        &mut self,
        object: &Rc<Instance>,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let Some(method) = class_lookup(&object.class, "__call__") else {
            if crate::interp::torch::nn::module::is_module_class(&object.class) {
                return self.call_module_instance(object, pos, kw);
            }
            return Err(ScriptError::Type(format!(
                "'{}' object is not callable",
                object.class.name
            )));
        };
        let method = self.bind(method, &Value::Instance(Rc::clone(object)), &object.class);
        self.call(method, pos, kw)
    }

    /// `object`'s own methods on an instance (`super().__init__()`, `obj.__repr__()`).
    pub(crate) fn call_object_method(
        &mut self,
        receiver: &Value,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        if let Value::Instance(object) = receiver {
            if let Some(result) = self.call_native_method(object, name, pos.clone(), kw.clone()) {
                return result;
            }
            if self.cuda_module_attribute(object, name).is_some() {
                if let Some(result) = self.call_module_cuda(object) {
                    return result;
                }
            }
        }
        if let Value::Class(class) = receiver {
            if let Some(method) = crate::interp::torch::nn::module::native_class_method(class, name)
            {
                return method(self, class, pos, kw);
            }
        }
        match name {
            "__init__" if pos.is_empty() && kw.is_empty() => Ok(Value::None),
            "__init__" => Err(ScriptError::Type(
                "object.__init__() takes exactly one argument (the instance to initialize)".into(),
            )),
            "__repr__" => match receiver {
                Value::Instance(object) => Ok(Value::Str(default_repr(object))),
                other => self.repr(other).map(Value::Str),
            },
            "__str__" => match receiver {
                Value::Instance(object) => self.instance_repr(object).map(Value::Str),
                other => self.str_of(other).map(Value::Str),
            },
            _ => Err(ScriptError::Attribute(format!(
                "'{}' object has no attribute '{name}'",
                receiver.type_name()
            ))),
        }
    }

    /// `repr(obj)`: its `__repr__`, else `<__main__.Foo object at 0x...>`.
    pub(crate) fn instance_repr(&mut self, object: &Rc<Instance>) -> R<String> {
        self.special_text(object, "__repr__")
            .unwrap_or_else(|| Ok(default_repr(object)))
    }

    /// `str(obj)`: its `__str__`, else its repr.
    pub(crate) fn instance_str(&mut self, object: &Rc<Instance>) -> R<String> {
        match self.special_text(object, "__str__") {
            Some(text) => text,
            None => self.instance_repr(object),
        }
    }

    /// The text a `__repr__`/`__str__` returns, which must be a `str`.
    fn special_text(&mut self, object: &Rc<Instance>, name: &str) -> Option<R<String>> {
        let result = self.call_special(object, name, vec![])?;
        Some(result.and_then(|v| match v {
            Value::Str(text) => Ok(text),
            other => Err(ScriptError::Type(format!(
                "{name} returned non-string (type {})",
                other.type_name()
            ))),
        }))
    }

    /// `isinstance(obj, Cls)` for a script class.
    pub(crate) fn is_instance_of(object: &Value, class: &Rc<ClassObject>) -> bool {
        matches!(object, Value::Instance(o) if o.class.is_subclass_of(class))
    }

    /// `issubclass(a, b)`.
    pub(crate) fn issubclass(&mut self, pos: &[Value]) -> R<Value> {
        let [class, of] = pos else {
            return Err(ScriptError::Type(format!(
                "issubclass expected 2 arguments, got {}",
                pos.len()
            )));
        };
        let is_object = |v: &Value| matches!(v, Value::Method(o, n) if matches!(**o, Value::None) && n == "object");
        let Value::Class(class) = class else {
            return Err(ScriptError::Type(
                "issubclass() arg 1 must be a class".into(),
            ));
        };
        let classes = match of {
            Value::Tuple(items) => items.clone(),
            other => vec![other.clone()],
        };
        for c in &classes {
            match c {
                Value::Class(c) if class.is_subclass_of(c) => return Ok(Value::Bool(true)),
                Value::Class(_) => {}
                c if is_object(c) => return Ok(Value::Bool(true)),
                _ => {
                    return Err(ScriptError::Type(
                        "issubclass() arg 2 must be a class, a tuple of classes, or a union".into(),
                    ))
                }
            }
        }
        Ok(Value::Bool(false))
    }
}
