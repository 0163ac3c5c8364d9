//! Indexing: `t[index]` and `t[index] = value`, with PyTorch's (NumPy's) rules.
//!
//! Python's `__getitem__`/`__setitem__` first apply the basic items (ints, slices, `None`,
//! `...`) as views ([`Evaluator::apply_slicing`], PyTorch's `applySlicing`), recording the
//! advanced items (integer tensors, lists, bool masks, bools) at the dims they index. Without
//! advanced items the result is that view. With them, ATen's `index` gathers a copy (a fresh
//! storage) and `index_put_` scatters in place (every alias sees the write); both first build
//! [`AdvancedIndex`] as ATen's `make_info` does: masks become the `nonzero` of their cells,
//! the index tensors broadcast together, and non-adjacent advanced dims move to the front.
//!
//! Where the bytes move: the indices are data, so the evaluator reads them from the engine
//! (`Engine::values`) and computes every offset itself. A result is then moved block by block:
//! one block per index position, holding the dims that are not indexed. With at most
//! [`ENGINE_BLOCKS`] blocks, each is one strided `Engine::copy` (or `fill`), so the GPU engine
//! runs them as its copy kernels. With more (masks select element by element), one kernel per
//! block would cost more than the data, so the evaluator moves the bytes on the host (the CPU
//! reference path): a read uploads the gathered result as a new storage, a write uploads the
//! written span of the storage and lands it with a single engine copy. `accumulate=True`
//! always takes the host path (each element is read, added and written in PyTorch's order).

mod ops;

pub(crate) use ops::OPS;

use super::super::value::Value;
use super::super::{Evaluator, R};
use super::{broadcast_view, Overlap};
use crate::engine::cpu::apply_binary;
use crate::engine::BinaryOp;
use crate::tensor::layout::{
    broadcast_shapes, compute_view_strides, contiguous_strides, elementwise_output_strides,
    list_str, numel_of, OperandLayout,
};
use crate::tensor::{DType, Layout, Scalar, ScriptError, Tensor};

/// Most index positions whose blocks are moved as one engine op each; past it the evaluator
/// moves the bytes on the host (see the module's doc).
const ENGINE_BLOCKS: usize = 64;

/// Lists longer than this are one index tensor even when they hold slices or tensors
/// (PyTorch's `treatSequenceAsTuple`).
const MAX_TUPLE_LIKE_LIST: usize = 32;

/// An index tensor as ATen's indexing sees it: layout (its strides decide the result's),
/// dtype and its values.
#[derive(Clone, Debug)]
pub(crate) struct IndexTensor {
    shape: Vec<i64>,
    strides: Vec<i64>,
    dtype: DType,
    /// Values in row-major order of `shape` (masks as 0/1).
    values: Vec<i64>,
    /// The user's tensor it is (for the overlap check of writes); `None` for lists.
    source: Option<Tensor>,
}

impl IndexTensor {
    fn is_mask(&self) -> bool {
        matches!(self.dtype, DType::Bool | DType::UInt8)
    }

    /// A 1-D int64 index (`boolToIndexingTensor`, `nonzero` columns, lists).
    fn long(values: Vec<i64>) -> IndexTensor {
        IndexTensor {
            shape: vec![values.len() as i64],
            strides: vec![1],
            dtype: DType::Int64,
            values,
            source: None,
        }
    }
}

/// ATen's `AdvancedIndex`: the indexed tensor (dims transposed so that the indexed ones are
/// adjacent), where those dims are, and the broadcast index tensors.
struct AdvancedIndex {
    /// The indexed tensor, its indexed dims at `before..before + indices.len()`.
    base: Tensor,
    before: usize,
    /// The broadcast shape of the index tensors.
    index_shape: Vec<i64>,
    /// Each index's values, broadcast to `index_shape`, row-major.
    indices: Vec<Vec<i64>>,
    /// The result's shape (and the shape a written value must broadcast to).
    result_shape: Vec<i64>,
    /// The result's strides, as TensorIterator allocates it.
    result_strides: Vec<i64>,
}

impl AdvancedIndex {
    fn k(&self) -> usize {
        self.indices.len()
    }

    /// Shape and strides of `base` without the indexed dims (one block).
    fn block_dims(&self, strides: &[i64]) -> (Vec<i64>, Vec<i64>) {
        let (b, k) = (self.before, self.k());
        let shape = [&self.base.shape()[..b], &self.base.shape()[b + k..]].concat();
        let strides = [&strides[..b], &strides[b + k..]].concat();
        (shape, strides)
    }

