//! `dir(x)`: a tensor's names as PyTorch 2.15 lists them (`dir(torch.tensor(1.))`, the same
//! for every dtype and for `nn.Parameter`), recorded in `tensor_dir.txt` beside this file.

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// `dir(torch.tensor(1.))` in PyTorch 2.15, one name a line, sorted.
const TENSOR_DIR: &str = include_str!("tensor_dir.txt");

impl Evaluator {
    /// The builtin `dir(x)`.
    pub(crate) fn dir_builtin(&mut self, pos: &[Value]) -> R<Value> {
        match pos {
            [Value::Tensor(_)] => Ok(Value::List(
                TENSOR_DIR
                    .lines()
                    .map(|name| Value::Str(name.to_string()))
                    .collect(),
            )),
            [] => Err(ScriptError::NotImplemented(
                "dir() without an argument is not supported by Stridescope".into(),
            )),
            [other] => Err(ScriptError::NotImplemented(format!(
                "dir() of a {} is not supported by Stridescope (of a tensor it is)",
                other.type_name()
            ))),
            _ => Err(ScriptError::Type(format!(
                "dir expected at most 1 argument, got {}",
                pos.len()
            ))),
        }
    }
}
