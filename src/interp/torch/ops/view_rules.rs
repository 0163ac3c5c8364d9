//! The layout rules of view ops (ATen's `TensorShape.cpp`): each computes the new shape,
//! strides and storage offset of a view of the same storage, with PyTorch's error text. No
//! bytes move here; the op table of [`crate::interp::torch::ops::views`] calls these.

use crate::core::tensor::layout::{
    compute_view_strides, contiguous_strides, infer_view_shape, list_str, numel_of, wrap_dim,
};
use crate::core::tensor::{DType, Layout, MemoryFormat, ScriptError, Tensor};
use crate::interp::torch::ops::storage_nbytes_for;
use crate::interp::{Evaluator, R};

fn index_err(msg: String) -> ScriptError {
    ScriptError::Index(msg)
}

impl Evaluator {
    /// `view(shape)`.
    pub(crate) fn view(&mut self, t: &Tensor, shape: &[i64]) -> R<Tensor> {
        let shape = infer_view_shape(shape, t.numel()).map_err(ScriptError::Runtime)?;
        match compute_view_strides(t.shape(), t.strides(), &shape) {
            Some(strides) => Ok(t.with_layout(Layout {
                shape,
                strides,
                offset: t.layout.offset,
            })),
            None => {
                self.recorder.explain =
                    crate::core::tensor::layout::explain_view(t.shape(), t.strides(), &shape);
                Err(ScriptError::Runtime(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.".into(),
            ))
            }
        }
    }

    /// `reshape(shape)`: a view when `view` would work, else a contiguous copy.
    /// Returns the tensor and whether it copied.
    pub(crate) fn reshape(&mut self, t: &Tensor, shape: &[i64]) -> R<(Tensor, bool)> {
        let shape = infer_view_shape(shape, t.numel()).map_err(ScriptError::Runtime)?;
        match compute_view_strides(t.shape(), t.strides(), &shape) {
            Some(strides) => Ok((
                t.with_layout(Layout {
                    shape,
                    strides,
                    offset: t.layout.offset,
                }),
                false,
            )),
            None => {
                let copy = self.clone_tensor(t, MemoryFormat::Contiguous)?;
                let strides = contiguous_strides(&shape);
                Ok((
                    copy.with_layout(Layout {
                        shape,
                        strides,
                        offset: 0,
                    }),
                    true,
                ))
            }
        }
    }

    /// `transpose(d0, d1)`.
    pub(crate) fn transpose(&self, t: &Tensor, d0: i64, d1: i64) -> R<Tensor> {
        let n = t.ndim();
        let a = wrap_dim(d0, n).map_err(index_err)?;
        let b = wrap_dim(d1, n).map_err(index_err)?;
        let mut layout = t.layout.clone();
        if n > 0 {
            layout.shape.swap(a, b);
            layout.strides.swap(a, b);
        }
        Ok(t.with_layout(layout))
    }

    /// `t()` and `t_()` (`name` is the one the error message names).
    pub(crate) fn t(&self, t: &Tensor, name: &str) -> R<Tensor> {
        if t.ndim() > 2 {
            return Err(ScriptError::Runtime(format!(
                "{name}() expects a tensor with <= 2 dimensions, but self is {}D",
                t.ndim()
            )));
        }
        self.transpose(t, 0, if t.ndim() < 2 { 0 } else { 1 })
    }

    /// `permute(dims)`.
    pub(crate) fn permute(&self, t: &Tensor, dims: &[i64]) -> R<Tensor> {
        let n = t.ndim();
        if dims.len() != n {
            return Err(ScriptError::Runtime(format!(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
                n,
                dims.len()
            )));
        }
        let mut seen = vec![false; n];
        let mut layout = Layout {
            shape: Vec::with_capacity(n),
            strides: Vec::with_capacity(n),
            offset: t.layout.offset,
        };
        for &d in dims {
            let d = wrap_dim(d, n).map_err(index_err)?;
            if seen[d] {
                return Err(ScriptError::Runtime(
                    "permute(): duplicate dims are not allowed.".into(),
                ));
            }
            seen[d] = true;
            layout.shape.push(t.shape()[d]);
            layout.strides.push(t.strides()[d]);
        }
        Ok(t.with_layout(layout))
    }

