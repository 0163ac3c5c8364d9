//! Memory: the storages alive now, the fake but stable addresses `data_ptr()` reports, the
//! first variable that held each storage, the windows of another storage's memory, the
//! memory limit, and freeing what no variable reaches.
//!
//! [`reach`] is the one place that knows what holds a tensor: a new kind of value that
//! holds tensors (a class instance, an `nn.Module`, an optimizer) is one more arm there, and
//! its tensors then live exactly as long as the value does.

use std::collections::{BTreeMap, BTreeSet};

use crate::core::print::human_bytes;
use crate::core::tensor::{DType, ScriptError, StorageId, Tensor};
use crate::engines::meta::MetaTable;
use crate::engines::window::WindowTable;
use crate::engines::Engine;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// Per-storage facts the evaluator keeps beside the engine.
#[derive(Clone, Debug)]
pub(crate) struct StorageInfo {
    /// The dtype the storage is drawn as (a complex storage as its float halves).
    pub(crate) dtype: DType,
    /// Its size in bytes.
    pub(crate) nbytes: usize,
    /// The fake but stable address `data_ptr()` reports.
    pub(crate) base_address: u64,
    /// Made by `empty`/`empty_like`/`empty_strided` and never written since.
    pub(crate) uninitialized: bool,
    /// For a window of another storage's bytes (`torch.from_numpy` of an array that starts
    /// inside its memory): that storage and the byte where the window starts.
    pub(crate) window: Option<(StorageId, usize)>,
    /// On the meta device: a size but no bytes (nothing allocated, no values).
    pub(crate) meta: bool,
    /// When it was registered: storages are numbered in the order they were made, so a
    /// collection inside a function can spare what existed when the function was entered
    /// (see [`Memory::collect`]).
    pub(crate) born: u64,
}

/// The storages alive now and what the evaluator knows of each (see the module's docs).
pub(crate) struct Memory {
    /// Every live storage, by id.
    pub(super) storages: BTreeMap<StorageId, StorageInfo>,
    /// The address the next non-empty storage gets.
    next_address: u64,
    /// The variable that first held each storage (the trace's `owner`).
    owners: BTreeMap<StorageId, String>,
    /// The windows of the engine (a `WindowEngine` around the evaluator's engine).
    pub(super) windows: WindowTable,
    /// The version counter of each storage written in place (`t._version`).
    versions: BTreeMap<StorageId, u64>,
    /// The meta storages of the engine (a `MetaEngine` inside the evaluator's engine).
    pub(crate) meta: MetaTable,
    /// Storages registered so far (the next one's [`StorageInfo::born`]).
    births: u64,
    /// Bytes of every registered storage not freed yet (windows and meta included): a bound
    /// of what is alive, kept as storages come and go.
    pub(super) registered_bytes: u64,
}

impl Memory {
    /// No storage yet; `windows` is the table of the engine's windows, `meta` of its meta
    /// storages.
    pub(crate) fn new(windows: WindowTable, meta: MetaTable) -> Memory {
        Memory {
            storages: BTreeMap::new(),
            next_address: 0x5581_2a40_0000,
            owners: BTreeMap::new(),
            windows,
            versions: BTreeMap::new(),
            meta,
            births: 0,
            registered_bytes: 0,
        }
    }

    /// How many storages were registered so far: a storage with a greater
    /// [`StorageInfo::born`] was made after this moment.
    pub(crate) fn births(&self) -> u64 {
        self.births
    }

    /// The next storage's birth number.
    pub(super) fn next_birth(&mut self) -> u64 {
        self.births += 1;
        self.births
    }

    /// What is known of live storage `id`.
    pub(crate) fn storage(&self, id: StorageId) -> Option<&StorageInfo> {
        self.storages.get(&id)
    }

    /// How many storages are registered.
    pub(crate) fn storage_count(&self) -> usize {
        self.storages.len()
    }

    /// Whether storage `id` is alive.
    pub(crate) fn is_live(&self, id: StorageId) -> bool {
        self.storages.contains_key(&id)
    }

