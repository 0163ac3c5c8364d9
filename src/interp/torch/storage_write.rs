//! Writes through storages: `t.storage()[i] = v` (a `TypedStorage` writes as a 1-D tensor
//! over the whole storage does: `TypedStorage.__setitem__` is `tensor.set_(self)[i] = v`,
//! so slices, casts and messages are the tensor's) and `t.untyped_storage()[i] = v` (one
//! byte: an int taken modulo 256).

use crate::core::tensor::{DType, Layout, Scalar, ScriptError, StorageId, Tensor};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

impl Evaluator {
    /// `s[index] = value` on a storage (`dtype`: the typed storage's, `None`: bytes).
    pub(crate) fn storage_set_item(
        &mut self,
        id: StorageId,
        dtype: Option<DType>,
        index: &Value,
        value: &Value,
    ) -> R<()> {
        let nbytes = self.memory.storage(id).map_or(0, |s| s.nbytes);
        let Some(dtype) = dtype else {
            return self.untyped_set_item(id, nbytes as i64, index, value);
        };
        let len = (nbytes / dtype.item_size()) as i64;
        let whole = Tensor {
            storage: id,
            dtype,
            layout: Layout::contiguous(&[len]),
        };
        self.set_item(&whole, index, value)
    }

    fn untyped_set_item(&mut self, id: StorageId, len: i64, index: &Value, value: &Value) -> R<()> {
        let byte = match value {
            Value::Int(v) => v.rem_euclid(256),
            Value::Bool(b) => i64::from(*b),
            other => {
                return Err(ScriptError::Runtime(format!(
                    "can only set storage content with a int types, but got {} instead",
                    other.type_name()
                )))
            }
        };
        let i = match index {
            Value::Int(i) => *i,
            Value::Bool(b) => i64::from(*b),
            other => {
                return Err(ScriptError::NotImplemented(format!(
                "UntypedStorage item assignment with a {} index is not supported by Stridescope",
                other.type_name()
            )))
            }
        };
        if i < 0 || i >= len {
            return Err(ScriptError::Runtime("out of bounds".into()));
        }
        let view = Tensor {
            storage: id,
            dtype: DType::UInt8,
            layout: Layout {
                shape: vec![],
                strides: vec![],
                offset: i,
            },
        };
        self.engine.fill(&view, Scalar::Int(byte));
        self.note_write(&view);
        Ok(())
    }
}
