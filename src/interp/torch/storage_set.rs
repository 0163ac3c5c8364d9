//! Re-pointing a tensor object at other memory: `t.set_(...)` (another tensor's storage and
//! layout, a storage with an offset, size and stride, or a fresh empty storage) and
//! `t.resize_(*size)` (contiguous strides from the same offset). The tensor object is
//! changed in place, so every name bound to it sees the new layout. A storage too small
//! for the new layout is grown as PyTorch reallocates it: a new allocation holding the old
//! bytes then zeros (other tensors still on the old storage keep it).

use std::rc::Rc;

use crate::core::tensor::layout::{list_str, numel_of};
use crate::core::tensor::{DType, Layout, ScriptError, StorageId, Tensor};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["set_"],
        schemas: &["Tensor self, Any source=None, int storage_offset=0, int[]? size=None, int[]? stride=None"],
        forms: Forms::Method,
        rule: set_,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["resize_"],
        schemas: &["Tensor self, int[] size, *, MemoryFormat? memory_format=None"],
        forms: Forms::Method,
        rule: resize_,
        complex: true,
        ..OpDef::PLAIN
    },
];

/// `t.set_(source, storage_offset, size, stride)`.
fn set_(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let current = this.borrow().tensor.clone();
    let dtype = current.dtype;
    let offset = ev.arg_int(call, "storage_offset", 0)?;
    let size = ev.arg_ints(call, "size")?;
    let stride = ev.arg_ints(call, "stride")?;
    let explicit = call.value("size").is_some();
    let (storage, layout) = match call.value("source") {
        None | Some(Value::None) => {
            let id = ev.allocate(0, dtype, "set_")?;
            (id, Layout::contiguous(&[0]))
        }
        Some(Value::Tensor(src)) => {
            let src = src.borrow().tensor.clone();
            if src.dtype != dtype {
                return Err(ScriptError::Runtime(format!(
                    "Could not set tensor of type {} to a tensor of type {}",
                    src.dtype.cpp_type_name(),
                    dtype.cpp_type_name()
                )));
            }
            if explicit {
                (src.storage, given_layout(size, stride, offset)?)
            } else {
                (src.storage, src.layout.clone())
            }
        }
        Some(Value::Storage(id, storage_dtype)) => {
            if let Some(sd) = storage_dtype.filter(|&sd| sd != dtype) {
                return Err(ScriptError::Runtime(format!(
                    "Expected a Storage of type {} or an UntypedStorage, but got type {} for argument 1 'storage'",
                    dtype.cpp_type_name(),
                    sd.scalar_type_name()
                )));
            }
            if explicit {
                (*id, given_layout(size, stride, offset)?)
            } else {
                let len = ev.engine.nbytes(*id) / dtype.item_size();
                (*id, Layout::contiguous(&[len as i64]))
            }
        }
        Some(other) => {
            return Err(ScriptError::Type(format!(
                "set_() received an invalid combination of arguments - got ({}), but expected one of:\n * ()\n * (torch.Storage source)\n * (torch.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n * (Tensor source)\n * (Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n",
                other.type_name()
            )))
        }
    };
    let storage = ev.grown_storage(storage, &layout, dtype, "set_")?;
    this.borrow_mut().tensor = Tensor {
        storage,
        dtype,
        layout,
    };
    Ok(Value::Tensor(this))
}

/// The layout of `set_(source, offset, size, stride)`: contiguous strides when none given.
fn given_layout(size: Option<Vec<i64>>, stride: Option<Vec<i64>>, offset: i64) -> R<Layout> {
    let size = size.unwrap_or_default();
    let strides = match stride {
        Some(s) if !s.is_empty() || size.is_empty() => s,
        _ => Layout::contiguous(&size).strides,
    };
    if strides.len() != size.len() {
        return Err(ScriptError::Runtime(format!(
            "mismatch in length of strides and shape: {} vs {}",
            strides.len(),
            size.len()
        )));
    }
    if let Some(&n) = size.iter().find(|&&n| n < 0) {
        return Err(ScriptError::Runtime(format!(
            "Trying to create tensor with negative dimension {n}: {}",
            list_str(&size)
        )));
    }
    if offset < 0 {
        return Err(ScriptError::Runtime(format!(
            "Tensor: invalid storage offset {offset}"
        )));
    }
    Ok(Layout {
        shape: size,
        strides,
        offset,
    })
}

/// `t.resize_(*size)`: the same shape keeps its strides; another gets contiguous strides
/// from the same offset.
fn resize_(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this: TensorRef = call.self_ref()?;
    let current = this.borrow().tensor.clone();
    let size = ev.arg_ints(call, "size")?.unwrap_or_default();
    if this.borrow().requires_grad && ev.torch.grad_enabled {
        return Err(ScriptError::Runtime(
            "cannot resize variables that require grad".into(),
        ));
    }
    ev.check_shape(&size)?;
    if current.shape() == size.as_slice() {
        return Ok(Value::Tensor(this));
    }
    let format = call.memory_format(
        "memory_format",
        crate::core::tensor::MemoryFormat::Contiguous,
    );
    let mut layout = Layout::with_format(&size, format);
    layout.offset = current.layout.offset;
    let storage = ev.grown_storage(current.storage, &layout, current.dtype, "resize_")?;
    this.borrow_mut().tensor = Tensor {
        storage,
        dtype: current.dtype,
        layout,
    };
    Ok(Value::Tensor(Rc::clone(&this)))
}

impl Evaluator {
    /// `torch.Tensor(storage)` (and the other legacy classes): a 1-D tensor of `dtype`
    /// over the whole storage, sharing it; a typed storage must hold `dtype`.
    pub(crate) fn tensor_from_storage(
        &mut self,
        dtype: DType,
        id: StorageId,
        storage_dtype: Option<DType>,
    ) -> R<Value> {
        if let Some(sd) = storage_dtype.filter(|&sd| sd != dtype) {
            return Err(ScriptError::Runtime(format!(
                "Expected a Storage of type {} or an UntypedStorage, but got type {} for argument 1 'storage'",
                dtype.scalar_type_name(),
                sd.scalar_type_name()
            )));
        }
        let len = self.engine.nbytes(id) / dtype.item_size();
        let t = Tensor {
            storage: id,
            dtype,
            layout: Layout::contiguous(&[len as i64]),
        };
        Ok(Value::tensor(t, "Tensor", None))
    }

    /// `storage`, or a copy of it grown with zeros when `layout` needs more bytes.
    fn grown_storage(
        &mut self,
        storage: StorageId,
        layout: &Layout,
        dtype: DType,
        what: &str,
    ) -> R<StorageId> {
        if numel_of(&layout.shape) == 0 {
            return Ok(storage);
        }
        let last: i64 = layout
            .shape
            .iter()
            .zip(&layout.strides)
            .map(|(n, s)| (n - 1) * s)
            .sum::<i64>()
            + layout.offset;
        let needed = usize::try_from(last + 1)
            .ok()
            .and_then(|n| n.checked_mul(dtype.item_size()))
            .ok_or_else(|| ScriptError::Runtime(format!("{what}: tensor is too large")))?;
        let have = self.engine.nbytes(storage);
        if needed <= have {
            return Ok(storage);
        }
        self.check_memory(needed, what)?;
        let mut bytes = self.engine.read_storage(storage);
        bytes.resize(needed, 0);
        self.allocate_with(bytes, dtype, what)
    }
}
