//! The model summary: what each layer of a model holds and costs, measured while the
//! script runs (the table `torchinfo#373` asks for, exact). Each module call is a row (a
//! layer called again, as in a training loop, keeps its first call's figures): its
//! parameters and their bytes, its output's shape and bytes, the bytes its ops saved for
//! backward, and the most bytes alive at once while it ran. The totals come from the steps'
//! memory: parameters at the end, and the most gradients, optimizer state and saved tensors
//! seen at once.

use std::collections::{BTreeSet, HashSet};
use std::rc::Rc;

use crate::core::tensor::StorageId;
use crate::core::trace::{MemoryCategory, ModelSummary, Step, SummaryRow};
use crate::interp::torch::autograd::objects::saved_tensors;
use crate::interp::torch::autograd::GradNode;
use crate::interp::value::{Instance, Value};
use crate::interp::Evaluator;

/// Rows kept at most (a model of thousands of layers keeps its first ones).
const MAX_ROWS: usize = 4096;

/// The module calls seen so far.
#[derive(Default)]
pub(crate) struct SummaryLog {
    rows: Vec<SummaryRow>,
    /// The modules that have a row.
    seen: HashSet<usize>,
    /// The calls running now: the row each fills (none for a module seen before) and the
    /// node sequence number when it began.
    running: Vec<(Option<usize>, u64)>,
}

/// A module call begun by [`Evaluator::begin_module_call`].
pub(crate) struct CallMark {
    row: Option<usize>,
    module: Rc<Instance>,
}

impl Evaluator {
    /// Notes that module `object` is being called: its row (the first time), and a peak
    /// measure for the call.
    pub(crate) fn begin_module_call(&mut self, object: &Rc<Instance>) -> CallMark {
        let key = Rc::as_ptr(object) as usize;
        let depth = self.summary.running.len();
        let row = if self.summary.seen.insert(key) && self.summary.rows.len() < MAX_ROWS {
            let (params, param_bytes) = self.module_parameter_bytes(object);
            self.summary.rows.push(SummaryRow {
                layer: self.module_path(object),
                kind: object.class.name.clone(),
                depth,
                params,
                param_bytes,
                line: self.accounting.line,
                ..SummaryRow::default()
            });
            Some(self.summary.rows.len() - 1)
        } else {
            None
        };
        let seq = self.torch.autograd.current_seq();
        self.summary.running.push((row, seq));
        if row.is_some() {
            self.begin_call_peak();
        }
        CallMark {
            row,
            module: Rc::clone(object),
        }
    }

    /// Completes the row of a module call with its output, what it saved and its peak.
    pub(crate) fn end_module_call(&mut self, mark: CallMark, output: Option<&Value>) {
        let Some((_, seq)) = self.summary.running.pop() else {
            return;
        };
        let Some(row) = mark.row else {
            return;
        };
        let peak = self.end_call_peak();
        let (shape, bytes, saved) = match output {
            Some(Value::Tensor(t)) => {
                let o = t.borrow();
                let shape = o.tensor.layout.shape.clone();
                let bytes = o.tensor.numel().max(0) as u64 * o.tensor.dtype.item_size() as u64;
                let parameters = self.module_parameter_storages(&mark.module);
                let saved = o
                    .grad_fn
                    .as_ref()
                    .map_or(0, |node| self.saved_since(node, seq, &parameters));
                (shape, bytes, saved)
            }
            _ => (vec![], 0, 0),
        };
        if let Some(r) = self.summary.rows.get_mut(row) {
            r.output_shape = shape;
            r.output_bytes = bytes;
            r.saved_bytes = saved;
            r.peak_bytes = peak;
        }
    }

    /// Bytes of the distinct storages saved by the nodes behind `node` made after `seq`
    /// (the layer's own parameters, which a node saves as views, are not activations).
    fn saved_since(&self, node: &Rc<GradNode>, seq: u64, parameters: &BTreeSet<StorageId>) -> u64 {
        let mut storages: BTreeSet<StorageId> = BTreeSet::new();
        let mut numbers = 0u64;
        let mut seen = BTreeSet::new();
        let mut pending = vec![Rc::clone(node)];
        while let Some(node) = pending.pop() {
            if node.seq <= seq || !seen.insert(Rc::as_ptr(&node) as usize) {
                continue;
            }
            for (_, slot) in saved_tensors(&node) {
                match slot {
                    crate::interp::runtime::accounting::SavedSlotRef::Tensor(s) => {
                        storages.insert(s.tensor.storage);
                    }
                    crate::interp::runtime::accounting::SavedSlotRef::Number(d) => {
                        numbers += d.item_size() as u64;
                    }
                }
            }
            for operand in &node.operands {
                if let Some(next) = operand
                    .tracked
                    .as_ref()
                    .and_then(|t| t.try_borrow().ok().and_then(|t| t.grad_fn.clone()))
                {
                    pending.push(next);
                }
            }
        }
        numbers
            + storages
                .iter()
                .filter(|id| !parameters.contains(id))
                .filter_map(|id| self.memory.storage(*id))
                .map(|i| i.nbytes as u64)
                .sum::<u64>()
    }

