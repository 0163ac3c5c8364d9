//! The containers of `torch/nn/modules/container.py`: `Sequential`, `ModuleList`,
//! `ModuleDict`, `ParameterList` and `ParameterDict`, their indexing, iteration, mutation
//! and reprs.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{is_module, typename, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

const PATH: &str = "torch.nn.modules.container";

/// The container classes.
pub(crate) static MODULES: &[ModuleDef] = &[
    ModuleDef {
        init: Some(sequential_init),
        forward: Some(sequential_forward),
        methods: &[
            ("__len__", |_, o, _, _| {
                Ok(Value::Int(submodules(o).len() as i64))
            }),
            ("__iter__", |_, o, _, _| Ok(module_values(o))),
            ("__getitem__", |ev, o, pos, _| {
                sequential_get(ev, o, pos, "Sequential")
            }),
            ("__setitem__", set_item),
            ("__delitem__", del_item),
            ("append", append),
            ("extend", extend),
            ("insert", insert),
            ("pop", pop),
        ],
        ..ModuleDef::new("Sequential", PATH)
    },
    ModuleDef {
        init: Some(module_list_init),
        methods: &[
            ("__len__", |_, o, _, _| {
                Ok(Value::Int(submodules(o).len() as i64))
            }),
            ("__iter__", |_, o, _, _| Ok(module_values(o))),
            ("__getitem__", |ev, o, pos, _| {
                sequential_get(ev, o, pos, "ModuleList")
            }),
            ("__setitem__", set_item),
            ("__delitem__", del_item),
            ("__repr__", |ev, o, _, _| {
                module_list_repr(ev, o).map(Value::Str)
            }),
            ("append", append),
            ("extend", extend),
            ("insert", insert),
            ("pop", pop),
        ],
        ..ModuleDef::new("ModuleList", PATH)
    },
    ModuleDef {
        init: Some(module_dict_init),
        methods: &[
            ("__len__", |_, o, _, _| {
                Ok(Value::Int(submodules(o).len() as i64))
            }),
            ("__iter__", |_, o, _, _| Ok(keys(o))),
            ("__getitem__", dict_get),
            ("__setitem__", dict_set),
            ("__delitem__", del_item),
            ("__contains__", |_, o, pos, _| {
                Ok(Value::Bool(
                    matches!(pos.first(), Some(Value::Str(k)) if submodules(o).iter().any(|(n, _)| n == k)),
                ))
            }),
            ("keys", |ev, o, _, _| {
                Ok(ev.dict_view(entries(o), "keys", false))
            }),
            ("values", |ev, o, _, _| {
                Ok(ev.dict_view(entries(o), "values", false))
            }),
            ("items", |ev, o, _, _| {
                Ok(ev.dict_view(entries(o), "items", false))
            }),
            ("update", |ev, o, pos, _| {
                if let Some(v) = pos.into_iter().next() {
                    dict_update(ev, o, v)?;
                }
                Ok(Value::None)
            }),
            ("pop", |ev, o, pos, kw| {
                let item = dict_get(ev, o, pos.clone(), kw.clone())?;
                del_item(ev, o, pos, kw)?;
                Ok(item)
            }),
            ("clear", |_, o, _, _| {
                if let Some(s) = o.module.borrow_mut().as_mut() {
                    s.modules.clear();
                }
                Ok(Value::None)
            }),
        ],
        ..ModuleDef::new("ModuleDict", PATH)
    },
];

/// A key as `KeyError` shows it.
pub(super) fn key_text(key: &Value) -> String {
    match key {
        Value::Str(s) => format!("'{s}'"),
        Value::Int(i) => i.to_string(),
        other => other.type_name().into_owned(),
    }
}

/// The submodules of a container, in order (`None` entries left out).
fn submodules(o: &Rc<Instance>) -> Vec<(String, Rc<Instance>)> {
    o.module
        .borrow()
        .as_ref()
        .map(|s| {
            s.modules
                .iter()
                .filter_map(|(n, m)| m.clone().map(|m| (n.clone(), m)))
                .collect()
        })
        .unwrap_or_default()
}

fn module_values(o: &Rc<Instance>) -> Value {
    Value::List(
        submodules(o)
            .into_iter()
            .map(|(_, m)| Value::Instance(m))
            .collect(),
    )
}

/// A `ModuleDict`'s entries, as a dict's (what its views show).
fn entries(o: &Rc<Instance>) -> Vec<(Value, Value)> {
    submodules(o)
        .into_iter()
        .map(|(n, m)| (Value::Str(n), Value::Instance(m)))
        .collect()
}