    /// `movedim(source, destination)`.
    pub(crate) fn movedim(&self, t: &Tensor, src: &[i64], dst: &[i64]) -> R<Tensor> {
        let n = t.ndim();
        if src.len() != dst.len() {
            return Err(ScriptError::Runtime(format!(
                "movedim: Invalid source or destination dims: source ({} dims) should contain the same number of dims as destination ({} dims)",
                list_str(src),
                list_str(dst)
            )));
        }
        let wrap_all = |dims: &[i64]| -> R<Vec<usize>> {
            dims.iter()
                .map(|&d| wrap_dim(d, n).map_err(index_err))
                .collect()
        };
        let s = wrap_all(src)?;
        let d = wrap_all(dst)?;
        let has_dup = |v: &[usize]| (0..v.len()).any(|i| v[i + 1..].contains(&v[i]));
        if has_dup(&s) {
            return Err(ScriptError::Runtime(format!(
                "movedim: repeated dim in `source` ({})",
                list_str(src)
            )));
        }
        if has_dup(&d) {
            return Err(ScriptError::Runtime(format!(
                "movedim: repeated dim in `destination` ({})",
                list_str(dst)
            )));
        }
        if n <= 1 {
            return Ok(t.clone());
        }
        let mut order: Vec<Option<usize>> = vec![None; n];
        for (&si, &di) in s.iter().zip(&d) {
            order[di] = Some(si);
        }
        let mut rest = (0..n).filter(|i| !s.contains(i));
        for slot in order.iter_mut() {
            if slot.is_none() {
                *slot = rest.next();
            }
        }
        let perm: Vec<i64> = order.into_iter().map(|o| o.unwrap_or(0) as i64).collect();
        self.permute(t, &perm)
    }

    /// `expand(sizes)`.
    pub(crate) fn expand(&self, t: &Tensor, sizes: &[i64]) -> R<Tensor> {
        let nd = sizes.len();
        let td = t.ndim();
        if nd < td {
            return Err(ScriptError::Runtime(format!(
                "expand({}{{{}}}, size={}): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
                t.dtype.aten_type_string(),
                list_str(t.shape()),
                list_str(sizes),
                nd,
                td
            )));
        }
        let mut shape = vec![0; nd];
        let mut strides = vec![0; nd];
        for i in (0..nd).rev() {
            let offset = nd - 1 - i;
            let dim = td as i64 - 1 - offset as i64;
            let mut size = if dim >= 0 { t.shape()[dim as usize] } else { 1 };
            // A new leading dim gets the stride that would make it contiguous with the next
            // one. (For a 0-dim tensor ATen reads past its arrays here; PyTorch 2.15 gives 0.)
            let mut stride = if dim >= 0 {
                t.strides()[dim as usize]
            } else if i + 1 < nd {
                shape[i + 1] * strides[i + 1]
            } else {
                0
            };
            let mut target = sizes[i];
            if target == -1 {
                if dim < 0 {
                    return Err(ScriptError::Runtime(format!(
                        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                    )));
                }
                target = size;
            }
            if target < 0 {
                return Err(ScriptError::Runtime(format!(
                    "The expanded size of the tensor ({target}) isn't allowed in a leading, non-existing dimension {i}"
                )));
            }
            if size != target {
                if size != 1 {
                    return Err(ScriptError::Runtime(format!(
                        "The expanded size of the tensor ({}) must match the existing size ({}) at non-singleton dimension {}.  Target sizes: {}.  Tensor sizes: {}",
                        target,
                        size,
                        i,
                        list_str(sizes),
                        list_str(t.shape())
                    )));
                }
                size = target;
                stride = 0;
            }
            shape[i] = size;
            strides[i] = stride;
        }
        Ok(t.with_layout(Layout {
            shape,
            strides,
            offset: t.layout.offset,
        }))
    }

    /// `slice(dim, start, stop, step)` as basic indexing does it.
    pub(crate) fn slice(
        &self,
        t: &Tensor,
        dim: usize,
        start: Option<i64>,
        stop: Option<i64>,
        step: Option<i64>,
    ) -> R<Tensor> {
        let step = step.unwrap_or(1);
        if step <= 0 {
            return Err(ScriptError::Value("step must be greater than zero".into()));
        }
        let size = t.shape()[dim];
        let mut start = start.unwrap_or(0);
        let mut stop = stop.unwrap_or(i64::MAX);
        if start < 0 {
            start = start.saturating_add(size);
        }
        if stop < 0 {
            stop = stop.saturating_add(size);
        }
        start = start.clamp(0, size);
        stop = if stop < start { start } else { stop.min(size) };
        let mut layout = t.layout.clone();
        layout.offset = layout
            .offset
            .wrapping_add(start.wrapping_mul(t.strides()[dim]));
        layout.shape[dim] = (stop - start).saturating_add(step - 1) / step;
        layout.strides[dim] = layout.strides[dim].saturating_mul(step);
        Ok(t.with_layout(layout))
    }