    /// The same for the result (index dims at `before..before + index_shape.len()`).
    fn result_block_dims(&self) -> (Vec<i64>, Vec<i64>) {
        let (b, n) = (self.before, self.index_shape.len());
        let shape = [&self.result_shape[..b], &self.result_shape[b + n..]].concat();
        let strides = [&self.result_strides[..b], &self.result_strides[b + n..]].concat();
        (shape, strides)
    }

    /// The element offset in `base` of index position `p` (row-major in `index_shape`), or
    /// the kernel's out-of-bounds error.
    fn source_offset(&self, p: usize) -> R<i64> {
        let mut offset = self.base.layout.offset;
        for (j, values) in self.indices.iter().enumerate() {
            let d = self.before + j;
            let size = self.base.shape()[d];
            let v = values.get(p).copied().unwrap_or(0);
            if v < -size || v >= size {
                return Err(ScriptError::Index(format!(
                    "index {v} is out of bounds for dimension {j} with size {size}"
                )));
            }
            let v = if v < 0 { v + size } else { v };
            offset += v * self.base.strides()[d];
        }
        Ok(offset)
    }

    /// The offset of index position `p` in a tensor of the result's shape with `strides`.
    fn result_offset(&self, p: usize, strides: &[i64]) -> i64 {
        let n = self.index_shape.len();
        let mut rest = p as i64;
        let mut offset = 0;
        for d in (0..n).rev() {
            let size = self.index_shape[d].max(1);
            offset += (rest % size) * strides[self.before + d];
            rest /= size;
        }
        offset
    }

    fn positions(&self) -> usize {
        numel_of(&self.index_shape).max(0) as usize
    }
}

/// Relative offsets of every element of a strided block, row-major.
fn block_offsets(shape: &[i64], strides: &[i64]) -> Vec<i64> {
    Layout {
        shape: shape.to_vec(),
        strides: strides.to_vec(),
        offset: 0,
    }
    .offsets()
    .collect()
}

/// A slot of the recorded advanced indices: one per indexed dim, a mask covering its ndim.
type Slots = Vec<Option<IndexTensor>>;

/// What an index assignment writes: a Python number (already in the destination's dtype)
/// or a tensor.
#[derive(Clone)]
pub(crate) enum PutValue {
    Number(Scalar),
    Tensor(Tensor),
}

/// `t[index]` before the Python index is split into items: the list of items and whether
/// it came as a tuple (a tuple, or a short list holding slices, tensors or sequences).
fn index_items(index: &Value) -> (Vec<Value>, bool) {
    match index {
        Value::Tuple(items) => (items.clone(), true),
        Value::List(items)
            if items.len() < MAX_TUPLE_LIKE_LIST
                && items.iter().any(|v| {
                    matches!(
                        v,
                        Value::Tensor(_)
                            | Value::List(_)
                            | Value::Tuple(_)
                            | Value::Slice(..)
                            | Value::Ellipsis
                            | Value::None
                    )
                }) =>
        {
            (items.clone(), true)
        }
        other => (vec![other.clone()], false),
    }
}

/// `count_specified_dimensions`: dims the items index (masks count their ndim).
fn count_specified(items: &[Value]) -> usize {
    items
        .iter()
        .map(|item| match item {
            Value::Tensor(t) => {
                let t = t.borrow();
                if matches!(t.tensor.dtype, DType::Bool | DType::UInt8) {
                    t.tensor.ndim()
                } else {
                    1
                }
            }
            Value::None | Value::Ellipsis | Value::Bool(_) => 0,
            _ => 1,
        })
        .sum()
}

/// Flattens a nested Python list into values and a shape (`torch.tensor`'s rules for the
/// shape; the error names the first ragged dim).
fn flatten_list(
    ev: &mut Evaluator,
    v: &Value,
    depth: usize,
    shape: &mut Vec<i64>,
    out: &mut Vec<Scalar>,
) -> R<()> {
    match v {
        Value::List(items) | Value::Tuple(items) => {
            let n = items.len() as i64;
            if shape.len() == depth {
                shape.push(n);
            } else if shape.get(depth) != Some(&n) {
                return Err(ScriptError::Value(format!(
                    "expected sequence of length {} at dim {depth} (got {n})",
                    shape.get(depth).copied().unwrap_or(0)
                )));
            }
            for item in items {
                flatten_list(ev, item, depth + 1, shape, out)?;
            }
            Ok(())
        }
        other => {
            if shape.len() > depth {
                return Err(ScriptError::Type(format!(
                    "object of type '{}' has no len()",
                    other.type_name()
                )));
            }
            let s = match other {
                Value::Tensor(t) => {
                    let t = t.borrow().tensor.clone();
                    if t.numel() != 1 {
                        return Err(ScriptError::Value(
                            "only one element tensors can be converted to Python scalars".into(),
                        ));
                    }
                    ev.engine.values(&t).first().copied().unwrap_or(Scalar::Int(0))
                }
                v => ev.scalar_of(v).ok_or_else(|| {
                    ScriptError::Type(format!(
                        "new(): invalid data type '{}'",
                        other.type_name()
                    ))
                })?,
            };
            out.push(s);
            Ok(())
        }
    }
}

