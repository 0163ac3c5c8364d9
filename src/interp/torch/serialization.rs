//! `torch.save(obj, f)` and `torch.load(f)` (`torch/serialization.py`) on a notebook's own
//! files: a file lives in the evaluator ([`Files`], one script's run) and holds a snapshot of
//! what was saved, taken at the `save`, as PyTorch pickles it:
//!
//! - a tensor is its whole storage (the bytes at the save) and its view (shape, strides,
//!   offset), its `requires_grad` and whether it is a `Parameter`; tensors saved together on
//!   one storage share one storage again when loaded, and every `load` makes new storages;
//! - lists, tuples, dicts, `OrderedDict`s (a `state_dict`), numbers, strings, `None`, dtypes,
//!   sizes and devices are kept as they are;
//! - any other object (a whole `nn.Module`, a script object) is pickled by reference to its
//!   class: `torch.load` refuses it with PyTorch 2.6+'s `weights_only=True` default
//!   (`UnpicklingError: Weights only load failed. ...`) and returns a deep copy of it with
//!   `weights_only=False`.

use std::collections::HashMap;

use crate::core::tensor::{DType, Layout, ScriptError, StorageId, Tensor};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The files `torch.save` wrote in this run, by path, the latest write of each.
#[derive(Default)]
pub(crate) struct Files {
    files: Vec<(String, SavedFile)>,
}

/// One saved file: the storages' bytes and the object that views them.
#[derive(Clone)]
struct SavedFile {
    storages: Vec<(DType, Vec<u8>)>,
    root: Saved,
}

/// A pickled object.
#[derive(Clone)]
enum Saved {
    /// A value that holds no tensor and no object (a number, a string, a dtype, a size).
    Plain(Value),
    /// A tensor: its storage (an index into [`SavedFile::storages`]) and its view.
    Tensor {
        storage: usize,
        dtype: DType,
        layout: Layout,
        requires_grad: bool,
        is_parameter: bool,
    },
    List(Vec<Saved>),
    Tuple(Vec<Saved>),
    Dict(Vec<(Saved, Saved)>),
    OrderedDict(Vec<(Saved, Saved)>),
    /// An object pickled by reference to its class (a module): weights_only refuses it.
    Object(Value),
}

/// The ops of this file.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["save"],
        schemas: &["Any obj, Any f, Any pickle_module=None, int pickle_protocol=2, bool _use_new_zipfile_serialization=True, bool _disable_byteorder_record=False"],
        forms: Forms::Function,
        rule: save,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["load"],
        schemas: &["Any f, Any map_location=None, Any pickle_module=None, *, Any weights_only=None, Any mmap=None"],
        forms: Forms::Function,
        rule: load,
        complex: true,
        ..OpDef::PLAIN
    },
];

/// PyTorch's refusal to unpickle an object that is not weights (its first line).
const WEIGHTS_ONLY: &str = "Weights only load failed. This file can still be loaded, to do so you have two options, \u{1b}[1mdo those steps only if you trust the source of the checkpoint\u{1b}[0m. ";

/// The path a file argument names.
fn path_of(call: &OpCall, what: &str) -> R<String> {
    match call.value("f") {
        Some(Value::Str(p)) => Ok(p.clone()),
        Some(other) => Err(ScriptError::NotImplemented(format!(
            "torch.{what} to a {} is not supported by Stridescope (a file path is)",
            other.type_name()
        ))),
        None => Err(ScriptError::Type(format!(
            "{what}() missing 1 required positional argument: 'f'"
        ))),
    }
}

fn save(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let path = path_of(call, "save")?;
    let obj = call.value("obj").cloned().unwrap_or(Value::None);
    let mut file = SavedFile {
        storages: Vec::new(),
        root: Saved::Plain(Value::None),
    };
    let mut memo = HashMap::new();
    file.root = snapshot(ev, &obj, &mut file.storages, &mut memo)?;
    let files = &mut ev.torch.files.files;
    files.retain(|(p, _)| *p != path);
    files.push((path, file));
    Ok(Value::None)
}

