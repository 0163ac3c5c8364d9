//! Memory accounting: where a script's memory is after each step (`live_bytes`, by category,
//! with the tensors autograd saved) and the most it held at once while the step ran
//! (`peak_bytes`), as PyTorch's CPU allocator and `../shared/oracle/record_memory.py` see it.
//!
//! Two walks, two questions:
//! - **What the script reaches** ([`Evaluator::memory_walk`]): from the names, through
//!   containers, objects, modules' parameters and buffers, optimizers' state, tensors' `.grad`
//!   and their autograd graphs (the tensors each node saved, by PyTorch's slot names, and the
//!   leaves its `AccumulateGrad` holds). Classes and functions are not walked (the oracle's
//!   walk skips them), nor dict keys. This gives `live_bytes`, the categories, the saved list
//!   and the storage roles.
//! - **What is alive now** ([`Evaluator::alive_bytes`]), asked at every allocation: every
//!   tensor object something outside autograd's nodes still holds (Rust's reference counts
//!   free a temporary when its last holder lets it go, as CPython's do), the tensors live
//!   nodes saved, the leaves they accumulate into, and storages allocated but not wrapped in a
//!   tensor yet. The peak of a step is the bytes alive before it plus the most the alive bytes
//!   rose above their level when it began, transient kernel buffers (a wrapped Python scalar)
//!   included ([`Evaluator::note_transient`]).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::{Rc, Weak};

use crate::core::tensor::{DType, StorageId};
use crate::core::trace::{
    CudaBytes, FreeReason, MemoryCategory, MemoryChange, SavedRecord, StepMemory, StorageRole,
};
use crate::interp::torch::autograd::objects::saved_tensors;
use crate::interp::torch::autograd::{GradNode, Saved, SavedObject};
use crate::interp::value::{Instance, TensorObject, TensorRef, Value};
use crate::interp::Evaluator;

/// PyTorch's CUDA caching allocator rounds every block up to a multiple of this many bytes
/// (`kMinBlockSize` in `c10/cuda/CUDACachingAllocator.cpp`).
pub(crate) const CUDA_BLOCK: u64 = 512;

/// `nbytes` as the CUDA caching allocator counts it for `torch.cuda.memory_allocated()`.
pub(crate) fn cuda_rounded(nbytes: u64) -> u64 {
    nbytes.div_ceil(CUDA_BLOCK) * CUDA_BLOCK
}

thread_local! {
    /// Every tensor object made on this thread, weakly, with the run that made it.
    static OBJECTS: RefCell<Vec<(u64, Weak<RefCell<TensorObject>>)>> = const { RefCell::new(Vec::new()) };
    /// The run tensor objects made now belong to.
    static RUN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Registers a new tensor object, so that [`Evaluator::alive_bytes`] sees it while anything
/// holds it.
pub(crate) fn register_object(object: &TensorRef) {
    let run = RUN.with(|r| r.get());
    OBJECTS.with(|o| o.borrow_mut().push((run, Rc::downgrade(object))));
}

/// A key of something that holds bytes: a storage, or a Python number an autograd node
/// wrapped in a 0-d tensor and saved (`x * 2` saves `other`, 8 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Holder {
    Storage(StorageId),
    Wrapped(usize, usize),
}

/// What one recording unit (a top-level step, or a sub-step inside it) saw of the peak.
#[derive(Clone, Debug)]
struct Unit {
    /// Live bytes (the walk's) before it ran.
    before: u64,
    /// Alive bytes when it began (the scan's).
    base: u64,
    base_cuda: u64,
    /// The most the alive bytes rose above `base`.
    rise: u64,
    rise_cuda: u64,
    /// The line running when the rise was reached.
    line: Option<usize>,
}

