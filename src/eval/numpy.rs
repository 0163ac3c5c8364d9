//! NumPy, where PyTorch shares memory with it.

use super::value::Value;
use super::{Evaluator, R};
use crate::tensor::ScriptError;

impl Evaluator {
    /// `np.name`.
    pub(super) fn numpy_attribute(&mut self, name: &str) -> R<Value> {
        Err(ScriptError::Attribute(format!(
            "module 'numpy' has no attribute '{name}'"
        )))
    }

    /// `np.name(...)`.
    pub(super) fn call_numpy(
        &mut self,
        name: &str,
        _pos: Vec<Value>,
        _kw: Vec<(String, Value)>,
    ) -> R<Value> {
        Err(ScriptError::Attribute(format!(
            "module 'numpy' has no attribute '{name}'"
        )))
    }
}
