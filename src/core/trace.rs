//! The trace: one record per statement, with everything a view of the run needs.
//! Its JSON form is the oracle's contract (`../shared/oracle/README.md`) plus extra fields.
//!
//! In memory the trace is typed: dtypes are [`DType`]s, storages are [`StorageId`]s (the
//! evaluator's id of the storage whose record holds the cells), creation kinds are
//! [`CreationKind`]s. Serialized, they are the contract's strings (`"float32"`, `"s0"`,
//! `"view"`), so nothing downstream ever parses them back.

use std::sync::Arc;

use serde::{Serialize, Serializer};

use crate::core::tensor::{DType, Scalar, StorageId};

/// Serializes a dtype as the trace names it (`float32`, `int64`, ...).
fn dtype_name<S: Serializer>(dtype: &DType, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(dtype.name())
}

/// Serializes a storage as the trace names it (`s0`, `s1`, ...).
fn storage_name<S: Serializer>(id: &StorageId, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(id)
}

/// A whole run of a script.
#[derive(Clone, Debug, Serialize, Default)]
pub struct Trace {
    /// The engine that ran the ops (`cpu`, or the GPU adapter).
    pub engine: String,
    pub steps: Vec<Step>,
    /// The model summary by layer, when the script called a module.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<ModelSummary>,
}

/// What one statement did, and the state after it.
#[derive(Clone, Debug, Serialize, Default)]
pub struct Step {
    /// 1-based line of the statement.
    pub line: usize,
    /// 1-based column of the error, for syntax errors and errors placed in the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    pub source: String,
    /// `"<Type>: <first line of the message>"` as the oracle records the exception, or null
    /// (set with [`Step::set_error`]).
    pub error: Option<String>,
    /// The message's further lines, when it has some (`load_state_dict`'s missing keys).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_detail: Option<String>,
    /// The notebook's output of a bare expression (Python `repr`), or what the statement
    /// printed; null when neither.
    pub output: Option<String>,
    /// Everything `print` wrote while the statement ran (loop bodies included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// Warnings Python printed while the statement ran (`UserWarning: ...`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// For an exception raised inside a block: the line where it was raised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_line: Option<usize>,
    /// For a sub-step whose exception a `try` caught: the line of the `except` clause that
    /// caught it (the script went on there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caught_by: Option<usize>,
    /// For a compound statement (`for`, `if`, `while`): each statement its blocks executed, in
    /// order, with the state after it (the first `MAX_RECORDED_SUBSTEPS` of a script).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub substeps: Vec<Step>,
    /// Every tensor variable after the statement, in first-assignment order.
    pub tensors: Vec<TensorRecord>,
    /// Every live storage after the statement, by id.
    pub storages: Vec<StorageRecord>,
    /// Storage elements this statement wrote into storages that existed before it.
    pub writes: Vec<WriteRecord>,
    /// Tensor variables bound by this statement to a tensor they did not hold before.
    pub created: Vec<Creation>,
    /// Bytes of storage allocated while the statement ran (temporaries included).
    pub allocated_bytes: usize,
    /// Bytes of all live storages after the statement.
    pub live_bytes: usize,
    /// Every NumPy array variable after the statement (not in `tensors`: a NumPy array is
    /// drawn as one more view of a storage's cells).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arrays: Vec<ArrayRecord>,
    /// For a failed `view`: the dims that span two contiguous subspaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<crate::core::tensor::layout::ViewExplanation>,
    /// Where the script's memory is after the statement, and its peak while it ran (the
    /// oracle's `memory` object; see [`StepMemory`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<StepMemory>,
}

