//! The recorder: what a statement leaves in the trace. While a statement runs it keeps the
//! step's allocations, new storages, writes, the `view` it explains, its sub-steps, what
//! `print` wrote, its warnings and the line that raised; when it ends, [`Evaluator::finish_step`]
//! records the state after it: the values of tensors and storages within the trace's budget
//! (`Limits::max_recorded_elements` and `max_recorded_total`).

use crate::core::trace::CreationKind;
use std::collections::{BTreeSet, HashMap, HashSet};

use crate::core::tensor::layout::ViewExplanation;
use crate::core::tensor::{StorageId, Tensor};
use crate::core::trace::{
    Creation, Step, StorageRecord, TensorRecord, TraceScalar, Values, WriteRecord,
};
use crate::interp::runtime::memory::StorageInfo;
use crate::interp::runtime::scope::BoundTensor;
use crate::interp::runtime::write_log::WriteLog;
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, Limits, ALWAYS_RECORDED};

/// Sub-steps recorded with their full state, per script; later ones still run, unrecorded.
/// A GPT-2-small-shaped model's construction and forward (12 blocks) take about 360; the
/// page's timeline draws a mark per recorded step.
pub(crate) const MAX_RECORDED_SUBSTEPS: usize = 1200;

/// Sub-steps one top-level statement may record (within [`MAX_RECORDED_SUBSTEPS`]): a long
/// loop early in a script leaves budget for the model's forward after it.
pub(crate) const MAX_STATEMENT_SUBSTEPS: usize = 400;

/// What the running statement leaves in the trace, and the trace's budget of values.
#[derive(Default)]
pub(crate) struct Recorder {
    /// Bytes allocated while the current statement runs.
    allocated: usize,
    /// Storages allocated while the current statement runs.
    new_storages: HashSet<StorageId>,
    /// The cells the current statement wrote into storages that existed before it.
    pub(crate) writes: WriteLog,
    /// Why the current statement's `view` failed, for drawing.
    pub(crate) explain: Option<ViewExplanation>,
    /// Sub-steps of the running top-level statement.
    pub(crate) substeps: Vec<Step>,
    /// Sub-steps recorded so far in the script (see [`MAX_RECORDED_SUBSTEPS`]).
    recorded_substeps: usize,
    /// Sub-steps recorded so far in the running top-level statement (see
    /// [`MAX_STATEMENT_SUBSTEPS`]).
    statement_substeps: usize,
    /// Values recorded so far (see [`Limits::max_recorded_total`]).
    recorded_values: usize,
    /// What `print` wrote during the running statement.
    pub(crate) stdout: String,
    /// The line inside a block where the running statement's exception was raised.
    pub(crate) error_line: Option<usize>,
    /// Warnings raised during the running top-level statement.
    warnings: Vec<String>,
    /// Warnings already shown in this script (Python shows these once per process).
    warned: BTreeSet<&'static str>,
    /// Whether the step being finished is a sub-step (see [`SUBSTEP_VALUES_BUDGET`]).
    pub(crate) in_substep: bool,
    /// Fresh values recorded in sub-steps so far (see [`SUBSTEP_VALUES_BUDGET`]).
    substep_values: usize,
    /// What the last recorded step showed, to share values that did not change.
    shown: Shown,
}

/// Fresh values (not shared with an earlier step) the sub-steps of a script may record in
/// all: a loop that rewrites big weights in every iteration stops recording their numbers
/// (the cells are still drawn) once this many were recorded. Top-level steps are bound by
/// [`Limits::max_recorded_total`] only.
pub(crate) const SUBSTEP_VALUES_BUDGET: usize = 1 << 20;

/// The values the last recorded step showed: each storage's with its bytes, each named
/// tensor's with its view. A step whose storage bytes (and view) are the same shares them.
#[derive(Default)]
struct Shown {
    storages: HashMap<StorageId, (Vec<u8>, Values)>,
    tensors: HashMap<String, (Tensor, Values)>,
}

