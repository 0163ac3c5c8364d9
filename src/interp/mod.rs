//! The evaluator: runs a parsed script statement by statement with notebook semantics and
//! records a [`Trace`]. It decides every shape, stride, dtype and error; the [`Engine`] only
//! moves bytes.
//!
//! Invariant: no user input makes the evaluator panic. A statement that raises binds nothing
//! (as in Python, writes done before the exception stay) and the script goes on.

pub(crate) mod numpy;
pub(crate) mod python;
pub(crate) mod runtime;
pub mod session;
pub(crate) mod torch;
pub(crate) mod torchvision;
pub mod value;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::rc::Rc;

use crate::core::print::human_bytes;
use crate::core::tensor::{DType, ScriptError, StorageId, Tensor};
use crate::core::trace::{
    Creation, Step, StorageRecord, TensorRecord, Trace, TraceScalar, WriteRecord,
};
use crate::engines::window::{WindowEngine, WindowTable};
use crate::engines::{CpuEngine, Engine};
use crate::interp::python::operators::{python_binary, values_equal};
use crate::lang::ast::{BinOp, Expr, ExprKind, Statement, Target, UnaryOp};
use crate::lang::parser::parse_script;

pub use crate::interp::value::{TensorObject, TensorRef, Value};

/// Limits that keep a hostile script from taking the machine or the tab down.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Most bytes of storage alive at once.
    pub memory_bytes: usize,
    /// Tensors and storages with more elements than this are recorded without values.
    pub max_recorded_elements: usize,
    /// Most statements run; the rest are reported as not run.
    pub max_statements: usize,
    /// Most elements one op may touch (an `expand`ed view can be huge without memory).
    pub max_op_elements: i64,
    /// Most values recorded over a whole trace (each costs 16 bytes, in every step that shows
    /// it: a loop over a large tensor would otherwise record it hundreds of times). Past it,
    /// tensors and storages of more than [`ALWAYS_RECORDED`] elements are recorded without
    /// values.
    pub max_recorded_total: usize,
}

/// Tensors and storages this small are recorded whatever [`Limits::max_recorded_total`] says.
pub const ALWAYS_RECORDED: usize = 4096;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 256 << 20,
            max_recorded_elements: 1 << 20,
            max_statements: 100_000,
            max_op_elements: 1 << 26,
            max_recorded_total: 1 << 26,
        }
    }
}

type R<T> = Result<T, ScriptError>;

/// Per-storage facts the evaluator keeps beside the engine.
#[derive(Clone, Debug)]
struct StorageInfo {
    dtype: DType,
    nbytes: usize,
    /// The fake but stable address `data_ptr()` reports.
    base_address: u64,
    /// Made by `empty`/`empty_like`/`empty_strided` and never written since.
    uninitialized: bool,
    /// For a window of another storage's bytes (`torch.from_numpy` of an array that starts
    /// inside its memory): that storage and the byte where the window starts.
    window: Option<(StorageId, usize)>,
}

