//! Joins: `cat` (`concat`, `concatenate`), `stack`, `hstack`, `vstack` (`row_stack`),
//! `dstack` and `column_stack`. Each result is a fresh tensor; bytes move as one strided
//! engine copy per input into a narrowed view of the result, so the GPU engine runs them as
//! its copy kernel. Also the `out=` rule these ops share ([`Evaluator::resize_out`]).

use std::rc::Rc;

use crate::core::tensor::layout::{list_str, numel_of, wrap_dim};
use crate::core::tensor::{DType, Layout, MemoryFormat, ScriptError, Tensor};
use crate::interp::torch::ops::{can_cast, index_err};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["cat", "concat", "concatenate"],
        schemas: &["Any tensors, int dim=0, *, int? axis=None, Tensor? out=None"],
        forms: Forms::Function,
        rule: cat,
        complex: true,
        grad: crate::interp::torch::autograd::Grad::named(
            "CatBackward0",
            &crate::interp::torch::autograd::formulas_index::JOIN,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["stack"],
        schemas: &["Any tensors, int dim=0, *, Tensor? out=None"],
        forms: Forms::Function,
        rule: stack,
        complex: true,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::JOIN,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["hstack", "vstack", "dstack"],
        schemas: &["Any tensors, *, Tensor? out=None"],
        forms: Forms::Function,
        rule: stack_family,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["row_stack", "column_stack"],
        schemas: &["Any tensors, *, Tensor? out=None"],
        forms: Forms::Function,
        rule: stack_family,
        ..OpDef::PLAIN
    },
];

/// The `out=` tensor object of a call, if one was given.
pub(super) fn out_arg(call: &OpCall) -> Option<TensorRef> {
    match call.value("out") {
        Some(Value::Tensor(t)) => Some(Rc::clone(t)),
        _ => None,
    }
}

/// The tensors of the `tensors` argument (a tuple or list of tensors), with the messages of
/// PyTorch's parser for anything else.
fn tensor_list(call: &OpCall) -> R<Vec<Tensor>> {
    match call.value("tensors") {
        Some(Value::Tuple(items) | Value::List(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::Tensor(t) => Ok(t.borrow().tensor.clone()),
                other => Err(ScriptError::Type(format!(
                    "expected Tensor as element {i} in argument 0, but got {}",
                    other.type_name()
                ))),
            })
            .collect(),
        other => Err(ScriptError::Type(format!(
            "{}(): argument 'tensors' (position 1) must be tuple of Tensors, not {}",
            call.name,
            other.map_or("NoneType".into(), Value::type_name)
        ))),
    }
}

/// The value an op with `out=` returns: the `out` object itself, else a new tensor.
pub(super) fn result_value(
    out: Option<TensorRef>,
    result: Tensor,
    name: &str,
    copied_from: Option<crate::core::tensor::StorageId>,
) -> Value {
    match out {
        Some(o) => Value::Tensor(o),
        None => Value::tensor(result, name, copied_from),
    }
}

/// `torch.cat(tensors, dim)` and its aliases.
fn cat(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let tensors = tensor_list(call)?;
    let dim = match ev.arg_opt_int(call, "axis")? {
        Some(axis) => axis,
        None => ev.arg_int(call, "dim", 0)?,
    };
    let out = out_arg(call);
    let result = ev.cat(&tensors, dim, out.as_ref())?;
    let from = tensors.first().map(|t| t.storage);
    Ok(result_value(out, result, "cat", from))
}

/// `torch.stack(tensors, dim)`.
fn stack(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let tensors = tensor_list(call)?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let out = out_arg(call);
    let result = ev.stack(&tensors, dim, out.as_ref())?;
    let from = tensors.first().map(|t| t.storage);
    Ok(result_value(out, result, "stack", from))
}

