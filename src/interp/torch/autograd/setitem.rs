//! `y[index] = value` on a tensor autograd tracks: the node PyTorch's indexing records and
//! its backward. Basic indexing (ints, slices, `None`, `...`) writes through a view
//! (`CopySlices`); a bool mask filled with a number is `masked_fill_` (`MaskedFillBackward0`,
//! keeping the mask), one index list or tensor filled with a number is `index_fill_`
//! (`IndexFillBackward0`, keeping the index), other advanced indexing `index_put_`
//! (`IndexPutBackward0`, keeping the indices). The gradient is the same for all: the
//! written positions get none of `y`'s incoming gradient, and `value` gets the gradient at
//! the positions it was written to, summed over what it was broadcast along.

use std::rc::Rc;

use crate::core::tensor::DType;
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::{
    tracks_grad, value_tracks_grad, GradNode, Operand, Saved, SavedObject,
};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// `self[index] = values`: the index is kept as the node's `index` argument.
pub(crate) static SETITEM: Formula = Formula {
    inputs: &["self", "values"],
    saves: &[],
    args: &["index"],
    backward: setitem,
};

fn setitem(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    if &*b.node.name == "CopySlices" {
        return copy_slices(ev, b);
    }
    let index = b.arg("index").cloned().unwrap_or(Value::None);
    let mut out = b.none();
    if b.needs(1) {
        let part = ev.get_item(b.g(), &index)?;
        out[1] = Some(value_grad(ev, b, part)?);
    }
    if b.needs(0) {
        let g = ev.method(b.g(), "clone", vec![])?;
        if let Some(t) = g.as_tensor() {
            ev.set_item(&t, &index, &Value::Int(0))?;
        }
        out[0] = Some(g);
    }
    Ok(out)
}

/// `CopySlices` as the engine runs it: the incoming gradient copied (`result`), its slice
/// cloned for the write's own node (`fill_`/`copy_`, whose gradient for what was
/// overwritten is zeros, copied back into the slice), the clone going to the value.
fn copy_slices(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let index = b.arg("index").cloned().unwrap_or(Value::None);
    let mut out = b.none();
    let result = ev.method(b.g(), "clone", vec![])?;
    let slice = ev.get_item(result.clone(), &index)?;
    let slice_grad = ev.method(slice.clone(), "clone", vec![])?;
    let zeros = ev.call(
        Value::Method(Box::new(Value::Torch), "zeros_like".into()),
        vec![slice_grad.clone()],
        vec![],
    )?;
    ev.method(slice, "copy_", vec![zeros])?;
    if b.needs(1) {
        out[1] = Some(value_grad(ev, b, slice_grad)?);
    }
    if b.needs(0) {
        out[0] = Some(result);
    }
    Ok(out)
}

/// The value's gradient from the gradient where it was written: summed over what it was
/// broadcast along, in its dtype, never a view of the incoming gradient.
fn value_grad(ev: &mut Evaluator, b: &Backward, part: Value) -> R<Value> {
    let shape = b.shape(1);
    let same_shape = part
        .as_tensor()
        .is_some_and(|t| t.shape() == shape.as_slice());
    let part = if same_shape {
        match &part {
            Value::Tensor(t) if t.borrow().made_by == "clone" => part,
            _ => ev.method(part, "clone", vec![])?,
        }
    } else {
        ev.sum_to(part, &shape)?
    };
    Ok(match b.node.operands.get(1).and_then(|o| o.dtype) {
        Some(dtype) if part.as_tensor().is_some_and(|t| t.dtype != dtype) => {
            ev.method(part, "to", vec![Value::DType(dtype)])?
        }
        _ => part,
    })
}

/// An index component that is advanced indexing (a tensor, or a list of numbers).
fn advanced(v: &Value) -> bool {
    matches!(v, Value::Tensor(_) | Value::List(_))
}

/// The components of an index (a tuple's items, or the index itself).
fn index_parts(index: &Value) -> Vec<&Value> {
    match index {
        Value::Tuple(items) => items.iter().collect(),
        other => vec![other],
    }
}