fn keys(o: &Rc<Instance>) -> Value {
    Value::List(
        submodules(o)
            .into_iter()
            .map(|(n, _)| Value::Str(n))
            .collect(),
    )
}

/// Registers a submodule under `name` (PyTorch's `add_module`, with its error for what is
/// not a module).
fn add(o: &Rc<Instance>, name: String, module: Value) -> R<()> {
    let module = match module {
        Value::None => None,
        Value::Instance(m) if is_module(&Value::Instance(Rc::clone(&m))) => Some(m),
        other => {
            return Err(ScriptError::Type(format!(
                "{} is not a Module subclass",
                typename(&other)
            )))
        }
    };
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
    Ok(())
}

/// Renumbers a list container's submodules `0, 1, 2, ...` after an insertion or removal.
fn renumber(o: &Rc<Instance>, modules: Vec<Rc<Instance>>) {
    if let Some(state) = o.module.borrow_mut().as_mut() {
        state.modules = modules
            .into_iter()
            .enumerate()
            .map(|(i, m)| (i.to_string(), Some(m)))
            .collect();
    }
}

fn sequential_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    if let Some((key, _)) = kw.first() {
        return Err(ScriptError::Type(format!(
            "Sequential.__init__() got an unexpected keyword argument '{key}'"
        )));
    }
    ev.module_init(o, &[], &[])?;
    if let [Value::OrderedDict(entries)] = pos.as_slice() {
        for (key, module) in entries {
            let Value::Str(key) = key else {
                return Err(ScriptError::Type(format!(
                    "module name should be a string. Got {}",
                    key.type_name()
                )));
            };
            ev.count_step()?;
            add(o, key.clone(), module.clone())?;
        }
        return Ok(());
    }
    for (i, module) in pos.into_iter().enumerate() {
        ev.count_step()?;
        add(o, i.to_string(), module)?;
    }
    Ok(())
}

fn sequential_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let mut input = match (pos.len(), kw.len()) {
        (1, 0) => pos.into_iter().next().unwrap_or(Value::None),
        (0, 1) if kw[0].0 == "input" => kw.into_iter().next().map_or(Value::None, |(_, v)| v),
        (n, _) => {
            return Err(ScriptError::Type(format!(
                "Sequential.forward() takes 2 positional arguments but {} were given",
                n + 1
            )))
        }
    };
    ev.check_depth()?;
    for (_, module) in submodules(o) {
        ev.scope.push_frame(Vec::new());
        let result = ev.call_module_instance(&module, vec![input], vec![]);
        ev.scope.pop_frame();
        input = result?;
    }
    Ok(input)
}

/// An index into a list of `len` items, Python's way (negative from the end).
pub(super) fn position(ev: &mut Evaluator, index: &Value, len: usize, what: &str) -> R<usize> {
    let i = match index {
        Value::Int(i) => *i,
        Value::Bool(b) => i64::from(*b),
        Value::Tensor(_) => ev.index_int(index)?,
        other => {
            return Err(ScriptError::Type(format!(
                "{what} indices must be integers or slices, not {}",
                other.type_name()
            )))
        }
    };
    let n = len as i64;
    if i < -n || i >= n {
        return Err(ScriptError::Index(format!("index {i} is out of range")));
    }
    Ok((if i < 0 { i + n } else { i }) as usize)
}

/// The indices a slice picks from `len` items.
fn slice_indices(
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
    len: usize,
) -> R<Vec<usize>> {
    let n = len as i64;
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err(ScriptError::Value("slice step cannot be zero".into()));
    }
    let clamp = |v: i64, lo: i64, hi: i64| v.clamp(lo, hi);
    let norm = |v: i64| if v < 0 { v + n } else { v };
    let mut out = Vec::new();
    if step > 0 {
        let a = clamp(start.map_or(0, norm), 0, n);
        let b = clamp(stop.map_or(n, norm), 0, n);
        let mut i = a;
        while i < b {
            out.push(i as usize);
            i += step;
        }
    } else {
        let a = clamp(start.map_or(n - 1, norm), -1, n - 1);
        let b = clamp(stop.map_or(-1, norm), -1, n - 1);
        let mut i = a;
        while i > b {
            out.push(i as usize);
            i += step;
        }
    }
    Ok(out)
}

