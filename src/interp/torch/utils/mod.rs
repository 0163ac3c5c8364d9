//! `torch.utils` as model code uses it: `torch.utils.data` (datasets, `DataLoader`,
//! `random_split`; [`data`], [`loader`]) and `torch.utils.checkpoint` (activation
//! checkpointing; [`checkpoint`]), with Python's `iter()`/`next()` ([`iterators`]) that a
//! notebook calls on a loader (`next(iter(loader))`).
//!
//! The classes are built-in classes ([`ModuleDef`]s that are not `nn.Module`s), as the
//! optimizers are: an instance keeps what PyTorch keeps in its `__dict__` as plain
//! attributes (`dataset`, `batch_size`, `tensors`, ...).

pub(crate) mod checkpoint;
pub(crate) mod checkpoint_frame;
pub(crate) mod data;
pub(crate) mod iterators;
pub(crate) mod loader;
pub(crate) mod samplers;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::ModuleDef;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// Every built-in class of `torch.utils` (and the iterators `iter()` makes).
pub(crate) fn tables() -> [&'static [ModuleDef]; 5] {
    [
        data::CLASSES,
        loader::CLASSES,
        iterators::CLASSES,
        checkpoint_frame::CLASSES,
        samplers::CLASSES,
    ]
}

/// The classes `torch.utils.data` exports.
const DATA_CLASSES: &[&str] = &[
    "Dataset",
    "TensorDataset",
    "Subset",
    "DataLoader",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "BatchSampler",
];

impl Evaluator {
    /// `module.name` for `torch.utils` and its submodules, or `None` for other modules.
    pub(crate) fn utils_module_attribute(&mut self, module: &str, name: &str) -> Option<R<Value>> {
        let function = || Value::Method(Box::new(Value::Module(module.into())), name.into());
        Some(match (module, name) {
            ("torch.utils", "data" | "checkpoint") => {
                Ok(Value::Module(format!("torch.utils.{name}")))
            }
            ("torch.utils.data", n) if DATA_CLASSES.contains(&n) => self
                .nn_class(n)
                .map(Value::Class)
                .ok_or_else(|| no_attribute(module, n)),
            ("torch.utils.data", "random_split" | "default_collate")
            | ("torch.utils.checkpoint", "checkpoint" | "checkpoint_sequential") => Ok(function()),
            ("torch.utils" | "torch.utils.data" | "torch.utils.checkpoint", n) => {
                Err(no_attribute(module, n))
            }
            _ => return None,
        })
    }

    /// `torch.utils.<module>.name(...)`.
    pub(crate) fn call_utils_module(
        &mut self,
        module: &str,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        match (module, name) {
            ("torch.utils.data", "random_split") => self.random_split(pos, kw),
            ("torch.utils.data", "default_collate") => match (pos.as_slice(), kw.first()) {
                ([batch], None) => self.default_collate(batch),
                _ => Err(ScriptError::Type(format!(
                    "default_collate() takes 1 positional argument but {} were given",
                    pos.len() + kw.len()
                ))),
            },
            ("torch.utils.checkpoint", "checkpoint") => self.checkpoint(pos, kw),
            ("torch.utils.checkpoint", "checkpoint_sequential") => {
                self.checkpoint_sequential(pos, kw)
            }
            _ => Err(no_attribute(module, name)),
        }
    }
}

fn no_attribute(module: &str, name: &str) -> ScriptError {
    ScriptError::Attribute(format!("module '{module}' has no attribute '{name}'"))
}
