//! Indexed writes: `t[index] = value` (Python's `__setitem__`) and ATen's `index_put_`.
//! Values land in the existing storage, so every alias sees them, and the written cells are
//! recorded for the trace. How the bytes move (engine copies per block, or the host path for
//! many blocks and `accumulate`) is described in the parent module.

use crate::core::tensor::layout::{broadcast_shapes, list_str, numel_of};
use crate::core::tensor::{Layout, Scalar, ScriptError, Tensor};
use crate::engines::cpu::apply_binary;
use crate::engines::BinaryOp;
use crate::interp::torch::ops::index::{
    block_offsets, mask_mismatch, t_strides, AdvancedIndex, IndexTensor, PutValue, Slots,
    ENGINE_BLOCKS,
};
use crate::interp::torch::ops::{broadcast_view, Overlap};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

impl Evaluator {
    /// `dst[index] = value` (Python's `__setitem__`): a copy into the view of basic
    /// indexing, or `index_put_` with advanced items.
    pub(crate) fn set_item(&mut self, dst: &Tensor, index: &Value, value: &Value) -> R<()> {
        // `x[False] = v` writes nothing and checks nothing.
        if matches!(index, Value::Bool(false)) {
            return Ok(());
        }
        let value = match value {
            Value::Tensor(src_ref) => PutValue::Tensor(src_ref.borrow().tensor.clone()),
            // A Python complex into a complex tensor: both halves of the view are filled.
            Value::Complex(re, im) if dst.dtype.is_complex() => {
                let (view, slots) = self.apply_slicing(dst, index)?;
                if slots.iter().any(Option::is_some) {
                    return Err(ScriptError::NotImplemented(
                        "assigning a complex number through advanced indexing is not supported by Stridescope".into(),
                    ));
                }
                self.fill(&view.complex_part(0), Scalar::Float(*re))?;
                return self.fill(&view.complex_part(1), Scalar::Float(*im));
            }
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
        // (A complex 0-d value is copied below: its one number has two halves.)
        if src.ndim() == 0 && !src.dtype.is_complex() {
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

    /// `dst[index] += value` as one accumulating put (ATen's `index_backward`): basic
    /// indexing as `set_item` does, then the advanced part with `accumulate=True`, so a
    /// position indexed twice receives both values.
    pub(crate) fn add_at_index(&mut self, dst: &Tensor, index: &Value, value: &Value) -> R<()> {
        let src = match value {
            Value::Tensor(t) => t.borrow().tensor.clone(),
            other => {
                return Err(ScriptError::Type(format!(
                    "index_put_(): values must be a Tensor, not {}",
                    other.type_name()
                )))
            }
        };
        let (view, slots) = self.apply_slicing(dst, index)?;
        if slots.iter().all(Option::is_none) {
            // Basic indexing (`select_backward`, `slice_backward`): the gradient is copied
            // into the zeros' view, no sum allocated.
            return self.copy_into(&view, &src, false);
        }
        self.index_put(&view, slots, PutValue::Tensor(src), true)
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
                if matches!(
                    self.overlap(dst, v, false),
                    Overlap::Full | Overlap::Partial
                ) {
                    return Err(overlap_err());
                }
            }
            for source in slots.iter().flatten().filter_map(|ix| ix.source.as_ref()) {
                if matches!(
                    self.overlap(dst, source, false),
                    Overlap::Full | Overlap::Partial
                ) {
                    return Err(overlap_err());
                }
            }
        }
        self.note_kernel_events(&[super::index_temporaries(&slots, !masked_fill) as i64]);
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
            let span = storage
                .get(lo_b..hi_b)
                .map(<[u8]>::to_vec)
                .unwrap_or_default();
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
        if offsets.is_empty() || self.recorder.is_new(t.storage) {
            return;
        }
        let cap = self.limits.max_recorded_elements;
        offsets.truncate(cap);
        self.recorder
            .writes
            .note(t.storage, t.dtype.item_size(), offsets, cap);
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
            PutValue::Tensor(v) if v.numel() == 1 => self
                .engine
                .values(v)
                .first()
                .copied()
                .unwrap_or(Scalar::Int(0)),
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