impl Evaluator {
    /// `t[index]`: the view of basic indexing, or (with tensors, lists, masks or bools in
    /// the index) the copy ATen's `index` gathers.
    pub(crate) fn index_view(&mut self, t: &Tensor, index: &Value) -> R<Tensor> {
        let (view, slots) = self.apply_slicing(t, index)?;
        if slots.iter().all(Option::is_none) {
            return Ok(view);
        }
        self.index_gather(&view, slots)
    }

    /// PyTorch's `applySlicing`: applies ints, slices, `None` and `...` as views and records
    /// the advanced items at the dims they index.
    fn apply_slicing(&mut self, t: &Tensor, index: &Value) -> R<(Tensor, Slots)> {
        let (items, tuple) = index_items(index);
        let specified = count_specified(&items);
        let ellipses = items
            .iter()
            .filter(|v| matches!(v, Value::Ellipsis))
            .count();
        if ellipses > 1 {
            return Err(ScriptError::Index(
                "an index can only have a single ellipsis ('...')".into(),
            ));
        }
        // A lone int or slice takes PyTorch's fast path, which reports 0-dim misuse itself;
        // a lone bool is `unsqueeze(0)` then an index.
        let lone_basic = !tuple && matches!(index, Value::Int(_) | Value::Slice(..));
        if specified > t.ndim() && !lone_basic {
            return Err(ScriptError::Index(format!(
                "too many indices for tensor of dimension {}",
                t.ndim()
            )));
        }
        let mut result = t.clone();
        let mut slots: Slots = Vec::new();
        let mut dim = 0usize;
        // PyTorch names a dim in its errors by the position of the index item in the tuple.
        for (position, item) in items.iter().enumerate() {
            match item {
                Value::None => {
                    result = self.unsqueeze(&result, dim as i64)?;
                    dim += 1;
                }
                Value::Ellipsis => dim += t.ndim().saturating_sub(specified),
                Value::Slice(start, stop, step) => {
                    if result.ndim() == 0 {
                        return Err(ScriptError::Index(
                            "slice() cannot be applied to a 0-dim tensor.".into(),
                        ));
                    }
                    result = self.slice(&result, dim, *start, *stop, *step)?;
                    dim += 1;
                }
                Value::Bool(b) => {
                    result = self.unsqueeze(&result, dim as i64)?;
                    record(&mut slots, dim, bool_index(*b));
                    dim += 1;
                }
                Value::Tensor(r) => {
                    let tensor = r.borrow().tensor.clone();
                    let mask = matches!(tensor.dtype, DType::Bool | DType::UInt8);
                    if tensor.ndim() == 0 && !tensor.dtype.is_floating() {
                        let v = self
                            .engine
                            .values(&tensor)
                            .first()
                            .copied()
                            .unwrap_or(Scalar::Int(0));
                        if mask {
                            result = self.unsqueeze(&result, dim as i64)?;
                            record(&mut slots, dim, bool_index(v.to_bool()));
                            dim += 1;
                        } else {
                            result = self.select_item(&result, dim, v.to_wrapped_int(), position)?;
                        }
                    } else {
                        let ix = self.tensor_index(&tensor)?;
                        record(&mut slots, dim, ix);
                        dim += if mask { tensor.ndim() } else { 1 };
                    }
                }
                Value::List(_) | Value::Tuple(_) => {
                    let ix = self.list_index(item)?;
                    let n = if ix.is_mask() { ix.shape.len() } else { 1 };
                    record(&mut slots, dim, ix);
                    dim += n;
                }
                other => {
                    let i = self.index_int(other)?;
                    result = self.select_item(&result, dim, i, position)?;
                }
            }
        }
        Ok((result, slots))
    }

    /// `t[i]` at `dim` (the item at `position` of the index), with Python's errors.
    fn select_item(&mut self, t: &Tensor, dim: usize, i: i64, position: usize) -> R<Tensor> {
        if t.ndim() == 0 && i == 0 {
            return Err(ScriptError::Index(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number".into(),
            ));
        }
        // A 0-dim tensor reports its missing dim as size 0.
        let size = t.shape().get(dim).copied().unwrap_or(0);
        if i < -size || i >= size {
            return Err(ScriptError::Index(format!(
                "index {i} is out of bounds for dimension {position} with size {size}"
            )));
        }
        Ok(self.select_unchecked(t, dim, i))
    }

