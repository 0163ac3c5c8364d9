//! The standard-library modules a notebook imports at its top beside `torch`: `os`, `sys`,
//! `warnings`, `random`, `time`, `copy`, `gc`, `itertools`, `functools`.
//!
//! What has no meaning in a trace does nothing: `gc.collect()` returns 0 (nothing is ever
//! unreachable-but-alive here: storages are freed after every statement), `os.environ`
//! starts empty (the trace cannot see a machine's environment), `time.time()` and
//! `time.perf_counter()` read a clock that advances one microsecond a call (and `time.sleep`'s
//! seconds) so that a trace is the same every run. `warnings.filterwarnings` and
//! `warnings.simplefilter` are remembered: an `"ignore"` filter drops the warnings it matches
//! from the steps after it.

mod copy;
mod dir;
pub(crate) mod random;

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The modules of this file (what `import` accepts besides torch, numpy, math...).
pub(crate) const MODULES: &[&str] = &[
    "os",
    "sys",
    "warnings",
    "random",
    "time",
    "copy",
    "gc",
    "itertools",
    "functools",
];

/// Whether `import name` (a top-level module) is one of these.
pub(crate) fn is_module(name: &str) -> bool {
    MODULES.contains(&name)
}

/// The functions each module exports here.
const FUNCTIONS: &[(&str, &[&str])] = &[
    ("os", &["getenv", "cpu_count", "getcwd"]),
    (
        "os.path",
        &[
            "join", "basename", "dirname", "splitext", "exists", "isfile", "isdir",
        ],
    ),
    ("sys", &["getsizeof"]),
    (
        "warnings",
        &["filterwarnings", "simplefilter", "warn", "resetwarnings"],
    ),
    ("random", random::FUNCTIONS),
    (
        "time",
        &["time", "perf_counter", "monotonic", "process_time", "sleep"],
    ),
    ("copy", &["copy", "deepcopy"]),
    ("gc", &["collect", "enable", "disable", "isenabled"]),
    (
        "itertools",
        &[
            "product",
            "chain",
            "combinations",
            "permutations",
            "accumulate",
        ],
    ),
    ("functools", &["reduce"]),
];

/// The module-settings key of `os.environ`.
const ENVIRON_KEY: &str = "os.environ";
/// The module-settings key of the clock `time` reads.
const CLOCK_KEY: &str = "time.clock";
/// The module-settings key of the warning filters (`(action, category)` tuples).
const FILTERS_KEY: &str = "warnings.filters";
/// Where the clock of `time.time()` starts: 2026-01-01T00:00:00Z.
const EPOCH_START: f64 = 1_767_225_600.0;

/// The warning categories a filter may name.
const CATEGORIES: &[&str] = &[
    "Warning",
    "UserWarning",
    "DeprecationWarning",
    "FutureWarning",
    "RuntimeWarning",
    "SyntaxWarning",
    "PendingDeprecationWarning",
    "ImportWarning",
    "ResourceWarning",
];

