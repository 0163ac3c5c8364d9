//! The names of `torch.autograd` that custom functions use beside `torch.autograd.Function`
//! (the class is [`crate::interp::torch::autograd::custom_function`]'s):
//! `torch.autograd.function` (`once_differentiable`), `torch.autograd.gradcheck` (see
//! [`crate::interp::torch::autograd::gradcheck`]) and `torch.autograd.graph`
//! (`saved_tensors_hooks`, `save_on_cpu`: see
//! [`crate::interp::torch::autograd::saved_hooks`]).

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// Whether `module.name` is a function of this file.
pub(crate) fn handles(module: &str, name: &str) -> bool {
    matches!(
        (module, name),
        ("torch.autograd" | "torch.autograd.gradcheck", "gradcheck")
            | ("torch.autograd.function", "once_differentiable")
            | (
                "torch.autograd.graph",
                "saved_tensors_hooks" | "save_on_cpu"
            )
    )
}

impl Evaluator {
    /// `module.name` for the names of this file, `torch.autograd.Function` and the
    /// submodules; `None` for other names.
    pub(crate) fn autograd_module_attribute(
        &mut self,
        module: &str,
        name: &str,
    ) -> Option<R<Value>> {
        let value = match (module, name) {
            ("torch.autograd" | "torch.autograd.function", "Function") => {
                Value::Class(self.nn_class("Function")?)
            }
            ("torch.autograd", "function" | "graph") => {
                Value::Module(format!("torch.autograd.{name}"))
            }
            _ if handles(module, name) => {
                Value::Method(Box::new(Value::Module(module.into())), name.into())
            }
            _ => return None,
        };
        Some(Ok(value))
    }

    /// Calls `module.name(...)`, one of [`handles`]'s names.
    pub(crate) fn call_autograd_function(
        &mut self,
        module: &str,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        match name {
            "gradcheck" => self.gradcheck(pos, kw),
            "once_differentiable" => match pos.as_slice() {
                // PyTorch's wrapper runs the backward under `torch.no_grad()` (its results
                // then have no `grad_fn`, so a second derivative finds none).
                [f] if kw.is_empty() => Ok(Value::ModeWrapped(
                    Box::new(Value::GradMode(false)),
                    Box::new(f.clone()),
                )),
                _ => Err(ScriptError::Type(format!(
                    "once_differentiable() takes 1 positional argument but {} were given",
                    pos.len()
                ))),
            },
            "saved_tensors_hooks" | "save_on_cpu" => self.saved_hooks_manager(name, pos, kw),
            _ => Err(ScriptError::Attribute(format!(
                "module '{module}' has no attribute '{name}'"
            ))),
        }
    }
}
