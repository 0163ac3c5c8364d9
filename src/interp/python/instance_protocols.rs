//! The protocols the builtins ask of a script class's instance: `len()` (`__len__`),
//! indexing (`__getitem__`, `__setitem__`), iteration (`__iter__`/`__next__`, else
//! `__getitem__`), `in` (`__contains__`), truthiness (`__bool__`, `__len__`) and the
//! operators (`__add__` and their reflected forms).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::python::classes::has_method;
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// The operators an instance may define, with the method and its reflected form.
const OPERATOR_METHODS: [(BinOp, &str, Option<&str>); 13] = [
    (BinOp::Add, "__add__", Some("__radd__")),
    (BinOp::Sub, "__sub__", Some("__rsub__")),
    (BinOp::Mul, "__mul__", Some("__rmul__")),
    (BinOp::Div, "__truediv__", Some("__rtruediv__")),
    (BinOp::FloorDiv, "__floordiv__", Some("__rfloordiv__")),
    (BinOp::Mod, "__mod__", Some("__rmod__")),
    (BinOp::Pow, "__pow__", Some("__rpow__")),
    (BinOp::MatMul, "__matmul__", Some("__rmatmul__")),
    (BinOp::Eq, "__eq__", Some("__eq__")),
    (BinOp::Ne, "__ne__", Some("__ne__")),
    (BinOp::Lt, "__lt__", Some("__gt__")),
    (BinOp::Gt, "__gt__", Some("__lt__")),
    (BinOp::Le, "__le__", Some("__ge__")),
];

impl Evaluator {
    /// `len(obj)`: its `__len__`, a non-negative int.
    pub(crate) fn instance_len(&mut self, object: &Rc<Instance>) -> R<Value> {
        let Some(result) = self.call_special(object, "__len__", vec![]) else {
            return Err(ScriptError::Type(format!(
                "object of type '{}' has no len()",
                object.class.name
            )));
        };
        match result? {
            Value::Int(n) if n < 0 => {
                Err(ScriptError::Value("__len__() should return >= 0".into()))
            }
            Value::Int(n) => Ok(Value::Int(n)),
            Value::Bool(b) => Ok(Value::Int(i64::from(b))),
            other => Err(ScriptError::Type(format!(
                "'{}' object cannot be interpreted as an integer",
                other.type_name()
            ))),
        }
    }

    /// `obj[index]`: its `__getitem__`.
    pub(crate) fn instance_get_item(&mut self, object: &Rc<Instance>, index: &Value) -> R<Value> {
        self.call_special(object, "__getitem__", vec![index.clone()])
            .unwrap_or_else(|| {
                Err(ScriptError::Type(format!(
                    "'{}' object is not subscriptable",
                    object.class.name
                )))
            })
    }

    /// `obj[index] = value`: its `__setitem__`.
    pub(crate) fn instance_set_item(
        &mut self,
        object: &Rc<Instance>,
        index: Value,
        value: Value,
    ) -> R<()> {
        self.call_special(object, "__setitem__", vec![index, value])
            .unwrap_or_else(|| {
                Err(ScriptError::Type(format!(
                    "'{}' object does not support item assignment",
                    object.class.name
                )))
            })
            .map(|_| ())
    }

    /// `next(it)` of an iterator object, counted as a step: `None` at `StopIteration`.
    pub(crate) fn next_item(&mut self, it: &Rc<Instance>) -> R<Option<Value>> {
        self.count_step()?;
        match self.call_special(it, "__next__", vec![]) {
            None => Err(ScriptError::Type(format!(
                "iter() returned non-iterator of type '{}'",
                it.class.name
            ))),
            Some(Ok(item)) => Ok(Some(item)),
            Some(Err(e)) if e.class_name() == "StopIteration" => Ok(None),
            Some(Err(e)) => Err(e),
        }
    }

    /// Iterating an instance: its `__iter__` (an object with `__next__`, run until
    /// `StopIteration`), else `__getitem__` with 0, 1, 2, ... until `IndexError`.
    pub(crate) fn iterate_instance(&mut self, object: &Rc<Instance>) -> R<Vec<Value>> {
        let mut out = Vec::new();
        if let Some(iterator) = self.call_special(object, "__iter__", vec![]) {
            let iterator = iterator?;
            let Value::Instance(it) = &iterator else {
                return match iterator {
                    Value::List(_) | Value::Tuple(_) | Value::Range(..) => self.iterate(&iterator),
                    other => Err(ScriptError::Type(format!(
                        "iter() returned non-iterator of type '{}'",
                        other.type_name()
                    ))),
                };
            };
            while let Some(item) = self.next_item(it)? {
                out.push(item);
            }
            return Ok(out);
        }
        if !has_method(&object.class, "__getitem__") {
            return Err(ScriptError::Type(format!(
                "'{}' object is not iterable",
                object.class.name
            )));
        }
        for i in 0.. {
            self.count_step()?;
            match self.instance_get_item(object, &Value::Int(i)) {
                Ok(item) => out.push(item),
                Err(ScriptError::Index(_)) => break,
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// `item in obj`: its `__contains__`, else whether iterating it finds an equal item.
    pub(crate) fn instance_contains(&mut self, object: &Rc<Instance>, item: &Value) -> R<bool> {
        if let Some(found) = self.call_special(object, "__contains__", vec![item.clone()]) {
            let found = found?;
            return self.truthy(&found);
        }
        let has_iteration =
            has_method(&object.class, "__iter__") || has_method(&object.class, "__getitem__");
        if !has_iteration {
            return Err(ScriptError::Type(format!(
                "argument of type '{}' is not iterable",
                object.class.name
            )));
        }
        for candidate in self.iterate_instance(object)? {
            let equal = self.binary(BinOp::Eq, candidate, item.clone())?;
            if self.truthy(&equal)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `bool(obj)`: its `__bool__`, else `__len__() != 0`, else true.
    pub(crate) fn instance_truthy(&mut self, object: &Rc<Instance>) -> R<bool> {
        if let Some(result) = self.call_special(object, "__bool__", vec![]) {
            return match result? {
                Value::Bool(b) => Ok(b),
                other => Err(ScriptError::Type(format!(
                    "__bool__ should return bool, returned {}",
                    other.type_name()
                ))),
            };
        }
        if has_method(&object.class, "__len__") {
            let n = self.instance_len(object)?;
            return Ok(!matches!(n, Value::Int(0)));
        }
        Ok(true)
    }

    /// `a op b` where an operand is an instance whose class defines the operator
    /// (`__add__`, then the other's `__radd__`); `None` when neither does.
    pub(crate) fn instance_binary(&mut self, op: BinOp, a: &Value, b: &Value) -> Option<R<Value>> {
        let (_, method, reflected) = OPERATOR_METHODS.iter().find(|(o, ..)| *o == op)?;
        if let Value::Instance(object) = a {
            if let Some(result) = self.call_special(object, method, vec![b.clone()]) {
                return Some(result);
            }
        }
        if let (Value::Instance(object), Some(reflected)) = (b, reflected) {
            if let Some(result) = self.call_special(object, reflected, vec![a.clone()]) {
                return Some(result);
            }
        }
        // `!=` without `__ne__` is the negation of `==` (object's default `__ne__`).
        if op == BinOp::Ne {
            let equal = self.instance_binary(BinOp::Eq, a, b)?;
            return Some(equal.and_then(|v| Ok(Value::Bool(!self.truthy(&v)?))));
        }
        None
    }
}
