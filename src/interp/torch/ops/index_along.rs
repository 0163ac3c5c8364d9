//! Writes and reads of whole slices picked by an index tensor along one dim: `index_add(_)`,
//! `index_copy(_)`, `index_fill(_)`, `put(_)` (flat indices) and `take_along_dim`, with
//! PyTorch's checks in ATen's order, its error text and its output strides.
//!
//! Where each slice goes depends on the contents of the index tensor, work the engine has no
//! kernel for (its kernels walk strided views). These ops compute on the CPU reference from
//! `engine.values()` and write the result with one engine copy
//! ([`Evaluator::write_values`]), so on the GPU engine the bytes still land through its copy
//! kernel.

use crate::core::tensor::layout::{
    broadcast_shapes, contiguous_strides, infer_dense_strides, list_str, wrap_dim,
};
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::torch::ops::join::{out_arg, result_value};
use crate::interp::torch::ops::reorder::int_of;
use crate::interp::torch::ops::{broadcast_view, index_err};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["index_add", "index_add_"],
        schemas: &["Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1"],
        forms: Forms::Both,
        rule: index_add,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::INDEX_ALONG,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["index_copy", "index_copy_"],
        schemas: &["Tensor self, int dim, Tensor index, Tensor source"],
        forms: Forms::Both,
        rule: index_copy,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::INDEX_ALONG,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["index_fill", "index_fill_"],
        schemas: &[
            "Tensor self, int dim, Tensor index, Tensor value",
            "Tensor self, int dim, Tensor index, Scalar value",
        ],
        forms: Forms::Both,
        rule: index_fill,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::INDEX_ALONG,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["put", "put_"],
        schemas: &["Tensor self, Tensor index, Tensor source, bool accumulate=False"],
        forms: Forms::Both,
        rule: put,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["take_along_dim"],
        schemas: &["Tensor self, Tensor indices, int? dim=None, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: take_along_dim,
        ..OpDef::PLAIN
    },
];

/// The multi-index of row-major position `flat` in `shape`.
fn unravel(mut flat: usize, shape: &[i64]) -> Vec<i64> {
    let mut pos = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        let n = shape[k].max(1) as usize;
        pos[k] = (flat % n) as i64;
        flat /= n;
    }
    pos
}

/// The row-major position of `pos` in `shape`.
fn ravel(pos: &[i64], shape: &[i64]) -> usize {
    pos.iter()
        .zip(contiguous_strides(shape))
        .map(|(p, s)| p * s)
        .sum::<i64>() as usize
}

/// `shape` without its dim `d` (all of it for a 0-d shape).
fn without(shape: &[i64], d: usize) -> Vec<i64> {
    let mut s = shape.to_vec();
    if d < s.len() {
        s.remove(d);
    }
    s
}

/// Sizes as `index_copy_`'s slice-shape message prints them: `2 4`.
fn spaced(sizes: &[i64]) -> String {
    sizes
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The strides `clone()` gives (`empty_like` with the preserve format).
fn preserve_strides(t: &Tensor) -> Vec<i64> {
    if t.layout.is_non_overlapping_and_dense() {
        t.strides().to_vec()
    } else {
        infer_dense_strides(t.shape(), t.strides())
    }
}

/// Writes `values` into `self` for the `_` forms (returning `self`), or into a new tensor
/// with `strides` for the others (a copy of `self`'s storage).
fn finish(
    ev: &mut Evaluator,
    call: &OpCall,
    t: &Tensor,
    values: &[Scalar],
    strides: &[i64],
) -> R<Value> {
    if call.name.ends_with('_') {
        ev.write_values(t, values)?;
        return Ok(Value::Tensor(call.self_ref()?));
    }
    let base = call.name.trim_end_matches('_');
    let out = ev.strided_from_values(t.shape(), strides, t.dtype, values, base)?;
    Ok(Value::tensor(out, base, Some(t.storage)))
}

/// Where an index op writes: along dim `d`, slice `i` of the source goes to slice `idx[i]`
/// of `self` (negative indices count from the end when `wrap`; `bad` is the error for an
/// index out of range).
struct Along<'a> {
    d: usize,
    idx: &'a [i64],
    wrap: bool,
    bad: &'a dyn Fn(i64) -> ScriptError,
}