/// The accounting's state between steps.
#[derive(Default)]
pub(crate) struct Accounting {
    /// This evaluator's run number (tensor objects of other runs are not its own).
    run: u64,
    /// The units being recorded, outermost first.
    units: Vec<Unit>,
    /// The module calls running now (their peaks, for the model summary).
    calls: Vec<Unit>,
    /// Kernel buffers alive during the next allocation (then freed).
    transient: u64,
    /// Storages allocated and not yet held by a tensor object.
    raw: Vec<StorageId>,
    /// The line the evaluator runs now.
    pub(crate) line: usize,
    /// The roles after the last top-level step, and after the last recorded step.
    after_top: Vec<StorageRole>,
    after_last: Vec<StorageRole>,
    /// The live bytes after the last top-level step, and after the last recorded step.
    live_top: u64,
    live_last: u64,
    /// Whether a `backward()` freed a graph, or `zero_grad()` dropped gradients, in the
    /// running step (the reasons of the changes list).
    pub(crate) backward_ran: bool,
    pub(crate) grads_dropped: bool,
    /// A bound of the bytes of numbers autograd's nodes saved (the last walk's, and 16 per
    /// number wrapped since).
    wrapped_bound: u64,
}

impl Accounting {
    /// A fresh accounting for a new run (its tensor objects are told apart from older runs').
    pub(crate) fn new() -> Accounting {
        let run = RUN.with(|r| {
            r.set(r.get() + 1);
            r.get()
        });
        OBJECTS.with(|o| o.borrow_mut().retain(|(_, w)| w.strong_count() > 0));
        Accounting {
            run,
            ..Accounting::default()
        }
    }

    /// Makes this run's tensor objects the ones registered from now on (a second evaluator
    /// on the same thread takes the registry over while it runs).
    pub(crate) fn activate(&self) {
        RUN.with(|r| r.set(self.run));
    }
}

/// What the walk found: each holder's bytes, roles and names, and the saved tensors.
#[derive(Default)]
struct Walk {
    holders: BTreeMap<Holder, Found>,
    saved: BTreeSet<SavedRecord>,
    seen: BTreeSet<usize>,
}

/// One holder found by the walk.
struct Found {
    saved_by: Vec<(String, String)>,
    bytes: u64,
    category: MemoryCategory,
    held_by: Vec<String>,
    shape: Vec<i64>,
    dtype: DType,
    meta: bool,
}

impl Evaluator {
    /// Starts a recording unit (a top-level step when `top`, else a sub-step).
    pub(crate) fn begin_memory_unit(&mut self, top: bool) {
        self.accounting.activate();
        if top {
            self.accounting.units.clear();
            self.accounting.calls.clear();
            self.accounting.after_last = self.accounting.after_top.clone();
            self.accounting.live_last = self.accounting.live_top;
            self.accounting.backward_ran = false;
            self.accounting.grads_dropped = false;
            self.accounting.raw.clear();
            self.accounting.transient = 0;
        }
        let before = if top {
            self.accounting.live_top
        } else {
            self.accounting.live_last
        };
        let (base, base_cuda, wrapped) = self.alive_bytes();
        self.accounting.wrapped_bound = wrapped;
        self.accounting.units.push(Unit {
            before,
            base,
            base_cuda,
            rise: 0,
            rise_cuda: 0,
            line: None,
        });
    }

    /// Starts measuring the peak of a module call (see [`Evaluator::end_call_peak`]).
    pub(crate) fn begin_call_peak(&mut self) {
        if self.accounting.units.is_empty() {
            return;
        }
        let (base, base_cuda, wrapped) = self.alive_bytes();
        self.accounting.wrapped_bound = wrapped;
        self.accounting.calls.push(Unit {
            before: base,
            base,
            base_cuda,
            rise: 0,
            rise_cuda: 0,
            line: None,
        });
    }

    /// The most bytes alive at once during the module call begun last.
    pub(crate) fn end_call_peak(&mut self) -> u64 {
        self.accounting.calls.pop().map_or(0, |u| u.base + u.rise)
    }

    /// Notes that storage `id` was just allocated: the alive bytes may have reached a peak.
    pub(crate) fn note_allocated(&mut self, id: StorageId) {
        if self.accounting.units.is_empty() {
            return;
        }
        self.accounting.raw.push(id);
        self.measure_peak(0);
        // The kernel buffers noted before an op's output was allocated go with the op.
        self.accounting.transient = 0;
    }

