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
    CudaBytes, FreeReason, MemoryCategory, MemoryChange, StepMemory, StorageRole,
};
use crate::interp::runtime::memory_walk::{self, Walk};
use crate::interp::torch::autograd::objects::saved_tensors;
use crate::interp::torch::autograd::{GradNode, Saved, SavedObject};
use crate::interp::value::{TensorObject, TensorRef, Value};
use crate::interp::Evaluator;

/// PyTorch's CUDA caching allocator rounds every block up to a multiple of this many bytes
/// (`kMinBlockSize` in `c10/cuda/CUDACachingAllocator.cpp`).
pub(crate) const CUDA_BLOCK: u64 = 512;

/// `nbytes` as the CUDA caching allocator counts it for `torch.cuda.memory_allocated()`.
pub(crate) fn cuda_rounded(nbytes: u64) -> u64 {
    nbytes.div_ceil(CUDA_BLOCK) * CUDA_BLOCK
}

/// Hashes a pointer or a storage number by one multiplication (the walk's keys are
/// addresses and small integers: no adversary, and SipHash was a tenth of its time).
#[derive(Default)]
struct PtrHasher(u64);

impl std::hash::Hasher for PtrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

type PtrBuild = std::hash::BuildHasherDefault<PtrHasher>;
type PtrSet<K> = std::collections::HashSet<K, PtrBuild>;
type PtrMap<K, V> = HashMap<K, V, PtrBuild>;

thread_local! {
    /// Every tensor object made on this thread, weakly, with the run that made it.
    static OBJECTS: RefCell<Vec<(u64, Weak<RefCell<TensorObject>>)>> = const { RefCell::new(Vec::new()) };
    /// The run tensor objects made now belong to.
    static RUN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Every autograd node made on this thread, weakly, with the run that made it.
    static NODES: RefCell<Vec<(u64, Weak<GradNode>)>> = const { RefCell::new(Vec::new()) };
    /// The storages tensor objects were made on since the accounting last looked.
    static WRAPPED: RefCell<Vec<StorageId>> = const { RefCell::new(Vec::new()) };
}

/// Registers a new tensor object, so that [`Evaluator::alive_bytes`] sees it while anything
/// holds it.
pub(crate) fn register_object(object: &TensorRef) {
    let run = RUN.with(|r| r.get());
    OBJECTS.with(|o| o.borrow_mut().push((run, Rc::downgrade(object))));
    if let Ok(o) = object.try_borrow() {
        WRAPPED.with(|w| w.borrow_mut().push(o.tensor.storage));
    }
}

/// How many tensor objects of this run, alive now, are on `storage` (ATen's
/// `storage().use_count()`, as far as tensors go).
pub(crate) fn objects_on(storage: StorageId) -> usize {
    let run = RUN.with(|r| r.get());
    OBJECTS.with(|o| {
        o.borrow()
            .iter()
            .filter(|(r, w)| {
                *r == run
                    && w.upgrade().is_some_and(|t| {
                        t.try_borrow().map_or(true, |t| t.tensor.storage == storage)
                    })
            })
            .count()
    })
}

/// Registers a new autograd node: its references to tensor objects (its inputs) are
/// autograd's, not the script's, even while only the engine holds the node.
pub(crate) fn register_node(node: &Rc<GradNode>) {
    let run = RUN.with(|r| r.get());
    NODES.with(|n| n.borrow_mut().push((run, Rc::downgrade(node))));
}