/// Runs an index op on the values of `self`: each element of a source of shape `src_shape`
/// is `apply`ed (with its row-major position in the source) to the element of `self` it
/// lands on, in ATen's CPU order: slice after slice along dim 0 (or a 1-d tensor), else
/// element after element with the index innermost. An index out of range stops the loop
/// where ATen's kernel stops: the `_` forms keep what was written before it.
fn index_apply(
    ev: &mut Evaluator,
    call: &OpCall,
    t: &Tensor,
    along: &Along<'_>,
    src_shape: &[i64],
    strides: &[i64],
    apply: &mut dyn FnMut(&mut Scalar, usize),
) -> R<Value> {
    let d = along.d;
    let size = t.shape().get(d).copied().unwrap_or(1);
    let mut values = ev.engine.values(t);
    let slice_wise = d == 0 || t.ndim() <= 1;
    let rest_shape = without(src_shape, d);
    let key = |flat: usize| {
        let pos = unravel(flat, src_shape);
        let i = pos.get(d).copied().unwrap_or(0);
        let rest = ravel(&without(&pos, d), &rest_shape);
        if slice_wise {
            (i as usize, rest)
        } else {
            (rest, i as usize)
        }
    };
    let count: i64 = src_shape.iter().product();
    let mut order: Vec<usize> = (0..count.max(0) as usize).collect();
    crate::core::tensor::stable_sort::sort_by_key(&mut order, |&f| key(f));
    for flat in order {
        let mut pos = unravel(flat, src_shape);
        let i = pos.get(d).copied().unwrap_or(0) as usize;
        let raw = along.idx.get(i).copied().unwrap_or(0);
        let at_d = if along.wrap && raw < 0 {
            raw + size
        } else {
            raw
        };
        if at_d < 0 || at_d >= size {
            if call.name.ends_with('_') {
                ev.write_values(t, &values)?;
            }
            return Err((along.bad)(raw));
        }
        if let Some(p) = pos.get_mut(d) {
            *p = at_d;
        }
        let at = if t.ndim() == 0 {
            0
        } else {
            ravel(&pos, t.shape())
        };
        if let Some(slot) = values.get_mut(at) {
            apply(slot, flat);
        }
    }
    finish(ev, call, t, &values, strides)
}

/// `x + alpha * y` (or `x + y` with no `alpha`) in `dtype`'s arithmetic: integers wrap,
/// floats are rounded to the dtype after each operation, as the CPU kernels compute.
fn add_scaled(x: Scalar, y: Scalar, alpha: Option<Scalar>, dtype: DType) -> Scalar {
    if dtype.is_floating() {
        let y = match alpha {
            Some(a) => dtype.round(Scalar::Float(y.to_f64() * a.to_f64())).to_f64(),
            None => y.to_f64(),
        };
        dtype.round(Scalar::Float(x.to_f64() + y))
    } else if dtype == DType::Bool {
        let y = y.to_bool() && alpha.is_none_or(|a| a.to_bool());
        Scalar::Bool(x.to_bool() || y)
    } else {
        let y = match alpha {
            Some(a) => y.to_wrapped_int().wrapping_mul(int_of(a)),
            None => y.to_wrapped_int(),
        };
        dtype.round(Scalar::Int(x.to_wrapped_int().wrapping_add(y)))
    }
}

/// `index_add(dim, index, source, alpha=1)`: `self.select(dim, index[i]) += alpha *
/// source.select(dim, i)`; the out-of-place form is contiguous, as ATen's structured kernel
/// allocates it.
fn index_add(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let index = call.tensor("index").unwrap_or_else(|| t.clone());
    let source = call.tensor("source").unwrap_or_else(|| t.clone());
    let alpha = ev.arg_scalar(call, "alpha")?.unwrap_or(Scalar::Int(1));
    let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
    if index.ndim() > 1 {
        return Err(ScriptError::Index(format!(
            "index_add_(): Index is supposed to be a vector, but got dim: {} with type: {} and size: {}",
            index.ndim(),
            index.dtype.scalar_type_name(),
            list_str(index.shape())
        )));
    }
    if index.dtype != DType::Int64 && index.dtype != DType::Int32 {
        return Err(ScriptError::Runtime(format!(
            "index_add_(): Expected dtype int32/int64 for index but got: {}",
            index.dtype.scalar_type_name()
        )));
    }
    if t.dtype != source.dtype {
        return Err(ScriptError::Runtime(format!(
            "index_add_(): self ({}) and source ({}) must have the same scalar type",
            t.dtype.scalar_type_name(),
            source.dtype.scalar_type_name()
        )));
    }
    if d != 0 && d >= source.ndim() {
        return Err(ScriptError::Runtime(format!(
            "index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim {}",
            source.ndim()
        )));
    }
    let n = index.numel();
    let expected = if source.ndim() == 0 {
        1
    } else {
        source.shape()[d]
    };
    if n != expected {
        if source.ndim() == 0 {
            return Err(ScriptError::Index(format!(
                "Dimension specified as {d} but tensor has no dimensions"
            )));
        }
        return Err(ScriptError::Runtime(format!(
            "index_add_(): Number of indices ({n}) should be equal to source.size(dim): ({expected}), for dim: {d}"
        )));
    }
    let (self_rest, source_rest) = if source.ndim() != 0 && t.ndim() != 0 {
        (without(t.shape(), d), without(source.shape(), d))
    } else {
        (t.shape().to_vec(), source.shape().to_vec())
    };
    if self_rest != source_rest {
        return Err(ScriptError::Runtime(format!(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {} source.shape = {}",
            list_str(t.shape()),
            list_str(source.shape())
        )));
    }
    ev.check_work(t.numel().saturating_add(source.numel()), "index_add")?;
    let size = t.shape().get(d).copied().unwrap_or(1);
    let idx: Vec<i64> = ev.engine.values(&index).into_iter().map(int_of).collect();
    let src = ev.engine.values(&source);
    let alpha = (!matches!(alpha, Scalar::Int(1))).then_some(alpha);
    let dtype = t.dtype;
    let along = Along {
        d,
        idx: &idx,
        wrap: false,
        bad: &|i| {
            ScriptError::Runtime(format!(
                "index {i} is out of bounds for dimension {d} with size {size}"
            ))
        },
    };
    index_apply(
        ev,
        call,
        &t,
        &along,
        source.shape(),
        &contiguous_strides(t.shape()),
        &mut |slot, flat| {
            if let Some(&v) = src.get(flat) {
                *slot = add_scaled(*slot, v, alpha, dtype);
            }
        },
    )
}

