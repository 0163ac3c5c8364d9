//! Functions a script defines with `def`: their values, calls (positional and keyword
//! arguments, defaults, Python's `TypeError`s for the rest) and local scopes. A call runs the
//! body as a block, so each executed statement is a sub-step and counts against the step
//! limit; locals live in a frame of their own, and names not bound there are read from the
//! script's globals.

use std::rc::Rc;
use std::sync::Arc;

use crate::core::tensor::ScriptError;
use crate::interp::python::statements::Flow;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::FunctionDef;

/// How deep calls may nest before `RecursionError` (Python's default limit is 1000; a
/// notebook's helper functions need far fewer). Each level costs about 6 KB of native stack
/// (measured: 199 levels overflow a 1 MB stack), so 100 levels fit the web build's 4 MB
/// stack (`.cargo/config.toml`) with room for the expressions inside them.
const MAX_CALL_DEPTH: usize = 100;

/// A `def`'s function object: its definition and its defaults' values.
#[derive(Debug)]
pub struct ScriptFunction {
    pub def: Arc<FunctionDef>,
    /// `__qualname__`: `f`, `Net.forward`, `f.<locals>.g` (Python's `TypeError`s name it).
    pub qualname: String,
    /// The class whose body defined it (what a zero-argument `super()` inside it uses),
    /// set once the class exists.
    pub owner: std::cell::RefCell<std::rc::Weak<crate::interp::value::ClassObject>>,
    /// One per parameter: its default's value, evaluated when the `def` ran.
    pub defaults: Vec<Option<Value>>,
    /// One per keyword-only parameter: its default's value.
    pub kwonly_defaults: Vec<Option<Value>>,
    /// For a function defined inside another one: the enclosing call's locals when the
    /// `def` ran (what its free names read; a snapshot, where CPython shares cells).
    pub closure: Vec<(String, Value)>,
}

/// A body running now: a function's call or a class's body (what qualified names and a
/// zero-argument `super()` are made from).
pub(crate) enum Body {
    Function(Rc<ScriptFunction>),
    /// A class body, by the class's qualified name.
    Class(String),
}

impl Evaluator {
    /// Runs a `def`: evaluates the decorators and the defaults, and binds the function (as
    /// its decorators returned it) to its name.
    pub(crate) fn define_function(&mut self, def: &Arc<FunctionDef>) -> R<Flow> {
        let decorators = self.eval_all(&def.decorators)?;
        let mut function = self.make_function(def)?;
        for decorator in decorators.into_iter().rev() {
            function = self.call(decorator, vec![function], vec![])?;
        }
        self.scope.bind(&def.name, function);
        Ok(Flow::Next(None))
    }

    /// The qualified name of `name` defined in the running body (`Net.forward`,
    /// `f.<locals>.g`).
    pub(crate) fn qualify(&self, name: &str) -> String {
        match self.bodies.last() {
            Some(Body::Function(f)) => format!("{}.<locals>.{name}", f.qualname),
            Some(Body::Class(class)) => format!("{class}.{name}"),
            None => name.to_string(),
        }
    }

    /// The function object of a `def` or `lambda`, its defaults evaluated now.
    pub(crate) fn make_function(&mut self, def: &Arc<FunctionDef>) -> R<Value> {
        let mut defaults = Vec::with_capacity(def.params.len());
        for (_, default) in &def.params {
            defaults.push(match default {
                Some(expr) => Some(self.eval(expr)?),
                None => None,
            });
        }
        let mut kwonly_defaults = Vec::with_capacity(def.kwonly.len());
        for (_, default) in &def.kwonly {
            kwonly_defaults.push(match default {
                Some(expr) => Some(self.eval(expr)?),
                None => None,
            });
        }
        let function = ScriptFunction {
            def: Arc::clone(def),
            qualname: self.qualify(&def.name),
            owner: std::cell::RefCell::new(std::rc::Weak::new()),
            defaults,
            kwonly_defaults,
            closure: match self.bodies.last() {
                Some(Body::Function(_)) => self.scope.frame_locals(),
                _ => Vec::new(),
            },
        };
        Ok(Value::Function(Rc::new(function)))
    }

    /// Calls a script function.
    pub(crate) fn call_function(
        &mut self,
        function: &Rc<ScriptFunction>,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let mut locals = bind_arguments(function, pos, kw)?;
        for (name, value) in &function.closure {
            if !locals.iter().any(|(n, _)| n == name) {
                locals.push((name.clone(), value.clone()));
            }
        }
        self.check_depth()?;
        self.scope.push_frame(locals);
        self.bodies.push(Body::Function(Rc::clone(function)));
        self.gc_floors.push(self.memory.births());
        let result = self.exec_block(&function.def.body);
        self.gc_floors.pop();
        self.bodies.pop();
        self.scope.pop_frame();
        match result? {
            Flow::Return(value) => Ok(value),
            _ => Ok(Value::None),
        }
    }
}