    /// An integer index (`__index__`): ints, bools and integer 0-dim/1-element tensors.
    pub(crate) fn index_int(&mut self, v: &Value) -> R<i64> {
        match v {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(i64::from(*b)),
            Value::Tensor(t) => {
                let t = t.borrow().tensor.clone();
                if t.numel() == 1 && !t.dtype.is_floating() {
                    Ok(self.engine.values(&t).first().map(|s| s.to_wrapped_int()).unwrap_or(0))
                } else {
                    Err(ScriptError::Type("only integer tensors of a single element can be converted to an index".into()))
                }
            }
            other => Err(ScriptError::Index(format!(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got {})",
                other.type_name()
            ))),
        }
    }

    /// A user's tensor as an index (its values read from the engine).
    fn tensor_index(&mut self, t: &Tensor) -> R<IndexTensor> {
        self.check_work(t.numel(), "index")?;
        let values = if t.dtype.is_floating() {
            Vec::new()
        } else {
            self.engine
                .values(t)
                .into_iter()
                .map(Scalar::to_wrapped_int)
                .collect()
        };
        Ok(IndexTensor {
            shape: t.shape().to_vec(),
            strides: t.strides().to_vec(),
            dtype: t.dtype,
            values,
            source: Some(t.clone()),
        })
    }

    /// A Python list as an index (`indexing_tensor_from_data`): all bools make a mask,
    /// anything else an int64 tensor (floats truncated).
    fn list_index(&mut self, v: &Value) -> R<IndexTensor> {
        let mut shape = Vec::new();
        let mut values = Vec::new();
        flatten_list(self, v, 0, &mut shape, &mut values)?;
        let all_bool = !values.is_empty() && values.iter().all(|s| matches!(s, Scalar::Bool(_)));
        Ok(IndexTensor {
            strides: contiguous_strides(&shape),
            shape,
            dtype: if all_bool { DType::Bool } else { DType::Int64 },
            values: values.into_iter().map(Scalar::to_wrapped_int).collect(),
            source: None,
        })
    }

    /// ATen's `make_info` (and `AdvancedIndex`'s constructor) for indexing `t`.
    fn make_info(&mut self, t: &Tensor, slots: Slots) -> R<AdvancedIndex> {
        if slots.iter().flatten().any(|ix| {
            !matches!(
                ix.dtype,
                DType::Int64 | DType::Int32 | DType::UInt8 | DType::Bool
            )
        }) {
            return Err(ScriptError::Index(
                "tensors used as indices must be long, int, byte or bool tensors".into(),
            ));
        }
        // Masks become the columns of their `nonzero`.
        let mut expanded: Vec<Option<IndexTensor>> = Vec::new();
        for slot in slots {
            match slot {
                Some(ix) if ix.is_mask() => {
                    for (j, &n) in ix.shape.iter().enumerate() {
                        let src = expanded.len() + j;
                        if t.shape().get(src) != Some(&n) {
                            return Err(mask_mismatch(&ix.shape, j, t.shape(), src));
                        }
                    }
                    for column in mask_nonzero(&ix.shape, &ix.values) {
                        expanded.push(Some(IndexTensor::long(column)));
                    }
                }
                other => expanded.push(other),
            }
        }
        if expanded.len() > t.ndim() {
            return Err(ScriptError::Index(format!(
                "too many indices for tensor of dimension {} (got {})",
                t.ndim(),
                expanded.len()
            )));
        }
        // Broadcast the index tensors together.
        let defined: Vec<&IndexTensor> = expanded.iter().flatten().collect();
        let mut index_shape: Vec<i64> = Vec::new();
        for ix in &defined {
            index_shape = broadcast_shapes(&index_shape, &ix.shape).map_err(|_| {
                let shapes: Vec<String> = defined.iter().map(|i| list_str(&i.shape)).collect();
                ScriptError::Index(format!(
                    "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                    shapes.join(", ")
                ))
            })?;
        }
        let n_positions = numel_of(&index_shape);
        self.check_work(n_positions.saturating_mul(defined.len() as i64), "index")?;
        let several = defined.len() > 1;
        let mut broadcast: Vec<Option<IndexTensor>> = expanded
            .into_iter()
            .map(|slot| slot.map(|ix| expand_index(ix, &index_shape, several)))
            .collect();
        broadcast.resize(t.ndim(), None);
        // Non-adjacent indexed dims move to the front (`transposeToFront`).
        let dims: Vec<usize> = (0..broadcast.len())
            .filter(|&d| broadcast[d].is_some())
            .collect();
        let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
        let (base, ordered) = if adjacent {
            (t.clone(), broadcast)
        } else {
            let rest = (0..broadcast.len()).filter(|&d| broadcast[d].is_none());
            let perm: Vec<usize> = dims.iter().copied().chain(rest).collect();
            let base = self.permute(t, &perm.iter().map(|&d| d as i64).collect::<Vec<_>>())?;
            let ordered = perm.iter().map(|&d| broadcast[d].clone()).collect();
            (base, ordered)
        };
        let before = ordered.iter().take_while(|s| s.is_none()).count();
        let indices: Vec<IndexTensor> = ordered.iter().flatten().cloned().collect();
        let k = indices.len();
        let indexed_sizes = &base.shape()[before..before + k];
        if indexed_sizes.contains(&0) && !index_shape.contains(&0) {
            return Err(ScriptError::Index(
                "index is out of bounds for dimension with size 0".into(),
            ));
        }
        let after = base.ndim() - before - k;
        let result_shape = [
            &base.shape()[..before],
            &index_shape[..],
            &base.shape()[before + k..],
        ]
        .concat();
        self.check_work(numel_of(&result_shape), "index")?;
        // TensorIterator's operands: the source restrided (stride 0 on the index dims) and
        // each index reshaped to the result's rank.
        let src_strides = [
            &base.strides()[..before],
            &vec![0; index_shape.len()][..],
            &base.strides()[before + k..],
        ]
        .concat();
        let reshaped: Vec<(Vec<i64>, Vec<i64>, i64)> = indices
            .iter()
            .map(|ix| {
                let shape = [vec![1; before], ix.shape.clone(), vec![1; after]].concat();
                let strides = compute_view_strides(&ix.shape, &ix.strides, &shape)
                    .unwrap_or_else(|| contiguous_strides(&shape));
                (shape, strides, ix.dtype.item_size() as i64)
            })
            .collect();
        let mut operands = vec![OperandLayout {
            shape: &result_shape,
            strides: &src_strides,
            item_size: base.dtype.item_size() as i64,
        }];
        operands.extend(reshaped.iter().map(|(shape, strides, item)| OperandLayout {
            shape,
            strides,
            item_size: *item,
        }));
        let result_strides = elementwise_output_strides(&result_shape, &operands);
        Ok(AdvancedIndex {
            base,
            before,
            indices: indices.into_iter().map(|ix| ix.values).collect(),
            index_shape,
            result_shape,
            result_strides,
        })
    }

    /// ATen's `index`: gathers `t[indices]` into a fresh tensor.
    fn index_gather(&mut self, t: &Tensor, slots: Slots) -> R<Tensor> {
        let info = self.make_info(t, slots)?;
        let positions = info.positions();
        // Bounds are checked (in order) before anything is allocated.
        let offsets: Vec<i64> = (0..positions)
            .map(|p| info.source_offset(p))
            .collect::<R<_>>()?;
        let (src_shape, src_strides) = info.block_dims(t_strides(&info.base));
        let (out_shape, out_strides) = info.result_block_dims();
        let dtype = info.base.dtype;
        if positions <= ENGINE_BLOCKS {
            let out =
                self.empty_strided(&info.result_shape, &info.result_strides, dtype, "index")?;
            for (p, &offset) in offsets.iter().enumerate() {
                let src = info.base.with_layout(Layout {
                    shape: src_shape.clone(),
                    strides: src_strides.clone(),
                    offset,
                });
                let dst = out.with_layout(Layout {
                    shape: out_shape.clone(),
                    strides: out_strides.clone(),
                    offset: info.result_offset(p, &info.result_strides),
                });
                self.engine.copy(&dst, &src);
            }
            return Ok(out);
        }
        // Host path: gather the bytes, upload the result once.
        let item = dtype.item_size();
        let nbytes = crate::eval::ops::storage_nbytes_for(
            &info.result_shape,
            &info.result_strides,
            0,
            item,
        )
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| ScriptError::Runtime("index: tensor is too large".into()))?;
        self.check_memory(nbytes, "index")?;
        let storage = self.engine.read_storage(info.base.storage);
        let src_rel = block_offsets(&src_shape, &src_strides);
        let out_rel = block_offsets(&out_shape, &out_strides);
        let mut bytes = vec![0u8; nbytes];
        for (p, &offset) in offsets.iter().enumerate() {
            let out_base = info.result_offset(p, &info.result_strides);
            for (s, o) in src_rel.iter().zip(&out_rel) {
                let from = usize::try_from(offset + s).unwrap_or(usize::MAX);
                let to = usize::try_from(out_base + o).unwrap_or(usize::MAX);
                if let (Some(src), Some(dst)) = (
                    storage.get(from.saturating_mul(item)..from.saturating_mul(item) + item),
                    bytes.get_mut(to.saturating_mul(item)..to.saturating_mul(item) + item),
                ) {
                    dst.copy_from_slice(src);
                }
            }
        }
        let storage = self.allocate_with(bytes, dtype, "index")?;
        Ok(Tensor {
            storage,
            dtype,
            layout: Layout {
                shape: info.result_shape,
                strides: info.result_strides,
                offset: 0,
            },
        })
    }

    /// `dst[index] = value` (Python's `__setitem__`): a copy into the view of basic
    /// indexing, or `index_put_` with advanced items.
    pub(crate) fn set_item(&mut self, dst: &Tensor, index: &Value, value: &Value) -> R<()> {
        // `x[False] = v` writes nothing and checks nothing.
        if matches!(index, Value::Bool(false)) {
            return Ok(());
        }
        let value = match value {
            Value::Tensor(src_ref) => PutValue::Tensor(src_ref.borrow().tensor.clone()),
            other => {
                let s = self.scalar_of(other).ok_or_else(|| {
                    ScriptError::Type(format!(
                        "can't assign a {} to a {}",
                        other.type_name(),
                        dst.dtype.legacy_type_name()
                    ))
                })?;
                let (view, slots) = self.apply_slicing(dst, index)?;
                // Basic indexing errors come first, then the number's range check.
                let s = dst.dtype.checked_number(s).map_err(ScriptError::Runtime)?;
                let s = dst.dtype.round(s);
                if slots.iter().all(Option::is_none) {
                    return self.fill(&view, s);
                }
                return self.index_put(&view, slots, PutValue::Number(s), false);
            }
        };
        let PutValue::Tensor(src) = value else {
            return Ok(());
        };
        let (view, slots) = self.apply_slicing(dst, index)?;
        // Leading size-1 dims of the value are dropped (`slicePrefix1sSize`).
        let lead = src.shape().iter().take_while(|&&n| n == 1).count();
        let mut stripped = src.clone();
        stripped.layout.shape.drain(..lead);
        stripped.layout.strides.drain(..lead);
        if slots.iter().any(Option::is_some) {
            return self.index_put(&view, slots, PutValue::Tensor(stripped), false);
        }
        if view.shape() == src.shape() {
            return self.copy_into(&view, &src, false);
        }
        if src.ndim() == 0 {
            let v = self
                .engine
                .values(&src)
                .first()
                .copied()
                .unwrap_or(Scalar::Int(0));
            return self.fill(&view, v);
        }
        let expanded = self.expand(&stripped, view.shape())?;
        self.copy_into(&view, &expanded, false)
    }

    /// ATen's `_index_put_impl_`: writes `value` at `dst[indices]` in place (the cells
    /// written are recorded). Duplicate positions are written in order: the last wins, as on
    /// PyTorch's CPU; with `accumulate` they add up.
    pub(crate) fn index_put(
        &mut self,
        dst: &Tensor,
        slots: Slots,
        value: PutValue,
        accumulate: bool,
    ) -> R<()> {
        if slots.len() > dst.ndim() {
            return Err(ScriptError::Index(format!(
                "too many indices for tensor of dimension {} (got {})",
                dst.ndim(),
                slots.len()
            )));
        }
        let mut value = value;
        let mut masked_fill = false;
        if !accumulate {
            if let Some(s) = self.masked_fill_value(dst, &slots, &value)? {
                value = PutValue::Number(dst.dtype.round(s));
                masked_fill = true;
            }
        }
        if !masked_fill {
            let overlap_err = || {
                ScriptError::Runtime("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.".into())
            };
            if let PutValue::Tensor(v) = &value {
                if matches!(self.overlap(dst, v, false), Overlap::Full | Overlap::Partial) {
                    return Err(overlap_err());
                }
            }
            for source in slots.iter().flatten().filter_map(|ix| ix.source.as_ref()) {
                if matches!(self.overlap(dst, source, false), Overlap::Full | Overlap::Partial) {
                    return Err(overlap_err());
                }
            }
        }
        let info = self.make_info(dst, slots)?;
        if let PutValue::Tensor(v) = &value {
            if broadcast_shapes(v.shape(), &info.result_shape).as_deref()
                != Ok(&info.result_shape[..])
            {
                return Err(ScriptError::Runtime(format!(
                    "shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
                    list_str(v.shape()),
                    list_str(&info.result_shape)
                )));
            }
            if v.dtype != dst.dtype {
                return Err(ScriptError::Runtime(format!(
                    "Index put requires the source and destination dtypes match, got {} for the destination and {} for the source.",
                    dst.dtype.scalar_type_name(),
                    v.dtype.scalar_type_name()
                )));
            }
        }
        let positions = info.positions();
        let (dst_shape, dst_strides) = info.block_dims(t_strides(&info.base));
        if positions <= ENGINE_BLOCKS && !accumulate {
            // One engine op per block, in order; an out-of-bounds index stops the writes
            // there, as the kernel does.
            let full = match &value {
                PutValue::Tensor(v) => Some(broadcast_view(v, &info.result_shape)),
                PutValue::Number(_) => None,
            };
            let (b, n) = (info.before, info.index_shape.len());
            let value_strides = full
                .as_ref()
                .map(|f| [&f.strides()[..b], &f.strides()[b + n..]].concat())
                .unwrap_or_default();
            let mut written = Vec::new();
            let mut failure = None;
            for p in 0..positions {
                let offset = match info.source_offset(p) {
                    Ok(o) => o,
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                };
                let block = info.base.with_layout(Layout {
                    shape: dst_shape.clone(),
                    strides: dst_strides.clone(),
                    offset,
                });
                match (&value, &full) {
                    (_, Some(f)) => {
                        let src = f.with_layout(Layout {
                            shape: dst_shape.clone(),
                            strides: value_strides.clone(),
                            offset: f.layout.offset + info.result_offset(p, f.strides()),
                        });
                        self.engine.copy(&block, &src);
                    }
                    (PutValue::Number(s), None) => self.engine.fill(&block, *s),
                    (PutValue::Tensor(_), None) => {}
                }
                written.extend(block.layout.offsets());
            }
            self.note_offsets(&info.base, written);
            return failure.map_or(Ok(()), Err);
        }
        self.index_put_host(&info, &value, accumulate, &dst_shape, &dst_strides)
    }

    /// The host path of [`Evaluator::index_put`] (many blocks, or `accumulate`): the
    /// written span of the storage is updated on the host, uploaded, and landed with one
    /// engine copy.
    fn index_put_host(
        &mut self,
        info: &AdvancedIndex,
        value: &PutValue,
        accumulate: bool,
        dst_shape: &[i64],
        dst_strides: &[i64],
    ) -> R<()> {
        let dtype = info.base.dtype;
        let item = dtype.item_size();
        let values: Vec<Scalar> = match value {
            PutValue::Tensor(v) => self.engine.values(&broadcast_view(v, &info.result_shape)),
            PutValue::Number(_) => Vec::new(),
        };
        let mut storage = self.engine.read_storage(info.base.storage);
        let rel = block_offsets(dst_shape, dst_strides);
        let post = numel_of(&info.base.shape()[info.before + info.k()..]).max(0) as usize;
        let positions = info.positions();
        let mut written: Vec<i64> = Vec::new();
        let mut failure = None;
        for p in 0..positions {
            let offset = match info.source_offset(p) {
                Ok(o) => o,
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            };
            for (e, r) in rel.iter().enumerate() {
                let at = usize::try_from(offset + r).unwrap_or(usize::MAX);
                if at.saturating_add(1).saturating_mul(item) > storage.len() {
                    continue;
                }
                let v = match value {
                    PutValue::Number(s) => *s,
                    PutValue::Tensor(_) => {
                        let flat = ((e / post.max(1)) * positions + p) * post + e % post.max(1);
                        values.get(flat).copied().unwrap_or(Scalar::Int(0))
                    }
                };
                let v = if accumulate {
                    let old = dtype.read(&storage, at);
                    apply_binary(BinaryOp::Add, old, v, dtype).unwrap_or(v)
                } else {
                    v
                };
                dtype.write(&mut storage, at, v);
                written.push(at as i64);
            }
        }
        if let (Some(&lo), Some(&hi)) = (written.iter().min(), written.iter().max()) {
            let (lo_b, hi_b) = (lo as usize * item, (hi as usize + 1) * item);
            let span = storage.get(lo_b..hi_b).map(<[u8]>::to_vec).unwrap_or_default();
            self.check_memory(span.len(), "index_put_")?;
            let temp = self.engine.allocate_with(span);
            let len = hi - lo + 1;
            let target = info.base.with_layout(Layout {
                shape: vec![len],
                strides: vec![1],
                offset: lo,
            });
            let source = Tensor {
                storage: temp,
                dtype,
                layout: Layout::contiguous(&[len]),
            };
            self.engine.copy(&target, &source);
            self.engine.free(temp);
        }
        self.note_offsets(&info.base, written);
        match failure {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Records the element offsets an indexed write wrote in `t`'s storage (for the
    /// trace's written cells), unless the storage is new in this statement.
    fn note_offsets(&mut self, t: &Tensor, mut offsets: Vec<i64>) {
        if offsets.is_empty() || self.step_new_storages.contains(&t.storage) {
            return;
        }
        offsets.truncate(self.limits.max_recorded_elements);
        self.step_writes
            .push((t.storage, t.dtype.item_size(), offsets));
    }

    /// ATen's `canDispatchToMaskedFill`: a one-element value and a single mask (no other
    /// index) make the write a `masked_fill_` with the value as a number (no dtype match
    /// needed). Returns that number.
    fn masked_fill_value(
        &mut self,
        dst: &Tensor,
        slots: &Slots,
        value: &PutValue,
    ) -> R<Option<Scalar>> {
        let scalar = match value {
            PutValue::Number(s) => *s,
            PutValue::Tensor(v) if v.numel() == 1 => {
                self.engine.values(v).first().copied().unwrap_or(Scalar::Int(0))
            }
            PutValue::Tensor(_) => return Ok(None),
        };
        let defined: Vec<&IndexTensor> = slots.iter().flatten().collect();
        if defined.len() != 1 || !defined[0].is_mask() {
            return Ok(None);
        }
        let mut covered = 0usize;
        for slot in slots {
            match slot {
                None => covered += 1,
                Some(mask) => {
                    for (j, &n) in mask.shape.iter().enumerate() {
                        let src = covered + j;
                        if dst.shape().get(src) != Some(&n) {
                            return Err(mask_mismatch(&mask.shape, j, dst.shape(), src));
                        }
                    }
                    covered += mask.shape.len();
                }
            }
        }
        Ok(Some(scalar))
    }
}

/// A tensor's strides (a helper that keeps borrows short).
fn t_strides(t: &Tensor) -> &[i64] {
    t.strides()
}

/// Records an advanced index at `dim`, padding the slots of the dims before it.
fn record(slots: &mut Slots, dim: usize, ix: IndexTensor) {
    let mut covered: usize = slots
        .iter()
        .map(|s| match s {
            Some(m) if m.is_mask() => m.shape.len(),
            _ => 1,
        })
        .sum();
    while covered < dim {
        slots.push(None);
        covered += 1;
    }
    slots.push(Some(ix));
}

/// `boolToIndexingTensor`: `True` selects the new size-1 dim, `False` none of it.
fn bool_index(b: bool) -> IndexTensor {
    IndexTensor::long(if b { vec![0] } else { Vec::new() })
}

/// The error of a mask whose shape does not match the dims it indexes.
fn mask_mismatch(mask: &[i64], j: usize, shape: &[i64], src: usize) -> ScriptError {
    ScriptError::Index(format!(
        "The shape of the mask {} at index {j} does not match the shape of the indexed tensor {} at index {src}",
        list_str(mask),
        list_str(shape)
    ))
}

/// The coordinates of a mask's true cells, one column per dim (`nonzero().select(1, j)`).
fn mask_nonzero(shape: &[i64], values: &[i64]) -> Vec<Vec<i64>> {
    let mut columns = vec![Vec::new(); shape.len()];
    for (flat, _) in values.iter().enumerate().filter(|(_, &v)| v != 0) {
        let mut rest = flat as i64;
        for d in (0..shape.len()).rev() {
            let n = shape[d].max(1);
            columns[d].push(rest % n);
            rest /= n;
        }
    }
    columns
}

/// `expand_outplace`: an index broadcast to `shape` (its values re-laid row-major; its
/// strides 0 on the broadcast dims). A lone index is left as is.
fn expand_index(ix: IndexTensor, shape: &[i64], several: bool) -> IndexTensor {
    if !several && ix.shape == shape {
        return ix;
    }
    let offset = shape.len() - ix.shape.len().min(shape.len());
    let mut strides = vec![0; shape.len()];
    let own = contiguous_strides(&ix.shape);
    let mut value_strides = vec![0; shape.len()];
    for (i, &n) in ix.shape.iter().enumerate() {
        if offset + i < shape.len() && !(n == 1 && shape[offset + i] != 1) {
            strides[offset + i] = ix.strides[i];
            value_strides[offset + i] = own[i];
        }
    }
    let values = block_offsets(shape, &value_strides)
        .into_iter()
        .map(|at| ix.values.get(at as usize).copied().unwrap_or(0))
        .collect();
    IndexTensor {
        shape: shape.to_vec(),
        strides,
        dtype: ix.dtype,
        values,
        source: ix.source,
    }
}