/// A step's allocations, new storages and writes, set aside while a sub-step inside it
/// records its own (the enclosing step keeps the sum).
pub(crate) struct Accounts {
    /// Bytes allocated.
    allocated: usize,
    /// Storages allocated.
    new_storages: HashSet<StorageId>,
    /// Writes into storages that existed before.
    writes: WriteLog,
}

impl Recorder {
    /// Starts a top-level statement: nothing allocated, written, printed or warned yet.
    pub(crate) fn begin_statement(&mut self) {
        self.allocated = 0;
        self.new_storages.clear();
        self.writes = WriteLog::default();
        self.explain = None;
        self.substeps.clear();
        self.statement_substeps = 0;
        self.stdout.clear();
        self.warnings.clear();
        self.error_line = None;
    }

    /// Counts a storage of `nbytes` allocated by the running statement.
    pub(crate) fn note_allocation(&mut self, id: StorageId, nbytes: usize) {
        self.allocated += nbytes;
        self.new_storages.insert(id);
    }

    /// Whether the running statement allocated storage `id` (its writes are not recorded:
    /// the whole storage is new).
    pub(crate) fn is_new(&self, id: StorageId) -> bool {
        self.new_storages.contains(&id)
    }

    /// Appends what `print` wrote.
    pub(crate) fn print(&mut self, text: &str) {
        self.stdout.push_str(text);
    }

    /// Raises `warning` with the running statement.
    pub(crate) fn warn(&mut self, warning: String) {
        self.warnings.push(warning);
    }

    /// Raises `warning` the first time in this script (as the first call in a Python process
    /// does); it is shown with the running statement.
    pub(crate) fn warn_once(&mut self, warning: &'static str) {
        if self.warned.insert(warning) {
            self.warnings.push(warning.to_string());
        }
    }

    /// The running statement's warnings, taken for its step.
    pub(crate) fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Counts one more recorded sub-step: false once [`MAX_RECORDED_SUBSTEPS`] were in the
    /// script or [`MAX_STATEMENT_SUBSTEPS`] in the running top-level statement.
    pub(crate) fn count_substep(&mut self) -> bool {
        if self.recorded_substeps >= MAX_RECORDED_SUBSTEPS
            || self.statement_substeps >= MAX_STATEMENT_SUBSTEPS
        {
            return false;
        }
        self.recorded_substeps += 1;
        self.statement_substeps += 1;
        true
    }

    /// Sets the running step's accounts aside, so that a sub-step starts from none.
    pub(crate) fn set_aside(&mut self) -> Accounts {
        Accounts {
            allocated: std::mem::take(&mut self.allocated),
            new_storages: std::mem::take(&mut self.new_storages),
            writes: std::mem::take(&mut self.writes),
        }
    }

    /// A copy of the running (sub-)step's accounts.
    pub(crate) fn accounts(&self) -> Accounts {
        Accounts {
            allocated: self.allocated,
            new_storages: self.new_storages.clone(),
            writes: self.writes.clone(),
        }
    }

    /// Gives the enclosing step back its accounts, with the sub-step's added.
    pub(crate) fn merge(&mut self, outer: Accounts, inner: Accounts) {
        self.allocated = outer.allocated + inner.allocated;
        self.new_storages = outer.new_storages;
        self.new_storages.extend(inner.new_storages);
        self.writes = outer.writes;
        self.writes.extend(inner.writes);
    }

    /// Whether `n` more values may be recorded (and counts them when they may).
    pub(crate) fn may_record(&mut self, n: usize, limits: &Limits) -> bool {
        if n > limits.max_recorded_elements {
            return false;
        }
        let total = self.recorded_values.saturating_add(n);
        if n > ALWAYS_RECORDED && total > limits.max_recorded_total {
            return false;
        }
        if self.in_substep {
            let fresh = self.substep_values.saturating_add(n);
            if n > ALWAYS_RECORDED && fresh > SUBSTEP_VALUES_BUDGET {
                return false;
            }
            self.substep_values = fresh;
        }
        self.recorded_values = total;
        true
    }
}