    /// Drops `dim`, taking index `index` of it (no bounds check: callers check with their
    /// own message).
    pub(crate) fn select_unchecked(&self, t: &Tensor, dim: usize, index: i64) -> Tensor {
        let mut layout = t.layout.clone();
        let index = if index < 0 {
            index + layout.shape[dim]
        } else {
            index
        };
        layout.offset = layout
            .offset
            .wrapping_add(index.wrapping_mul(layout.strides[dim]));
        layout.shape.remove(dim);
        layout.strides.remove(dim);
        t.with_layout(layout)
    }

    /// `select(dim, index)`.
    pub(crate) fn select(&self, t: &Tensor, dim: i64, index: i64) -> R<Tensor> {
        if t.ndim() == 0 {
            return Err(ScriptError::Index(
                "select() cannot be applied to a 0-dim tensor.".into(),
            ));
        }
        let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
        let size = t.shape()[d];
        if index < -size || index >= size {
            return Err(ScriptError::Index(format!(
                "select(): index {} out of range for tensor of size {} at dimension {}",
                index,
                list_str(t.shape()),
                d
            )));
        }
        Ok(self.select_unchecked(t, d, index))
    }

    /// `narrow(dim, start, length)`.
    pub(crate) fn narrow(&self, t: &Tensor, dim: i64, start: i64, length: i64) -> R<Tensor> {
        if t.ndim() == 0 {
            return Err(ScriptError::Runtime(
                "narrow() cannot be applied to a 0-dim tensor.".into(),
            ));
        }
        if length < 0 {
            return Err(ScriptError::Runtime(
                "narrow(): length must be non-negative.".into(),
            ));
        }
        let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
        let size = t.shape()[d];
        if start < -size || start > size {
            return Err(ScriptError::Index(format!(
                "start out of range (expected to be in range of [{}, {}], but got {})",
                -size, size, start
            )));
        }
        let start = if start < 0 { start + size } else { start };
        if start > size.saturating_sub(length) {
            return Err(ScriptError::Runtime(format!(
                "start ({start}) + length ({length}) exceeds dimension size ({size})."
            )));
        }
        self.slice(
            t,
            d,
            Some(start),
            Some(start.saturating_add(length)),
            Some(1),
        )
    }

    /// `squeeze()` / `squeeze(dims)`.
    pub(crate) fn squeeze(&self, t: &Tensor, dims: Option<&[i64]>) -> R<Tensor> {
        let n = t.ndim();
        let mut drop = vec![false; n];
        match dims {
            None => {
                for (i, d) in drop.iter_mut().enumerate() {
                    *d = t.shape()[i] == 1;
                }
            }
            Some(dims) => {
                let mut seen = vec![false; n.max(1)];
                for &d in dims {
                    let w = wrap_dim(d, n).map_err(index_err)?;
                    if seen[w] {
                        return Err(ScriptError::Runtime(format!(
                            "dim {w} appears multiple times in the list of dims"
                        )));
                    }
                    seen[w] = true;
                    if n > 0 && t.shape()[w] == 1 {
                        drop[w] = true;
                    }
                }
            }
        }
        let mut layout = Layout {
            shape: vec![],
            strides: vec![],
            offset: t.layout.offset,
        };
        for (i, &dropped) in drop.iter().enumerate() {
            if !dropped {
                layout.shape.push(t.shape()[i]);
                layout.strides.push(t.strides()[i]);
            }
        }
        Ok(t.with_layout(layout))
    }

    /// `unsqueeze(dim)`.
    pub(crate) fn unsqueeze(&self, t: &Tensor, dim: i64) -> R<Tensor> {
        let d = wrap_dim(dim, t.ndim() + 1).map_err(index_err)?;
        let mut layout = t.layout.clone();
        let stride = if d >= t.ndim() {
            1
        } else {
            t.shape()[d] * t.strides()[d]
        };
        layout.shape.insert(d, 1);
        layout.strides.insert(d, stride);
        Ok(t.with_layout(layout))
    }

