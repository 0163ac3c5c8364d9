//! NumPy's advanced ("fancy") indexing of an `ndarray`: integer lists and arrays, boolean
//! masks, mixed with slices, `None` and `...` (`xy[:, [-1]]`, `a[[0, 2]]`, `a[a > 0]`).
//!
//! The result is a new array, laid out as NumPy's `mapiter` makes it: allocated C-contiguous
//! with the broadcast index dims first and the sliced ("subspace") dims after them; when the
//! advanced indices are adjacent and not first, the index dims are then moved back to where
//! they stood, which leaves the result non-C-contiguous (`a[:, [1, 2]]` of a `(4, 9)` float32
//! array has byte strides `(4, 16)`, and `torch.from_numpy` shares exactly that). An integer
//! next to an array index counts as a 0-d index array, as in NumPy. Writes (`a[:, [0]] = v`)
//! go to the selected elements in the result's order (a repeated index: the last write wins).

use crate::core::tensor::layout::{broadcast_shapes, Layout};
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::numpy::{cast, tuple_text};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// One item of an index after `...` was expanded.
enum Item {
    /// A slice of one dim (its first index and step are folded into the base's offset and
    /// stride).
    Slice,
    /// `None`: a new dim of size 1.
    NewAxis,
    /// An integer index array (its shape and values), for one dim.
    Array(Vec<i64>, Vec<i64>),
}

/// A dim of an advanced index's result: the `j`th dim of the broadcast index shape, or the
/// `j`th dim of the subspace.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dim {
    Index(usize),
    Sub(usize),
}

/// Where an advanced index selects: the base view, the result's dims and each result
/// element's storage offset, in the result's C order.
pub(super) struct Selection {
    /// The result's shape.
    pub(super) shape: Vec<i64>,
    /// The result's element strides (NumPy's layout of a fresh result).
    pub(super) strides: Vec<i64>,
    /// The storage offset of each result element, in the result's C order.
    pub(super) offsets: Vec<i64>,
}

/// Whether an index item makes the index advanced (lists, arrays, tensors, masks).
pub(super) fn is_advanced(item: &Value) -> bool {
    matches!(item, Value::List(_) | Value::NdArray(_) | Value::Tensor(_))
}

/// Counts elements of a shape (0 for an empty dim).
fn numel(shape: &[i64]) -> usize {
    shape.iter().map(|&d| d.max(0) as usize).product()
}

/// The multi-index of flat C-order position `k` in `shape`.
fn unravel(mut k: usize, shape: &[i64], out: &mut [i64]) {
    for (d, &n) in shape.iter().enumerate().rev() {
        let n = n.max(1) as usize;
        out[d] = (k % n) as i64;
        k /= n;
    }
}

impl Evaluator {
    /// The integer index arrays an index item gives (a mask gives one per dim it covers),
    /// each as (shape, values), and a mask's shape.
    #[allow(clippy::type_complexity)]
    fn index_arrays(&mut self, item: &Value) -> R<(Vec<(Vec<i64>, Vec<i64>)>, Option<Vec<i64>>)> {
        let t = match item {
            Value::Int(i) => return Ok((vec![(Vec::new(), vec![*i])], None)),
            Value::NpScalar(d, s) if d.is_integral() => {
                return Ok((vec![(Vec::new(), vec![s.to_wrapped_int()])], None))
            }
            // `a[[]]`: an empty list is an empty integer index.
            Value::List(items) if items.is_empty() => {
                return Ok((vec![(vec![0], Vec::new())], None))
            }
            Value::Tensor(x) => x.borrow().tensor.clone(),
            other => self.as_ndarray_tensor(other)?,
        };
        let values = self.engine.values(&t);
        if t.dtype == DType::Bool {
            // A mask: the positions of its true elements, one index array per dim.
            let shape = t.shape().to_vec();
            let mut at = vec![0; shape.len()];
            let mut per_dim: Vec<Vec<i64>> = vec![Vec::new(); shape.len().max(1)];
            for (k, v) in values.iter().enumerate() {
                if matches!(v, Scalar::Bool(true)) {
                    unravel(k, &shape, &mut at);
                    for (d, &i) in at.iter().enumerate() {
                        per_dim[d].push(i);
                    }
                }
            }
            if shape.is_empty() {
                return Err(ScriptError::NotImplemented(
                    "a 0-d boolean index of a NumPy array is outside Stridescope's NumPy subset"
                        .into(),
                ));
            }
            let arrays = per_dim
                .into_iter()
                .map(|v| (vec![v.len() as i64], v))
                .collect();
            return Ok((arrays, Some(shape)));
        }
        if !t.dtype.is_integral() {
            return Err(ScriptError::Index(if matches!(item, Value::List(_)) {
                "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices".into()
            } else {
                "arrays used as indices must be of integer (or boolean) type".into()
            }));
        }
        let values = values.iter().map(|v| v.to_wrapped_int()).collect();
        Ok((vec![(t.shape().to_vec(), values)], None))
    }

