//! The evaluator: runs a parsed script statement by statement with notebook semantics and
//! records a [`Trace`]. It decides every shape, stride, dtype and error; the [`Engine`] only
//! moves bytes.
//!
//! [`Evaluator`] holds three parts of `runtime/` and the torch state:
//! - [`Scope`](runtime::scope::Scope): names, the globals and the running functions' locals;
//! - [`Memory`](runtime::memory::Memory): storages, addresses, owners, windows, allocation,
//!   and the reachability walk that frees what no variable reaches;
//! - [`Recorder`](runtime::recorder::Recorder): what a statement leaves in the trace;
//! - [`TorchState`](torch::state::TorchState): grad mode, generator, module switches.
//!
//! Python's semantics (statements, assignment, iteration, truthiness) live in `python/`,
//! PyTorch's in `torch/`, as `impl Evaluator` blocks on these parts.
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

use crate::core::image::{ImageLibrary, ImageSource};
use crate::core::tensor::ScriptError;
use crate::core::trace::{Step, Trace};
use crate::engines::window::WindowEngine;
use crate::engines::{CpuEngine, Engine};
use crate::interp::python::statements::Flow;
use crate::interp::runtime::memory::Memory;
use crate::interp::runtime::recorder::Recorder;
use crate::interp::runtime::scope::Scope;
use crate::interp::torch::state::TorchState;
use crate::lang::ast::Statement;
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

/// Runs scripts on an engine and records traces.
pub struct Evaluator {
    /// The engine that holds the bytes (a `WindowEngine` around a `MetaEngine` around the
    /// engine given to `new`).
    engine: Box<dyn Engine>,
    /// Where `read_image` finds image files (see [`Evaluator::set_images`]).
    images: Box<dyn ImageSource>,
    /// What a script may take (memory, statements, work per op, recorded values).
    limits: Limits,
    /// Names: the globals and the locals of the functions running now.
    scope: Scope,
    /// Storages and what is known of them; allocation, reachability and freeing.
    memory: Memory,
    /// What the running statement leaves in the trace.
    recorder: Recorder,
    /// PyTorch's process state: grad mode, generator, module switches.
    torch: TorchState,
    /// The function calls and class bodies running now, innermost last.
    bodies: Vec<python::functions::Body>,
    /// The exceptions being handled (`except` blocks running now), for a bare `raise`.
    handling: Vec<ScriptError>,
    /// For each function call and class body running now, innermost last, how many
    /// storages existed when it began (see [`Evaluator::collect_in_block`]).
    gc_floors: Vec<u64>,
    /// Values the running statements hold outside any name (a `for` loop's items, a
    /// `with` statement's manager): roots of [`Evaluator::collect_in_block`].
    pins: Vec<Value>,
    /// Statements executed so far (loop bodies included), against `Limits::max_statements`.
    executed: usize,
    /// Set when the step limit was reached: the script stops.
    stopped: bool,
    /// Memory accounting: live and peak bytes per step (see [`runtime::accounting`]).
    accounting: runtime::accounting::Accounting,
    /// The module calls seen, for the model summary (see [`runtime::summary`]).
    summary: runtime::summary::SummaryLog,
}

/// Traces `source` on the CPU engine with default limits.
pub fn trace_script(source: &str) -> Trace {
    Evaluator::new(Box::new(CpuEngine::new()), Limits::default()).run(source)
}

/// Traces `source` as [`trace_script`] does, with the evaluation option "as on a CUDA
/// device" (see [`Evaluator::set_cuda_device`]).
pub fn trace_script_cuda(source: &str) -> Trace {
    let mut evaluator = Evaluator::new(Box::new(CpuEngine::new()), Limits::default());
    evaluator.set_cuda_device(true);
    evaluator.run(source)
}

impl Evaluator {
    /// An evaluator on `engine`.
    pub fn new(engine: Box<dyn Engine>, limits: Limits) -> Evaluator {
        let (engine, meta) = crate::engines::meta::MetaEngine::new(engine);
        let (engine, windows) = WindowEngine::new(Box::new(engine));
        Evaluator {
            engine: Box::new(engine),
            images: Box::new(ImageLibrary::default()),
            limits,
            scope: Scope::default(),
            memory: Memory::new(windows, meta),
            recorder: Recorder::default(),
            torch: TorchState::new(),
            handling: Vec::new(),
            gc_floors: Vec::new(),
            pins: Vec::new(),
            bodies: Vec::new(),
            executed: 0,
            stopped: false,
            accounting: runtime::accounting::Accounting::new(),
            summary: runtime::summary::SummaryLog::default(),
        }
    }

    /// Runs a whole script and returns its trace.
    pub fn run(&mut self, source: &str) -> Trace {
        let mut trace = Trace {
            engine: self.engine.name(),
            steps: Vec::new(),
            summary: None,
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
                    step.set_error(err.to_string());
                    step.column = Some(err.pos.col);
                    self.finish_step(step, &[])
                }
            };
            trace.steps.push(step);
        }
        trace.summary = self.model_summary(&trace.steps);
        trace
    }

    /// A step of `line` that has done nothing yet.
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
        self.recorder.begin_statement();
        torch::device::activate_cuda(self.torch.device.cuda);
        self.accounting.line = statement.line;
        self.begin_memory_unit(true);
        let before = self.scope.tensor_bindings();
        let mut step = self.empty_step(statement.line, statement.source.clone());
        let result = self.count_step().and_then(|()| self.exec(&statement.kind));
        match result {
            Ok(Flow::Next(out)) => step.output = out,
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
                step.set_error(e.to_string());
                step.error_line = self.recorder.error_line.take();
            }
        }
        if !self.recorder.stdout.is_empty() {
            let printed = std::mem::take(&mut self.recorder.stdout);
            // A notebook shows what the statement printed, then its value's repr.
            step.output = Some(match step.output.take() {
                Some(shown) => format!("{printed}{shown}"),
                None => printed.strip_suffix('\n').unwrap_or(&printed).to_string(),
            });
            step.stdout = Some(printed);
        }
        step.substeps = std::mem::take(&mut self.recorder.substeps);
        let warnings = self.recorder.take_warnings();
        step.warnings = self.filter_warnings(warnings);
        self.collect_garbage();
        self.finish_step(step, &before)
    }

    /// Refuses an op that would touch more than `max_op_elements` elements.
    pub(crate) fn check_work(&self, elements: i64, what: &str) -> R<()> {
        // An op on meta tensors computes nothing, whatever its size.
        if self.torch.device.meta_op {
            return Ok(());
        }
        if elements > self.limits.max_op_elements || elements < 0 {
            return Err(ScriptError::Runtime(format!(
                "{what}: {elements} elements is more than Stridescope processes in one op ({}); use smaller shapes",
                self.limits.max_op_elements
            )));
        }
        Ok(())
    }
}