/// `seq[i]` (the module) or `seq[a:b]` (a new container of the same class holding those
/// modules: `Sequential` keeps their names, `ModuleList` renumbers).
fn sequential_get(ev: &mut Evaluator, o: &Rc<Instance>, pos: Vec<Value>, class: &str) -> R<Value> {
    let modules = submodules(o);
    let index = pos.into_iter().next().unwrap_or(Value::None);
    if let Value::Slice(a, b, c) = index {
        let picked = slice_indices(a, b, c, modules.len())?;
        let Some(class_object) = ev.nn_class(class) else {
            return Err(ScriptError::Runtime(format!("no class {class}")));
        };
        let out = Rc::new(Instance {
            class: class_object,
            attrs: std::cell::RefCell::new(Vec::new()),
            module: std::cell::RefCell::new(Some(super::ModuleState::new())),
        });
        for (k, i) in picked.into_iter().enumerate() {
            let (name, m) = &modules[i];
            let name = if class == "Sequential" {
                name.clone()
            } else {
                k.to_string()
            };
            add(&out, name, Value::Instance(Rc::clone(m)))?;
        }
        return Ok(Value::Instance(out));
    }
    let what = if class == "Sequential" {
        "Sequential"
    } else {
        "ModuleList"
    };
    let i = position(ev, &index, modules.len(), what)?;
    Ok(Value::Instance(Rc::clone(&modules[i].1)))
}

fn set_item(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    _: Vec<(String, Value)>,
) -> R<Value> {
    let [index, module] = <[Value; 2]>::try_from(pos)
        .map_err(|_| ScriptError::Type("__setitem__ expected 2 arguments".into()))?;
    let modules = submodules(o);
    let i = position(ev, &index, modules.len(), "Sequential")?;
    add(o, modules[i].0.clone(), module)?;
    Ok(Value::None)
}

fn del_item(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    _: Vec<(String, Value)>,
) -> R<Value> {
    let index = pos.into_iter().next().unwrap_or(Value::None);
    let modules = submodules(o);
    if let Value::Str(key) = &index {
        if !modules.iter().any(|(n, _)| n == key) {
            return Err(ScriptError::Key(format!("'{key}'")));
        }
        if let Some(s) = o.module.borrow_mut().as_mut() {
            s.modules.retain(|(n, _)| n != key);
        }
        return Ok(Value::None);
    }
    let picked = match index {
        Value::Slice(a, b, c) => slice_indices(a, b, c, modules.len())?,
        other => vec![position(ev, &other, modules.len(), "Sequential")?],
    };
    let is_list = o.class.native.is_some_and(|d| d.name == "ModuleList")
        || super::native_of(&o.class).is_some_and(|d| d.name == "ModuleList");
    let kept: Vec<(String, Rc<Instance>)> = modules
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !picked.contains(i))
        .map(|(_, m)| m)
        .collect();
    if is_list {
        renumber(o, kept.into_iter().map(|(_, m)| m).collect());
    } else if let Some(s) = o.module.borrow_mut().as_mut() {
        s.modules = kept.into_iter().map(|(n, m)| (n, Some(m))).collect();
    }
    Ok(Value::None)
}

fn append(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    _: Vec<(String, Value)>,
) -> R<Value> {
    let [module] = <[Value; 1]>::try_from(pos).map_err(|p| {
        ScriptError::Type(format!(
            "append() takes 2 positional arguments but {} were given",
            p.len() + 1
        ))
    })?;
    let n = submodules(o).len();
    add(o, n.to_string(), module)?;
    Ok(Value::Instance(Rc::clone(o)))
}

fn extend(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    _: Vec<(String, Value)>,
) -> R<Value> {
    let Some(items) = pos.first() else {
        return Err(ScriptError::Type(
            "extend() missing 1 required positional argument".into(),
        ));
    };
    let items = match items {
        Value::Instance(m) if is_module(items) => submodules(m)
            .into_iter()
            .map(|(_, m)| Value::Instance(m))
            .collect(),
        other => ev.iterate(other)?,
    };
    for module in items {
        ev.count_step()?;
        let n = submodules(o).len();
        add(o, n.to_string(), module)?;
    }
    Ok(Value::Instance(Rc::clone(o)))
}