    /// `flatten(start_dim, end_dim)`; returns `None` when it returns the tensor itself.
    pub(crate) fn flatten(
        &mut self,
        t: &Tensor,
        start: i64,
        end: i64,
    ) -> R<Option<(Tensor, bool)>> {
        let n = t.ndim();
        let s = wrap_dim(start, n).map_err(index_err)?;
        let e = wrap_dim(end, n).map_err(index_err)?;
        if s > e {
            return Err(ScriptError::Runtime(
                "flatten() has invalid args: start_dim cannot come after end_dim".into(),
            ));
        }
        if n == 0 {
            return self.reshape(t, &[1]).map(Some);
        }
        if s == e {
            return Ok(None);
        }
        let mut shape: Vec<i64> = t.shape()[..s].to_vec();
        shape.push(numel_of(&t.shape()[s..=e]));
        shape.extend_from_slice(&t.shape()[e + 1..]);
        self.reshape(t, &shape).map(Some)
    }

    /// `unfold(dimension, size, step)`.
    pub(crate) fn unfold(&self, t: &Tensor, dim: i64, size: i64, step: i64) -> R<Tensor> {
        let n = t.ndim();
        let d = wrap_dim(dim, n).map_err(index_err)?;
        let max_size = if n == 0 { 1 } else { t.shape()[d] };
        if size > max_size {
            return Err(ScriptError::Runtime(format!(
                "maximum size for tensor at dimension {d} is {max_size} but size is {size}"
            )));
        }
        if size < 0 {
            return Err(ScriptError::Runtime(format!(
                "size is {size} but must be >= 0"
            )));
        }
        if step <= 0 {
            return Err(ScriptError::Runtime(format!(
                "step is {step} but must be > 0"
            )));
        }
        let mut layout = t.layout.clone();
        if n > 0 {
            layout.shape[d] = max_size.saturating_sub(size) / step + 1;
            layout.strides[d] = layout.strides[d].saturating_mul(step);
        }
        layout.shape.push(size);
        layout.strides.push(if n == 0 { 1 } else { t.strides()[d] });
        Ok(t.with_layout(layout))
    }

    /// `diagonal(offset, dim1, dim2)`.
    pub(crate) fn diagonal(&self, t: &Tensor, offset: i64, dim1: i64, dim2: i64) -> R<Tensor> {
        let n = t.ndim();
        let a = wrap_dim(dim1, n).map_err(index_err)?;
        let b = wrap_dim(dim2, n).map_err(index_err)?;
        if a == b {
            return Err(ScriptError::Runtime(format!(
                "diagonal dimensions cannot be identical {dim1}, {dim2}"
            )));
        }
        let (sa, sb) = (t.shape()[a], t.shape()[b]);
        let diag = if offset >= 0 {
            sa.min(sb.saturating_sub(offset)).max(0)
        } else {
            sa.saturating_add(offset).min(sb).max(0)
        };
        let mut storage_offset = t.layout.offset;
        if diag > 0 {
            if offset >= 0 {
                storage_offset = storage_offset.wrapping_add(offset.wrapping_mul(t.strides()[b]));
            } else {
                storage_offset = storage_offset.wrapping_sub(offset.wrapping_mul(t.strides()[a]));
            }
        }
        let mut shape = t.shape().to_vec();
        let mut strides = t.strides().to_vec();
        let (hi, lo) = (a.max(b), a.min(b));
        shape.remove(hi);
        strides.remove(hi);
        shape.remove(lo);
        strides.remove(lo);
        shape.push(diag);
        strides.push(t.strides()[a] + t.strides()[b]);
        Ok(t.with_layout(Layout {
            shape,
            strides,
            offset: storage_offset,
        }))
    }

    /// `as_strided(size, stride, storage_offset)`.
    pub(crate) fn as_strided(
        &self,
        t: &Tensor,
        size: &[i64],
        stride: &[i64],
        offset: Option<i64>,
    ) -> R<Tensor> {
        if size.len() != stride.len() {
            return Err(ScriptError::Runtime(
                "mismatch in length of strides and shape".into(),
            ));
        }
        if stride.iter().any(|&s| s < 0) {
            return Err(ScriptError::Runtime(format!(
                "as_strided: Negative strides are not supported at the moment, got strides: {}",
                list_str(stride)
            )));
        }
        if let Some(&n) = size.iter().find(|&&n| n < 0) {
            return Err(ScriptError::Runtime(format!(
                "Trying to create tensor with negative dimension {n}: {}",
                list_str(size)
            )));
        }
        let offset = offset.unwrap_or(t.layout.offset);
        if offset < 0 {
            return Err(ScriptError::Runtime(format!(
                "Tensor: invalid storage offset {offset}"
            )));
        }
        let item = t.dtype.item_size();
        let needed = storage_nbytes_for(size, stride, offset, item).ok_or_else(|| {
            ScriptError::Runtime("as_strided: storage size calculation overflowed".into())
        })?;
        let have = self
            .memory
            .storage(t.storage)
            .map(|s| s.nbytes)
            .unwrap_or(0) as u64;
        if needed > have {
            return Err(ScriptError::Runtime(format!(
                "setStorage: sizes {}, strides {}, storage offset {}, and itemsize {} requiring a storage size of {} are out of bounds for storage of size {}",
                list_str(size),
                list_str(stride),
                offset,
                item,
                needed,
                have
            )));
        }
        Ok(t.with_layout(Layout {
            shape: size.to_vec(),
            strides: stride.to_vec(),
            offset,
        }))
    }

