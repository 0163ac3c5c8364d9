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
mod put;

pub(crate) use ops::OPS;

use crate::core::tensor::layout::{
    broadcast_shapes, compute_view_strides, contiguous_strides, elementwise_output_strides,
    list_str, numel_of, OperandLayout,
};
use crate::core::tensor::{DType, Layout, Scalar, ScriptError, Tensor};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

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
                            | Value::Str(_)
                            | Value::Range(..)
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
    let items = match v {
        Value::List(items) | Value::Tuple(items) => Some(items.clone()),
        Value::Range(..) => Some(ev.iterate(v)?),
        _ => None,
    };
    match (items, v) {
        (Some(items), _) => {
            let n = items.len() as i64;
            if shape.len() == depth {
                shape.push(n);
            } else if shape.get(depth) != Some(&n) {
                return Err(ScriptError::Value(format!(
                    "expected sequence of length {} at dim {depth} (got {n})",
                    shape.get(depth).copied().unwrap_or(0)
                )));
            }
            for item in &items {
                flatten_list(ev, item, depth + 1, shape, out)?;
            }
            Ok(())
        }
        (None, other) => {
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
                    ev.engine
                        .values(&t)
                        .first()
                        .copied()
                        .unwrap_or(Scalar::Int(0))
                }
                v => ev.scalar_of(v).ok_or_else(|| {
                    ScriptError::Type(format!("new(): invalid data type '{}'", other.type_name()))
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
        // Several `...` are allowed: each skips the dims the items leave (PyTorch's rule).
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
                            result =
                                self.select_item(&result, dim, v.to_wrapped_int(), position)?;
                        }
                    } else {
                        let ix = self.tensor_index(&tensor)?;
                        record(&mut slots, dim, ix);
                        dim += if mask { tensor.ndim() } else { 1 };
                    }
                }
                // Python strings are sequences too: `torch.tensor` refuses them.
                Value::List(_) | Value::Tuple(_) | Value::Str(_) | Value::Range(..) => {
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
        // A mask becomes its `nonzero`, which a meta tensor cannot give.
        if t.dtype == crate::core::tensor::DType::Bool && self.is_meta(t) {
            return Err(ScriptError::NotImplemented(
                crate::interp::torch::device::NONZERO_OF_META.into(),
            ));
        }
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
        let temporaries = index_temporaries(&slots, true);
        let info = self.make_info(t, slots)?;
        let positions = info.positions();
        // Bounds are checked (in order) before anything is allocated.
        let offsets: Vec<i64> = (0..positions)
            .map(|p| info.source_offset(p))
            .collect::<R<_>>()?;
        let (src_shape, src_strides) = info.block_dims(t_strides(&info.base));
        let (out_shape, out_strides) = info.result_block_dims();
        let dtype = info.base.dtype;
        // Alive while the result is allocated (`note_allocated` ends them).
        self.note_transient(temporaries);
        if positions <= ENGINE_BLOCKS {
            let out =
                self.empty_strided(&info.result_shape, &info.result_strides, dtype, "index")?;
            self.end_transient();
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
        let nbytes = crate::interp::torch::ops::storage_nbytes_for(
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
        self.end_transient();
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
}

/// A tensor's strides (a helper that keeps borrows short).
fn t_strides(t: &Tensor) -> &[i64] {
    t.strides()
}

/// The bytes ATen allocates for the indices while it indexes (freed when it is done): a
/// Python list, range or bool becomes a tensor (int64, or bool for a list of bools), and a
/// mask's `nonzero` (int64 [k, mask dims]) unless the write is a `masked_fill_`.
pub(super) fn index_temporaries(slots: &Slots, nonzero: bool) -> u64 {
    slots
        .iter()
        .flatten()
        .map(|ix| {
            let made = if ix.source.is_none() {
                ix.values.len() * ix.dtype.item_size()
            } else {
                0
            };
            let k = ix.values.iter().filter(|&&v| v != 0).count();
            let cells = if nonzero && ix.is_mask() {
                8 * k * ix.shape.len()
            } else {
                0
            };
            (made + cells) as u64
        })
        .sum()
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