fn insert(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    _: Vec<(String, Value)>,
) -> R<Value> {
    let [index, module] = <[Value; 2]>::try_from(pos)
        .map_err(|_| ScriptError::Type("insert() takes exactly 2 arguments".into()))?;
    let mut modules: Vec<Rc<Instance>> = submodules(o).into_iter().map(|(_, m)| m).collect();
    let n = modules.len() as i64;
    let i = match index {
        Value::Int(i) => i,
        other => ev.index_int(&other)?,
    };
    let at = if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
    let Value::Instance(m) = module else {
        return Err(ScriptError::Type(format!(
            "{} is not a Module subclass",
            typename(&module)
        )));
    };
    modules.insert(at, m);
    renumber(o, modules);
    Ok(Value::None)
}

fn pop(ev: &mut Evaluator, o: &Rc<Instance>, pos: Vec<Value>, _: Vec<(String, Value)>) -> R<Value> {
    let mut modules: Vec<Rc<Instance>> = submodules(o).into_iter().map(|(_, m)| m).collect();
    let index = pos.into_iter().next().unwrap_or(Value::Int(-1));
    let i = position(ev, &index, modules.len(), "ModuleList")?;
    let out = modules.remove(i);
    renumber(o, modules);
    Ok(Value::Instance(out))
}

fn module_list_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = super::bind_python("modules=None", "ModuleList.__init__", &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    let modules = super::arg(&args, "modules");
    if !matches!(modules, Value::None) {
        extend(ev, o, vec![modules], vec![])?;
    }
    Ok(())
}

fn module_dict_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = super::bind_python("modules=None", "ModuleDict.__init__", &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    let modules = super::arg(&args, "modules");
    if !matches!(modules, Value::None) {
        dict_update(ev, o, modules)?;
    }
    Ok(())
}

fn dict_update(ev: &mut Evaluator, o: &Rc<Instance>, modules: Value) -> R<()> {
    let pairs: Vec<(Value, Value)> =
        match modules {
            Value::Dict(entries) | Value::OrderedDict(entries) => entries,
            other => {
                let mut out = Vec::new();
                for item in ev.iterate(&other)? {
                    match item {
                        Value::Tuple(kv) | Value::List(kv) if kv.len() == 2 => {
                            out.push((kv[0].clone(), kv[1].clone()))
                        }
                        _ => return Err(ScriptError::Type(
                            "ModuleDict update sequence element #0 should be Iterable; is Module"
                                .into(),
                        )),
                    }
                }
                out
            }
        };
    for (key, module) in pairs {
        let Value::Str(key) = key else {
            return Err(ScriptError::Type(format!(
                "module name should be a string. Got {}",
                key.type_name()
            )));
        };
        add(o, key, module)?;
    }
    Ok(())
}

fn dict_get(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    _: Vec<(String, Value)>,
) -> R<Value> {
    let key = pos.into_iter().next().unwrap_or(Value::None);
    submodules(o)
        .into_iter()
        .find(|(n, _)| matches!(&key, Value::Str(k) if k == n))
        .map(|(_, m)| Value::Instance(m))
        .ok_or_else(|| ScriptError::Key(key_text(&key)))
}

fn dict_set(
    _: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    _: Vec<(String, Value)>,
) -> R<Value> {
    let [key, module] = <[Value; 2]>::try_from(pos)
        .map_err(|_| ScriptError::Type("__setitem__ expected 2 arguments".into()))?;
    let Value::Str(key) = key else {
        return Err(ScriptError::Type(format!(
            "module name should be a string. Got {}",
            key.type_name()
        )));
    };
    add(o, key, module)?;
    Ok(Value::None)
}

/// `ModuleList`'s repr: runs of equal reprs folded (`(0-2): 3 x Linear(...)`).
fn module_list_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let mut reprs = Vec::new();
    for (_, m) in submodules(o) {
        ev.count_step()?;
        reprs.push(ev.instance_repr(&m)?);
    }
    let name = o.class.name.clone();
    if reprs.is_empty() {
        return Ok(format!("{name}()"));
    }
    let mut blocks: Vec<(usize, usize, String)> = Vec::new();
    for (i, r) in reprs.into_iter().enumerate() {
        match blocks.last_mut() {
            Some((_, end, last)) if *last == r => *end = i,
            _ => blocks.push((i, i, r)),
        }
    }
    let lines: Vec<String> = blocks
        .into_iter()
        .map(|(start, end, b)| {
            let text = if start == end {
                format!("({start}): {b}")
            } else {
                format!("({start}-{end}): {} x {b}", end - start + 1)
            };
            indent(&text)
        })
        .collect();
    Ok(format!("{name}(\n  {}\n)", lines.join("\n  ")))
}

fn indent(text: &str) -> String {
    text.split('\n')
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.to_string()
            } else {
                format!("  {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
