//! The bridge between PyTorch and NumPy: `t.numpy()`, `torch.from_numpy(n)` and
//! `torch.as_tensor(n)` share the storage (one more view of the same cells);
//! `torch.tensor(n)` copies, keeping the dtype and the array's layout. An array that does
//! not span its whole memory is shared through a window of it (`eval/windows.rs`), as
//! PyTorch wraps exactly the array's bytes. Also the trace's record of every array
//! variable, so the memory view can draw it beside the tensors on its storage.

use crate::core::tensor::{DType, MemoryFormat, ScriptError, Tensor};
use crate::core::trace::{ArrayRecord, Step};
use crate::interp::numpy::new_ndarray;
use crate::interp::value::{TensorObject, TensorRef, Value};
use crate::interp::{Evaluator, R};

const NEGATIVE_STRIDES: &str = "At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported. (You can probably work around this by making a copy of your array  with array.copy().) ";

/// Refuses a dtype NumPy has no equivalent of, with torch's text.
pub(super) fn check_numpy_dtype(dtype: DType) -> R<()> {
    if dtype == DType::BFloat16 {
        return Err(ScriptError::Type(
            "Got unsupported ScalarType BFloat16".into(),
        ));
    }
    Ok(())
}

/// Whether two views touch a common byte of one storage (`np.shares_memory`).
pub(super) fn overlaps(a: &Tensor, b: &Tensor) -> bool {
    if a.storage != b.storage || a.numel() == 0 || b.numel() == 0 {
        return false;
    }
    let bytes = |t: &Tensor| -> std::collections::BTreeSet<i64> {
        let item = t.dtype.item_size() as i64;
        t.layout
            .offsets()
            .take(1 << 20)
            .flat_map(|o| (o * item)..(o * item + item))
            .collect()
    };
    let (x, y) = (bytes(a), bytes(b));
    x.iter().any(|o| y.contains(o))
}

/// A new tensor object viewing the array's cells.
fn tensor_view(t: Tensor, made_by: &str) -> Value {
    Value::Tensor(TensorObject::new_ref(TensorObject {
        tensor: t,
        made_by: made_by.to_string(),
        copied_from: None,
        requires_grad: false,
        grad_fn: None,
        grad: None,
        is_parameter: false,
        view_of: None,
    }))
}

impl Evaluator {
    /// `t.numpy()`: an array on the tensor's storage (`force=` changes nothing on the CPU,
    /// where no tensor requires grad here).
    pub(crate) fn tensor_numpy(&mut self, this: &TensorRef) -> R<Value> {
        let t = this.borrow().tensor.clone();
        check_numpy_dtype(t.dtype)?;
        // NumPy gives an empty array zero strides, even one on a tensor's memory.
        Ok(new_ndarray(t, "numpy"))
    }

    /// `torch.from_numpy(n)`: a tensor on the array's storage.
    pub(crate) fn torch_from_numpy(&mut self, pos: &[Value], kw: &[(String, Value)]) -> R<Value> {
        if let Some((k, _)) = kw.first() {
            return Err(ScriptError::Type(format!(
                "from_numpy() got an unexpected keyword argument '{k}'"
            )));
        }
        match pos {
            [Value::NdArray(a)] => {
                let t = a.borrow().tensor.clone();
                if t.strides().iter().any(|&s| s < 0) {
                    return Err(ScriptError::Value(NEGATIVE_STRIDES.into()));
                }
                let t = self.memory.window_of_array(&mut *self.engine, &t)?;
                Ok(tensor_view(t, "from_numpy"))
            }
            [other] => Err(ScriptError::Type(format!(
                "expected np.ndarray (got {})",
                other.type_name()
            ))),
            _ => Err(ScriptError::Type(format!(
                "from_numpy() takes exactly one argument ({} given)",
                pos.len()
            ))),
        }
    }