/// `hstack`, `vstack` (`row_stack`), `dstack`, `column_stack`: `cat` of the inputs made at
/// least 1-, 2- or 3-D (column_stack makes vectors columns).
fn stack_family(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let tensors = tensor_list(call)?;
    let name = call.name.as_str();
    let label = if name == "row_stack" { "vstack" } else { name };
    if tensors.is_empty() {
        return Err(ScriptError::Runtime(format!(
            "{label} expects a non-empty TensorList"
        )));
    }
    let mut parts = Vec::with_capacity(tensors.len());
    for t in &tensors {
        let shaped = match label {
            "hstack" => ev.at_least(t, 1)?,
            "vstack" => ev.at_least(t, 2)?,
            "dstack" => ev.at_least(t, 3)?,
            _ if t.ndim() <= 1 => ev.view(t, &[t.numel(), 1])?,
            _ => t.clone(),
        };
        parts.push(shaped);
    }
    let dim = match label {
        "hstack" if parts[0].ndim() == 1 => 0,
        "hstack" | "column_stack" => 1,
        "vstack" => 0,
        _ => 2,
    };
    let out = out_arg(call);
    let result = ev.cat(&parts, dim, out.as_ref())?;
    let from = tensors.first().map(|t| t.storage);
    Ok(result_value(out, result, label, from))
}

impl Evaluator {
    /// `atleast_1d/2d/3d`: views with leading (and for 3-D, trailing) size-1 dims.
    fn at_least(&mut self, t: &Tensor, rank: usize) -> R<Tensor> {
        match (t.ndim(), rank) {
            (0, n) => self.view(t, &vec![1; n]),
            (1, 2) => self.unsqueeze(t, 0),
            (1, 3) => {
                let u = self.unsqueeze(t, 0)?;
                self.unsqueeze(&u, -1)
            }
            (2, 3) => self.unsqueeze(t, -1),
            _ => Ok(t.clone()),
        }
    }

    /// `torch.cat`: PyTorch's checks (zero-dim inputs, ranks, sizes off `dim`; legacy empty
    /// 1-D inputs are skipped), the promoted dtype, the output in the inputs' common
    /// suggested memory format, then one engine copy per input into its slice of the result.
    pub(super) fn cat(
        &mut self,
        tensors: &[Tensor],
        dim: i64,
        out: Option<&TensorRef>,
    ) -> R<Tensor> {
        if tensors.is_empty() {
            return Err(ScriptError::Value(
                "torch.cat(): expected a non-empty list of Tensors".into(),
            ));
        }
        for (i, t) in tensors.iter().enumerate() {
            if t.ndim() == 0 {
                return Err(ScriptError::Runtime(format!(
                    "zero-dimensional tensor (at position {i}) cannot be concatenated"
                )));
            }
        }
        let skipped = |t: &Tensor| t.ndim() == 1 && t.shape()[0] == 0;
        let reference = tensors.iter().position(|t| !skipped(t));
        let dtype = tensors
            .iter()
            .map(|t| t.dtype)
            .reduce(DType::promote)
            .unwrap_or(DType::Float32);
        let (shape, d) = match reference {
            None => (tensors[0].shape().to_vec(), 0),
            Some(r) => {
                let first = &tensors[r];
                let d = wrap_dim(dim, first.ndim()).map_err(index_err)?;
                let mut total: i64 = 0;
                for (i, t) in tensors.iter().enumerate() {
                    if skipped(t) {
                        continue;
                    }
                    if t.ndim() != first.ndim() {
                        return Err(ScriptError::Runtime(format!(
                            "Tensors must have same number of dimensions: got {} and {}",
                            first.ndim(),
                            t.ndim()
                        )));
                    }
                    for k in 0..t.ndim() {
                        if k != d && t.shape()[k] != first.shape()[k] {
                            return Err(ScriptError::Runtime(format!(
                                "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list.",
                                first.shape()[k],
                                t.shape()[k]
                            )));
                        }
                    }
                    total = total.saturating_add(t.shape()[d]);
                }
                let mut shape = first.shape().to_vec();
                shape[d] = total;
                (shape, d)
            }
        };
        self.check_shape(&shape)?;
        self.check_work(numel_of(&shape), "cat")?;
        let mut format = MemoryFormat::Contiguous;
        for (i, t) in tensors.iter().enumerate() {
            let f = t.layout.suggest_memory_format();
            if f == MemoryFormat::Contiguous || (i > 0 && f != format) {
                format = MemoryFormat::Contiguous;
                break;
            }
            format = f;
        }
        let result = match out {
            Some(o) => {
                let out_dtype = o.borrow().tensor.dtype;
                if !can_cast(dtype, out_dtype) {
                    return Err(ScriptError::Type(format!(
                        "torch.cat(): input types can't be cast to the desired output type {}",
                        out_dtype.scalar_type_name()
                    )));
                }
                self.resize_out(o, &shape, format)?
            }
            None => self.empty(&shape, dtype, format, "cat")?,
        };
        if reference.is_none() {
            return Ok(result);
        }
        let mut start = 0;
        for t in tensors.iter().filter(|t| !skipped(t)) {
            let n = t.shape()[d];
            if n > 0 {
                let slice = self.narrow(&result, d as i64, start, n)?;
                self.copy_into(&slice, t, false)?;
            }
            start += n;
        }
        Ok(result)
    }