impl Evaluator {
    /// The values of `view` (row-major), when the trace's budget allows them.
    pub(crate) fn record_values(&mut self, view: &Tensor) -> Option<Values> {
        // A meta tensor has no values.
        if self.memory.is_meta(view.storage) {
            return None;
        }
        if !self
            .recorder
            .may_record(view.numel().max(0) as usize, &self.limits)
        {
            return None;
        }
        let values: Vec<TraceScalar> = self
            .engine
            .values(view)
            .into_iter()
            .map(TraceScalar)
            .collect();
        Some(values.into())
    }

    /// The values of the tensor variable `name` (a view `view`): those of the last recorded
    /// step when its storage's bytes (`unchanged_storages`) and its view are the same
    /// (shared, and `true`), else freshly recorded within the budget.
    fn tensor_values(
        &mut self,
        name: &str,
        view: &Tensor,
        unchanged_storages: &HashSet<StorageId>,
    ) -> (Option<Values>, bool) {
        if unchanged_storages.contains(&view.storage) {
            if let Some((shown, values)) = self.recorder.shown.tensors.get(name) {
                if shown == view {
                    return (Some(values.clone()), true);
                }
            }
        }
        let values = self.record_values(view);
        match &values {
            Some(v) => {
                self.recorder
                    .shown
                    .tensors
                    .insert(name.to_string(), (view.clone(), v.clone()));
            }
            None => {
                self.recorder.shown.tensors.remove(name);
            }
        }
        (values, false)
    }

    /// The records of the live storages, with the values the budget allows (shared with the
    /// last recorded step where the bytes are the same), and the set of those unchanged.
    fn storage_records(&mut self) -> (Vec<StorageRecord>, HashSet<StorageId>) {
        let ids: Vec<(StorageId, StorageInfo)> = self
            .memory
            .storages()
            .map(|(k, v)| (k, v.clone()))
            .collect();
        let mut records = Vec::with_capacity(ids.len());
        let mut unchanged = HashSet::new();
        for (id, info) in ids {
            if !self.memory.has_storage_record(id) {
                continue;
            }
            let n = info.nbytes / info.dtype.item_size();
            let mut same = false;
            let values = if info.meta || n > self.limits.max_recorded_elements {
                None
            } else {
                let shown = self.recorder.shown.storages.get(&id);
                let budget = shown.is_some() || self.recorder.may_record(n, &self.limits);
                if !budget {
                    None
                } else {
                    let bytes = self.engine.read_storage(id);
                    match self.recorder.shown.storages.get(&id) {
                        Some((old, values)) if *old == bytes => {
                            same = true;
                            Some(values.clone())
                        }
                        was => {
                            // Changed bytes need budget of their own (a shown storage did
                            // not ask for it above).
                            if was.is_some() && !self.recorder.may_record(n, &self.limits) {
                                self.recorder.shown.storages.remove(&id);
                                None
                            } else {
                                let values: Values = (0..n)
                                    .map(|i| TraceScalar(info.dtype.read(&bytes, i)))
                                    .collect::<Vec<_>>()
                                    .into();
                                self.recorder
                                    .shown
                                    .storages
                                    .insert(id, (bytes, values.clone()));
                                Some(values)
                            }
                        }
                    }
                }
            };
            if same {
                unchanged.insert(id);
            }
            records.push(StorageRecord {
                owner: self.memory.owner(id).cloned(),
                id: self.memory.storage_key(id),
                dtype: info.dtype,
                nbytes: info.nbytes,
                values,
                device: info.meta.then(|| "meta".to_string()),
                uninitialized: info.uninitialized,
                unchanged: same,
            });
        }
        let memory = &self.memory;
        self.recorder
            .shown
            .storages
            .retain(|id, _| memory.is_live(*id));
        (records, unchanged)
    }