/// A step's memory accounting, as PyTorch's CPU allocator sees the script (the trace's
/// `memory` object, compared with `../shared/oracle/record_memory.py`'s records).
#[derive(Clone, Debug, Serialize, Default, PartialEq)]
pub struct StepMemory {
    /// Bytes of the distinct storages the script can still reach after the step: names,
    /// containers and objects, modules' parameters, buffers and their `.grad`, optimizers'
    /// state, tensors' `.grad`, and every autograd graph reachable from a tensor with the
    /// tensors its nodes saved for backward.
    pub live_bytes: u64,
    /// The most bytes alive at once while the step ran, op by op (each op's outputs, the
    /// buffers its kernel allocates while it runs, each storage freed when its last
    /// reference goes).
    pub peak_bytes: Option<u64>,
    /// The live bytes by category ([`MemoryCategory`]'s names); a storage in two roles is
    /// counted once, under the first category of that list.
    pub categories: std::collections::BTreeMap<MemoryCategory, u64>,
    /// Every tensor saved for backward, by PyTorch's node and slot names, as
    /// `[node, slot, shape, dtype, storage]`, one entry per distinct (node, slot, shape,
    /// dtype) as the oracle's set lists them (each storage's own are in
    /// [`StorageRole::saved_by`]).
    pub saved: Vec<SavedRecord>,
    /// Each live storage: its bytes, category and what holds it (the bands of the
    /// timeline and the labels of the storage list).
    pub storages: Vec<StorageRole>,
    /// What appeared and vanished since the step before, as a memory tracker prints it.
    pub changes: Vec<MemoryChange>,
    /// The same figures counted as PyTorch's CUDA caching allocator counts
    /// `torch.cuda.memory_allocated()`: every block rounded up to a multiple of 512 bytes.
    pub cuda: CudaBytes,
    /// The line (of the statement or of a statement inside a call) running when the peak
    /// was reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_line: Option<usize>,
}

/// Live and peak bytes as on a CUDA device (blocks rounded up to 512 bytes).
#[derive(Clone, Copy, Debug, Serialize, Default, PartialEq, Eq)]
pub struct CudaBytes {
    pub live_bytes: u64,
    pub peak_bytes: u64,
}

/// The role of a live storage, in the order a storage in two roles is counted under.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "snake_case")]
pub enum MemoryCategory {
    /// A module's or a script's `nn.Parameter`.
    Parameter,
    /// A module's registered buffer (`running_mean`).
    Buffer,
    /// A tensor's `.grad`.
    Gradient,
    /// An optimizer's state (`exp_avg`, `momentum_buffer`, `step`).
    OptimizerState,
    /// Kept by an autograd node for backward.
    Saved,
    /// Held by a variable, a container or an object.
    Variable,
    /// Anything else the script reaches.
    Other,
}

impl MemoryCategory {
    /// Every category, in the order a storage in two roles is counted under.
    pub const ALL: [MemoryCategory; 7] = [
        MemoryCategory::Parameter,
        MemoryCategory::Buffer,
        MemoryCategory::Gradient,
        MemoryCategory::OptimizerState,
        MemoryCategory::Saved,
        MemoryCategory::Variable,
        MemoryCategory::Other,
    ];

    /// The trace's name (`parameter`, `optimizer_state`, ...).
    pub fn name(self) -> &'static str {
        match self {
            MemoryCategory::Parameter => "parameter",
            MemoryCategory::Buffer => "buffer",
            MemoryCategory::Gradient => "gradient",
            MemoryCategory::OptimizerState => "optimizer_state",
            MemoryCategory::Saved => "saved",
            MemoryCategory::Variable => "variable",
            MemoryCategory::Other => "other",
        }
    }
}

/// A tensor saved for backward: `[node, slot, shape, dtype, storage]` in JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct SavedRecord {
    /// PyTorch's node name (`ReluBackward0`).
    pub node: String,
    /// PyTorch's slot name (`result`, `mat1`).
    pub slot: String,
    pub shape: Vec<i64>,
    pub dtype: DType,
    pub storage: StorageId,
}

impl Serialize for SavedRecord {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = serializer.serialize_tuple(5)?;
        t.serialize_element(&self.node)?;
        t.serialize_element(&self.slot)?;
        t.serialize_element(&self.shape)?;
        t.serialize_element(self.dtype.name())?;
        t.serialize_element(&self.storage.to_string())?;
        t.end()
    }
}