    /// Every live storage in id order.
    pub(crate) fn storages(&self) -> impl Iterator<Item = (StorageId, &StorageInfo)> {
        self.storages.iter().map(|(id, info)| (*id, info))
    }

    /// Whether storage `id` is on the meta device.
    pub(crate) fn is_meta(&self, id: StorageId) -> bool {
        self.storages.get(&id).is_some_and(|s| s.meta)
    }

    /// Bytes of every live storage that holds bytes (windows and meta storages allocate
    /// nothing): what the memory limit counts.
    pub(crate) fn host_bytes(&self) -> usize {
        self.storages
            .values()
            .filter(|s| s.window.is_none() && !s.meta)
            .map(|s| s.nbytes)
            .sum()
    }

    /// Bytes of every live storage (windows allocate nothing; meta storages count their
    /// size, as PyTorch counts them).
    pub(crate) fn live_bytes(&self) -> usize {
        self.storages
            .values()
            .filter(|s| s.window.is_none())
            .map(|s| s.nbytes)
            .sum()
    }

    /// Refuses an allocation of `nbytes` that would pass `limit` bytes alive at once.
    pub(crate) fn check(&self, nbytes: usize, limit: usize, what: &str) -> R<()> {
        let live = self.host_bytes();
        if nbytes > limit.saturating_sub(live) {
            return Err(ScriptError::Runtime(format!(
                "{what}: not enough memory: you tried to allocate {nbytes} bytes ({}), but Stridescope's memory limit is {} with {} in use. Use smaller shapes (the limit keeps a browser tab alive).",
                human_bytes(nbytes as u64),
                human_bytes(limit as u64),
                human_bytes(live as u64)
            )));
        }
        Ok(())
    }

    /// PyTorch allocates no memory for a 0-byte storage: its data pointer is null, so every
    /// empty storage is the same address. Empty allocations share one live storage (whose
    /// `data_ptr()` is 0) so that storage identity matches what PyTorch reports.
    pub(crate) fn live_empty_storage(&self, nbytes: usize) -> Option<StorageId> {
        if nbytes != 0 {
            return None;
        }
        self.storages
            .iter()
            .find(|(_, info)| info.nbytes == 0 && info.window.is_none() && !info.meta)
            .map(|(id, _)| *id)
    }

    /// Registers a storage the engine just allocated, giving it the next address.
    pub(crate) fn register(&mut self, id: StorageId, nbytes: usize, dtype: DType) {
        let base_address = if nbytes == 0 { 0 } else { self.next_address };
        if nbytes > 0 {
            self.next_address += (nbytes as u64).div_ceil(64) * 64 + 64;
        }
        let born = self.next_birth();
        self.registered_bytes += nbytes as u64;
        self.storages.insert(
            id,
            StorageInfo {
                // A complex storage is drawn as its float halves (real, imaginary in turn).
                dtype: dtype.real_part(),
                nbytes,
                base_address,
                uninitialized: false,
                window: None,
                meta: false,
                born,
            },
        );
    }

    /// Registers a meta storage: its address is 0 (PyTorch's meta tensors report a null
    /// `data_ptr()`), and it is never drawn as uninitialized memory.
    pub(crate) fn register_meta(&mut self, id: StorageId, nbytes: usize, dtype: DType) {
        let born = self.next_birth();
        self.registered_bytes += nbytes as u64;
        self.storages.insert(
            id,
            StorageInfo {
                dtype: dtype.real_part(),
                nbytes,
                base_address: 0,
                uninitialized: false,
                window: None,
                meta: true,
                born,
            },
        );
    }

    /// The version counter of storage `id` (`t._version`; 0 for a storage not known).
    pub(crate) fn version(&self, id: StorageId) -> u64 {
        self.versions.get(&id).copied().unwrap_or(0)
    }

    /// Sets the version counter of storage `id` (a write through `x.data` counts apart).
    pub(crate) fn set_version(&mut self, id: StorageId, version: u64) {
        self.versions.insert(id, version);
    }