    /// Completes `step` with the state after it: every tensor and array variable, the
    /// tensors it created (`before` holds the bindings before it ran), the live storages,
    /// the writes, the bytes allocated and alive.
    pub(crate) fn finish_step(
        &mut self,
        mut step: Step,
        before: &[(String, Option<BoundTensor>)],
    ) -> Step {
        let vars: Vec<(String, TensorRef)> = self
            .scope
            .globals()
            .iter()
            .filter_map(|(n, v)| {
                if let Value::Tensor(t) = v {
                    Some((n.clone(), t.clone()))
                } else {
                    None
                }
            })
            .collect();
        for (name, t) in &vars {
            let storage = t.borrow().tensor.storage;
            self.memory.claim(storage, name);
        }
        self.memory.forget_dead_owners();
        step.explain = self.recorder.explain.take();
        self.record_arrays(&mut step);
        let (storage_records, unchanged_storages) = self.storage_records();
        for (name, t) in &vars {
            let obj = t.borrow().clone();
            let tensor = &obj.tensor;
            let info = self.memory.storage(tensor.storage).cloned();
            let (values, unchanged) = self.tensor_values(name, tensor, &unchanged_storages);
            step.tensors.push(TensorRecord {
                name: name.clone(),
                dtype: tensor.dtype,
                shape: tensor.layout.shape.clone(),
                stride: tensor.layout.strides.clone(),
                storage_offset: tensor.layout.offset,
                storage: self.memory.storage_key(tensor.storage),
                storage_nbytes: info.as_ref().map(|i| i.nbytes).unwrap_or(0),
                contiguous: tensor.layout.is_contiguous(),
                channels_last: tensor.layout.is_channels_last_contiguous(),
                element_size: tensor.dtype.item_size(),
                values,
                device: info.as_ref().filter(|i| i.meta).map(|_| "meta".to_string()),
                ndarray_strides: None,
                requires_grad: obj.requires_grad && obj.grad_fn.is_none(),
                grad_fn: obj.grad_fn.as_ref().map(|node| node.name().to_string()),
                unchanged,
            });
            let previous = before
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, t)| t.as_ref());
            let is_new = previous.map(|p| !p.is(t)).unwrap_or(true);
            if is_new && step.error.is_none() {
                let fresh = self.recorder.is_new(tensor.storage);
                let (kind, of) = if !fresh {
                    let sharers: Vec<String> = before
                        .iter()
                        .filter_map(|(n, bt)| bt.as_ref().map(|bt| (n, bt)))
                        .filter(|(_, bt)| {
                            self.memory.memory_root(bt.storage)
                                == self.memory.memory_root(tensor.storage)
                        })
                        .map(|(n, _)| n.clone())
                        .collect();
                    (CreationKind::View, sharers)
                } else if let Some(src) = obj.copied_from {
                    (CreationKind::Copy, vec![src.to_string()])
                } else {
                    (CreationKind::New, Vec::new())
                };
                step.created.push(Creation {
                    name: name.clone(),
                    op: obj.made_by.clone(),
                    kind,
                    storage: self.memory.storage_key(tensor.storage),
                    of,
                });
            }
        }
        step.storages = storage_records;
        let writes = std::mem::take(&mut self.recorder.writes);
        for (id, size, runs) in writes.records() {
            if self.memory.is_live(id) {
                step.writes.push(WriteRecord {
                    storage: self.memory.storage_key(id),
                    element_size: size,
                    runs,
                });
            }
        }
        step.allocated_bytes = self.recorder.allocated;
        step.live_bytes = self.memory.live_bytes();
        let top = !self.recorder.in_substep;
        step.memory = Some(self.step_memory(top));
        step
    }
}