/// A live storage's part in a step's memory.
#[derive(Clone, Debug, Serialize, Default, PartialEq)]
pub struct StorageRole {
    #[serde(serialize_with = "storage_name")]
    pub storage: StorageId,
    pub bytes: u64,
    /// Its category (the first of its roles).
    pub category: Option<MemoryCategory>,
    /// What holds it, most telling first: `lin1.weight`, `lin1.weight.grad`,
    /// `exp_avg of lin1.weight`, `ReluBackward0.result`, a variable's name.
    pub held_by: Vec<String>,
    /// The autograd nodes that saved it for backward, as `[node, slot]` pairs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub saved_by: Vec<(String, String)>,
    /// The shape and dtype of the tensor that holds it first (for the tracker's lines).
    pub shape: Vec<i64>,
    #[serde(serialize_with = "dtype_name")]
    pub dtype: DType,
    /// On the meta device (counted, never allocated).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub meta: bool,
}

/// One line of the tracker: a storage that appeared (`+`) or was freed (`-`) since the step
/// before, with why.
#[derive(Clone, Debug, Serialize, Default, PartialEq)]
pub struct MemoryChange {
    /// `+` or `-`.
    pub sign: char,
    pub bytes: u64,
    pub category: Option<MemoryCategory>,
    #[serde(serialize_with = "storage_name")]
    pub storage: StorageId,
    /// What it is: `Parameter (512, 512, 3, 3) float32`, `ReluBackward0 saved result`.
    pub what: String,
    /// Why it went: a [`FreeReason`] (none for an appearance).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<FreeReason>,
    /// The name that held it, when one did (`h`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Why a storage was freed.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FreeReason {
    /// The last name or container that held it let it go (`h` rebound or deleted).
    LastReference,
    /// `backward()` freed the graph that saved it.
    Backward,
    /// `zero_grad()` set the gradient to `None`.
    ZeroGrad,
    /// A temporary of the statement, not kept by anything.
    Temporary,
}

/// A model's memory by layer (`stridescope summary`, the page's summary table).
#[derive(Clone, Debug, Serialize, Default, PartialEq)]
pub struct ModelSummary {
    /// One row per module call, in call order.
    pub rows: Vec<SummaryRow>,
    /// Bytes of all parameters the script holds.
    pub parameter_bytes: u64,
    /// Bytes of their gradients at the end (most of them seen at once).
    pub gradient_bytes: u64,
    /// Bytes of optimizer state at the end.
    pub optimizer_state_bytes: u64,
    /// The most bytes saved for backward at once.
    pub activation_bytes: u64,
    /// The highest peak of the run.
    pub peak_bytes: u64,
}

/// One module call in a [`ModelSummary`].
#[derive(Clone, Debug, Serialize, Default, PartialEq)]
pub struct SummaryRow {
    /// Its qualified name (`features.0`, `lin1`).
    pub layer: String,
    /// Its class (`Linear`).
    pub kind: String,
    /// Nesting depth (0 for the model called from the script).
    pub depth: usize,
    /// Parameters it holds directly and below it, and their bytes.
    pub params: u64,
    pub param_bytes: u64,
    pub output_shape: Vec<i64>,
    pub output_bytes: u64,
    /// Bytes of the tensors its ops saved for backward (distinct storages).
    pub saved_bytes: u64,
    /// The most bytes alive at once while it ran.
    pub peak_bytes: u64,
    /// The line of the call's statement.
    pub line: usize,
}