    /// How many dims of the array an index item consumes (a mask: its own dims).
    fn consumed_dims(&mut self, item: &Value) -> R<usize> {
        Ok(match item {
            Value::None | Value::Ellipsis => 0,
            Value::NdArray(a) | Value::Tensor(a) => {
                let t = a.borrow().tensor.clone();
                if t.dtype == DType::Bool {
                    t.ndim().max(1)
                } else {
                    1
                }
            }
            _ => 1,
        })
    }

    /// What `array[items]` selects when some item is a list, an array or a mask.
    pub(super) fn fancy_selection(&mut self, t: &Tensor, items: &[Value]) -> R<Selection> {
        let mut consuming = 0;
        for item in items {
            consuming += self.consumed_dims(item)?;
        }
        if consuming > t.ndim() {
            return Err(ScriptError::Index(format!(
                "too many indices for array: array is {}-dimensional, but {consuming} were indexed",
                t.ndim()
            )));
        }
        // The base: one entry per item dim, with its size, stride and (for arrays) the axis
        // of the array it indexes.
        let mut expanded: Vec<(Item, i64, i64, usize)> = Vec::new();
        let mut dim = 0;
        let mut offset = t.layout.offset;
        for item in items {
            match item {
                Value::None => expanded.push((Item::NewAxis, 1, 0, dim)),
                Value::Ellipsis => {
                    for _ in 0..t.ndim() - consuming {
                        let n = t.shape()[dim];
                        expanded.push((Item::Slice, n, t.strides()[dim], dim));
                        dim += 1;
                    }
                }
                Value::Slice(start, stop, step) => {
                    let (n, s) = (t.shape()[dim], t.strides()[dim]);
                    let (first, len, step) = super::array::slice_indices(n, *start, *stop, *step)?;
                    offset += first * s;
                    expanded.push((Item::Slice, len, s * step, dim));
                    dim += 1;
                }
                other => {
                    let (arrays, mask) = self.index_arrays(other)?;
                    if let Some(mask) = mask {
                        for (k, &m) in mask.iter().enumerate() {
                            let n = t.shape()[dim + k];
                            if n != m {
                                return Err(ScriptError::Index(format!(
                                    "boolean index did not match indexed array along axis {}; size of axis is {n} but size of corresponding boolean axis is {m}",
                                    dim + k
                                )));
                            }
                        }
                    }
                    for (shape, values) in arrays {
                        let (n, s) = (t.shape()[dim], t.strides()[dim]);
                        expanded.push((Item::Array(shape, values), n, s, dim));
                        dim += 1;
                    }
                }
            }
        }
        // The rest of the dims, whole.
        while dim < t.ndim() {
            let n = t.shape()[dim];
            expanded.push((Item::Slice, n, t.strides()[dim], dim));
            dim += 1;
        }
        // The broadcast index shape, and whether the array items stand together.
        let mut index_shape: Vec<i64> = Vec::new();
        let mut shapes = Vec::new();
        let positions: Vec<usize> = expanded
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.0, Item::Array(..)))
            .map(|(k, _)| k)
            .collect();
        for (item, ..) in &expanded {
            if let Item::Array(shape, _) = item {
                shapes.push(shape.clone());
                index_shape = broadcast_shapes(&index_shape, shape).map_err(|_| {
                    ScriptError::Index(format!(
                        "shape mismatch: indexing arrays could not be broadcast together with shapes {}",
                        shapes_text(&expanded)
                    ))
                })?;
            }
        }
        let adjacent = positions.windows(2).all(|w| w[1] == w[0] + 1);
        // Bounds, with negative indices counted from the end.
        for (item, n, _, axis) in expanded.iter_mut() {
            if let Item::Array(_, values) = item {
                for v in values.iter_mut() {
                    let j = if *v < 0 { *v + *n } else { *v };
                    if j < 0 || j >= *n {
                        return Err(ScriptError::Index(format!(
                            "index {v} is out of bounds for axis {axis} with size {n}"
                        )));
                    }
                    *v = j;
                }
            }
        }
        // The subspace: the dims that slices, `None` and the untouched dims give.
        let sub: Vec<(i64, i64)> = expanded
            .iter()
            .filter(|e| !matches!(e.0, Item::Array(..)))
            .map(|e| (e.1, e.2))
            .collect();
        let nb = index_shape.len();
        // The result's dims: the index dims where the array items stood when they stood
        // together (and not first), else first; each dim is an index dim or a subspace one.
        let first = positions.first().copied().unwrap_or(0);
        let place = if adjacent { first } else { 0 };
        let dims: Vec<Dim> = (0..place)
            .map(Dim::Sub)
            .chain((0..nb).map(Dim::Index))
            .chain((place..sub.len()).map(Dim::Sub))
            .collect();
        let shape: Vec<i64> = dims
            .iter()
            .map(|d| match *d {
                Dim::Index(j) => index_shape[j],
                Dim::Sub(j) => sub[j].0,
            })
            .collect();
        self.check_shape(&shape)?;
        let total = numel(&shape);
        self.check_work(total as i64, "index")?;
        // Memory order of the fresh result: the index dims outermost (in order), then the
        // subspace dims by decreasing stride of the view (NumPy's order K: a `None` dim, of
        // stride 0, innermost).
        let mut sub_order: Vec<usize> = (0..sub.len()).collect();
        sub_order.sort_by_key(|&j| std::cmp::Reverse(sub[j].1.abs()));
        let memory: Vec<Dim> = (0..nb)
            .map(Dim::Index)
            .chain(sub_order.into_iter().map(Dim::Sub))
            .collect();
        let mut strides = vec![0; dims.len()];
        let mut step = 1;
        for m in memory.iter().rev() {
            let Some(at) = dims.iter().position(|d| d == m) else {
                continue;
            };
            strides[at] = step;
            step *= shape[at].max(1);
        }
        let arrays: Vec<(&Vec<i64>, &Vec<i64>, i64)> = expanded
            .iter()
            .filter_map(|e| match &e.0 {
                Item::Array(shape, values) => Some((shape, values, e.2)),
                _ => None,
            })
            .collect();
        // Each result element's storage offset, in the result's C order.
        let mut at = vec![0; shape.len()];
        let mut b_at = vec![0; nb];
        let mut offsets = Vec::with_capacity(total);
        for k in 0..total {
            unravel(k, &shape, &mut at);
            let mut off = offset;
            for (d, &i) in dims.iter().zip(&at) {
                match *d {
                    Dim::Index(j) => b_at[j] = i,
                    Dim::Sub(j) => off += i * sub[j].1,
                }
            }
            for (ishape, values, stride) in &arrays {
                // The element of this index array that broadcasts to `b_at`.
                let lead = nb - ishape.len();
                let mut e = 0usize;
                for (d, &n) in ishape.iter().enumerate() {
                    let i = if n == 1 { 0 } else { b_at[lead + d] as usize };
                    e = e * n.max(1) as usize + i;
                }
                off += values.get(e).copied().unwrap_or(0) * stride;
            }
            offsets.push(off);
        }
        Ok(Selection {
            shape,
            strides,
            offsets,
        })
    }

    /// `array[items]` with advanced indices: a new array in NumPy's layout.
    pub(super) fn fancy_get(&mut self, t: &Tensor, items: &[Value]) -> R<Tensor> {
        let sel = self.fancy_selection(t, items)?;
        let flat = storage_flat(t, self.engine.nbytes(t.storage));
        let all = self.engine.values(&flat);
        // Values in allocation (memory) order: the result's C order permuted back.
        let mut memory = vec![Scalar::Int(0); sel.offsets.len()];
        let mut at = vec![0; sel.shape.len()];
        for (k, &off) in sel.offsets.iter().enumerate() {
            unravel(k, &sel.shape, &mut at);
            let pos: i64 = at.iter().zip(&sel.strides).map(|(i, s)| i * s).sum();
            let v = all.get(off as usize).copied().unwrap_or(Scalar::Int(0));
            if let Some(slot) = memory.get_mut(pos as usize) {
                *slot = v;
            }
        }
        let alloc = self.tensor_from_values(&[memory.len() as i64], t.dtype, &memory, "index")?;
        Ok(alloc.with_layout(Layout {
            shape: sel.shape,
            strides: sel.strides,
            offset: 0,
        }))
    }

    /// `array[items] = value` with advanced indices.
    pub(super) fn fancy_set(&mut self, t: &Tensor, items: &[Value], value: &Value) -> R<()> {
        let sel = self.fancy_selection(t, items)?;
        let values: Vec<Scalar> = match value {
            Value::NdArray(_) | Value::List(_) | Value::Tuple(_) | Value::Tensor(_) => {
                let src = match value {
                    Value::Tensor(x) => x.borrow().tensor.clone(),
                    other => self.as_ndarray_tensor(other)?,
                };
                let fits = broadcast_shapes(&sel.shape, src.shape()).is_ok_and(|s| s == sel.shape);
                if !fits {
                    return Err(ScriptError::Value(format!(
                        "shape mismatch: value array of shape {} could not be broadcast to indexing result of shape {}",
                        tuple_text(src.shape()),
                        tuple_text(&sel.shape)
                    )));
                }
                // The value broadcast to the result's shape, in its C order.
                let lead = sel.shape.len() - src.ndim();
                let mut strides = vec![0; sel.shape.len()];
                for d in 0..src.ndim() {
                    if src.shape()[d] != 1 {
                        strides[lead + d] = src.strides()[d];
                    }
                }
                let expanded = src.with_layout(Layout {
                    shape: sel.shape.clone(),
                    strides,
                    offset: src.layout.offset,
                });
                self.engine.values(&expanded)
            }
            other => {
                let s = self.numpy_number(other)?;
                vec![s; sel.offsets.len()]
            }
        };
        for (&off, &v) in sel.offsets.iter().zip(&values) {
            let cell = t.with_layout(Layout {
                shape: Vec::new(),
                strides: Vec::new(),
                offset: off,
            });
            self.fill(&cell, cast(v, t.dtype))?;
        }
        Ok(())
    }
}

/// A 1-d view of every element of `t`'s storage.
fn storage_flat(t: &Tensor, nbytes: usize) -> Tensor {
    let n = nbytes / t.dtype.item_size().max(1);
    t.with_layout(Layout {
        shape: vec![n as i64],
        strides: vec![1],
        offset: 0,
    })
}

/// The index arrays' shapes as NumPy's broadcast error lists them: `(2,) (3,) `.
fn shapes_text(expanded: &[(Item, i64, i64, usize)]) -> String {
    let mut out = String::new();
    for (item, ..) in expanded {
        if let Item::Array(shape, _) = item {
            out.push_str(&tuple_text(shape));
            out.push(' ');
        }
    }
    out
}