    /// Marks a fresh storage as uninitialized memory (`torch.empty`): drawn as such until a
    /// write; its bytes read as zeros.
    pub(crate) fn mark_uninitialized(&mut self, id: StorageId) {
        // A meta storage has no memory, initialized or not.
        if let Some(info) = self.storages.get_mut(&id).filter(|i| !i.meta) {
            info.uninitialized = true;
        }
    }

    /// Marks storage `id` as written (no longer uninitialized).
    pub(crate) fn mark_written(&mut self, id: StorageId) {
        if let Some(info) = self.storages.get_mut(&id) {
            info.uninitialized = false;
        }
    }

    /// The variable that first held storage `id`.
    pub(crate) fn owner(&self, id: StorageId) -> Option<&String> {
        self.owners.get(&id)
    }

    /// Makes `name` the owner of storage `id` unless it has one.
    pub(crate) fn claim(&mut self, id: StorageId, name: &str) {
        self.owners.entry(id).or_insert_with(|| name.to_string());
    }

    /// Forgets the owners of freed storages.
    pub(crate) fn forget_dead_owners(&mut self) {
        let storages = &self.storages;
        self.owners.retain(|id, _| storages.contains_key(id));
        self.versions.retain(|id, _| storages.contains_key(id));
    }

    /// Frees every storage made after birth `floor` (see [`StorageInfo::born`]; 0 for all)
    /// that no value of `roots` reaches (see [`reach`]), and the engine's memory with it.
    pub(crate) fn collect<'a>(
        &mut self,
        roots: impl IntoIterator<Item = &'a Value>,
        floor: u64,
        engine: &mut dyn Engine,
    ) {
        let mut live = BTreeSet::new();
        for value in roots {
            reach(value, &mut live);
        }
        // A window keeps the memory it looks into.
        let bases: Vec<StorageId> = live
            .iter()
            .filter_map(|id| self.storages.get(id).and_then(|i| i.window))
            .map(|(base, _)| base)
            .collect();
        live.extend(bases);
        let dead: Vec<StorageId> = self
            .storages
            .iter()
            .filter(|(id, info)| info.born > floor && !live.contains(id))
            .map(|(id, _)| *id)
            .collect();
        for id in dead {
            if let Some(info) = self.storages.remove(&id) {
                self.registered_bytes = self.registered_bytes.saturating_sub(info.nbytes as u64);
            }
            engine.free(id);
        }
    }
}

/// Adds every storage `value` keeps alive to `live`: the one place that knows what holds a
/// tensor. The match names every kind of value, so a new kind must say what it holds.
pub(crate) fn reach(value: &Value, live: &mut BTreeSet<StorageId>) {
    let mut walk = Reach {
        live,
        seen: BTreeSet::new(),
        pending: Vec::new(),
    };
    walk.value(value);
    // Instances and classes are walked from a list, not by recursion: a chain of 10^5
    // instances (a linked list) is walked without a deep native stack.
    while let Some(object) = walk.pending.pop() {
        match &object {
            Value::Instance(object) => {
                walk.attrs(&object.attrs);
                if let Some(state) = object.module.borrow().as_ref() {
                    state.values().iter().for_each(|v| walk.value(v));
                }
                walk.value(&Value::Class(std::rc::Rc::clone(&object.class)));
            }
            Value::Class(class) => {
                walk.attrs(&class.attrs);
                if let Some(base) = &class.base {
                    walk.value(&Value::Class(std::rc::Rc::clone(base)));
                }
            }
            _ => walk.value(&object),
        }
    }
}

/// The reachability walk: the storages found, and the instances and classes already walked
/// (an instance may hold itself: `self.me = self`).
struct Reach<'a> {
    live: &'a mut BTreeSet<StorageId>,
    seen: BTreeSet<usize>,
    /// The instances and classes found but not walked yet.
    pending: Vec<Value>,
}