/// A tensor variable: its view of a storage.
#[derive(Clone, Debug, Serialize, Default)]
pub struct TensorRecord {
    pub name: String,
    #[serde(serialize_with = "dtype_name")]
    pub dtype: DType,
    pub shape: Vec<i64>,
    pub stride: Vec<i64>,
    pub storage_offset: i64,
    #[serde(serialize_with = "storage_name")]
    pub storage: StorageId,
    pub storage_nbytes: usize,
    pub contiguous: bool,
    pub channels_last: bool,
    pub element_size: usize,
    /// Elements in logical row-major order; null when the tensor is too large to record,
    /// and for a meta tensor (which has no values).
    pub values: Option<Values>,
    /// The device when it is not the CPU: `meta` for a meta tensor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// For a NumPy array drawn as a view (only in the page's steps, never in the trace's
    /// `tensors`): its strides in bytes, as `a.strides` reports them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ndarray_strides: Option<Vec<i64>>,
    /// A leaf that requires grad (`requires_grad=True`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub requires_grad: bool,
    /// The autograd node that made it (`MulBackward0`), for a non-leaf that requires grad.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grad_fn: Option<String>,
    /// Its values are those of the previous recorded step (shared, not copied; in a
    /// sub-step's JSON they are left out: see [`Trace::to_json`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
}

/// A NumPy array variable: its view of a storage, with NumPy's byte strides.
#[derive(Clone, Debug, Serialize, Default)]
pub struct ArrayRecord {
    pub name: String,
    /// Its dtype, serialized as NumPy names it (`float32`, `int64`, `bool`: the trace's
    /// names; NumPy shares no bfloat16 with PyTorch).
    #[serde(serialize_with = "dtype_name")]
    pub dtype: DType,
    pub shape: Vec<i64>,
    /// `a.strides`: in bytes, as NumPy reports them.
    pub strides: Vec<i64>,
    /// The same strides in elements of the dtype (as a tensor's `stride()`).
    pub element_strides: Vec<i64>,
    /// Offset of the first element, in elements.
    pub storage_offset: i64,
    #[serde(serialize_with = "storage_name")]
    pub storage: StorageId,
    pub itemsize: usize,
    /// Elements in logical row-major order; null when the array is too large to record.
    pub values: Option<Values>,
}

/// A live storage, as a flat strip of elements of the dtype it was created with.
#[derive(Clone, Debug, Serialize, Default)]
pub struct StorageRecord {
    #[serde(serialize_with = "storage_name")]
    pub id: StorageId,
    #[serde(serialize_with = "dtype_name")]
    pub dtype: DType,
    pub nbytes: usize,
    /// The variable that first held a tensor on this storage (its owner).
    pub owner: Option<String>,
    /// Elements in storage order; null when the storage is too large to record, and for a
    /// meta storage (which has no bytes).
    pub values: Option<Values>,
    /// The device when it is not the CPU: `meta` for a meta storage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// Never written since it was allocated by `empty`/`empty_like`/`empty_strided`: the
    /// values are whatever the memory held (they read as zeros here).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub uninitialized: bool,
    /// Its values are those of the previous recorded step (see [`TensorRecord::unchanged`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
}

/// Elements written in a storage (element indices in the dtype of the write), as ascending
/// runs `[first, count]` of consecutive elements: a loop that rewrites a 10^5-element weight
/// records one run, not 10^5 offsets.
#[derive(Clone, Debug, Serialize, Default)]
pub struct WriteRecord {
    #[serde(serialize_with = "storage_name")]
    pub storage: StorageId,
    pub element_size: usize,
    pub runs: Vec<[i64; 2]>,
}

impl WriteRecord {
    /// The element offsets written, ascending.
    pub fn offsets(&self) -> impl Iterator<Item = i64> + '_ {
        self.runs
            .iter()
            .flat_map(|&[first, count]| first..first + count)
    }
}

/// How a variable's new tensor came to be.
#[derive(Clone, Debug, Serialize, Default)]
pub struct Creation {
    pub name: String,
    /// The op that made it: `transpose`, `clone`, `arange`, ...
    pub op: String,
    /// Whether it shares an existing storage, was copied from one, or is new.
    pub kind: CreationKind,
    #[serde(serialize_with = "storage_name")]
    pub storage: StorageId,
    /// For views: the variables (before this statement) that share the storage.
    /// For copies: the storage copied from.
    pub of: Vec<String>,
}

/// How a new tensor came to be, as the trace says it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CreationKind {
    /// It shares an existing storage (`view`).
    View,
    /// A new storage filled from another (`copy`).
    Copy,
    /// A new storage (`new`).
    #[default]
    New,
}