impl Evaluator {
    fn setting(&self, key: &str) -> Option<&Value> {
        self.torch
            .module_settings
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    fn set_setting(&mut self, key: &str, value: Value) {
        match self
            .torch
            .module_settings
            .iter_mut()
            .find(|(k, _)| k == key)
        {
            Some(slot) => slot.1 = value,
            None => self.torch.module_settings.push((key.into(), value)),
        }
    }

    /// `module.name` for these modules; `None` for another module.
    pub(crate) fn stdlib_attribute(&mut self, module: &str, name: &str) -> Option<R<Value>> {
        let functions = FUNCTIONS.iter().find(|(m, _)| *m == module)?.1;
        let value = match (module, name) {
            ("os", "path") => Value::Module("os.path".into()),
            ("os", "environ") => self
                .setting(ENVIRON_KEY)
                .cloned()
                .unwrap_or(Value::Dict(Vec::new())),
            ("os", "sep") | ("os.path", "sep") => Value::Str("/".into()),
            ("os", "name") => Value::Str("posix".into()),
            ("sys", "version_info") => Value::Tuple(vec![
                Value::Int(3),
                Value::Int(11),
                Value::Int(7),
                Value::Str("final".into()),
                Value::Int(0),
            ]),
            ("sys", "maxsize") => Value::Int(i64::MAX),
            ("sys", "platform") => Value::Str("linux".into()),
            ("sys", "argv") => Value::List(vec![Value::Str(String::new())]),
            (_, n) if functions.contains(&n) => {
                Value::Method(Box::new(Value::Module(module.into())), name.into())
            }
            _ => {
                return Some(Err(ScriptError::Attribute(format!(
                    "module '{module}' has no attribute '{name}'"
                ))))
            }
        };
        Some(Ok(value))
    }

    /// `module.name = value` for these modules (`os.environ[k] = v` stores the dict back).
    /// False for another module.
    pub(crate) fn set_stdlib_attribute(&mut self, module: &str, name: &str, value: Value) -> bool {
        if (module, name) == ("os", "environ") {
            self.set_setting(ENVIRON_KEY, value);
            return true;
        }
        false
    }

    /// `module.name(...)` for these modules; `None` for another module.
    pub(crate) fn call_stdlib(
        &mut self,
        module: &str,
        name: &str,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> Option<R<Value>> {
        FUNCTIONS.iter().find(|(m, _)| *m == module)?;
        Some(match module {
            "random" => self.call_random(name, pos),
            "copy" => self.call_copy(name, pos),
            "itertools" => self.call_itertools(name, pos, kw),
            "warnings" => self.call_warnings(name, pos, kw),
            _ => self.call_small(module, name, pos),
        })
    }

    /// `os`, `os.path`, `sys`, `time`, `gc`, `functools`.
    fn call_small(&mut self, module: &str, name: &str, pos: &[Value]) -> R<Value> {
        let strs = |pos: &[Value]| -> R<Vec<String>> {
            pos.iter()
                .map(|v| match v {
                    Value::Str(s) => Ok(s.clone()),
                    other => Err(ScriptError::Type(format!(
                        "expected str, bytes or os.PathLike object, not {}",
                        other.type_name()
                    ))),
                })
                .collect()
        };
        Ok(match (module, name) {
            ("os", "getenv") => {
                let key = pos.first().cloned().unwrap_or(Value::None);
                let environ = self.setting(ENVIRON_KEY).cloned();
                let found = match environ {
                    Some(Value::Dict(entries)) => entries
                        .into_iter()
                        .find(|(k, _)| crate::interp::python::operators::values_equal(k, &key))
                        .map(|(_, v)| v),
                    _ => None,
                };
                found.unwrap_or_else(|| pos.get(1).cloned().unwrap_or(Value::None))
            }
            ("os", "cpu_count") => Value::Int(1),
            ("os", "getcwd") => Value::Str("/".into()),
            ("os.path", "join") => {
                let parts = strs(pos)?;
                let mut out = String::new();
                for part in parts {
                    if part.starts_with('/') {
                        out = part;
                    } else if out.is_empty() || out.ends_with('/') {
                        out.push_str(&part);
                    } else {
                        out.push('/');
                        out.push_str(&part);
                    }
                }
                Value::Str(out)
            }
            ("os.path", "basename" | "dirname") => {
                let p = strs(pos)?.into_iter().next().unwrap_or_default();
                let cut = p.rfind('/').map_or(0, |i| i + 1);
                if name == "basename" {
                    Value::Str(p[cut..].to_string())
                } else {
                    let head = &p[..cut];
                    let trimmed = head.trim_end_matches('/');
                    Value::Str(if trimmed.is_empty() { head } else { trimmed }.to_string())
                }
            }
            ("os.path", "splitext") => {
                let p = strs(pos)?.into_iter().next().unwrap_or_default();
                let base = p.rfind('/').map_or(0, |i| i + 1);
                let file = &p[base..];
                let leading = file.len() - file.trim_start_matches('.').len();
                let split = file[leading..].rfind('.').map(|i| base + leading + i);
                let (root, ext) = match split {
                    Some(i) => (p[..i].to_string(), p[i..].to_string()),
                    None => (p.clone(), String::new()),
                };
                Value::Tuple(vec![Value::Str(root), Value::Str(ext)])
            }
            // No file system is visible to a script.
            ("os.path", _) => Value::Bool(false),
            ("sys", "getsizeof") => Value::Int(self.getsizeof(pos.first())?),
            ("time", "sleep") => {
                let secs = match pos.first() {
                    Some(Value::Int(i)) => *i as f64,
                    Some(Value::Float(f)) => *f,
                    _ => 0.0,
                };
                if secs < 0.0 {
                    return Err(ScriptError::Value(
                        "sleep length must be non-negative".into(),
                    ));
                }
                self.tick(secs);
                Value::None
            }
            ("time", _) => {
                let now = self.tick(1e-6);
                Value::Float(if name == "time" {
                    EPOCH_START + now
                } else {
                    now
                })
            }
            ("gc", "collect") => Value::Int(0),
            ("gc", "isenabled") => Value::Bool(true),
            ("gc", _) => Value::None,
            ("functools", _) => return self.functools_reduce(pos),
            _ => {
                return Err(ScriptError::Attribute(format!(
                    "module '{module}' has no attribute '{name}'"
                )))
            }
        })
    }

    /// Advances the script's clock by `secs` and returns the time before.
    fn tick(&mut self, secs: f64) -> f64 {
        let now = match self.setting(CLOCK_KEY) {
            Some(Value::Float(f)) => *f,
            _ => 0.0,
        };
        self.set_setting(CLOCK_KEY, Value::Float(now + secs));
        now
    }

    /// `sys.getsizeof(x)` for the objects whose size CPython 3.11 fixes: ints, floats,
    /// bools, `None`, ASCII strings, tuples and tensors.
    fn getsizeof(&mut self, x: Option<&Value>) -> R<i64> {
        Ok(match x {
            None => {
                return Err(ScriptError::Type(
                    "getsizeof() missing required argument 'object' (pos 1)".into(),
                ))
            }
            Some(Value::None) => 16,
            Some(Value::Bool(_)) => 28,
            Some(Value::Float(_)) => 24,
            Some(Value::Int(i)) => {
                let bits = 64 - i.unsigned_abs().leading_zeros() as i64;
                24 + 4 * ((bits + 29) / 30).max(1)
            }
            Some(Value::Str(s)) if s.is_ascii() => 49 + s.len() as i64,
            Some(Value::Tuple(items)) => 40 + 8 * items.len() as i64,
            Some(Value::Tensor(_)) => 80,
            Some(other) => {
                return Err(ScriptError::NotImplemented(format!(
                    "sys.getsizeof of a {} is not supported by Stridescope",
                    other.type_name()
                )))
            }
        })
    }

    /// `functools.reduce(function, iterable[, initial])`.
    fn functools_reduce(&mut self, pos: &[Value]) -> R<Value> {
        let (Some(f), Some(iterable)) = (pos.first(), pos.get(1)) else {
            return Err(ScriptError::Type(format!(
                "reduce expected at least 2 arguments, got {}",
                pos.len()
            )));
        };
        let mut items = self.iterate(iterable)?.into_iter();
        let mut acc = match pos.get(2) {
            Some(initial) => initial.clone(),
            None => items.next().ok_or_else(|| {
                ScriptError::Type("reduce() of empty iterable with no initial value".into())
            })?,
        };
        for item in items {
            acc = self.call(f.clone(), vec![acc, item], vec![])?;
        }
        Ok(acc)
    }

    /// `warnings.filterwarnings(action, ..., category=)`, `simplefilter(action, category)`,
    /// `warn(message, category)`, `resetwarnings()`.
    fn call_warnings(&mut self, name: &str, pos: &[Value], kw: &[(String, Value)]) -> R<Value> {
        let named = |key: &str, at: usize| {
            kw.iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .or_else(|| pos.get(at).cloned())
        };
        let category = |v: Option<Value>| match v {
            Some(Value::ExceptionType(c)) => c,
            _ => "Warning".to_string(),
        };
        match name {
            "resetwarnings" => self.set_setting(FILTERS_KEY, Value::List(Vec::new())),
            "warn" => {
                let message = match named("message", 0) {
                    Some(Value::Str(s)) => s,
                    Some(other) => self.str_of(&other)?,
                    None => {
                        return Err(ScriptError::Type(
                            "warn() missing required argument 'message' (pos 1)".into(),
                        ))
                    }
                };
                let cat = match named("category", 1) {
                    Some(Value::ExceptionType(c)) => c,
                    _ => "UserWarning".into(),
                };
                self.recorder.warn(format!("{cat}: {message}"));
            }
            _ => {
                let action = match named("action", 0) {
                    Some(Value::Str(s)) => s,
                    _ => {
                        return Err(ScriptError::Type(format!(
                            "{name}() missing required argument 'action' (pos 1)"
                        )))
                    }
                };
                if ![
                    "default", "error", "ignore", "always", "all", "module", "once",
                ]
                .contains(&action.as_str())
                {
                    return Err(ScriptError::Other {
                        class: "AssertionError".into(),
                        message: format!(
                            "invalid action: {}",
                            crate::interp::python::repr::py_str_repr(&action)
                        ),
                    });
                }
                let at = if name == "simplefilter" { 1 } else { 2 };
                let cat = category(named("category", at));
                let mut filters = match self.setting(FILTERS_KEY) {
                    Some(Value::List(f)) => f.clone(),
                    _ => Vec::new(),
                };
                filters.insert(0, Value::Tuple(vec![Value::Str(action), Value::Str(cat)]));
                self.set_setting(FILTERS_KEY, Value::List(filters));
            }
        }
        Ok(Value::None)
    }

    /// The warnings of a step that the script's filters let through (`"UserWarning: ..."`
    /// texts; the first filter that matches a warning's category decides).
    pub(crate) fn filter_warnings(&self, warnings: Vec<String>) -> Vec<String> {
        let Some(Value::List(filters)) = self.setting(FILTERS_KEY) else {
            return warnings;
        };
        warnings
            .into_iter()
            .filter(|w| {
                let cat = w.split(':').next().unwrap_or("");
                for f in filters {
                    let Value::Tuple(f) = f else { continue };
                    let (Some(Value::Str(action)), Some(Value::Str(c))) = (f.first(), f.get(1))
                    else {
                        continue;
                    };
                    let matches = c == "Warning" || c == cat || !CATEGORIES.contains(&c.as_str());
                    if matches {
                        return action != "ignore";
                    }
                }
                true
            })
            .collect()
    }

    /// `itertools.product/chain/combinations/permutations/accumulate`, as lists.
    fn call_itertools(&mut self, name: &str, pos: &[Value], kw: &[(String, Value)]) -> R<Value> {
        let iterables = match name {
            "combinations" | "permutations" => &pos[..pos.len().min(1)],
            _ => pos,
        };
        let mut pools = iterables
            .iter()
            .map(|v| self.iterate(v))
            .collect::<R<Vec<_>>>()?;
        let limit = self.limits.max_op_elements.max(0) as usize;
        let too_many = || {
            ScriptError::Runtime(format!(
                "itertools.{name} of more than {limit} items is more than Stridescope materializes"
            ))
        };
        let out: Vec<Value> = match name {
            "chain" => pools.into_iter().flatten().collect(),
            "product" => {
                let repeat = match kw.iter().find(|(k, _)| k == "repeat") {
                    Some((_, Value::Int(r))) => *r.max(&0) as usize,
                    _ => 1,
                };
                let pools: Vec<Vec<Value>> = (0..repeat).flat_map(|_| pools.clone()).collect();
                let mut result: Vec<Vec<Value>> = vec![Vec::new()];
                for pool in &pools {
                    if result.len().saturating_mul(pool.len()) > limit {
                        return Err(too_many());
                    }
                    result = result
                        .iter()
                        .flat_map(|x| {
                            pool.iter().map(move |y| {
                                let mut x = x.clone();
                                x.push(y.clone());
                                x
                            })
                        })
                        .collect();
                }
                result.into_iter().map(Value::Tuple).collect()
            }
            "combinations" | "permutations" => {
                let pool = if pools.is_empty() {
                    Vec::new()
                } else {
                    pools.remove(0)
                };
                let r = match pos.get(1) {
                    Some(Value::Int(r)) if *r < 0 => {
                        return Err(ScriptError::Value("r must be non-negative".into()))
                    }
                    Some(Value::Int(r)) => *r as usize,
                    _ if name == "permutations" => pool.len(),
                    _ => {
                        return Err(ScriptError::Type(
                            "combinations() missing required argument 'r' (pos 2)".into(),
                        ))
                    }
                };
                let mut out = Vec::new();
                let mut chosen = Vec::new();
                choose(
                    &pool,
                    r,
                    name == "permutations",
                    &mut chosen,
                    &mut out,
                    limit,
                )
                .ok_or_else(too_many)?;
                out
            }
            _ => {
                let mut out = Vec::new();
                let mut acc: Option<Value> = None;
                for item in pools.into_iter().next().unwrap_or_default() {
                    let next = match acc {
                        None => item,
                        Some(a) => self.binary(crate::lang::ast::BinOp::Add, a, item)?,
                    };
                    out.push(next.clone());
                    acc = Some(next);
                }
                out
            }
        };
        Ok(Value::List(out))
    }
}

/// Python's ordering of two tuples (or two lists): the first items that differ decide,
/// else the shorter one is less.
pub(crate) fn sequence_order(op: crate::lang::ast::BinOp, x: &[Value], y: &[Value]) -> R<Value> {
    use crate::interp::python::operators::{python_binary, values_equal};
    for (a, b) in x.iter().zip(y) {
        if !values_equal(a, b) {
            return python_binary(op, a, b);
        }
    }
    let ord = x.len().cmp(&y.len());
    Ok(Value::Bool(match op {
        crate::lang::ast::BinOp::Lt => ord.is_lt(),
        crate::lang::ast::BinOp::Le => ord.is_le(),
        crate::lang::ast::BinOp::Gt => ord.is_gt(),
        _ => ord.is_ge(),
    }))
}

/// The r-combinations (or r-permutations) of `pool` in itertools' order; `None` past `limit`.
fn choose(
    pool: &[Value],
    r: usize,
    permutations: bool,
    chosen: &mut Vec<usize>,
    out: &mut Vec<Value>,
    limit: usize,
) -> Option<()> {
    if chosen.len() == r {
        if out.len() >= limit {
            return None;
        }
        out.push(Value::Tuple(
            chosen.iter().map(|&i| pool[i].clone()).collect(),
        ));
        return Some(());
    }
    let start = if permutations {
        0
    } else {
        chosen.last().map_or(0, |&i| i + 1)
    };
    for i in start..pool.len() {
        if permutations && chosen.contains(&i) {
            continue;
        }
        chosen.push(i);
        choose(pool, r, permutations, chosen, out, limit)?;
        chosen.pop();
    }
    Some(())
}