    /// `torch.tensor(n, dtype=)` (copies) or `torch.as_tensor(n, dtype=)` (shares when the
    /// dtype allows) for an array `n`.
    pub(crate) fn torch_tensor_of_array(
        &mut self,
        a: &TensorRef,
        dtype: Option<DType>,
        share: bool,
    ) -> R<Value> {
        let t = a.borrow().tensor.clone();
        if t.strides().iter().any(|&s| s < 0) {
            return Err(ScriptError::Value(NEGATIVE_STRIDES.into()));
        }
        let dtype = dtype.unwrap_or(t.dtype);
        if share && dtype == t.dtype {
            let t = self.memory.window_of_array(&mut *self.engine, &t)?;
            return Ok(tensor_view(t, "as_tensor"));
        }
        // Both read the array as `torch.from_numpy` would and copy it with `.to(dtype,
        // copy=True)`: dense layouts keep their strides, others their dim order.
        let what = if share { "as_tensor" } else { "tensor" };
        let out = self.convert(&t, dtype, MemoryFormat::Preserve, what)?;
        Ok(Value::tensor(out, what, Some(t.storage)))
    }

    /// `torch.as_tensor(data, dtype=None)`: shares an array or a tensor; other data is
    /// read as `torch.tensor` reads it.
    pub(crate) fn torch_as_tensor(
        &mut self,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> R<Option<Value>> {
        let mut data = pos.first().cloned();
        let mut dtype = pos.get(1).cloned();
        for (k, v) in kw {
            match k.as_str() {
                "data" if data.is_none() => data = Some(v.clone()),
                "dtype" if dtype.is_none() => dtype = Some(v.clone()),
                "device" => {}
                _ => return Ok(None),
            }
        }
        let dtype = match dtype {
            None | Some(Value::None) => None,
            Some(Value::DType(d)) => Some(d),
            Some(_) => return Ok(None),
        };
        match data {
            Some(Value::NdArray(a)) => self.torch_tensor_of_array(&a, dtype, true).map(Some),
            Some(Value::Tensor(t)) => {
                let tensor = t.borrow().tensor.clone();
                match dtype {
                    Some(d) if d != tensor.dtype => {
                        let out = self.convert(&tensor, d, MemoryFormat::Preserve, "as_tensor")?;
                        Ok(Some(Value::tensor(out, "as_tensor", Some(tensor.storage))))
                    }
                    _ => Ok(Some(Value::Tensor(t))),
                }
            }
            _ => Ok(None),
        }
    }

    /// Records every array variable into `step.arrays` (and the first variable on a storage
    /// as its owner, when no tensor holds it).
    pub(crate) fn record_arrays(&mut self, step: &mut Step) {
        let arrays: Vec<(String, TensorRef)> = self
            .scope
            .globals()
            .iter()
            .filter_map(|(n, v)| match v {
                Value::NdArray(a) => Some((n.clone(), a.clone())),
                _ => None,
            })
            .collect();
        for (name, a) in arrays {
            let t = a.borrow().tensor.clone();
            self.memory.claim(t.storage, &name);
            let item = t.dtype.item_size() as i64;
            let values = self.record_values(&t);
            step.arrays.push(ArrayRecord {
                name,
                dtype: t.dtype,
                shape: t.shape().to_vec(),
                strides: t.strides().iter().map(|s| s * item).collect(),
                element_strides: t.strides().to_vec(),
                storage_offset: t.layout.offset,
                storage: self.memory.storage_key(t.storage),
                itemsize: item as usize,
                values,
            });
        }
    }
}

impl Evaluator {
    /// `torch.tensor` of an array (a copy keeping the array's dtype); `None` for every
    /// other call (which goes on to the op table).
    pub(crate) fn torch_numpy_bridge(
        &mut self,
        name: &str,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> Option<R<Value>> {
        match name {
            "tensor" => {
                let a = match pos.first() {
                    Some(Value::NdArray(a)) => a.clone(),
                    _ => return None,
                };
                let dtype = match kw.iter().find(|(k, _)| k == "dtype") {
                    Some((_, Value::DType(d))) => Some(*d),
                    Some((_, Value::None)) | None => None,
                    Some(_) => return None,
                };
                Some(self.torch_tensor_of_array(&a, dtype, false))
            }
            _ => None,
        }
    }
}