impl CreationKind {
    /// The trace's word: `view`, `copy` or `new`.
    pub fn name(self) -> &'static str {
        match self {
            CreationKind::View => "view",
            CreationKind::Copy => "copy",
            CreationKind::New => "new",
        }
    }
}

impl std::fmt::Display for CreationKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An element value in JSON: bools as `true`/`false`, integers exactly, floats as numbers
/// (non-finite floats as the strings `nan`, `inf`, `-inf`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceScalar(pub Scalar);

impl Serialize for TraceScalar {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Scalar::Bool(b) => serializer.serialize_bool(b),
            Scalar::Int(i) => serializer.serialize_i64(i),
            Scalar::Float(f) if f.is_finite() => serializer.serialize_f64(f),
            Scalar::Float(f) if f.is_nan() => serializer.serialize_str("nan"),
            Scalar::Float(f) if f > 0.0 => serializer.serialize_str("inf"),
            Scalar::Float(_) => serializer.serialize_str("-inf"),
        }
    }
}

impl Default for TraceScalar {
    fn default() -> Self {
        TraceScalar(Scalar::Int(0))
    }
}

impl Step {
    /// Records `text`, an exception as Python prints it: its first line as the `error`, the
    /// rest as the `error_detail`.
    pub fn set_error(&mut self, text: String) {
        match text.split_once('\n') {
            Some((first, rest)) => {
                self.error = Some(first.to_string());
                self.error_detail = Some(rest.to_string());
            }
            None => {
                self.error = Some(text);
                self.error_detail = None;
            }
        }
    }

    /// The whole exception as Python prints it: the `error` and its detail.
    pub fn full_error(&self) -> Option<String> {
        let error = self.error.as_ref()?;
        Some(match &self.error_detail {
            Some(detail) => format!("{error}\n{detail}"),
            None => error.clone(),
        })
    }
}

impl Trace {
    /// The trace as one line of JSON. Storages, and a sub-step's tensors, whose values did not
    /// change since the step recorded before them carry `"unchanged": true` and `"values":
    /// null` (a loop's 300 recorded sub-steps do not repeat the weights it never wrote, nor a
    /// model's steps its parameters); the top-level steps' tensors always carry their values
    /// (the oracle's contract).
    pub fn to_json(&self) -> String {
        let mut trace = self.clone();
        for step in &mut trace.steps {
            for s in step.storages.iter_mut().filter(|s| s.unchanged) {
                s.values = None;
            }
            for inner in &mut step.substeps {
                for t in inner.tensors.iter_mut().filter(|t| t.unchanged) {
                    t.values = None;
                }
                for s in inner.storages.iter_mut().filter(|s| s.unchanged) {
                    s.values = None;
                }
            }
        }
        serde_json::to_string(&trace).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

/// Recorded values, shared between the steps that show them unchanged (a trace of many
/// steps holds each distinct set of values once).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Values(pub Arc<Vec<TraceScalar>>);

impl std::ops::Deref for Values {
    type Target = [TraceScalar];
    fn deref(&self) -> &[TraceScalar] {
        &self.0
    }
}

impl std::ops::DerefMut for Values {
    /// The values to change in place (copied first when another step shares them).
    fn deref_mut(&mut self) -> &mut [TraceScalar] {
        Arc::make_mut(&mut self.0).as_mut_slice()
    }
}

impl FromIterator<TraceScalar> for Values {
    fn from_iter<I: IntoIterator<Item = TraceScalar>>(iter: I) -> Values {
        Values(Arc::new(iter.into_iter().collect()))
    }
}

impl<'a> IntoIterator for &'a Values {
    type Item = &'a TraceScalar;
    type IntoIter = std::slice::Iter<'a, TraceScalar>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl From<Vec<TraceScalar>> for Values {
    fn from(values: Vec<TraceScalar>) -> Values {
        Values(Arc::new(values))
    }
}

impl Serialize for Values {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}