    /// `torch.stack`: equal shapes, then `cat` and a view that splits `dim` (or, at the new
    /// last dim and with `out=`, `cat` of the inputs unsqueezed), as ATen does.
    pub(super) fn stack(
        &mut self,
        tensors: &[Tensor],
        dim: i64,
        out: Option<&TensorRef>,
    ) -> R<Tensor> {
        let Some(first) = tensors.first() else {
            return Err(ScriptError::Runtime(
                "stack expects a non-empty TensorList".into(),
            ));
        };
        let d = wrap_dim(dim, first.ndim() + 1).map_err(index_err)?;
        for (i, t) in tensors.iter().enumerate().skip(1) {
            if t.shape() != first.shape() {
                return Err(ScriptError::Runtime(format!(
                    "stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {i}",
                    list_str(first.shape()),
                    list_str(t.shape())
                )));
            }
        }
        if d < first.ndim() && out.is_none() {
            let mut shape = first.shape().to_vec();
            shape.insert(d, tensors.len() as i64);
            let joined = self.cat(tensors, d as i64, None)?;
            return self.view(&joined, &shape);
        }
        let mut parts = Vec::with_capacity(tensors.len());
        for t in tensors {
            parts.push(self.unsqueeze(t, d as i64)?);
        }
        self.cat(&parts, d as i64, out)
    }

    /// PyTorch's `resize_output` for an `out=` tensor: kept as it is when it has `shape`;
    /// otherwise resized (with PyTorch's deprecation warning when it had elements) to `shape` in `format`, its
    /// storage grown to the bytes the new shape needs past its offset (a new allocation, as
    /// PyTorch reallocates, keeping the old bytes). The object is updated in place.
    pub(super) fn resize_out(
        &mut self,
        out: &TensorRef,
        shape: &[i64],
        format: MemoryFormat,
    ) -> R<Tensor> {
        let current = out.borrow().tensor.clone();
        if current.shape() == shape {
            return Ok(current);
        }
        self.check_shape(shape)?;
        if current.numel() != 0 {
            self.recorder.warn(format!(
                "UserWarning: An output with one or more elements was resized since it had shape {}, which does not match the required output shape {}. This behavior is deprecated, and in a future PyTorch release outputs will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)",
                list_str(current.shape()),
                list_str(shape)
            ));
        }
        let layout = Layout::with_format(shape, format);
        let item = current.dtype.item_size();
        let needed = numel_of(shape)
            .checked_add(current.layout.offset)
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| n.checked_mul(item))
            .ok_or_else(|| ScriptError::Runtime("resize_: tensor is too large".into()))?;
        let have = self.engine.nbytes(current.storage);
        let storage = if needed > have {
            let mut bytes = self.engine.read_storage(current.storage);
            bytes.resize(needed, 0);
            self.allocate_with(bytes, current.dtype, "resize_")?
        } else {
            current.storage
        };
        let resized = Tensor {
            storage,
            dtype: current.dtype,
            layout: Layout {
                shape: shape.to_vec(),
                strides: layout.strides,
                offset: current.layout.offset,
            },
        };
        out.borrow_mut().tensor = resized.clone();
        Ok(resized)
    }
}
