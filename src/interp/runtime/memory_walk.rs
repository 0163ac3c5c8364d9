//! The walk behind a step's memory: from the script's names to every storage it reaches,
//! as `../shared/oracle/record_memory.py` walks them (see [`super::accounting`]): containers,
//! objects (not callables, classes or functions), modules' parameters, buffers and tensor
//! attributes, optimizers' parameters and state, tensors' `.grad` and autograd graphs with
//! the tensors their nodes saved, by PyTorch's slot names. Each storage gets its bytes, its
//! category (the first of its roles) and the names that hold it.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::core::tensor::{DType, StorageId};
use crate::core::trace::{MemoryCategory, SavedRecord, StorageRole};
use crate::interp::runtime::accounting::{Holder, SavedSlotRef};
use crate::interp::torch::autograd::objects::saved_tensors;
use crate::interp::torch::autograd::{GradNode, SavedObject};
use crate::interp::value::{Instance, TensorObject, TensorRef, Value};
use crate::interp::Evaluator;

/// What the walk found: each holder's bytes, roles and names, and the saved tensors.
#[derive(Default)]
pub(super) struct Walk {
    pub(super) holders: BTreeMap<Holder, Found>,
    pub(super) saved: BTreeSet<SavedRecord>,
    pub(super) seen: BTreeSet<usize>,
}

/// One holder found by the walk.
pub(super) struct Found {
    pub(super) saved_by: Vec<(String, String)>,
    pub(super) bytes: u64,
    pub(super) category: MemoryCategory,
    pub(super) held_by: Vec<String>,
    pub(super) shape: Vec<i64>,
    pub(super) dtype: DType,
    pub(super) meta: bool,
}

impl Evaluator {
    /// Walks `value`, reached by `path` (see the module's docs).
    pub(super) fn walk_value(&self, walk: &mut Walk, path: &str, value: &Value) {
        let mut pending: Vec<(String, Value, MemoryCategory)> =
            vec![(path.to_string(), value.clone(), MemoryCategory::Variable)];
        while let Some((path, value, category)) = pending.pop() {
            match &value {
                Value::Tensor(t) => {
                    if !walk.seen.insert(Rc::as_ptr(t) as *const () as usize) {
                        // Seen already, but maybe in a lesser role.
                        if let Ok(o) = t.try_borrow() {
                            self.found(
                                walk,
                                Holder::Storage(o.tensor.storage),
                                &o,
                                category,
                                &path,
                            );
                        }
                        continue;
                    }
                    let Ok(o) = t.try_borrow() else { continue };
                    let category = if o.is_parameter && category > MemoryCategory::Parameter {
                        MemoryCategory::Parameter
                    } else {
                        category
                    };
                    self.found(walk, Holder::Storage(o.tensor.storage), &o, category, &path);
                    if let Some(g) = &o.grad {
                        pending.push((
                            format!("{path}.grad"),
                            Value::Tensor(Rc::clone(g)),
                            MemoryCategory::Gradient,
                        ));
                    }
                    if let Some(node) = &o.grad_fn {
                        self.walk_node(walk, node, &mut pending);
                    }
                }
                Value::GradFn(crate::interp::torch::autograd::objects::FnRef::Node(node)) => {
                    self.walk_node(walk, node, &mut pending);
                }
                Value::GradFn(crate::interp::torch::autograd::objects::FnRef::Accumulate(t)) => {
                    pending.push((path.clone(), Value::Tensor(Rc::clone(t)), category));
                }
                Value::Tuple(items) | Value::List(items) => {
                    for (i, item) in items.iter().enumerate().rev() {
                        pending.push((format!("{path}[{i}]"), item.clone(), category));
                    }
                }
                Value::Dict(entries) | Value::OrderedDict(entries) => {
                    for (k, v) in entries.iter().rev() {
                        pending.push((format!("{path}[{}]", key_text(k)), v.clone(), category));
                    }
                }
                Value::NamedTuple(_, fields) => {
                    for (name, v) in fields.iter().rev() {
                        pending.push((format!("{path}.{name}"), v.clone(), category));
                    }
                }
                Value::Instance(object) => {
                    if !walk.seen.insert(Rc::as_ptr(object) as *const () as usize) {
                        continue;
                    }
                    self.walk_instance(walk, &path, object, &mut pending);
                }
                _ => {}
            }
        }
    }