/// Runs scripts on an engine and records traces.
pub struct Evaluator {
    engine: Box<dyn Engine>,
    /// The windows of `engine` (a `WindowEngine` around the engine given to `new`).
    windows: WindowTable,
    limits: Limits,
    /// Variables in first-assignment order.
    vars: Vec<(String, Value)>,
    /// The locals of the functions running now, innermost last.
    frames: Vec<Vec<(String, Value)>>,
    /// The exceptions being handled (`except` blocks running now), for a bare `raise`.
    handling: Vec<ScriptError>,
    /// Whether autograd records now (`False` inside `with torch.no_grad():`).
    grad_enabled: bool,
    /// Module switches the script set (`torch.backends.cudnn.deterministic = True`).
    module_settings: Vec<(String, Value)>,
    storages: BTreeMap<StorageId, StorageInfo>,
    next_address: u64,
    /// Bytes allocated while the current statement runs.
    step_allocated: usize,
    /// Storages allocated while the current statement runs.
    step_new_storages: HashSet<StorageId>,
    /// Writes into storages during the current statement.
    step_writes: Vec<(StorageId, usize, Vec<i64>)>,
    /// Why the current statement's `view` failed, for drawing.
    step_explain: Option<crate::core::tensor::layout::ViewExplanation>,
    /// The variable that first held each storage.
    owners: BTreeMap<StorageId, String>,
    /// Statements executed so far (loop bodies included), against `Limits::max_statements`.
    executed: usize,
    /// Set when the step limit was reached: the script stops.
    stopped: bool,
    /// Sub-steps recorded so far (see `crate::interp::python::statements::MAX_RECORDED_SUBSTEPS`).
    recorded_substeps: usize,
    /// Values recorded so far (see [`Limits::max_recorded_total`]).
    recorded_values: usize,
    /// Sub-steps of the running top-level statement.
    substeps: Vec<Step>,
    /// What `print` wrote during the running top-level statement.
    stdout: String,
    /// The line inside a block where the running statement's exception was raised.
    error_line: Option<usize>,
    /// Warnings raised during the running top-level statement.
    warnings: Vec<String>,
    /// The default CPU generator (`torch.manual_seed`, `rand`, `randn`, ...).
    generator: crate::core::tensor::random::CpuGenerator,
    /// Warnings already shown in this script (Python shows these once per process).
    warned: BTreeSet<&'static str>,
    /// Where `read_image` finds image files (see [`Evaluator::set_images`]).
    images: Box<dyn crate::core::image::ImageSource>,
}

/// Traces `source` on the CPU engine with default limits.
pub fn trace_script(source: &str) -> Trace {
    Evaluator::new(Box::new(CpuEngine::new()), Limits::default()).run(source)
}

impl Evaluator {
    /// An evaluator on `engine`.
    pub fn new(engine: Box<dyn Engine>, limits: Limits) -> Evaluator {
        let (engine, windows) = WindowEngine::new(engine);
        Evaluator {
            engine: Box::new(engine),
            windows,
            limits,
            vars: Vec::new(),
            frames: Vec::new(),
            handling: Vec::new(),
            module_settings: Vec::new(),
            grad_enabled: true,
            storages: BTreeMap::new(),
            next_address: 0x5581_2a40_0000,
            step_allocated: 0,
            step_new_storages: HashSet::new(),
            step_writes: Vec::new(),
            step_explain: None,
            owners: BTreeMap::new(),
            executed: 0,
            stopped: false,
            recorded_substeps: 0,
            recorded_values: 0,
            substeps: Vec::new(),
            stdout: String::new(),
            error_line: None,
            warnings: Vec::new(),
            warned: BTreeSet::new(),
            images: Box::new(crate::core::image::ImageLibrary::default()),
            generator: crate::core::tensor::random::CpuGenerator::new(
                crate::core::tensor::random::CpuGenerator::DEFAULT_SEED,
            ),
        }
    }

    /// Raises `warning` the first time in this script (as the first call in a Python process
    /// does); it is shown with the running statement.
    pub(super) fn warn_once(&mut self, warning: &'static str) {
        if self.warned.insert(warning) {
            self.warnings.push(warning.to_string());
        }
    }

    /// Runs a whole script and returns its trace.
    pub fn run(&mut self, source: &str) -> Trace {
        let mut trace = Trace {
            engine: self.engine.name(),
            steps: Vec::new(),
        };
        for parsed in parse_script(source) {
            if self.stopped {
                break;
            }
            let step = match parsed {
                Ok(statement) => self.run_statement(&statement),
                Err((line, err)) => {
                    let source_line = source
                        .lines()
                        .nth(line.saturating_sub(1))
                        .unwrap_or("")
                        .trim()
                        .to_string();
                    let mut step = self.empty_step(line, source_line);
                    step.error = Some(err.to_string());
                    step.column = Some(err.pos.col);
                    self.finish_step(step, &[])
                }
            };
            trace.steps.push(step);
        }
        trace
    }

    fn empty_step(&self, line: usize, source: String) -> Step {
        Step {
            line,
            source,
            ..Step::default()
        }
    }