    /// `view(dtype)`: the same bytes seen as another dtype (ATen's `view_dtype`). Between
    /// dtypes of different sizes the last dim must have stride 1; it grows or shrinks by the
    /// size ratio, the other strides and the offset are rescaled.
    pub(crate) fn view_dtype(&self, t: &Tensor, dtype: DType) -> R<Tensor> {
        let (old, new) = (t.dtype.item_size() as i64, dtype.item_size() as i64);
        let mut out = t.clone();
        out.dtype = dtype;
        if old == new {
            return Ok(out);
        }
        let what = format!(
            "to view {} as {} (different element sizes)",
            t.dtype.scalar_type_name(),
            dtype.scalar_type_name()
        );
        let n = t.ndim();
        if n == 0 {
            return Err(ScriptError::Runtime(format!(
                "self.dim() cannot be 0 {what}"
            )));
        }
        let last = n - 1;
        if t.strides()[last] != 1 {
            return Err(ScriptError::Runtime(format!(
                "self.stride(-1) must be 1 {what}, but got {}",
                t.strides()[last]
            )));
        }
        let mut layout = t.layout.clone();
        if old > new {
            let ratio = old / new;
            for s in &mut layout.strides[..last] {
                *s = s.saturating_mul(ratio);
            }
            layout.shape[last] = layout.shape[last].saturating_mul(ratio);
            layout.offset = layout.offset.saturating_mul(ratio);
        } else {
            let ratio = new / old;
            if t.shape()[last] % ratio != 0 {
                return Err(ScriptError::Runtime(format!(
                    "self.size(-1) must be divisible by {ratio} {what}, but got {}",
                    t.shape()[last]
                )));
            }
            if t.layout.offset % ratio != 0 {
                return Err(ScriptError::Runtime(format!(
                    "self.storage_offset() must be divisible by {ratio} {what}, but got {}",
                    t.layout.offset
                )));
            }
            let window_start = self.memory.storage(t.storage).and_then(|i| i.window);
            if window_start.is_some_and(|(_, start)| start % new as usize != 0) {
                return Err(ScriptError::NotImplemented(format!(
                    "viewing a tensor shared from part of a NumPy array as {} where its memory starts inside an element is outside Stridescope's model",
                    dtype.scalar_type_name()
                )));
            }
            for (i, s) in layout.strides[..last].iter_mut().enumerate() {
                if *s % ratio != 0 {
                    return Err(ScriptError::Runtime(format!(
                        "self.stride({i}) must be divisible by {ratio} {what}, but got {s}"
                    )));
                }
                *s /= ratio;
            }
            layout.shape[last] /= ratio;
            layout.offset /= ratio;
        }
        out.layout = layout;
        Ok(out)
    }

    /// `unflatten(dim, sizes)`: splits one dim into `sizes` (one may be `-1`); always a view.
    pub(crate) fn unflatten(&mut self, t: &Tensor, dim: i64, sizes: &[i64]) -> R<Tensor> {
        let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
        if sizes.is_empty() {
            return Err(ScriptError::Runtime(
                "unflatten: sizes must be non-empty".into(),
            ));
        }
        let size = if t.ndim() == 0 { 1 } else { t.shape()[d] };
        let inferred = infer_view_shape(sizes, size).map_err(|e| {
            if e.contains("is invalid for input of size") {
                ScriptError::Runtime(format!(
                    "unflatten: Provided sizes {} don't multiply up to the size of dim {} ({}) in the input tensor",
                    list_str(sizes),
                    d,
                    size
                ))
            } else {
                // PyTorch adds the inner message on the next line; a trace keeps the first.
                let _ = e;
                ScriptError::Runtime("unflatten got an unexpected error:".into())
            }
        })?;
        let mut shape = t.shape().to_vec();
        if shape.is_empty() {
            shape = inferred;
        } else {
            shape.splice(d..=d, inferred);
        }
        self.view(t, &shape)
    }
}