    /// Notes a buffer of `nbytes` an ATen kernel allocates and frees while it runs (a wrapped
    /// Python scalar, its cast): alive now and during the op's next allocation.
    pub(crate) fn note_transient(&mut self, nbytes: u64) {
        if self.accounting.units.is_empty() || nbytes == 0 {
            return;
        }
        self.accounting.transient += nbytes;
        // The wrapped number may be saved by the op's node (8 bytes, 16 for a complex).
        self.accounting.wrapped_bound += 16;
        self.measure_peak(0);
    }

    /// Ends the transient buffers of the running op (freed by its kernel).
    pub(crate) fn end_transient(&mut self) {
        self.accounting.transient = 0;
    }

    /// Updates every running unit's peak with the bytes alive now (plus `extra`).
    fn measure_peak(&mut self, extra: u64) {
        let transient = self.accounting.transient + extra;
        // Every storage not freed yet, and every number a node may have saved since the
        // last walk, bound what is alive: below every unit's peak, nothing can rise (a
        // training loop's later iterations skip the walk).
        let bound = self.memory.registered_bytes + self.accounting.wrapped_bound + transient;
        let units = || self.accounting.units.iter().chain(&self.accounting.calls);
        let reached = units().map(|u| u.base + u.rise).min();
        let reached_cuda = units().map(|u| u.base_cuda + u.rise_cuda).min();
        let bound_cuda = self.memory.registered_bytes
            + CUDA_BLOCK * self.memory.storage_count() as u64
            + CUDA_BLOCK * (self.accounting.wrapped_bound / 8 + 1)
            + cuda_rounded(transient);
        if reached.is_some_and(|r| bound <= r) && reached_cuda.is_some_and(|r| bound_cuda <= r) {
            return;
        }
        let (alive, alive_cuda, wrapped) = self.alive_bytes();
        self.accounting.wrapped_bound = wrapped;
        let line = self.accounting.line;
        let accounting = &mut self.accounting;
        for unit in accounting
            .units
            .iter_mut()
            .chain(accounting.calls.iter_mut())
        {
            let rise = (alive + transient).saturating_sub(unit.base);
            if rise > unit.rise {
                unit.rise = rise;
                unit.line = Some(line);
            }
            let rise_cuda = (alive_cuda + cuda_rounded(transient)).saturating_sub(unit.base_cuda);
            unit.rise_cuda = unit.rise_cuda.max(rise_cuda);
        }
    }