impl Reach<'_> {
    /// Whether the object at `ptr` is walked for the first time.
    fn first_visit<T>(&mut self, object: &std::rc::Rc<T>) -> bool {
        self.seen
            .insert(std::rc::Rc::as_ptr(object) as *const () as usize)
    }

    /// Walks the attributes of an instance or a class.
    fn attrs(&mut self, attrs: &std::cell::RefCell<Vec<(String, Value)>>) {
        // A borrow held by a running statement cannot happen here (the walk runs between
        // statements); were it held, the attributes would be skipped, never panicked on.
        if let Ok(attrs) = attrs.try_borrow() {
            attrs.iter().for_each(|(_, v)| self.value(v));
        }
    }

    /// Walks one value (see [`reach`]).
    fn value(&mut self, value: &Value) {
        match value {
            Value::Tensor(t) | Value::NdArray(t) => {
                let object = t.borrow();
                self.live.insert(object.tensor.storage);
                // A leaf's `.grad` lives as long as the leaf, and the autograd graph behind
                // `grad_fn` keeps the tensors it saved.
                if let Some(g) = &object.grad {
                    self.live.insert(g.borrow().tensor.storage);
                }
                if let Some(node) = &object.grad_fn {
                    crate::interp::torch::autograd::graph_storages(node, self.live, &mut self.seen);
                }
            }
            Value::Storage(id, _) => {
                self.live.insert(*id);
            }
            Value::Tuple(items) | Value::List(items) => items.iter().for_each(|i| self.value(i)),
            Value::Dict(entries) | Value::OrderedDict(entries) => {
                entries.iter().for_each(|(k, v)| {
                    self.value(k);
                    self.value(v);
                })
            }
            Value::NamedTuple(_, fields) => fields.iter().for_each(|(_, v)| self.value(v)),
            Value::Method(receiver, _) => self.value(receiver),
            Value::Function(f) => {
                f.defaults.iter().flatten().for_each(|v| self.value(v));
                f.closure.iter().for_each(|(_, v)| self.value(v));
            }
            // An instance holds its attributes and its class; a class its attributes and
            // its base (walked by `reach` from `pending`).
            Value::Instance(object) => {
                if self.first_visit(object) {
                    self.pending.push(value.clone());
                }
            }
            Value::Class(class) => {
                if self.first_visit(class) {
                    self.pending.push(value.clone());
                }
            }
            Value::BoundMethod(receiver, f) => {
                self.value(receiver);
                f.defaults.iter().flatten().for_each(|v| self.value(v));
            }
            Value::StaticMethod(f) | Value::ClassMethod(f) => self.value(f),
            Value::GradFn(f) => f.storages(self.live, &mut self.seen),
            Value::ModeWrapped(_, f) => self.value(f),
            Value::Super(class, receiver) => {
                self.value(&Value::Class(std::rc::Rc::clone(class)));
                self.value(receiver);
            }
            Value::None
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Float(_)
            | Value::Complex(..)
            | Value::Str(_)
            | Value::Ellipsis
            | Value::Slice(..)
            | Value::Size(_)
            | Value::DType(_)
            | Value::MemoryFormat(_)
            | Value::Device(_)
            | Value::Torch
            | Value::Module(_)
            | Value::Generator
            | Value::Range(..)
            | Value::Printed(_)
            | Value::NpScalar(..)
            | Value::NpDType(_)
            | Value::ReadMode(_)
            | Value::TypeInfo(_)
            | Value::GradMode(_)
            | Value::InferenceMode(_)
            | Value::SetGradEnabled(_)
            | Value::Autocast(_)
            | Value::HookHandle(_)
            | Value::ExceptionType(_)
            | Value::Exception(_) => {}
        }
    }
}

impl Evaluator {
    /// Refuses an allocation of `nbytes` that would pass the memory limit.
    pub(crate) fn check_memory(&self, nbytes: usize, what: &str) -> R<()> {
        // An op on the meta device allocates nothing.
        if self.torch.device.meta_op {
            return Ok(());
        }
        self.memory.check(nbytes, self.limits.memory_bytes, what)
    }

    /// Allocates a storage for a new tensor, enforcing the memory limit (on the meta device
    /// while an op on meta tensors runs: then nothing is allocated nor counted).
    pub(crate) fn allocate(&mut self, nbytes: usize, dtype: DType, what: &str) -> R<StorageId> {
        if self.torch.device.meta_op {
            return Ok(self.allocate_meta(nbytes, dtype));
        }
        if let Some(id) = self
            .memory
            .live_empty_storage(nbytes)
            .filter(|_| !self.torch.device.cuda_op)
        {
            return Ok(id);
        }
        self.check_memory(nbytes, what)?;
        let id = self.engine.allocate(nbytes);
        self.register_storage(id, nbytes, dtype);
        Ok(id)
    }