    /// Walks an instance: a module's parameters, buffers and plain tensor attributes; an
    /// optimizer's parameters and state; another object's attributes unless it is callable.
    fn walk_instance(
        &self,
        _walk: &mut Walk,
        path: &str,
        object: &Rc<Instance>,
        pending: &mut Vec<(String, Value, MemoryCategory)>,
    ) {
        let mut found: Vec<(String, Value, MemoryCategory)> = Vec::new();
        if object.module.borrow().is_some() {
            let mut modules = vec![(path.to_string(), Rc::clone(object))];
            let mut seen_modules = BTreeSet::new();
            while let Some((prefix, m)) = modules.pop() {
                if !seen_modules.insert(Rc::as_ptr(&m) as usize) {
                    continue;
                }
                let Ok(state) = m.module.try_borrow() else {
                    continue;
                };
                let Some(state) = state.as_ref() else {
                    continue;
                };
                for (name, p) in &state.parameters {
                    if let Some(p) = p {
                        found.push((
                            format!("{prefix}.{name}"),
                            Value::Tensor(Rc::clone(p)),
                            MemoryCategory::Parameter,
                        ));
                    }
                }
                for (name, b) in &state.buffers {
                    if let Some(b) = b {
                        found.push((
                            format!("{prefix}.{name}"),
                            Value::Tensor(Rc::clone(b)),
                            MemoryCategory::Buffer,
                        ));
                    }
                }
                for (name, sub) in state.modules.iter().rev() {
                    if let Some(sub) = sub {
                        modules.push((format!("{prefix}.{name}"), Rc::clone(sub)));
                    }
                }
            }
            if let Ok(attrs) = object.attrs.try_borrow() {
                for (name, v) in attrs.iter() {
                    if matches!(v, Value::Tensor(_)) {
                        found.push((
                            format!("{path}.{name}"),
                            v.clone(),
                            MemoryCategory::Variable,
                        ));
                    }
                }
            }
        } else if is_optimizer(object) {
            let attrs = object.attrs.borrow();
            let get = |n: &str| attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
            if let Some(Value::List(groups)) = get("param_groups") {
                for (g, group) in groups.iter().enumerate() {
                    if let Value::Dict(entries) = group {
                        for (k, v) in entries {
                            if matches!(k, Value::Str(s) if s == "params") {
                                found.push((
                                    format!("{path}.param_groups[{g}]['params']"),
                                    v.clone(),
                                    MemoryCategory::Parameter,
                                ));
                            }
                        }
                    }
                }
            }
            if let Some(Value::Dict(state)) = get("state") {
                for (param, entries) in &state {
                    let of = self.param_label(param);
                    if let Value::Dict(entries) = entries {
                        for (k, v) in entries {
                            found.push((
                                format!("{} of {of}", key_plain(k)),
                                v.clone(),
                                MemoryCategory::OptimizerState,
                            ));
                        }
                    }
                }
            }
        } else if !is_callable(object) {
            if let Ok(attrs) = object.attrs.try_borrow() {
                for (name, v) in attrs.iter() {
                    found.push((
                        format!("{path}.{name}"),
                        v.clone(),
                        MemoryCategory::Variable,
                    ));
                }
            }
        }
        pending.extend(found.into_iter().rev());
    }

    /// A short name for a parameter an optimizer's state is keyed by.
    fn param_label(&self, param: &Value) -> String {
        let Value::Tensor(t) = param else {
            return "a parameter".into();
        };
        for (name, value) in self.scope.globals() {
            if let Some(found) = find_parameter(name, value, t) {
                return found;
            }
        }
        let shape = t.borrow().tensor.layout.shape.clone();
        format!("a parameter {}", shape_text(&shape))
    }

