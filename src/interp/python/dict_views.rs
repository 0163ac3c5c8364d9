//! The views `d.keys()`, `d.values()` and `d.items()` return: `dict_keys(['a', 'b'])`
//! (`odict_keys` and the others for an `OrderedDict`, what `state_dict()` returns), which
//! iterate, have a length, answer `in`, and refuse indexing (`'dict_keys' object is not
//! subscriptable`). A view is an instance of a built-in class holding its items; a dict
//! being a value here, the view is a snapshot of the dict when it was asked for.

use std::cell::RefCell;
use std::rc::Rc;

use crate::interp::python::operators::values_equal;
use crate::interp::torch::nn::module::ModuleDef;
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// Where a view keeps its items (a name no script can write).
const ITEMS: &str = "\0items";

/// A view class's table entry.
const fn view(name: &'static str) -> ModuleDef {
    ModuleDef {
        name,
        path: "builtins",
        base: None,
        init: None,
        forward: None,
        extra_repr: None,
        methods: &[
            ("__repr__", |ev, o, _, _| view_repr(ev, o).map(Value::Str)),
            ("__iter__", |ev, o, _, _| {
                ev.call_builtin("iter", vec![Value::List(items(o))], vec![])
            }),
            ("__len__", |_, o, _, _| {
                Ok(Value::Int(items(o).len() as i64))
            }),
            ("__contains__", |_, o, pos, _| {
                let found = pos
                    .first()
                    .is_some_and(|x| items(o).iter().any(|i| values_equal(i, x)));
                Ok(Value::Bool(found))
            }),
        ],
        class_methods: &[],
    }
}

/// The view classes.
pub(crate) static CLASSES: &[ModuleDef] = &[
    view("dict_keys"),
    view("dict_values"),
    view("dict_items"),
    view("odict_keys"),
    view("odict_values"),
    view("odict_items"),
];

/// A view's items.
fn items(o: &Rc<Instance>) -> Vec<Value> {
    o.attrs
        .borrow()
        .iter()
        .find(|(n, _)| n == ITEMS)
        .map_or_else(Vec::new, |(_, v)| match v {
            Value::List(items) => items.clone(),
            _ => Vec::new(),
        })
}

/// `dict_keys(['a', 'b'])`.
fn view_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let mut parts = Vec::new();
    for item in items(o) {
        parts.push(ev.repr(&item)?);
    }
    Ok(format!("{}([{}])", o.class.name, parts.join(", ")))
}

impl Evaluator {
    /// A view of `kind` (`keys`, `values` or `items`) of a dict's entries (an
    /// `OrderedDict`'s when `ordered`).
    pub(crate) fn dict_view(
        &mut self,
        entries: Vec<(Value, Value)>,
        kind: &str,
        ordered: bool,
    ) -> Value {
        let items: Vec<Value> = match kind {
            "keys" => entries.into_iter().map(|(k, _)| k).collect(),
            "values" => entries.into_iter().map(|(_, v)| v).collect(),
            _ => entries
                .into_iter()
                .map(|(k, v)| Value::Tuple(vec![k, v]))
                .collect(),
        };
        let name = format!("{}dict_{kind}", if ordered { "o" } else { "" });
        let Some(class) = self.nn_class(&name) else {
            return Value::List(items);
        };
        Value::Instance(Rc::new(Instance {
            class,
            attrs: RefCell::new(vec![(ITEMS.to_string(), Value::List(items))]),
            module: RefCell::new(None),
        }))
    }

    /// `d.name(...)` on a dict (an `OrderedDict` when `ordered`): its views, or the other
    /// methods' results.
    pub(crate) fn call_dict_method_of(
        &mut self,
        entries: Vec<(Value, Value)>,
        ordered: bool,
        name: &str,
        pos: &[Value],
    ) -> R<Value> {
        if matches!(name, "keys" | "values" | "items") && pos.is_empty() {
            return Ok(self.dict_view(entries, name, ordered));
        }
        self.call_dict_method(entries, name, pos).map(|(v, _)| v)
    }
}

impl Evaluator {
    /// `del container[index]`: a dict's key (the changed dict stored back where it was read
    /// from, as `d[k] = v` does), a list's item, or an instance's `__delitem__`.
    pub(crate) fn delete_item(
        &mut self,
        object_expr: &crate::lang::ast::Expr,
        object: Value,
        index: Value,
    ) -> R<()> {
        use crate::core::tensor::ScriptError;
        use crate::interp::python::dict::{check_key, find};
        let object_kind = match &object {
            Value::OrderedDict(_) => Some(true),
            Value::Dict(_) => Some(false),
            _ => None,
        };
        match object {
            Value::Dict(mut entries) | Value::OrderedDict(mut entries) => {
                let ordered = matches!(object_kind, Some(true));
                check_key(&index)?;
                let Some(at) = find(&entries, &index) else {
                    return Err(ScriptError::Key(self.repr(&index)?));
                };
                entries.remove(at);
                let changed = if ordered {
                    Value::OrderedDict(entries)
                } else {
                    Value::Dict(entries)
                };
                self.store_back(object_expr, changed)
            }
            Value::List(mut items) => {
                let Value::Int(i) = index else {
                    return Err(ScriptError::Type(format!(
                        "list indices must be integers or slices, not {}",
                        index.type_name()
                    )));
                };
                let n = items.len() as i64;
                let at = if i < 0 { i + n } else { i };
                if at < 0 || at >= n {
                    return Err(ScriptError::Index(
                        "list assignment index out of range".into(),
                    ));
                }
                items.remove(at as usize);
                self.store_back(object_expr, Value::List(items))
            }
            Value::Instance(o) => match self.call_special(&o, "__delitem__", vec![index]) {
                Some(result) => result.map(|_| ()),
                None => Err(ScriptError::Type(format!(
                    "'{}' object doesn't support item deletion",
                    o.class.name
                ))),
            },
            other => Err(ScriptError::Type(format!(
                "'{}' object doesn't support item deletion",
                other.type_name()
            ))),
        }
    }
}