    /// Runs one top-level statement and records its step (with the sub-steps of a compound
    /// statement's blocks).
    pub fn run_statement(&mut self, statement: &Statement) -> Step {
        self.step_allocated = 0;
        self.step_new_storages.clear();
        self.step_writes.clear();
        self.step_explain = None;
        self.substeps.clear();
        self.stdout.clear();
        self.warnings.clear();
        self.error_line = None;
        let before = self.tensor_bindings();
        let mut step = self.empty_step(statement.line, statement.source.clone());
        let result = self.count_step().and_then(|()| self.exec(&statement.kind));
        match result {
            Ok(crate::interp::python::statements::Flow::Next(out)) => step.output = out,
            Ok(_) => {
                step.error = Some(
                    ScriptError::Syntax {
                        line: statement.line,
                        col: 1,
                        message: "'break' outside loop".into(),
                    }
                    .to_string(),
                )
            }
            Err(e) => {
                step.error = Some(e.to_string());
                step.error_line = self.error_line.take();
            }
        }
        if !self.stdout.is_empty() {
            let printed = std::mem::take(&mut self.stdout);
            if step.output.is_none() {
                step.output = Some(printed.strip_suffix('\n').unwrap_or(&printed).to_string());
            }
            step.stdout = Some(printed);
        }
        step.substeps = std::mem::take(&mut self.substeps);
        step.warnings = std::mem::take(&mut self.warnings);
        self.collect_garbage();
        self.finish_step(step, &before)
    }

    fn assign(&mut self, target: &Target, value: Value) -> R<()> {
        match target {
            Target::Name(name) => {
                self.bind(name, value);
                Ok(())
            }
            Target::Starred(inner) => self.assign(inner, value),
            Target::Tuple(targets) if targets.iter().any(|t| matches!(t, Target::Starred(_))) => {
                let mut items = self.iterate(&value)?;
                let star = targets
                    .iter()
                    .position(|t| matches!(t, Target::Starred(_)))
                    .unwrap_or(0);
                let after = targets.len() - star - 1;
                if items.len() < targets.len() - 1 {
                    return Err(ScriptError::Value(format!(
                        "not enough values to unpack (expected at least {}, got {})",
                        targets.len() - 1,
                        items.len()
                    )));
                }
                let tail = items.split_off(items.len() - after);
                let middle = items.split_off(star);
                let values = items
                    .into_iter()
                    .chain(std::iter::once(Value::List(middle)))
                    .chain(tail);
                for (t, v) in targets.iter().zip(values) {
                    self.assign(t, v)?;
                }
                Ok(())
            }
            Target::Tuple(targets) => {
                let items = self.iterate(&value)?;
                if items.len() > targets.len() {
                    return Err(ScriptError::Value(format!(
                        "too many values to unpack (expected {})",
                        targets.len()
                    )));
                }
                if items.len() < targets.len() {
                    return Err(ScriptError::Value(format!(
                        "not enough values to unpack (expected {}, got {})",
                        targets.len(),
                        items.len()
                    )));
                }
                for (t, v) in targets.iter().zip(items) {
                    self.assign(t, v)?;
                }
                Ok(())
            }
            Target::Subscript {
                object: object_expr,
                index,
            } => {
                let object = self.eval(object_expr)?;
                let index = self.eval(index)?;
                match object {
                    Value::Tensor(t) => {
                        if t.borrow().requires_grad && self.grad_enabled {
                            return Err(ScriptError::Runtime(
                                "a leaf Variable that requires grad is being used in an in-place operation."
                                    .into(),
                            ));
                        }
                        let tensor = t.borrow().tensor.clone();
                        self.set_item(&tensor, &index, &value)?;
                        self.record_setitem_grad(&t, &value);
                        Ok(())
                    }
                    Value::NdArray(a) => self.ndarray_set_item(&a, &index, &value),
                    Value::List(items) => self.set_list_item(object_expr, items, &index, value),
                    Value::Dict(mut entries) => {
                        crate::interp::python::dict::insert(&mut entries, index, value)?;
                        self.store_back(object_expr, Value::Dict(entries))
                    }
                    other => Err(ScriptError::Type(format!(
                        "'{}' object does not support item assignment",
                        other.type_name()
                    ))),
                }
            }
            Target::Attribute { object, name } => {
                let object = self.eval(object)?;
                match (&object, name.as_str()) {
                    (Value::Module(m), _) => self.set_module_attribute(m, name, value),
                    (Value::Tensor(t), "grad") => {
                        let grad = match value {
                            Value::None => None,
                            Value::Tensor(g) => Some(g),
                            other => {
                                return Err(ScriptError::Type(format!(
                                    "assigned grad expected to be a Tensor or None but got grad of type {}",
                                    other.type_name()
                                )))
                            }
                        };
                        t.borrow_mut().grad = grad;
                        Ok(())
                    }
                    (Value::Tensor(t), "requires_grad") => {
                        let Value::Bool(flag) = value else {
                            return Err(ScriptError::Runtime(
                                "requires_grad must be a bool".into(),
                            ));
                        };
                        let dtype = t.borrow().tensor.dtype;
                        if flag && !(dtype.is_floating() || dtype.is_complex()) {
                            return Err(ScriptError::Runtime(
                                "only Tensors of floating point and complex dtype can require gradients"
                                    .into(),
                            ));
                        }
                        t.borrow_mut().requires_grad = flag;
                        Ok(())
                    }
                    _ => Err(ScriptError::Attribute(format!(
                        "attribute '{}' of '{}' objects is not writable",
                        name,
                        match object {
                            Value::Tensor(_) => "torch._C.TensorBase",
                            ref other => other.type_name(),
                        }
                    ))),
                }
            }
        }
    }