    /// Walks an autograd node and the graph behind it: what it saved (unless a backward freed
    /// it), and the nodes and leaves its gradients flow to.
    fn walk_node(
        &self,
        walk: &mut Walk,
        node: &Rc<GradNode>,
        pending: &mut Vec<(String, Value, MemoryCategory)>,
    ) {
        let mut nodes = vec![Rc::clone(node)];
        while let Some(node) = nodes.pop() {
            if !walk.seen.insert(Rc::as_ptr(&node) as *const () as usize) {
                continue;
            }
            if !node.freed.get() {
                for (i, (slot_name, slot)) in saved_tensors(&node).into_iter().enumerate() {
                    let label = format!("{}.{}", node.name, slot_name);
                    match slot {
                        // A tensor written in place since it was saved cannot be unpacked
                        // (PyTorch raises): it is not what the node holds any more.
                        SavedSlotRef::Tensor(s)
                            if self.memory.version(s.tensor.storage) != s.version => {}
                        SavedSlotRef::Tensor(s) => {
                            walk.saved.insert(SavedRecord {
                                node: node.name.to_string(),
                                slot: slot_name.to_string(),
                                shape: s.tensor.layout.shape.clone(),
                                dtype: s.tensor.dtype,
                                storage: self.memory.storage_key(s.tensor.storage),
                            });
                            match &s.object {
                                SavedObject::Input(t) => {
                                    pending.push((
                                        label,
                                        Value::Tensor(Rc::clone(t)),
                                        MemoryCategory::Saved,
                                    ));
                                }
                                _ => {
                                    let info = self.memory.storage(s.tensor.storage);
                                    let bytes = info.map_or(0, |i| i.nbytes as u64);
                                    let meta = info.is_some_and(|i| i.meta);
                                    self.found_raw(
                                        walk,
                                        Holder::Storage(s.tensor.storage),
                                        bytes,
                                        MemoryCategory::Saved,
                                        &label,
                                        &s.tensor.layout.shape,
                                        s.tensor.dtype,
                                        meta,
                                    );
                                }
                            }
                        }
                        SavedSlotRef::Number(dtype) => {
                            walk.saved.insert(SavedRecord {
                                node: node.name.to_string(),
                                slot: slot_name.to_string(),
                                shape: vec![],
                                dtype,
                                storage: StorageId(u32::MAX),
                            });
                            self.found_raw(
                                walk,
                                Holder::Wrapped(Rc::as_ptr(&node) as *const () as usize, i),
                                dtype.item_size() as u64,
                                MemoryCategory::Saved,
                                &label,
                                &[],
                                dtype,
                                false,
                            );
                        }
                    }
                }
            }
            for operand in &node.operands {
                let Some(t) = &operand.tracked else { continue };
                let Ok(o) = t.try_borrow() else { continue };
                match &o.grad_fn {
                    Some(next) => nodes.push(Rc::clone(next)),
                    None => pending.push((
                        "AccumulateGrad.variable".into(),
                        Value::Tensor(Rc::clone(t)),
                        MemoryCategory::Variable,
                    )),
                }
            }
        }
    }

    /// Records that the walk reached `holder` through a tensor object.
    fn found(
        &self,
        walk: &mut Walk,
        holder: Holder,
        o: &TensorObject,
        category: MemoryCategory,
        path: &str,
    ) {
        let info = self.memory.storage(o.tensor.storage);
        let bytes = info.map_or(0, |i| i.nbytes as u64);
        let meta = info.is_some_and(|i| i.meta);
        self.found_raw(
            walk,
            holder,
            bytes,
            category,
            path,
            &o.tensor.layout.shape,
            o.tensor.dtype,
            meta,
        );
    }

    /// Records that the walk reached `holder` in `category` by `path`.
    #[allow(clippy::too_many_arguments)]
    fn found_raw(
        &self,
        walk: &mut Walk,
        holder: Holder,
        bytes: u64,
        category: MemoryCategory,
        path: &str,
        shape: &[i64],
        dtype: DType,
        meta: bool,
    ) {
        if let Holder::Storage(id) = holder {
            if !self.memory.is_live(id) {
                return;
            }
        }
        let entry = walk.holders.entry(holder).or_insert_with(|| Found {
            saved_by: Vec::new(),
            bytes,
            category,
            held_by: Vec::new(),
            shape: shape.to_vec(),
            dtype,
            meta,
        });
        if category < entry.category {
            entry.category = category;
            entry.shape = shape.to_vec();
            entry.dtype = dtype;
        }
        if !path.is_empty() && entry.held_by.len() < 4 && !entry.held_by.iter().any(|p| p == path) {
            entry.held_by.push(path.to_string());
        }
        if category == MemoryCategory::Saved {
            if let Some((node, slot)) = path.split_once('.') {
                let pair = (node.to_string(), slot.to_string());
                if !entry.saved_by.contains(&pair) {
                    entry.saved_by.push(pair);
                }
            }
        }
    }
}