    /// Creates a storage holding `bytes`.
    pub(crate) fn allocate_with(
        &mut self,
        bytes: Vec<u8>,
        dtype: DType,
        what: &str,
    ) -> R<StorageId> {
        let nbytes = bytes.len();
        if self.torch.device.meta_op {
            return Ok(self.allocate_meta(nbytes, dtype));
        }
        if let Some(id) = self
            .memory
            .live_empty_storage(nbytes)
            .filter(|_| !self.torch.device.cuda_op)
        {
            return Ok(id);
        }
        self.check_memory(nbytes, what)?;
        let id = self.engine.allocate_with(bytes);
        self.register_storage(id, nbytes, dtype);
        Ok(id)
    }

    /// Makes a meta storage of `nbytes` bytes: no memory, no limit, no values.
    pub(crate) fn allocate_meta(&mut self, nbytes: usize, dtype: DType) -> StorageId {
        let id = crate::engines::meta::allocate_meta(&mut *self.engine, &self.memory.meta, nbytes);
        self.memory.register_meta(id, nbytes, dtype);
        // Nothing is allocated: the step's allocated bytes do not grow.
        self.recorder.note_allocation(id, 0);
        self.torch.autograd.note_storage(id);
        // Counted as on a device all the same (a meta model's memory is the question).
        self.note_allocated(id);
        id
    }

    /// Registers a fresh storage in memory and in the running step's allocations.
    fn register_storage(&mut self, id: StorageId, nbytes: usize, dtype: DType) {
        self.memory.register(id, nbytes, dtype);
        self.recorder.note_allocation(id, nbytes);
        self.torch.autograd.note_storage(id);
        if self.torch.device.cuda_op {
            self.torch.device.cuda_storages.insert(id);
        }
        self.note_allocated(id);
        if self.torch.device.cuda_op {
            self.note_cuda_allocated();
        }
    }

    /// Records that `view`'s elements were written.
    pub(crate) fn note_write(&mut self, view: &Tensor) {
        self.memory.mark_written(view.storage);
        // A write through a window is a write into the memory it looks into.
        if let Some(root) = self.memory.window_root_view(view) {
            self.note_write(&root);
            if !self.memory.has_storage_record(view.storage) {
                return;
            }
        }
        if self.recorder.is_new(view.storage) {
            return;
        }
        // An in-place write bumps the version counter autograd checks saved tensors against.
        *self.memory.versions.entry(view.storage).or_insert(0) += 1;
        if self.memory.is_meta(view.storage) {
            return;
        }
        let cap = self.limits.max_recorded_elements;
        let (numel, offset) = (view.layout.numel(), view.layout.offset);
        if view.layout.is_contiguous() && offset >= 0 && numel >= 0 {
            let n = (numel as usize).min(cap);
            let size = view.dtype.item_size();
            self.recorder
                .writes
                .note_range(view.storage, size, offset as usize, n, cap);
            return;
        }
        self.recorder.writes.note(
            view.storage,
            view.dtype.item_size(),
            view.layout.offsets().take(cap),
            cap,
        );
    }

    /// Frees every storage no variable reaches (between top-level statements).
    pub(crate) fn collect_garbage(&mut self) {
        let roots = self.scope.globals().iter().map(|(_, v)| v);
        self.memory.collect(roots, 0, &mut *self.engine);
    }