/// `index_copy(dim, index, source)`: `self.select(dim, index[i]) = source.select(dim, i)`.
fn index_copy(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let index = call.tensor("index").unwrap_or_else(|| t.clone());
    let source = call.tensor("source").unwrap_or_else(|| t.clone());
    let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
    if index.ndim() >= 2 {
        return Err(ScriptError::Index(format!(
            "index_copy_(): Index should have dimension 1 or 0 (got {})",
            index.ndim()
        )));
    }
    let n = index.numel();
    if source.ndim() == 0 && n != 1 {
        return Err(ScriptError::Index(format!(
            "index_copy_(): When source is scalar, index should have one element (got {n})"
        )));
    }
    if source.ndim() != t.ndim() && source.ndim() != 0 && t.ndim() != 0 {
        return Err(ScriptError::Index(format!(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source dimensionality ({}), destination dimensionality ({})",
            source.ndim(),
            t.ndim()
        )));
    }
    if index.dtype != DType::Int64 {
        return Err(ScriptError::Runtime(format!(
            "index_copy_(): Expected a long tensor for index, but got {}",
            index.dtype.scalar_type_name()
        )));
    }
    if t.dtype != source.dtype {
        return Err(ScriptError::Runtime(format!(
            "index_copy_(): self and source expected to have the same dtype, but got (self) {} and (source) {}",
            t.dtype.scalar_type_name(),
            source.dtype.scalar_type_name()
        )));
    }
    let self_rest = without(t.shape(), d);
    let source_rest = without(source.shape(), d);
    if self_rest != source_rest {
        return Err(ScriptError::Runtime(format!(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: {} at dimension {d} and source slice shape: {} at dimension 0.",
            spaced(&self_rest),
            spaced(&source_rest)
        )));
    }
    let source_n = source.shape().get(d).copied().unwrap_or(1);
    if source.ndim() != 0 && n != source_n {
        return Err(ScriptError::Index(format!(
            "index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({source_n})"
        )));
    }
    ev.check_work(t.numel().saturating_add(source.numel()), "index_copy")?;
    let size = t.shape().get(d).copied().unwrap_or(1);
    let idx: Vec<i64> = ev.engine.values(&index).into_iter().map(int_of).collect();
    let src = ev.engine.values(&source);
    let along = Along {
        d,
        idx: &idx,
        wrap: false,
        bad: &|i| {
            ScriptError::Index(format!(
                "index_copy_(): index {i} is out of bounds for dimension {d} with size {size}"
            ))
        },
    };
    index_apply(
        ev,
        call,
        &t,
        &along,
        source.shape(),
        &contiguous_strides(t.shape()),
        &mut |slot, flat| {
            if let Some(&v) = src.get(flat) {
                *slot = v;
            }
        },
    )
}

