//! `torch.nn.utils.rnn.pad_sequence`, as ATen's `pad_sequence` (`PackedSequence.cpp`) runs
//! it: one `full` of the padded shape (`(batch, longest, *rest)` with `batch_first`, else
//! `(longest, batch, *rest)`) with `padding_value`, then each sequence `copy_`ed into its
//! slot (`narrow` of a `select`), so that a sequence needing a gradient makes the result's
//! node a `CopySlices`, as in PyTorch.

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The functions of `torch.nn.utils.rnn` this module runs.
pub(crate) const NN_UTILS_RNN: &[&str] = &["pad_sequence"];

impl Evaluator {
    /// `torch.nn.utils.rnn.name(*pos, **kw)`.
    pub(crate) fn call_nn_utils_rnn(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        if name != "pad_sequence" {
            return Err(ScriptError::Attribute(format!(
                "module 'torch.nn.utils.rnn' has no attribute '{name}'"
            )));
        }
        let args = bind_python(
            "sequences, batch_first=False, padding_value=0.0, padding_side='right'",
            "pad_sequence",
            &pos,
            &kw,
        )?;
        let sequences = match arg(&args, "sequences") {
            Value::Tensor(t) => {
                // A tensor is iterated along its first dim, as `tuple(sequences)` does.
                self.iterate(&Value::Tensor(t))?
            }
            Value::List(items) | Value::Tuple(items) => items,
            other => match self.iterate(&other) {
                Ok(items) => items,
                Err(_) => {
                    return Err(ScriptError::Runtime(format!(
                        "Expected iterable for input sequences, but got arg of type: {}",
                        other.type_name()
                    )))
                }
            },
        };
        let batch_first = self.truthy(&arg(&args, "batch_first"))?;
        let padding_value = arg(&args, "padding_value");
        let left = match arg(&args, "padding_side") {
            Value::Str(s) if s == "left" => true,
            Value::Str(s) if s == "right" => false,
            Value::Str(s) => {
                return Err(ScriptError::Runtime(format!(
                    "Expected padding_side to be one of left or right, but got {s}."
                )))
            }
            other => {
                return Err(ScriptError::Type(format!(
                    "pad_sequence(): argument 'padding_side' must be str, not {}",
                    other.type_name()
                )))
            }
        };
        if sequences.is_empty() {
            return Err(ScriptError::Runtime(
                "received an empty list of sequences".into(),
            ));
        }
        let mut shapes = Vec::with_capacity(sequences.len());
        for (i, s) in sequences.iter().enumerate() {
            let Some(t) = s.as_tensor() else {
                return Err(ScriptError::Type(format!(
                    "pad_sequence(): argument 'sequences' (position 1) must be tuple of Tensors, but found element of type {} at pos {i}",
                    s.type_name()
                )));
            };
            if t.ndim() == 0 {
                return Err(ScriptError::Index(
                    "Dimension specified as 0 but tensor has no dimensions".into(),
                ));
            }
            shapes.push(t.shape().to_vec());
        }
        let longest = shapes.iter().map(|s| s[0]).max().unwrap_or(0);
        let trailing = shapes[0][1..].to_vec();
        let batch = sequences.len() as i64;
        let mut dims = if batch_first {
            vec![batch, longest]
        } else {
            vec![longest, batch]
        };
        dims.extend(&trailing);
        let first = sequences[0].clone();
        let out = self.call(
            Value::Method(Box::new(first), "new_full".into()),
            vec![
                Value::Tuple(dims.into_iter().map(Value::Int).collect()),
                padding_value,
            ],
            vec![],
        )?;
        for (i, (seq, shape)) in sequences.into_iter().zip(&shapes).enumerate() {
            let length = shape[0];
            let start = if left { longest - length } else { 0 };
            let slot = if batch_first {
                let row =
                    self.view_for_write(&out, "select", vec![Value::Int(0), Value::Int(i as i64)])?;
                self.view_for_write(
                    &row,
                    "narrow",
                    vec![Value::Int(0), Value::Int(start), Value::Int(length)],
                )?
            } else {
                let rows = self.view_for_write(
                    &out,
                    "narrow",
                    vec![Value::Int(0), Value::Int(start), Value::Int(length)],
                )?;
                self.view_for_write(&rows, "select", vec![Value::Int(1), Value::Int(i as i64)])?
            };
            self.view_for_write(&slot, "copy_", vec![seq])?;
        }
        Ok(out)
    }

    /// A view op, or a write through one, run as the script's own, so that the write
    /// reaches the base's graph (the rebase autograd makes for a view).
    fn view_for_write(&mut self, base: &Value, op: &str, pos: Vec<Value>) -> R<Value> {
        self.torch.autograd.from_script = true;
        let view = self.call(
            Value::Method(Box::new(base.clone()), op.into()),
            pos,
            vec![],
        );
        self.torch.autograd.from_script = false;
        view
    }
}