/// One entry per distinct (node, slot, shape, dtype), as the oracle's set lists them.
pub(super) fn distinct_saved(saved: BTreeSet<SavedRecord>) -> Vec<SavedRecord> {
    let mut out: Vec<SavedRecord> = Vec::new();
    for record in saved {
        let same = |r: &SavedRecord| {
            r.node == record.node
                && r.slot == record.slot
                && r.shape == record.shape
                && r.dtype == record.dtype
        };
        if !out.iter().any(same) {
            out.push(record);
        }
    }
    out
}

/// What a tracker line says of a storage: `Parameter (512, 512, 3, 3) float32`.
pub(super) fn describe(role: &StorageRole) -> String {
    let kind = match role.category {
        Some(MemoryCategory::Parameter) => "Parameter".to_string(),
        Some(MemoryCategory::Buffer) => "Buffer".to_string(),
        Some(MemoryCategory::Gradient) => "Gradient".to_string(),
        Some(MemoryCategory::OptimizerState) => {
            let name = role
                .held_by
                .first()
                .and_then(|h| h.split(' ').next())
                .unwrap_or("state");
            format!("optimizer state {name}")
        }
        Some(MemoryCategory::Saved) => {
            let label = role.held_by.first().cloned().unwrap_or_default();
            match label.split_once('.') {
                Some((node, slot)) => format!("{node} saved {slot}"),
                None => "saved for backward".into(),
            }
        }
        _ => "Tensor".to_string(),
    };
    format!("{kind} {} {}", shape_text(&role.shape), role.dtype.name())
}

/// `(64, 200)`, as Python prints a shape tuple.
fn shape_text(shape: &[i64]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A dict key in a path: `'exp_avg'`, `0`.
fn key_text(key: &Value) -> String {
    match key {
        Value::Str(s) => format!("'{s}'"),
        Value::Int(i) => i.to_string(),
        _ => "…".into(),
    }
}

/// A dict key as a word: `exp_avg`.
fn key_plain(key: &Value) -> String {
    match key {
        Value::Str(s) => s.clone(),
        other => key_text(other),
    }
}

/// Whether an instance is a `torch.optim` optimizer.
fn is_optimizer(object: &Rc<Instance>) -> bool {
    object.class.mro().iter().any(|c| {
        c.native
            .is_some_and(|d| d.name == "Optimizer" && d.path.starts_with("torch.optim"))
    })
}

/// Whether an instance's class defines `__call__` (the oracle's walk skips callables).
fn is_callable(object: &Rc<Instance>) -> bool {
    object.class.mro().iter().any(|c| {
        c.attrs
            .try_borrow()
            .is_ok_and(|a| a.iter().any(|(k, _)| k == "__call__"))
            || c.native.is_some_and(|d| d.forward.is_some())
    })
}

/// The dotted name under which `value` (reached by `name`) holds parameter `target`.
fn find_parameter(name: &str, value: &Value, target: &TensorRef) -> Option<String> {
    let Value::Instance(object) = value else {
        return None;
    };
    let mut modules = vec![(name.to_string(), Rc::clone(object))];
    let mut guard = 0;
    while let Some((prefix, m)) = modules.pop() {
        guard += 1;
        if guard > 10_000 {
            return None;
        }
        let state = m.module.try_borrow().ok()?;
        let state = state.as_ref()?;
        for (n, p) in &state.parameters {
            if p.as_ref().is_some_and(|p| Rc::ptr_eq(p, target)) {
                return Some(format!("{prefix}.{n}"));
            }
        }
        for (n, sub) in &state.modules {
            if let Some(sub) = sub {
                modules.push((format!("{prefix}.{n}"), Rc::clone(sub)));
            }
        }
    }
    None
}