    /// `xs[i] = v` on a Python list. Lists are values here, so the changed list is stored
    /// back where it was read from: the name it is bound to (`xs[0] = 5`), or, for a nested
    /// list (`lst[0][0] = 9`), the item of the enclosing list, and so on outwards. A list
    /// that is no name's or item's (a call's result) is changed and dropped, as in Python.
    fn set_list_item(
        &mut self,
        object: &Expr,
        mut items: Vec<Value>,
        index: &Value,
        value: Value,
    ) -> R<()> {
        let i = match index {
            Value::Int(i) => *i,
            Value::Bool(b) => i64::from(*b),
            Value::Slice(..) => {
                return Err(ScriptError::NotImplemented(
                    "assigning to a slice of a list is not supported here".into(),
                ))
            }
            other => {
                return Err(ScriptError::Type(format!(
                    "list indices must be integers or slices, not {}",
                    other.type_name()
                )))
            }
        };
        let n = items.len() as i64;
        let at = if i < 0 { i + n } else { i };
        if at < 0 || at >= n {
            return Err(ScriptError::Index(
                "list assignment index out of range".into(),
            ));
        }
        items[at as usize] = value;
        let changed = Value::List(items);
        match &object.kind {
            ExprKind::Name(name) => {
                self.rebind(name, changed);
                Ok(())
            }
            ExprKind::Subscript {
                object: outer,
                index: outer_index,
            } => {
                let container = self.eval(outer)?;
                let outer_index = self.eval(outer_index)?;
                match container {
                    Value::List(outer_items) => {
                        self.set_list_item(outer, outer_items, &outer_index, changed)
                    }
                    _ => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }

    /// Binds `name` in the running function's locals, or globally outside functions.
    fn bind(&mut self, name: &str, value: Value) {
        let scope = self.frames.last_mut().unwrap_or(&mut self.vars);
        if let Some(slot) = scope.iter_mut().find(|(n, _)| n == name) {
            slot.1 = value;
        } else {
            scope.push((name.to_string(), value));
        }
    }

    /// Stores a changed value (a list changed in place) where `name` is bound now: the
    /// running function's locals, else the globals.
    fn rebind(&mut self, name: &str, value: Value) {
        let in_frame = self
            .frames
            .last()
            .is_some_and(|f| f.iter().any(|(n, _)| n == name));
        let scope = match self.frames.last_mut() {
            Some(frame) if in_frame => frame,
            _ if self.vars.iter().any(|(n, _)| n == name) => &mut self.vars,
            Some(frame) => frame,
            None => &mut self.vars,
        };
        match scope.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => scope.push((name.to_string(), value)),
        }
    }

    /// Removes `name` from the scope `bind` writes to; whether it was bound there.
    fn unbind_name(&mut self, name: &str) -> bool {
        let scope = self.frames.last_mut().unwrap_or(&mut self.vars);
        let Some(i) = scope.iter().position(|(n, _)| n == name) else {
            return false;
        };
        scope.remove(i);
        true
    }

    /// A name's value: the running function's locals, then globals, then builtins.
    fn lookup(&self, name: &str) -> R<Value> {
        let locals = self.frames.last().map_or(&[][..], Vec::as_slice);
        if let Some((_, v)) = locals.iter().chain(&self.vars).find(|(n, _)| n == name) {
            return Ok(v.clone());
        }
        match name {
            "torch" => Ok(Value::Torch),
            _ if crate::core::tensor::error::EXCEPTION_CLASSES
                .iter()
                .any(|(c, _)| *c == name) =>
            {
                Ok(Value::ExceptionType(name.to_string()))
            }
            _ if crate::interp::python::builtins::BUILTINS.contains(&name) => {
                Ok(Value::Method(Box::new(Value::None), name.to_string()))
            }
            _ => Err(ScriptError::Name(format!("name '{name}' is not defined"))),
        }
    }

    /// `item in container`.
    fn contains(&mut self, container: &Value, item: &Value) -> R<bool> {
        if let Value::Tensor(t) = container {
            let eq = self.tensor_binary(BinOp::Eq, container, item)?;
            let Value::Tensor(mask) = eq else {
                return Ok(false);
            };
            let mask = mask.borrow().tensor.clone();
            let _ = t;
            return Ok(self.engine.values(&mask).iter().any(|s| s.to_bool()));
        }
        if let (Value::Str(hay), Value::Str(needle)) = (container, item) {
            return Ok(hay.contains(needle.as_str()));
        }
        if let Value::Dict(entries) = container {
            crate::interp::python::dict::check_key(item)?;
            return Ok(crate::interp::python::dict::find(entries, item).is_some());
        }
        if let Value::Range(start, stop, step) = container {
            let Value::Int(i) = item else {
                return Ok(false);
            };
            let inside = if *step > 0 {
                i >= start && i < stop
            } else {
                i <= start && i > stop
            };
            return Ok(inside && (i - start) % step == 0);
        }
        match container {
            Value::Tuple(_) | Value::List(_) | Value::Size(_) => {}
            other => {
                return Err(ScriptError::Type(format!(
                    "argument of type '{}' is not iterable",
                    other.type_name()
                )))
            }
        }
        let items = self.iterate(container)?;
        for v in items {
            let eq = self.binary(BinOp::Eq, item.clone(), v)?;
            if self.truthy(&eq)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Python iteration (for loops, unpacking, `list()`, comprehensions).
    fn iterate(&mut self, value: &Value) -> R<Vec<Value>> {
        match value {
            Value::Tuple(items) | Value::List(items) => Ok(items.clone()),
            Value::Dict(entries) => Ok(entries.iter().map(|(k, _)| k.clone()).collect()),
            Value::NamedTuple(_, fields) => Ok(fields.iter().map(|(_, v)| v.clone()).collect()),
            Value::Str(s) => Ok(s.chars().map(|c| Value::Str(c.to_string())).collect()),
            Value::Range(start, stop, step) => {
                let len = range_len(*start, *stop, *step);
                if len > self.limits.max_op_elements {
                    return Err(ScriptError::Runtime(format!(
                        "range of {len} items is more than Stridescope materializes ({})",
                        self.limits.max_op_elements
                    )));
                }
                Ok((0..len).map(|k| Value::Int(start + k * step)).collect())
            }
            Value::Size(dims) => Ok(dims.iter().map(|&d| Value::Int(d)).collect()),
            Value::NdArray(a) => {
                let n = a
                    .borrow()
                    .tensor
                    .shape()
                    .first()
                    .copied()
                    .ok_or_else(|| ScriptError::Type("iteration over a 0-d array".into()))?;
                (0..n)
                    .map(|i| self.ndarray_get_item(a, &Value::Int(i)))
                    .collect()
            }
            Value::Tensor(t) => {
                let tensor = t.borrow().tensor.clone();
                if tensor.ndim() == 0 {
                    return Err(ScriptError::Type("iteration over a 0-d tensor".into()));
                }
                let views = self.unbind(&tensor, 0)?;
                Ok(views
                    .into_iter()
                    .map(|v| Value::tensor(v, "unbind", None))
                    .collect())
            }
            other => Err(ScriptError::Type(format!(
                "cannot unpack non-iterable {} object",
                other.type_name()
            ))),
        }
    }

    fn unary(&mut self, op: UnaryOp, v: Value) -> R<Value> {
        match (op, &v) {
            (UnaryOp::Not, _) => Ok(Value::Bool(!self.truthy(&v)?)),
            (UnaryOp::Pos, Value::Int(_) | Value::Float(_) | Value::Tensor(_)) => Ok(v),
            (UnaryOp::Pos, Value::Bool(b)) => Ok(Value::Int(i64::from(*b))),
            (UnaryOp::Neg, Value::Int(i)) => Ok(Value::Int(i.checked_neg().ok_or_else(overflow)?)),
            (UnaryOp::Neg, Value::Bool(b)) => Ok(Value::Int(-i64::from(*b))),
            (UnaryOp::Neg, Value::Float(f)) => Ok(Value::Float(-f)),
            (UnaryOp::Neg, Value::Complex(re, im)) => Ok(Value::Complex(-re, -im)),
            (UnaryOp::Pos, Value::Complex(..)) => Ok(v),
            (UnaryOp::Invert, Value::Int(i)) => Ok(Value::Int(!i)),
            (UnaryOp::Invert, Value::Bool(b)) => Ok(Value::Int(!i64::from(*b))),
            (_, Value::Tensor(t)) => {
                let tensor = t.borrow().tensor.clone();
                let out = match op {
                    UnaryOp::Neg => self.neg(&tensor)?,
                    _ => self.invert(&tensor)?,
                };
                if op == UnaryOp::Neg {
                    self.record_grad(crate::interp::torch::autograd::GradOp::Neg, &[&v], &out);
                }
                Ok(out)
            }
            _ => {
                let sym = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Pos => "+",
                    UnaryOp::Invert => "~",
                    UnaryOp::Not => "not",
                };
                Err(ScriptError::Type(format!(
                    "bad operand type for unary {sym}: '{}'",
                    v.type_name()
                )))
            }
        }
    }

    /// Python truthiness.
    fn truthy(&mut self, v: &Value) -> R<bool> {
        Ok(match v {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Complex(re, im) => *re != 0.0 || *im != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Tuple(x) | Value::List(x) => !x.is_empty(),
            Value::Dict(entries) => !entries.is_empty(),
            Value::Size(x) => !x.is_empty(),
            Value::NpScalar(_, s) => s.to_bool(),
            Value::Tensor(t) => {
                let tensor = t.borrow().tensor.clone();
                if tensor.numel() != 1 {
                    let msg = if tensor.numel() == 0 {
                        "Boolean value of Tensor with no values is ambiguous"
                    } else {
                        "Boolean value of Tensor with more than one value is ambiguous"
                    };
                    return Err(ScriptError::Runtime(msg.into()));
                }
                self.engine
                    .values(&tensor)
                    .first()
                    .map(|s| s.to_bool())
                    .unwrap_or(false)
            }
            _ => true,
        })
    }

    fn binary(&mut self, op: BinOp, a: Value, b: Value) -> R<Value> {
        match op {
            BinOp::Is | BinOp::IsNot => {
                let same = match (&a, &b) {
                    (Value::Tensor(x), Value::Tensor(y)) => Rc::ptr_eq(x, y),
                    (Value::Tensor(_), _) | (_, Value::Tensor(_)) => false,
                    _ => values_equal(&a, &b) && a.type_name() == b.type_name(),
                };
                return Ok(Value::Bool(same == (op == BinOp::Is)));
            }
            BinOp::In | BinOp::NotIn => {
                let found = self.contains(&b, &a)?;
                return Ok(Value::Bool(found == (op == BinOp::In)));
            }
            _ => {}
        }
        let numpy = |v: &Value| matches!(v, Value::NdArray(_) | Value::NpScalar(..));
        if numpy(&a) || numpy(&b) {
            return self.numpy_binary(op, &a, &b);
        }
        if let (BinOp::Mod, Value::Str(template)) = (op, &a) {
            return self.percent_format(template, &b).map(Value::Str);
        }
        if matches!(a, Value::Tensor(_)) || matches!(b, Value::Tensor(_)) {
            return self.tensor_binary(op, &a, &b);
        }
        python_binary(op, &a, &b)
    }

    /// Refuses an allocation of `nbytes` that would pass the memory limit.
    fn check_memory(&self, nbytes: usize, what: &str) -> R<()> {
        let live = self.live_bytes();
        if nbytes > self.limits.memory_bytes.saturating_sub(live) {
            return Err(ScriptError::Runtime(format!(
                "{what}: not enough memory: you tried to allocate {nbytes} bytes ({}), but Stridescope's memory limit is {} with {} in use. Use smaller shapes (the limit keeps a browser tab alive).",
                human_bytes(nbytes as u64),
                human_bytes(self.limits.memory_bytes as u64),
                human_bytes(live as u64)
            )));
        }
        Ok(())
    }

    /// Allocates a storage for a new tensor, enforcing the memory limit.
    fn allocate(&mut self, nbytes: usize, dtype: DType, what: &str) -> R<StorageId> {
        if let Some(id) = self.live_empty_storage(nbytes) {
            return Ok(id);
        }
        self.check_memory(nbytes, what)?;
        let id = self.engine.allocate(nbytes);
        self.register_storage(id, nbytes, dtype);
        Ok(id)
    }

    /// Creates a storage holding `bytes`.
    fn allocate_with(&mut self, bytes: Vec<u8>, dtype: DType, what: &str) -> R<StorageId> {
        let nbytes = bytes.len();
        if let Some(id) = self.live_empty_storage(nbytes) {
            return Ok(id);
        }
        self.check_memory(nbytes, what)?;
        let id = self.engine.allocate_with(bytes);
        self.register_storage(id, nbytes, dtype);
        Ok(id)
    }

    /// PyTorch allocates no memory for a 0-byte storage: its data pointer is null, so every
    /// empty storage is the same address. Empty allocations share one live storage (whose
    /// `data_ptr()` is 0) so that storage identity matches what PyTorch reports.
    fn live_empty_storage(&self, nbytes: usize) -> Option<StorageId> {
        if nbytes != 0 {
            return None;
        }
        self.storages
            .iter()
            .find(|(_, info)| info.nbytes == 0 && info.window.is_none())
            .map(|(id, _)| *id)
    }

    fn register_storage(&mut self, id: StorageId, nbytes: usize, dtype: DType) {
        let base_address = if nbytes == 0 { 0 } else { self.next_address };
        if nbytes > 0 {
            self.next_address += (nbytes as u64).div_ceil(64) * 64 + 64;
        }
        self.storages.insert(
            id,
            StorageInfo {
                // A complex storage is drawn as its float halves (real, imaginary in turn).
                dtype: dtype.real_part(),
                nbytes,
                base_address,
                uninitialized: false,
                window: None,
            },
        );
        self.step_allocated += nbytes;
        self.step_new_storages.insert(id);
    }

    /// Marks a fresh storage as uninitialized memory (`torch.empty`): drawn as such until a
    /// write; its bytes read as zeros.
    fn mark_uninitialized(&mut self, id: StorageId) {
        if let Some(info) = self.storages.get_mut(&id) {
            info.uninitialized = true;
        }
    }

    /// Refuses an op that would touch more than `max_op_elements` elements.
    fn check_work(&self, elements: i64, what: &str) -> R<()> {
        if elements > self.limits.max_op_elements || elements < 0 {
            return Err(ScriptError::Runtime(format!(
                "{what}: {elements} elements is more than Stridescope processes in one op ({}); use smaller shapes",
                self.limits.max_op_elements
            )));
        }
        Ok(())
    }

    /// Reads elements of `view` by row-major index, fetching the storage once.
    fn element_reader(&mut self, view: &Tensor) -> impl Fn(usize) -> crate::core::tensor::Scalar {
        let bytes = self.engine.read_storage(view.storage);
        let layout = view.layout.clone();
        let dtype = view.dtype;
        let shape: Vec<i64> = layout.shape.clone();
        move |flat: usize| {
            let mut rest = flat as i64;
            let mut at = layout.offset;
            for d in (0..shape.len()).rev() {
                let n = shape[d].max(1);
                at += (rest % n) * layout.strides[d];
                rest /= n;
            }
            let item = dtype.item_size();
            if at < 0 || (at as usize + 1) * item > bytes.len() {
                return crate::core::tensor::Scalar::Int(0);
            }
            dtype.read(&bytes, at as usize)
        }
    }

    /// Records that `view`'s elements were written.
    fn note_write(&mut self, view: &Tensor) {
        if let Some(info) = self.storages.get_mut(&view.storage) {
            info.uninitialized = false;
        }
        // A write through a window is a write into the memory it looks into.
        if let Some(root) = self.window_root_view(view) {
            self.note_write(&root);
            if !self.has_storage_record(view.storage) {
                return;
            }
        }
        if self.step_new_storages.contains(&view.storage) {
            return;
        }
        let cap = self.limits.max_recorded_elements;
        let offsets: Vec<i64> = view.layout.offsets().take(cap).collect();
        self.step_writes
            .push((view.storage, view.dtype.item_size(), offsets));
    }

    /// Frees every storage no variable reaches.
    fn collect_garbage(&mut self) {
        let mut live = BTreeSet::new();
        for (_, v) in &self.vars {
            collect_storages(v, &mut live);
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
            .keys()
            .filter(|id| !live.contains(id))
            .copied()
            .collect();
        for id in dead {
            self.storages.remove(&id);
            self.engine.free(id);
        }
    }
}

fn collect_storages(v: &Value, live: &mut BTreeSet<StorageId>) {
    match v {
        Value::Tensor(t) | Value::NdArray(t) => {
            live.insert(t.borrow().tensor.storage);
            // A leaf's `.grad` lives as long as the leaf.
            if let Some(g) = &t.borrow().grad {
                live.insert(g.borrow().tensor.storage);
            }
        }
        Value::Storage(id, _) => {
            live.insert(*id);
        }
        Value::Tuple(items) | Value::List(items) => {
            items.iter().for_each(|i| collect_storages(i, live))
        }
        Value::Method(receiver, _) => collect_storages(receiver, live),
        Value::NamedTuple(_, fields) => fields.iter().for_each(|(_, v)| collect_storages(v, live)),
        Value::Function(f) => f
            .defaults
            .iter()
            .flatten()
            .for_each(|v| collect_storages(v, live)),
        Value::Dict(entries) => entries.iter().for_each(|(k, v)| {
            collect_storages(k, live);
            collect_storages(v, live);
        }),
        _ => {}
    }
}

/// The number of items of `range(start, stop, step)`.
pub(super) fn range_len(start: i64, stop: i64, step: i64) -> i64 {
    let (lo, hi, st) = if step > 0 {
        (start as i128, stop as i128, step as i128)
    } else {
        (stop as i128, start as i128, -(step as i128))
    };
    if hi <= lo || st == 0 {
        return 0;
    }
    ((hi - lo + st - 1) / st).min(i64::MAX as i128) as i64
}

pub(super) fn overflow() -> ScriptError {
    ScriptError::Overflow("Python int too large to convert to C long".into())
}