impl Evaluator {
    /// Refuses to run one more body past [`MAX_CALL_DEPTH`], with Python's `RecursionError`.
    pub(crate) fn check_depth(&self) -> R<()> {
        if self.scope.depth() >= MAX_CALL_DEPTH {
            return Err(ScriptError::Other {
                class: "RecursionError".into(),
                message: "maximum recursion depth exceeded".into(),
            });
        }
        Ok(())
    }
}

/// The call's arguments bound to the function's parameters, as Python binds them:
/// positional parameters, then `*args` (a tuple of the rest), keyword-only parameters and
/// `**kwargs` (a dict of the unknown keywords).
fn bind_arguments(
    function: &ScriptFunction,
    mut pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Vec<(String, Value)>> {
    let def = &function.def;
    let name = &function.qualname;
    let count = def.params.len();
    let varargs = def.star.as_deref().filter(|s| !s.is_empty());
    let extra: Vec<Value> = if pos.len() > count {
        if varargs.is_none() {
            let required = function.defaults.iter().filter(|d| d.is_none()).count();
            let takes = if required == count {
                format!("{count} positional argument{}", plural(count))
            } else {
                format!("from {required} to {count} positional arguments")
            };
            let given = pos.len();
            let kwonly_given = kw
                .iter()
                .filter(|(k, _)| def.kwonly.iter().any(|(p, _)| p == k))
                .count();
            let and_kwonly = if kwonly_given > 0 {
                format!(
                    " positional argument{} (and {kwonly_given} keyword-only argument{})",
                    plural(given),
                    plural(kwonly_given)
                )
            } else {
                String::new()
            };
            let verb = if given == 1 && kwonly_given == 0 {
                "was"
            } else {
                "were"
            };
            return Err(ScriptError::Type(if and_kwonly.is_empty() {
                format!("{name}() takes {takes} but {given} {verb} given")
            } else {
                format!("{name}() takes {takes} but {given}{and_kwonly} were given")
            }));
        }
        pos.split_off(count)
    } else {
        Vec::new()
    };
    let mut values: Vec<Option<Value>> = pos.into_iter().map(Some).collect();
    values.resize(count, None);
    let mut kwonly: Vec<Option<Value>> = vec![None; def.kwonly.len()];
    let mut rest: Vec<(Value, Value)> = Vec::new();
    for (key, value) in kw {
        if let Some(i) = def.params.iter().position(|(p, _)| *p == key) {
            if values[i].is_some() {
                return Err(ScriptError::Type(format!(
                    "{name}() got multiple values for argument '{key}'"
                )));
            }
            values[i] = Some(value);
        } else if let Some(i) = def.kwonly.iter().position(|(p, _)| *p == key) {
            kwonly[i] = Some(value);
        } else if def.double_star.is_some() {
            rest.push((Value::Str(key), value));
        } else {
            return Err(ScriptError::Type(format!(
                "{name}() got an unexpected keyword argument '{key}'"
            )));
        }
    }
    let mut missing = Vec::new();
    for (i, slot) in values.iter_mut().enumerate() {
        if slot.is_none() {
            match &function.defaults[i] {
                Some(default) => *slot = Some(default.clone()),
                None => missing.push(format!("'{}'", def.params[i].0)),
            }
        }
    }
    if !missing.is_empty() {
        return Err(ScriptError::Type(format!(
            "{name}() missing {} required positional argument{}: {}",
            missing.len(),
            plural(missing.len()),
            english_list(&missing)
        )));
    }
    let mut missing_kwonly = Vec::new();
    for (i, slot) in kwonly.iter_mut().enumerate() {
        if slot.is_none() {
            match function.kwonly_defaults.get(i).cloned().flatten() {
                Some(default) => *slot = Some(default),
                None => missing_kwonly.push(format!("'{}'", def.kwonly[i].0)),
            }
        }
    }
    if !missing_kwonly.is_empty() {
        return Err(ScriptError::Type(format!(
            "{name}() missing {} required keyword-only argument{}: {}",
            missing_kwonly.len(),
            plural(missing_kwonly.len()),
            english_list(&missing_kwonly)
        )));
    }
    let mut bound: Vec<(String, Value)> = def
        .params
        .iter()
        .zip(values)
        .map(|((p, _), v)| (p.clone(), v.unwrap_or(Value::None)))
        .collect();
    if let Some(star) = varargs {
        bound.push((star.to_string(), Value::Tuple(extra)));
    }
    bound.extend(
        def.kwonly
            .iter()
            .zip(kwonly)
            .map(|((p, _), v)| (p.clone(), v.unwrap_or(Value::None))),
    );
    if let Some(double_star) = &def.double_star {
        bound.push((double_star.clone(), Value::Dict(rest)));
    }
    Ok(bound)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'` (Python's wording for missing arguments).
fn english_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
    }
}