    /// The bytes alive now, and the same rounded as on a CUDA device: every tensor object
    /// something outside autograd's nodes holds, what live nodes saved, the leaves they
    /// accumulate into, and storages allocated but not wrapped yet; and the part of the
    /// bytes that are numbers nodes saved.
    pub(crate) fn alive_bytes(&self) -> (u64, u64, u64) {
        let run = self.accounting.run;
        let objects: Vec<TensorRef> = OBJECTS.with(|o| {
            let mut o = o.borrow_mut();
            o.retain(|(_, w)| w.strong_count() > 0);
            o.iter()
                .filter(|(r, _)| *r == run)
                .filter_map(|(_, w)| w.upgrade())
                .collect()
        });
        // References from autograd's nodes do not keep a tensor object alive as PyTorch sees
        // it: a node keeps what it saved and its inputs' nodes, not its inputs.
        let mut internal: HashMap<usize, usize> = HashMap::new();
        let mut alive: BTreeSet<Holder> = BTreeSet::new();
        let mut seen: BTreeSet<usize> = BTreeSet::new();
        let mut pending: Vec<Rc<GradNode>> = Vec::new();
        for object in &objects {
            if let Ok(o) = object.try_borrow() {
                if let Some(node) = &o.grad_fn {
                    pending.push(Rc::clone(node));
                }
            }
        }
        while let Some(node) = pending.pop() {
            if !seen.insert(Rc::as_ptr(&node) as *const () as usize) {
                continue;
            }
            for operand in &node.operands {
                if let Some(t) = &operand.tracked {
                    *internal.entry(Rc::as_ptr(t) as usize).or_default() += 1;
                    if let Ok(t) = t.try_borrow() {
                        match &t.grad_fn {
                            Some(next) => pending.push(Rc::clone(next)),
                            // A leaf: its `AccumulateGrad` holds it.
                            None => {
                                alive.insert(Holder::Storage(t.tensor.storage));
                            }
                        }
                    }
                }
                if let Saved::Tensor(s) = &operand.saved {
                    if let SavedObject::Input(t) = &s.object {
                        *internal.entry(Rc::as_ptr(t) as usize).or_default() += 1;
                    }
                }
            }
            if !node.freed.get() {
                for (i, (_, slot)) in saved_tensors(&node).into_iter().enumerate() {
                    match slot {
                        SavedSlotRef::Tensor(s) => {
                            let mut live = BTreeSet::new();
                            crate::interp::torch::autograd::saved_hooks::saved_storages(
                                s, &mut live,
                            );
                            alive.extend(live.into_iter().map(Holder::Storage));
                        }
                        SavedSlotRef::Number(_) => {
                            alive.insert(Holder::Wrapped(
                                Rc::as_ptr(&node) as *const () as usize,
                                i,
                            ));
                        }
                    }
                }
            }
        }
        let mut wrapped: BTreeSet<StorageId> = BTreeSet::new();
        for object in &objects {
            if let Ok(o) = object.try_borrow() {
                wrapped.insert(o.tensor.storage);
            }
            let held = Rc::strong_count(object).saturating_sub(1);
            let by_nodes = internal
                .get(&(Rc::as_ptr(object) as usize))
                .copied()
                .unwrap_or(0);
            if held > by_nodes {
                if let Ok(o) = object.try_borrow() {
                    alive.insert(Holder::Storage(o.tensor.storage));
                }
            }
        }
        // A storage a tensor object holds is alive as that object is; one no object holds
        // yet is an op's output on its way.
        alive.extend(
            self.accounting
                .raw
                .iter()
                .filter(|id| !wrapped.contains(id))
                .map(|id| Holder::Storage(*id)),
        );
        let mut bytes = 0;
        let mut cuda = 0;
        let mut wrapped = 0;
        let mut counted = BTreeSet::new();
        for holder in alive {
            let n = match holder {
                Holder::Storage(id) => {
                    let Some(info) = self.memory.storage(id) else {
                        continue;
                    };
                    // A window counts the storage it looks into.
                    let root = info.window.map_or(id, |(base, _)| base);
                    if !counted.insert(root) {
                        continue;
                    }
                    match self.memory.storage(root) {
                        Some(info) => info.nbytes as u64,
                        None => continue,
                    }
                }
                Holder::Wrapped(..) => {
                    wrapped += 8;
                    8
                }
            };
            bytes += n;
            cuda += cuda_rounded(n);
        }
        (bytes, cuda, wrapped)
    }