/// The pickled form of `v`, its storages' bytes appended to `storages` (once each).
fn snapshot(
    ev: &mut Evaluator,
    v: &Value,
    storages: &mut Vec<(DType, Vec<u8>)>,
    memo: &mut HashMap<StorageId, usize>,
) -> R<Saved> {
    let mut all = |ev: &mut Evaluator, items: &[Value], storages: &mut Vec<(DType, Vec<u8>)>| {
        items
            .iter()
            .map(|x| snapshot(ev, x, storages, memo))
            .collect::<R<Vec<_>>>()
    };
    Ok(match v {
        Value::Tensor(t) => {
            let object = t.borrow();
            let tensor = object.tensor.clone();
            if ev.memory.is_meta(tensor.storage) {
                return Err(ScriptError::NotImplemented(
                    "torch.save of a meta tensor is not supported by Stridescope".into(),
                ));
            }
            let storage = match memo.get(&tensor.storage) {
                Some(&i) => i,
                None => {
                    let bytes = ev.engine.read_storage(tensor.storage);
                    storages.push((tensor.dtype, bytes));
                    memo.insert(tensor.storage, storages.len() - 1);
                    storages.len() - 1
                }
            };
            Saved::Tensor {
                storage,
                dtype: tensor.dtype,
                layout: tensor.layout.clone(),
                requires_grad: object.requires_grad,
                is_parameter: object.is_parameter,
            }
        }
        Value::List(items) => Saved::List(all(ev, items, storages)?),
        Value::Tuple(items) => Saved::Tuple(all(ev, items, storages)?),
        Value::Dict(entries) | Value::OrderedDict(entries) => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, x) in entries {
                let key = snapshot(ev, k, storages, memo)?;
                out.push((key, snapshot(ev, x, storages, memo)?));
            }
            if matches!(v, Value::Dict(_)) {
                Saved::Dict(out)
            } else {
                Saved::OrderedDict(out)
            }
        }
        Value::None
        | Value::Bool(_)
        | Value::Int(_)
        | Value::Float(_)
        | Value::Complex(..)
        | Value::Str(_)
        | Value::Size(_)
        | Value::DType(_)
        | Value::Device(_)
        | Value::Slice(..)
        | Value::Range(..) => Saved::Plain(v.clone()),
        other => Saved::Object(other.clone()),
    })
}

fn load(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let path = path_of(call, "load")?;
    let Some(file) = ev
        .torch
        .files
        .files
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, f)| f.clone())
    else {
        return Err(ScriptError::Other {
            class: "FileNotFoundError".into(),
            message: format!("[Errno 2] No such file or directory: '{path}'"),
        });
    };
    let weights_only = match call.value("weights_only") {
        None | Some(Value::None) => true,
        Some(v) => ev.truthy(v)?,
    };
    if weights_only && holds_object(&file.root) {
        return Err(ScriptError::Other {
            class: "UnpicklingError".into(),
            message: WEIGHTS_ONLY.into(),
        });
    }
    let mut made: Vec<Option<StorageId>> = vec![None; file.storages.len()];
    rebuild(ev, &file.root, &file.storages, &mut made)
}

/// Whether a pickled object holds an object pickled by reference.
fn holds_object(s: &Saved) -> bool {
    match s {
        Saved::Object(_) => true,
        Saved::List(items) | Saved::Tuple(items) => items.iter().any(holds_object),
        Saved::Dict(entries) | Saved::OrderedDict(entries) => entries
            .iter()
            .any(|(k, v)| holds_object(k) || holds_object(v)),
        Saved::Plain(_) | Saved::Tensor { .. } => false,
    }
}

/// The loaded value of a pickled object: new storages (one per saved storage) and tensors.
fn rebuild(
    ev: &mut Evaluator,
    s: &Saved,
    storages: &[(DType, Vec<u8>)],
    made: &mut Vec<Option<StorageId>>,
) -> R<Value> {
    let all = |ev: &mut Evaluator, items: &[Saved], made: &mut Vec<Option<StorageId>>| {
        items
            .iter()
            .map(|x| rebuild(ev, x, storages, made))
            .collect::<R<Vec<_>>>()
    };
    Ok(match s {
        Saved::Plain(v) => v.clone(),
        Saved::Tensor {
            storage,
            dtype,
            layout,
            requires_grad,
            is_parameter,
        } => {
            let id = match made.get(*storage).copied().flatten() {
                Some(id) => id,
                None => {
                    let (storage_dtype, bytes) =
                        storages.get(*storage).cloned().ok_or_else(|| {
                            ScriptError::Runtime("torch.load: a storage is missing".into())
                        })?;
                    let id = ev.allocate_with(bytes, storage_dtype, "load")?;
                    if let Some(slot) = made.get_mut(*storage) {
                        *slot = Some(id);
                    }
                    id
                }
            };
            let tensor = Tensor {
                storage: id,
                dtype: *dtype,
                layout: layout.clone(),
            };
            let value = Value::tensor(tensor, "load", None);
            if let Value::Tensor(t) = &value {
                let mut object = t.borrow_mut();
                object.requires_grad = *requires_grad;
                object.is_parameter = *is_parameter;
            }
            value
        }
        Saved::List(items) => Value::List(all(ev, items, made)?),
        Saved::Tuple(items) => Value::Tuple(all(ev, items, made)?),
        Saved::Dict(entries) | Saved::OrderedDict(entries) => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let key = rebuild(ev, k, storages, made)?;
                out.push((key, rebuild(ev, v, storages, made)?));
            }
            if matches!(s, Saved::Dict(_)) {
                Value::Dict(out)
            } else {
                Value::OrderedDict(out)
            }
        }
        Saved::Object(v) => ev.call_module("copy", "deepcopy", vec![v.clone()], vec![])?,
    })
}
