//! Python's `dict` as notebooks use it (`info = {"shape": x.shape, "stride": x.stride()}`,
//! `for k, v in info.items()`, `{d: x.size(d) for d in range(x.dim())}`): an insertion-ordered
//! list of entries, looked up by Python's `==`. Like lists, dicts are values here: a change
//! (`d[k] = v`, `d.update(...)`) is stored back where the dict was read from.

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// A dict's entries, in insertion order.
pub(crate) type Entries = Vec<(Value, Value)>;

/// The `dict` methods supported here.
pub(crate) const DICT_METHODS: &[&str] = &[
    "keys",
    "values",
    "items",
    "get",
    "pop",
    "update",
    "setdefault",
    "clear",
    "copy",
];

/// Whether `dict` methods named so change the dict.
pub(crate) fn changes_dict(name: &str) -> bool {
    matches!(name, "pop" | "update" | "setdefault" | "clear")
}

/// The index of `key` among `entries`.
pub(crate) fn find(entries: &[(Value, Value)], key: &Value) -> Option<usize> {
    entries
        .iter()
        .position(|(k, _)| crate::interp::python::operators::values_equal(k, key))
}

/// Refuses keys Python cannot hash.
pub(crate) fn check_key(key: &Value) -> R<()> {
    match key {
        Value::List(_) | Value::Dict(_) => Err(ScriptError::Type(format!(
            "unhashable type: '{}'",
            key.type_name()
        ))),
        Value::Tuple(items) => items.iter().try_for_each(check_key),
        _ => Ok(()),
    }
}

/// Sets `key` to `value` (in place of an equal key, else at the end).
pub(crate) fn insert(entries: &mut Vec<(Value, Value)>, key: Value, value: Value) -> R<()> {
    check_key(&key)?;
    match find(entries, &key) {
        Some(i) => entries[i].1 = value,
        None => entries.push((key, value)),
    }
    Ok(())
}

impl Evaluator {
    /// `d[key]`.
    pub(crate) fn dict_get_item(&mut self, entries: &[(Value, Value)], key: &Value) -> R<Value> {
        check_key(key)?;
        match find(entries, key) {
            Some(i) => Ok(entries[i].1.clone()),
            None => Err(ScriptError::Key(self.repr(key)?)),
        }
    }

    /// `d.name(...)`: the result, and the changed entries when the method changes the dict.
    pub(crate) fn call_dict_method(
        &mut self,
        mut entries: Vec<(Value, Value)>,
        name: &str,
        pos: &[Value],
    ) -> R<(Value, Option<Entries>)> {
        Ok(match name {
            "keys" => (
                Value::List(entries.into_iter().map(|(k, _)| k).collect()),
                None,
            ),
            "values" => (
                Value::List(entries.into_iter().map(|(_, v)| v).collect()),
                None,
            ),
            "items" => (
                Value::List(
                    entries
                        .into_iter()
                        .map(|(k, v)| Value::Tuple(vec![k, v]))
                        .collect(),
                ),
                None,
            ),
            "copy" => (Value::Dict(entries), None),
            "clear" => (Value::None, Some(Vec::new())),
            "get" | "pop" | "setdefault" => {
                let Some(key) = pos.first() else {
                    return Err(ScriptError::Type(format!(
                        "{name} expected at least 1 argument, got 0"
                    )));
                };
                check_key(key)?;
                let found = find(&entries, key);
                match (name, found) {
                    ("get", Some(i)) => (entries[i].1.clone(), None),
                    ("get", None) => (pos.get(1).cloned().unwrap_or(Value::None), None),
                    ("pop", Some(i)) => {
                        let (_, v) = entries.remove(i);
                        (v, Some(entries))
                    }
                    ("pop", None) => match pos.get(1) {
                        Some(default) => (default.clone(), None),
                        None => return Err(ScriptError::Key(self.repr(key)?)),
                    },
                    (_, Some(i)) => (entries[i].1.clone(), None),
                    (_, None) => {
                        let v = pos.get(1).cloned().unwrap_or(Value::None);
                        entries.push((key.clone(), v.clone()));
                        (v, Some(entries))
                    }
                }
            }
            "update" => {
                if let Some(other) = pos.first() {
                    for (k, v) in self.dict_pairs(other)? {
                        insert(&mut entries, k, v)?;
                    }
                }
                (Value::None, Some(entries))
            }
            _ => {
                return Err(ScriptError::Attribute(format!(
                    "'dict' object has no attribute '{name}'"
                )))
            }
        })
    }

    /// The (key, value) pairs of a dict, or of an iterable of pairs (`dict(zip(a, b))`).
    pub(crate) fn dict_pairs(&mut self, source: &Value) -> R<Vec<(Value, Value)>> {
        if let Value::Dict(entries) | Value::OrderedDict(entries) = source {
            return Ok(entries.clone());
        }
        let mut pairs = Vec::new();
        for (i, item) in self.iterate(source)?.into_iter().enumerate() {
            let pair = self.iterate(&item).map_err(|_| {
                ScriptError::Type(format!(
                    "cannot convert dictionary update sequence element #{i} to a sequence"
                ))
            })?;
            let [k, v] = <[Value; 2]>::try_from(pair).map_err(|p: Vec<Value>| {
                ScriptError::Value(format!(
                    "dictionary update sequence element #{i} has length {}; 2 is required",
                    p.len()
                ))
            })?;
            pairs.push((k, v));
        }
        Ok(pairs)
    }

    /// `dict(...)`: from a mapping or pairs, then keyword arguments.
    pub(crate) fn make_dict(&mut self, pos: &[Value], kw: &[(String, Value)]) -> R<Value> {
        let mut entries = Vec::new();
        match pos {
            [] => {}
            [source] => {
                for (k, v) in self.dict_pairs(source)? {
                    insert(&mut entries, k, v)?;
                }
            }
            more => {
                return Err(ScriptError::Type(format!(
                    "dict expected at most 1 argument, got {}",
                    more.len()
                )))
            }
        }
        for (k, v) in kw {
            insert(&mut entries, Value::Str(k.clone()), v.clone())?;
        }
        Ok(Value::Dict(entries))
    }

    /// `{k!r: v!r, ...}`.
    pub(crate) fn dict_repr(&mut self, entries: &[(Value, Value)]) -> R<String> {
        let mut parts = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            parts.push(format!("{}: {}", self.repr(k)?, self.repr(v)?));
        }
        Ok(format!("{{{}}}", parts.join(", ")))
    }
}