/// The node `y[index] = value` records, with the tensor it keeps (`mask`, `index`,
/// `indices`) if any.
fn node_of(index: &Value, value: &Value) -> (&'static str, Option<&'static str>) {
    let parts = index_parts(index);
    let advanced_parts = parts.iter().filter(|p| advanced(p)).count();
    // Basic components other than a full `:` make a view first, which the write rebases.
    let basic = parts
        .iter()
        .any(|p| !advanced(p) && !matches!(p, Value::Slice(None, None, None)));
    if advanced_parts == 0 || basic {
        return ("CopySlices", None);
    }
    let number = !matches!(value, Value::Tensor(_));
    let mask = |v: &Value| matches!(v, Value::Tensor(t) if t.try_borrow().is_ok_and(|t| matches!(t.tensor.dtype, DType::Bool | DType::UInt8)));
    match parts.as_slice() {
        [only] if number && mask(only) => ("MaskedFillBackward0", Some("mask")),
        [only] if number => ("IndexFillBackward0", Some("index")),
        _ => ("IndexPutBackward0", Some("indices")),
    }
}

impl Evaluator {
    /// After `target[index] = value` wrote: records its node on `target` when autograd
    /// tracks the write (`target` requires grad, or `value` does).
    pub(crate) fn record_setitem_grad(&mut self, target: &TensorRef, index: &Value, value: &Value) {
        if !self.torch.grad_enabled {
            return;
        }
        let value_tracks = value_tracks_grad(value);
        let (previous, dtype, shape) = {
            let Ok(object) = target.try_borrow() else {
                return;
            };
            if !(object.grad_fn.is_some() || (value_tracks && !object.requires_grad)) {
                return;
            }
            // What `target` was before the write: an object with its node, for the gradient.
            let previous = object.grad_fn.clone().map(|node| {
                let before = Value::tensor(object.tensor.clone(), "setitem", None);
                if let Value::Tensor(b) = &before {
                    b.borrow_mut().grad_fn = Some(node);
                }
                before
            });
            (
                previous,
                object.tensor.dtype,
                object.tensor.shape().to_vec(),
            )
        };
        let (name, kept) = node_of(index, value);
        let operand = |v: Option<&Value>| match v {
            Some(Value::Tensor(t)) => {
                let o = t.borrow();
                Operand {
                    tracked: tracks_grad(&o).then(|| Rc::clone(t)),
                    saved: Saved::Missing,
                    shape: o.tensor.shape().to_vec(),
                    dtype: Some(o.tensor.dtype),
                }
            }
            _ => Operand {
                tracked: None,
                saved: Saved::Missing,
                shape: vec![],
                dtype: None,
            },
        };
        let node = GradNode::shared(GradNode::built(
            name,
            &SETITEM,
            vec![operand(previous.as_ref()), operand(Some(value))],
            vec![("index".into(), index.clone())],
            dtype,
            shape,
            self.torch.autograd.next_seq(),
        ));
        if let Some(slot) = kept {
            let mut tensors = Vec::new();
            for part in index_parts(index).into_iter().filter(|p| advanced(p)) {
                // A list index is made a LongTensor, which the node keeps.
                let made = match part {
                    Value::List(_) => self
                        .call(
                            Value::Method(Box::new(Value::Torch), "tensor".into()),
                            vec![part.clone()],
                            vec![],
                        )
                        .ok(),
                    _ => None,
                };
                if let Some(Value::Tensor(t)) = made.as_ref().or(Some(part)) {
                    let inner = t.borrow().tensor.clone();
                    tensors.push((
                        slot,
                        self.save_tensor(&inner, SavedObject::Input(Rc::clone(t))),
                    ));
                }
            }
            let _ = node.extras.set(tensors);
        }
        if let Ok(mut object) = target.try_borrow_mut() {
            object.grad_fn = Some(node);
        }
    }
}