    /// The parameters a module holds (its own and its submodules'), each once.
    fn module_parameters(&self, object: &Rc<Instance>) -> Vec<crate::interp::value::TensorRef> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        let mut modules = vec![Rc::clone(object)];
        let mut visited = BTreeSet::new();
        while let Some(m) = modules.pop() {
            if !visited.insert(Rc::as_ptr(&m) as usize) || visited.len() > 100_000 {
                continue;
            }
            let Ok(state) = m.module.try_borrow() else {
                continue;
            };
            let Some(state) = state.as_ref() else {
                continue;
            };
            for p in state.parameters.iter().filter_map(|(_, p)| p.as_ref()) {
                if seen.insert(Rc::as_ptr(p) as usize) {
                    out.push(Rc::clone(p));
                }
            }
            modules.extend(state.modules.iter().filter_map(|(_, m)| m.clone()));
        }
        out
    }

    /// The storages of the parameters a module holds.
    fn module_parameter_storages(&self, object: &Rc<Instance>) -> BTreeSet<StorageId> {
        self.module_parameters(object)
            .iter()
            .filter_map(|p| p.try_borrow().ok().map(|p| p.tensor.storage))
            .collect()
    }

    /// The parameters a module holds and their bytes.
    fn module_parameter_bytes(&self, object: &Rc<Instance>) -> (u64, u64) {
        let (mut count, mut bytes) = (0u64, 0u64);
        for p in self.module_parameters(object) {
            if let Ok(p) = p.try_borrow() {
                let n = p.tensor.numel().max(0) as u64;
                count += n;
                bytes += n * p.tensor.dtype.item_size() as u64;
            }
        }
        (count, bytes)
    }

    /// The dotted name under which a global holds module `object` (`model.features.0`), or
    /// its class's name when no global does.
    fn module_path(&self, object: &Rc<Instance>) -> String {
        for (name, value) in self.scope.globals() {
            let Value::Instance(root) = value else {
                continue;
            };
            let mut pending = vec![(name.clone(), Rc::clone(root))];
            let mut visited = BTreeSet::new();
            while let Some((path, m)) = pending.pop() {
                if Rc::ptr_eq(&m, object) {
                    return path;
                }
                if !visited.insert(Rc::as_ptr(&m) as usize) || visited.len() > 100_000 {
                    continue;
                }
                let Ok(state) = m.module.try_borrow() else {
                    continue;
                };
                if let Some(state) = state.as_ref() {
                    for (n, sub) in state.modules.iter().rev() {
                        if let Some(sub) = sub {
                            pending.push((format!("{path}.{n}"), Rc::clone(sub)));
                        }
                    }
                }
            }
        }
        object.class.name.clone()
    }

    /// The summary of the run whose top-level steps are `steps`: `None` when no module was
    /// called.
    pub(crate) fn model_summary(&self, steps: &[Step]) -> Option<ModelSummary> {
        if self.summary.rows.is_empty() {
            return None;
        }
        let memories: Vec<_> = steps.iter().filter_map(|s| s.memory.as_ref()).collect();
        let most = |c: MemoryCategory| {
            memories
                .iter()
                .map(|m| m.categories.get(&c).copied().unwrap_or(0))
                .max()
                .unwrap_or(0)
        };
        Some(ModelSummary {
            rows: self.summary.rows.clone(),
            parameter_bytes: memories
                .last()
                .and_then(|m| m.categories.get(&MemoryCategory::Parameter).copied())
                .unwrap_or(0),
            gradient_bytes: most(MemoryCategory::Gradient),
            optimizer_state_bytes: most(MemoryCategory::OptimizerState),
            activation_bytes: most(MemoryCategory::Saved),
            peak_bytes: memories
                .iter()
                .filter_map(|m| m.peak_bytes)
                .max()
                .unwrap_or(0),
        })
    }
}
