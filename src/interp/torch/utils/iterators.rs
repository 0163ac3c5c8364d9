//! Python's `iter()` and `next()`, as a notebook calls them on a loader
//! (`next(iter(loader))`): `iter(obj)` asks an instance for its `__iter__` (a `DataLoader`
//! gives its iterator) and makes a `list_iterator` over any other iterable's items;
//! `next(it[, default])` calls `__next__`, whose `StopIteration` ends the iteration (or gives
//! the default).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::ModuleDef;
use crate::interp::torch::optim::{attr, set_attr};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// The iterator `iter()` makes over a list, tuple, range, string or dict: its items, taken
/// when it was made, and how many `next()` has given.
pub(crate) static CLASSES: &[ModuleDef] = &[ModuleDef {
    name: "list_iterator",
    path: "builtins",
    base: None,
    init: None,
    forward: None,
    extra_repr: None,
    methods: &[
        ("__iter__", |_, o, _, _| Ok(Value::Instance(Rc::clone(o)))),
        ("__next__", |_, o, _, _| {
            let Value::Int(at) = attr(o, "_at") else {
                return Err(stop_iteration());
            };
            let item = match attr(o, "_items") {
                Value::List(items) => items.get(at as usize).cloned(),
                _ => None,
            };
            match item {
                Some(item) => {
                    set_attr(o, "_at", Value::Int(at + 1));
                    Ok(item)
                }
                None => Err(stop_iteration()),
            }
        }),
        ("__length_hint__", |_, o, _, _| {
            let (Value::Int(at), Value::List(items)) = (attr(o, "_at"), attr(o, "_items")) else {
                return Ok(Value::Int(0));
            };
            Ok(Value::Int((items.len() as i64 - at).max(0)))
        }),
    ],
    class_methods: &[],
}];

/// Python's `StopIteration` with no message.
pub(crate) fn stop_iteration() -> ScriptError {
    ScriptError::Other {
        class: "StopIteration".into(),
        message: String::new(),
    }
}

impl Evaluator {
    /// The builtins `iter(obj)` and `next(it[, default])`.
    pub(crate) fn call_iter_builtin(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        if !kw.is_empty() {
            return Err(ScriptError::Type(format!(
                "{name}() takes no keyword arguments"
            )));
        }
        match name {
            "iter" => match pos.as_slice() {
                [object] => self.iter_of(object),
                _ => Err(ScriptError::Type(format!(
                    "iter expected 1 argument, got {}",
                    pos.len()
                ))),
            },
            _ => match pos.as_slice() {
                [it] => self.next_of(it),
                [it, default] => match self.next_of(it) {
                    Err(e) if e.class_name() == "StopIteration" => Ok(default.clone()),
                    other => other,
                },
                _ => Err(ScriptError::Type(format!(
                    "next expected at least 1 argument, got {}",
                    pos.len()
                ))),
            },
        }
    }

    /// `iter(obj)`.
    fn iter_of(&mut self, object: &Value) -> R<Value> {
        if let Value::Instance(o) = object {
            if let Some(result) = self.call_special(o, "__iter__", vec![]) {
                let it = result?;
                let is_iterator =
                    matches!(&it, Value::Instance(i) if self.has_special(i, "__next__"));
                if !is_iterator {
                    return Err(ScriptError::Type(format!(
                        "iter() returned non-iterator of type '{}'",
                        it.type_name()
                    )));
                }
                return Ok(it);
            }
            if !self.has_special(o, "__getitem__") {
                return Err(ScriptError::Type(format!(
                    "'{}' object is not iterable",
                    o.class.name
                )));
            }
        }
        let items = match object {
            Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::None => {
                return Err(ScriptError::Type(format!(
                    "'{}' object is not iterable",
                    object.type_name()
                )))
            }
            other => self.iterate(other)?,
        };
        let class = self
            .nn_class("list_iterator")
            .ok_or_else(|| ScriptError::Runtime("list_iterator is missing".into()))?;
        let it = Rc::new(Instance {
            class,
            attrs: std::cell::RefCell::new(vec![
                ("_items".into(), Value::List(items)),
                ("_at".into(), Value::Int(0)),
            ]),
            module: std::cell::RefCell::new(None),
        });
        Ok(Value::Instance(it))
    }

    /// `next(it)`: its `__next__`.
    fn next_of(&mut self, it: &Value) -> R<Value> {
        let Value::Instance(o) = it else {
            return Err(ScriptError::Type(format!(
                "'{}' object is not an iterator",
                it.type_name()
            )));
        };
        self.call_special(o, "__next__", vec![]).unwrap_or_else(|| {
            Err(ScriptError::Type(format!(
                "'{}' object is not an iterator",
                o.class.name
            )))
        })
    }
}