/// A key of something that holds bytes: a storage, or a Python number an autograd node
/// wrapped in a 0-d tensor and saved (`x * 2` saves `other`, 8 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Holder {
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
    /// The next elementwise op's Python number is a wrapped-number tensor a node saved
    /// (allocated already): only its cast is a kernel buffer.
    pub(crate) prewrapped: bool,
    /// Storages allocated and not yet held by a tensor object.
    raw: Vec<StorageId>,
    /// Inside [`Evaluator::uncounted`]: how deep.
    uncounted: usize,
    /// Storages made inside [`Evaluator::uncounted`]: never counted alive.
    hidden: BTreeSet<StorageId>,
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
    /// The notebook is showing a bare expression's value: its repr runs after the
    /// statement, outside what PyTorch's profiler of the step sees.
    pub(crate) displaying: bool,
    /// `STRIDESCOPE_MEMORY_LOG` set: every allocation and the bytes alive then go to stderr.
    log: bool,
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
        NODES.with(|n| n.borrow_mut().retain(|(_, w)| w.strong_count() > 0));
        Accounting {
            run,
            log: std::env::var_os("STRIDESCOPE_MEMORY_LOG").is_some(),
            ..Accounting::default()
        }
    }

    /// Makes this run's tensor objects the ones registered from now on (a second evaluator
    /// on the same thread takes the registry over while it runs).
    pub(crate) fn activate(&self) {
        RUN.with(|r| r.set(self.run));
    }
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
            let memory = &self.memory;
            self.accounting.hidden.retain(|id| memory.is_live(*id));
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
        if self.accounting.uncounted > 0 {
            self.accounting.hidden.insert(id);
            return;
        }
        self.absorb_wrapped();
        self.accounting.raw.push(id);
        if self.accounting.log {
            let (alive, _, _) = self.alive_bytes();
            let nbytes = self.memory.storage(id).map_or(0, |i| i.nbytes);
            eprintln!(
                "line {}: +{nbytes} ({id}), alive {alive}, transient {}",
                self.accounting.line, self.accounting.transient
            );
        }
        self.measure_peak(0);
        // The kernel buffers noted before an op's output was allocated go with the op.
        self.accounting.transient = 0;
    }

    /// Notes that the op's internal copy in storage `id` (an input cast to the op's dtype),
    /// which no tensor object ever held, was freed as the kernel returned.
    pub(crate) fn release_raw(&mut self, id: StorageId) {
        self.accounting.raw.retain(|r| *r != id);
    }

    /// Notes a buffer of `nbytes` an ATen kernel allocates and frees while it runs (a wrapped
    /// Python scalar, its cast): alive now and during the op's next allocation.
    pub(crate) fn note_transient(&mut self, nbytes: u64) {
        if self.accounting.units.is_empty() || nbytes == 0 || self.accounting.uncounted > 0 {
            return;
        }
        // An output wrapped (and maybe dropped) since the last allocation is no longer raw.
        self.absorb_wrapped();
        self.accounting.transient += nbytes;
        // The wrapped number may be saved by the op's node (8 bytes, 16 for a complex).
        self.accounting.wrapped_bound += 16;
        self.measure_peak(0);
    }

    /// Storages now held by tensor objects are alive as those are, not as raw outputs.
    fn absorb_wrapped(&mut self) {
        let wrapped = WRAPPED.with(|w| std::mem::take(&mut *w.borrow_mut()));
        if !wrapped.is_empty() {
            self.accounting.raw.retain(|r| !wrapped.contains(r));
        }
    }

    /// Notes the buffers an ATen op allocates and frees inside itself after what is alive now,
    /// in order (`+n` allocated, `-n` freed): the most they held at once joins the peak.
    pub(crate) fn note_kernel_events(&mut self, events: &[i64]) {
        let mut held = 0i64;
        let mut most = 0i64;
        for e in events {
            held += e;
            most = most.max(held);
        }
        self.note_transient(most as u64);
        self.end_transient();
    }

    /// Runs `f`, whose allocations PyTorch's kernel does not make (the parts of a formula
    /// ATen computes in one kernel: `threshold_backward`'s mask): they are not counted.
    pub(crate) fn uncounted<T>(&mut self, f: impl FnOnce(&mut Evaluator) -> T) -> T {
        self.accounting.uncounted += 1;
        let out = f(self);
        self.accounting.uncounted -= 1;
        out
    }

    /// Notes that a `backward()` frees the graph it runs through (the changes list says so).
    pub(crate) fn note_graph_freed(&mut self) {
        self.accounting.backward_ran = true;
    }

    /// Notes that `zero_grad()` set gradients to `None` (the changes list says so).
    pub(crate) fn note_grads_dropped(&mut self) {
        self.accounting.grads_dropped = true;
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
        let alive = self.alive_holders();
        let mut bytes = 0;
        let mut cuda = 0;
        let mut wrapped = 0;
        let mut counted: PtrSet<StorageId> = PtrSet::default();
        for holder in alive {
            let n = match holder {
                Holder::Storage(id) if self.accounting.hidden.contains(&id) => continue,
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

    /// The storages alive now, as [`Evaluator::alive_bytes`] counts them (windows as
    /// themselves, storages made uncounted left out).
    pub(crate) fn alive_storages(&self) -> BTreeSet<StorageId> {
        self.alive_holders()
            .into_iter()
            .filter_map(|h| match h {
                Holder::Storage(id) if !self.accounting.hidden.contains(&id) => Some(id),
                _ => None,
            })
            .collect()
    }

    /// What holds bytes now (see [`Evaluator::alive_bytes`]).
    /// A list sorted and without repeats: the walk collects into vectors and hash sets
    /// keyed by pointers (it runs at every allocation that may make a peak).
    fn alive_holders(&self) -> Vec<Holder> {
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
        let mut internal: PtrMap<usize, usize> = PtrMap::default();
        let mut alive: Vec<Holder> = Vec::new();
        let mut seen: PtrSet<usize> = PtrSet::default();
        let mut pending: Vec<Rc<GradNode>> = NODES.with(|n| {
            let mut n = n.borrow_mut();
            n.retain(|(_, w)| w.strong_count() > 0);
            n.iter()
                .filter(|(r, _)| *r == run)
                .filter_map(|(_, w)| w.upgrade())
                .collect()
        });
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
                            None => alive.push(Holder::Storage(t.tensor.storage)),
                        }
                    }
                }
                if let Saved::Tensor(s) = &operand.saved {
                    if let SavedObject::Input(t) = &s.object {
                        *internal.entry(Rc::as_ptr(t) as usize).or_default() += 1;
                    }
                }
            }
            for (_, saved) in node.extras.get().into_iter().flatten() {
                if let Saved::Tensor(s) = saved {
                    if let SavedObject::Input(t) = &s.object {
                        *internal.entry(Rc::as_ptr(t) as usize).or_default() += 1;
                    }
                }
            }
            if !node.freed.get() {
                for (i, (_, slot)) in saved_tensors(&node).into_iter().enumerate() {
                    match slot {
                        SavedSlotRef::Tensor(s) if !matches!(s.object, SavedObject::Packed(_)) => {
                            alive.push(Holder::Storage(s.tensor.storage));
                        }
                        SavedSlotRef::Tensor(s) => {
                            let mut live = BTreeSet::new();
                            crate::interp::torch::autograd::saved_hooks::saved_storages(
                                s, &mut live,
                            );
                            alive.extend(live.into_iter().map(Holder::Storage));
                        }
                        SavedSlotRef::Number(_) => {
                            alive.push(Holder::Wrapped(Rc::as_ptr(&node) as *const () as usize, i));
                        }
                    }
                }
            }
        }
        let mut wrapped: PtrSet<StorageId> = PtrSet::default();
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
                    alive.push(Holder::Storage(o.tensor.storage));
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
        alive.sort_unstable();
        alive.dedup();
        alive
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
            saved: memory_walk::distinct_saved(walk.saved),
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
                what: memory_walk::describe(role),
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
                what: memory_walk::describe(role),
                reason: Some(reason),
                name: role.held_by.first().cloned(),
            });
        }
        out
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

/// A saved slot as the accounting sees it.
pub(crate) enum SavedSlotRef<'a> {
    /// A tensor (an input or the output).
    Tensor(&'a crate::interp::torch::autograd::SavedTensor),
    /// A Python number, wrapped in a 0-d tensor of this dtype.
    Number(DType),
}