/// `index_fill(dim, index, value)`: every element whose position along `dim` is in `index`
/// (negative indices count from the end) becomes `value`; the out-of-place form is a clone.
fn index_fill(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let index = call.tensor("index").unwrap_or_else(|| t.clone());
    let value = ev.fill_value(call, "index_fill_")?;
    if index.dtype != DType::Int64 {
        return Err(ScriptError::Index(
            "index_fill_(): Expected dtype int64 for index.".into(),
        ));
    }
    let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
    if index.ndim() > 1 {
        return Err(ScriptError::Runtime(
            "Index has to be a vector/scalar".into(),
        ));
    }
    let value = t
        .dtype
        .checked_number(value)
        .map_err(ScriptError::Runtime)?;
    ev.check_work(t.numel().saturating_add(index.numel()), "index_fill")?;
    let size = t.shape().get(d).copied().unwrap_or(1);
    let idx: Vec<i64> = ev.engine.values(&index).into_iter().map(int_of).collect();
    let mut slices = t.shape().to_vec();
    if let Some(s) = slices.get_mut(d) {
        *s = idx.len() as i64;
    }
    let value = t.dtype.round(value);
    let along = Along {
        d,
        idx: &idx,
        wrap: true,
        bad: &|i| {
            ScriptError::Index(format!(
                "index {i} is out of bounds for dimension {d} with size {size}"
            ))
        },
    };
    index_apply(
        ev,
        call,
        &t,
        &along,
        &slices,
        &preserve_strides(&t),
        &mut |slot, _| *slot = value,
    )
}

/// `put(index, source, accumulate=False)`: `self` seen as flat (in its logical order) gets
/// `source`'s elements at `index` (negative counts from the end); the out-of-place form is a
/// clone.
fn put(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let index = call.tensor("index").unwrap_or_else(|| t.clone());
    let source = call.tensor("source").unwrap_or_else(|| t.clone());
    let accumulate = call.flag("accumulate", false);
    if index.dtype != DType::Int64 {
        return Err(ScriptError::Runtime(format!(
            "put_(): Expected a long tensor for index, but got {}",
            index.dtype.scalar_type_name()
        )));
    }
    if t.dtype != source.dtype {
        return Err(ScriptError::Runtime(format!(
            "put_(): self and source expected to have the same dtype, but got self.dtype = {} and source.dtype = {}",
            t.dtype.scalar_type_name(),
            source.dtype.scalar_type_name()
        )));
    }
    if source.numel() != index.numel() {
        return Err(ScriptError::Index(format!(
            "put_(): Expected source and index to have the same number of elements, but got source.numel() = {}, index.numel() = {}",
            source.numel(),
            index.numel()
        )));
    }
    ev.check_work(t.numel().saturating_add(index.numel()), "put")?;
    let n = t.numel();
    let mut values = ev.engine.values(&t);
    let src = ev.engine.values(&source);
    for (i, v) in ev.engine.values(&index).into_iter().map(int_of).zip(src) {
        if i < -n || i >= n {
            if call.name == "put_" {
                ev.write_values(&t, &values)?;
            }
            return Err(ScriptError::Index(format!(
                "out of range: tried to access index {i} on a tensor of {n} elements."
            )));
        }
        let at = (if i < 0 { i + n } else { i }) as usize;
        if let Some(slot) = values.get_mut(at) {
            *slot = if accumulate {
                add_scaled(*slot, v, None, t.dtype)
            } else {
                v
            };
        }
    }
    finish(ev, call, &t, &values, &preserve_strides(&t))
}

/// `take_along_dim(indices, dim=None)`, as ATen's: with a dim, `self` and `indices` are
/// broadcast against each other except along `dim`, then `gather`ed; without one, it is
/// `self.view(-1).gather(0, indices.view(-1))`.
fn take_along_dim(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let indices = call.tensor("indices").unwrap_or_else(|| t.clone());
    let result = match ev.arg_opt_int(call, "dim")? {
        None => {
            let flat = ev.view(&t, &[-1])?;
            let flat_indices = ev.view(&indices, &[-1])?;
            ev.gather_tensor(&flat, 0, &flat_indices)?
        }
        Some(dim) => {
            if t.ndim() != indices.ndim() {
                return Err(ScriptError::Runtime(format!(
                    "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} dimensions for input, and {} dimensions for indices",
                    t.ndim(),
                    indices.ndim()
                )));
            }
            if indices.dtype != DType::Int64 {
                return Err(ScriptError::Runtime(format!(
                    "torch.take_along_dim(): dtype of indices should be Long but got {}",
                    indices.dtype.scalar_type_name()
                )));
            }
            let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
            let mut self_sizes = t.shape().to_vec();
            if let Some(s) = self_sizes.get_mut(d) {
                *s = indices.shape()[d];
            }
            let shape =
                broadcast_shapes(&self_sizes, indices.shape()).map_err(ScriptError::Runtime)?;
            let indices_b = broadcast_view(&indices, &shape);
            let mut indices_sizes = indices.shape().to_vec();
            if let Some(s) = indices_sizes.get_mut(d) {
                *s = t.shape()[d];
            }
            let shape =
                broadcast_shapes(&indices_sizes, t.shape()).map_err(ScriptError::Runtime)?;
            let self_b = broadcast_view(&t, &shape);
            ev.gather_tensor(&self_b, d as i64, &indices_b)?
        }
    };
    let out = out_arg(call);
    let result = ev.write_out(out.as_ref(), result)?;
    Ok(result_value(out, result, "take_along_dim", Some(t.storage)))
}