    /// Frees, between two statements of a block (a loop's body, a function's), what
    /// nothing can reach any more, as CPython frees a value when its last reference goes.
    /// The roots are every name (globals and the frames of the functions running now),
    /// what the running statements hold ([`Evaluator::pins`]: a loop's items, a `with`'s
    /// manager) and `flow`'s value (a `return` on its way out). Inside a function, only
    /// storages made since the innermost call began are candidates: what the callers'
    /// half-evaluated expressions hold is older than that.
    pub(crate) fn collect_in_block(&mut self, flow: Option<&Value>) {
        let floor = self.gc_floors.last().copied().unwrap_or(0);
        if self.memory.births() == floor {
            return;
        }
        let roots = self.scope.all_values().chain(self.pins.iter()).chain(flow);
        self.memory.collect(roots, floor, &mut *self.engine);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use crate::core::tensor::StorageId;
    use crate::interp::runtime::memory::reach;
    use crate::interp::trace_script;
    use crate::interp::value::Value;

    /// The storages each step leaves alive, in bytes.
    fn live_bytes(script: &str) -> Vec<usize> {
        let trace = trace_script(script);
        trace.steps.iter().map(|s| s.live_bytes).collect()
    }

    #[test]
    fn containers_reach_what_they_hold() {
        let tensor = |n: u32| Value::Storage(StorageId(n), None);
        let value = Value::List(vec![
            Value::Tuple(vec![tensor(1)]),
            Value::Dict(vec![(Value::Str("k".into()), tensor(2))]),
            Value::NamedTuple("max".into(), vec![("values".into(), tensor(3))]),
            Value::Method(Box::new(tensor(4)), "stride".into()),
            Value::OrderedDict(vec![(Value::Str("k".into()), tensor(5))]),
            Value::Int(7),
        ]);
        let mut live = BTreeSet::new();
        reach(&value, &mut live);
        assert_eq!(live, (1..=5).map(StorageId).collect());
    }

    #[test]
    fn a_storage_lives_while_any_value_holds_it() {
        let script = "import torch
import torch.nn as nn
x = torch.zeros(2)
keep = [{'a': (x,)}]
del x
f = lambda t=keep: t
del keep
del f
layer = nn.Softmax(dim=torch.tensor(0))
del layer";
        // zeros(2) is 8 bytes; the layer's tensor(0) another 8.
        assert_eq!(live_bytes(script), [0, 0, 8, 8, 8, 8, 8, 0, 8, 0]);
    }

    /// The bytes alive after each sub-step of the script's last step.
    fn substep_live_bytes(script: &str) -> Vec<usize> {
        let trace = trace_script(script);
        let last = trace.steps.last().expect("a step");
        assert_eq!(last.error, None);
        last.substeps.iter().map(|s| s.live_bytes).collect()
    }

    #[test]
    fn a_loop_frees_what_its_last_iteration_dropped() {
        // 16 bytes a tensor: x, then y and z of the running iteration only.
        let script = "import torch
x = torch.zeros(4)
for i in range(3):
    y = x + 1
    z = y * 2";
        assert_eq!(substep_live_bytes(script), [32, 48, 48, 48, 48, 48]);
    }

    #[test]
    fn a_call_inside_an_expression_keeps_the_callers_temporaries() {
        // While the second call runs, the first call's result is held by the half-evaluated
        // `+` only; it must survive the collections inside the second call.
        let script = "import torch
x = torch.zeros(4)
def f(t):
    a = t + 1
    b = a * 2
    return b
w = f(x) + f(x)";
        let trace = trace_script(script);
        let last = trace.steps.last().expect("a step");
        assert_eq!(last.error, None);
        let w = last.tensors.iter().find(|t| t.name == "w").expect("w");
        let values: Vec<f64> = w.values.iter().flatten().map(|v| v.0.to_f64()).collect();
        assert_eq!(values, [4.0; 4]);
        // The first call: x, a, then b. The second: the first call's a and b are older than
        // the call, so they are spared (the first's `a` goes with the statement's end).
        assert_eq!(
            last.substeps
                .iter()
                .map(|s| s.live_bytes)
                .collect::<Vec<_>>(),
            [32, 48, 48, 64, 80, 80]
        );
    }

    #[test]
    fn a_leafs_grad_lives_with_the_leaf() {
        let script = "import torch
x = torch.ones(3, requires_grad=True)
(x * 2).sum().backward()
del x";
        assert_eq!(live_bytes(script), [0, 12, 24, 0]);
    }
}
