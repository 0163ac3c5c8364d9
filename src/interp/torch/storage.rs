//! Storages as PyTorch shows them: `t.untyped_storage()` (bytes) and the deprecated
//! `t.storage()` (a `TypedStorage` of the tensor's dtype, which warns once per script, as the
//! first call in a Python process does).

use crate::core::print::py_float_repr;
use crate::core::tensor::{DType, Scalar, ScriptError, StorageId};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The warning PyTorch 2.15 prints at the first `Tensor.storage()` of a process.
pub(crate) const TYPED_STORAGE_WARNING: &str = "UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()";

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["storage"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: typed_storage,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["untyped_storage"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: untyped_storage,
        complex: true,
        ..OpDef::PLAIN
    },
];

/// `t.storage()`: the whole storage seen as elements of `t`'s dtype.
fn typed_storage(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    ev.recorder.warn_once(TYPED_STORAGE_WARNING);
    Ok(Value::Storage(t.storage, Some(t.dtype)))
}

/// `t.untyped_storage()`: the storage's bytes.
fn untyped_storage(_ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    Ok(Value::Storage(t.storage, None))
}

/// What the storage's elements are: the typed storage's dtype, or bytes.
fn element_dtype(dtype: Option<DType>) -> DType {
    dtype.unwrap_or(DType::UInt8)
}

impl Evaluator {
    /// Bytes of a live storage.
    fn storage_nbytes(&self, id: StorageId) -> usize {
        self.memory.storage(id).map(|s| s.nbytes).unwrap_or(0)
    }

    /// The number of elements (`len(s)`, `s.size()`).
    pub(crate) fn storage_len(&self, id: StorageId, dtype: Option<DType>) -> i64 {
        (self.storage_nbytes(id) / element_dtype(dtype).item_size()) as i64
    }

    /// Element `i` of a storage as a Python value.
    fn storage_element(&mut self, id: StorageId, dtype: Option<DType>, i: usize) -> Value {
        let bytes = self.engine.read_storage(id);
        match element_dtype(dtype).read(&bytes, i) {
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(v) => Value::Int(v),
            Scalar::Float(f) => Value::Float(f),
        }
    }

    /// `s[i]`.
    pub(crate) fn storage_get_item(
        &mut self,
        id: StorageId,
        dtype: Option<DType>,
        index: &Value,
    ) -> R<Value> {
        if self.memory.is_meta(id) {
            return Err(meta_storage_values());
        }
        let len = self.storage_len(id, dtype);
        let i = match index {
            Value::Int(i) => *i,
            Value::Bool(b) => i64::from(*b),
            Value::Slice(..) if dtype.is_some() => {
                return Err(ScriptError::Runtime(
                    "slices are only supported in UntypedStorage.__getitem__".into(),
                ))
            }
            other => {
                return Err(ScriptError::Type(format!(
                    "can't index a {} with {}",
                    storage_class(dtype),
                    other.type_name()
                )))
            }
        };
        let at = if i < 0 { i + len } else { i };
        if at < 0 || at >= len {
            return Err(ScriptError::Index(format!(
                "index {i} out of range for storage of size {len}"
            )));
        }
        Ok(self.storage_element(id, dtype, at as usize))
    }

    /// `s.name` for a storage.
    pub(crate) fn storage_attribute(
        &mut self,
        id: StorageId,
        dtype: Option<DType>,
        name: &str,
    ) -> R<Value> {
        match name {
            "dtype" if dtype.is_some() => Ok(Value::DType(element_dtype(dtype))),
            "device" => {
                let meta = self.memory.is_meta(id);
                Ok(Value::Device(if meta { "meta" } else { "cpu" }.into()))
            }
            "nbytes" | "data_ptr" | "size" | "element_size" | "tolist" | "type" | "untyped"
            | "is_shared" | "cpu" | "clone" => Ok(Value::Method(
                Box::new(Value::Storage(id, dtype)),
                name.to_string(),
            )),
            _ => Err(ScriptError::Attribute(format!(
                "'{}' object has no attribute '{name}'",
                storage_class(dtype)
            ))),
        }
    }

    /// `s.name(...)` for a storage.
    pub(crate) fn call_storage(
        &mut self,
        id: StorageId,
        dtype: Option<DType>,
        name: &str,
        pos: &[Value],
    ) -> R<Value> {
        if !pos.is_empty() {
            return Err(ScriptError::Type(format!(
                "{name}() takes 1 positional argument but {} were given",
                pos.len() + 1
            )));
        }
        let base = self.memory.storage(id).map(|s| s.base_address).unwrap_or(0);
        Ok(match name {
            "nbytes" => Value::Int(self.storage_nbytes(id) as i64),
            "size" => Value::Int(self.storage_len(id, dtype)),
            "element_size" => Value::Int(element_dtype(dtype).item_size() as i64),
            "data_ptr" => Value::Int(base as i64),
            "is_shared" => Value::Bool(false),
            "untyped" => Value::Storage(id, None),
            "cpu" => Value::Storage(id, dtype),
            "clone" => {
                let bytes = self.engine.read_storage(id);
                let copy = self.allocate_with(bytes, element_dtype(dtype), "clone")?;
                Value::Storage(copy, dtype)
            }
            "type" => Value::Str(match dtype {
                Some(d) => format!("torch.{}Storage", d.scalar_type_name()),
                None => "torch.UntypedStorage".into(),
            }),
            _ if self.memory.is_meta(id) => return Err(meta_storage_values()),
            _ => {
                let n = self.storage_len(id, dtype);
                self.check_work(n, "tolist")?;
                Value::List(
                    (0..n as usize)
                        .map(|i| self.storage_element(id, dtype, i))
                        .collect(),
                )
            }
        })
    }

    /// `repr(s)`: one element a line, then the storage's class, dtype and size.
    pub(crate) fn storage_repr(&mut self, id: StorageId, dtype: Option<DType>) -> R<String> {
        let n = self.storage_len(id, dtype);
        if self.memory.is_meta(id) {
            let class = match dtype {
                Some(d) => format!("TypedStorage(dtype={}, device=meta)", d.torch_repr()),
                None => "UntypedStorage(device=meta)".into(),
            };
            return Ok(format!("...\n[torch.storage.{class} of size {n}]"));
        }
        self.check_work(n, "repr")?;
        let d = element_dtype(dtype);
        let bytes = self.engine.read_storage(id);
        let lines: Vec<String> = (0..n as usize)
            .map(|i| match d.read(&bytes, i) {
                Scalar::Bool(b) => if b { "True" } else { "False" }.to_string(),
                Scalar::Int(v) => v.to_string(),
                Scalar::Float(f) => py_float_repr(f),
            })
            .collect();
        let info = match dtype {
            Some(d) => format!(
                "[torch.storage.TypedStorage(dtype={}, device=cpu) of size {n}]",
                d.torch_repr()
            ),
            None => format!("[torch.storage.UntypedStorage(device=cpu) of size {n}]"),
        };
        Ok(format!(" {}\n{info}", lines.join("\n ")))
    }
}

/// The storage's Python class name.
fn storage_class(dtype: Option<DType>) -> &'static str {
    if dtype.is_some() {
        "TypedStorage"
    } else {
        "UntypedStorage"
    }
}

/// PyTorch's error for reading the elements of a meta storage.
fn meta_storage_values() -> ScriptError {
    ScriptError::NotImplemented("Not available for 'meta' device type".into())
}