    /// The memory of the step being finished (a sub-step when `!top`): the walk from the
    /// names (and, inside a block, every frame and what running statements hold), the unit's
    /// peak, and what changed since the step before.
    pub(crate) fn step_memory(&mut self, top: bool) -> StepMemory {
        let mut roots: Vec<(String, Value)> = self.scope.globals().to_vec();
        if !top {
            roots.extend(self.scope.frame_values());
            roots.extend(self.pins.iter().map(|v| (String::new(), v.clone())));
        }
        let mut walk = Walk::default();
        for (name, value) in &roots {
            self.walk_value(&mut walk, name, value);
        }
        let live_bytes: u64 = walk.holders.values().map(|f| f.bytes).sum();
        let mut categories = BTreeMap::new();
        for found in walk.holders.values() {
            *categories.entry(found.category).or_insert(0) += found.bytes;
        }
        let storages: Vec<StorageRole> = walk
            .holders
            .iter()
            .filter_map(|(holder, found)| match holder {
                Holder::Storage(id) => Some(StorageRole {
                    storage: self.memory.storage_key(*id),
                    bytes: found.bytes,
                    category: Some(found.category),
                    held_by: found.held_by.clone(),
                    saved_by: found.saved_by.clone(),
                    shape: found.shape.clone(),
                    dtype: found.dtype,
                    meta: found.meta,
                }),
                Holder::Wrapped(..) => None,
            })
            .collect();
        let cuda_live: u64 = walk.holders.values().map(|f| cuda_rounded(f.bytes)).sum();
        let unit = self.accounting.units.pop();
        let (peak, peak_cuda, peak_line) = match &unit {
            Some(u) => (
                (u.before + u.rise).max(live_bytes),
                (cuda_rounded_sum_before(u, &self.accounting) + u.rise_cuda).max(cuda_live),
                u.line,
            ),
            None => (live_bytes, cuda_live, None),
        };
        let previous = if top {
            &self.accounting.after_top
        } else {
            &self.accounting.after_last
        };
        let changes = self.changes(previous, &storages);
        if top {
            self.accounting.after_top = storages.clone();
            self.accounting.live_top = live_bytes;
        }
        self.accounting.after_last = storages.clone();
        self.accounting.live_last = live_bytes;
        StepMemory {
            live_bytes,
            peak_bytes: Some(peak),
            categories,
            saved: distinct_saved(walk.saved),
            storages,
            changes,
            cuda: CudaBytes {
                live_bytes: cuda_live,
                peak_bytes: peak_cuda,
            },
            peak_line,
        }
    }

    /// The tracker's lines: what appeared and what was freed between `before` and `after`.
    fn changes(&self, before: &[StorageRole], after: &[StorageRole]) -> Vec<MemoryChange> {
        let old: BTreeMap<StorageId, &StorageRole> =
            before.iter().map(|r| (r.storage, r)).collect();
        let new: BTreeMap<StorageId, &StorageRole> = after.iter().map(|r| (r.storage, r)).collect();
        let mut out = Vec::new();
        for role in after.iter().filter(|r| !old.contains_key(&r.storage)) {
            out.push(MemoryChange {
                sign: '+',
                bytes: role.bytes,
                category: role.category,
                storage: role.storage,
                what: describe(role),
                reason: None,
                name: role.held_by.first().cloned(),
            });
        }
        for role in before.iter().filter(|r| !new.contains_key(&r.storage)) {
            let reason = match role.category {
                Some(MemoryCategory::Saved) if self.accounting.backward_ran => FreeReason::Backward,
                Some(MemoryCategory::Gradient) if self.accounting.grads_dropped => {
                    FreeReason::ZeroGrad
                }
                _ => FreeReason::LastReference,
            };
            out.push(MemoryChange {
                sign: '-',
                bytes: role.bytes,
                category: role.category,
                storage: role.storage,
                what: describe(role),
                reason: Some(reason),
                name: role.held_by.first().cloned(),
            });
        }
        out
    }

    /// Walks `value`, reached by `path` (see the module's docs).
    fn walk_value(&self, walk: &mut Walk, path: &str, value: &Value) {
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

/// The peak's level before a unit as on a CUDA device: the live bytes then, rounded per
/// storage (the walk's rounding of the step before).
fn cuda_rounded_sum_before(unit: &Unit, accounting: &Accounting) -> u64 {
    let roles = &accounting.after_last;
    let sum: u64 = roles.iter().map(|r| cuda_rounded(r.bytes)).sum();
    if roles.iter().map(|r| r.bytes).sum::<u64>() == unit.before {
        sum
    } else {
        cuda_rounded(unit.before)
    }
}

/// One entry per distinct (node, slot, shape, dtype), as the oracle's set lists them.
fn distinct_saved(saved: BTreeSet<SavedRecord>) -> Vec<SavedRecord> {
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

/// A saved slot as the accounting sees it.
pub(crate) enum SavedSlotRef<'a> {
    /// A tensor (an input or the output).
    Tensor(&'a crate::interp::torch::autograd::SavedTensor),
    /// A Python number, wrapped in a 0-d tensor of this dtype.
    Number(DType),
}

/// What a tracker line says of a storage: `Parameter (512, 512, 3, 3) float32`.
fn describe(role: &StorageRole) -> String {
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
