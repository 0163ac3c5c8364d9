//! Copies that reorder or repeat elements: `flip`, `fliplr`, `flipud`, `roll`, `repeat`,
//! `tile`, `repeat_interleave`, `tril`, `triu`. Each result is a fresh tensor with PyTorch's
//! output strides.
//!
//! Where the bytes move: `flip` is one engine copy from a view with negative strides (the
//! GPU engine hands negative strides to the CPU engine and logs it); `roll` is `cat` of two
//! narrowed views, as ATen's `roll_cpu` is (two engine copies per rolled dim); `repeat`,
//! `tile` and `repeat_interleave` with an int are one engine copy from an expanded view
//! (stride 0) into a view of the result that splits each dim. `repeat_interleave` with a
//! tensor of repeats and `tril`/`triu` depend on data or on positions the engine has no
//! kernel for: they compute on the CPU reference from `engine.values()` and write the
//! result through one engine copy ([`Evaluator::write_values`]).

use crate::core::tensor::layout::{contiguous_strides, infer_dense_strides, numel_of, wrap_dim};
use crate::core::tensor::{DType, Layout, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::ops::index_err;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["flip"],
        schemas: &["Tensor self, int[] dims"],
        forms: Forms::Both,
        rule: flip,
        complex: true,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_index::REARRANGE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["fliplr", "flipud"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: flip_lr_ud,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["rot90"],
        schemas: &["Tensor self, int k=1, int[] dims=[0,1]"],
        forms: Forms::Both,
        rule: rot90,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["roll"],
        schemas: &["Tensor self, int[1] shifts, int[1] dims=[]"],
        forms: Forms::Both,
        rule: roll,
        complex: true,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_index::REARRANGE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["repeat"],
        schemas: &["Tensor self, int[] repeats"],
        forms: Forms::Method,
        rule: repeat,
        complex: true,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_index::REPEAT),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["tile"],
        schemas: &["Tensor self, int[] dims"],
        forms: Forms::Both,
        rule: repeat,
        grad: Grad::named(
            "RepeatBackward0",
            &crate::interp::torch::autograd::formulas_index::REPEAT,
        ),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["repeat_interleave"],
        schemas: &[
            "Tensor self, Tensor repeats, int? dim=None, *, int? output_size=None",
            "Tensor self, int repeats, int? dim=None, *, int? output_size=None",
            "Tensor self, *, int? output_size=None",
        ],
        forms: Forms::Both,
        rule: repeat_interleave,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["tril", "triu"],
        schemas: &["Tensor self, int diagonal=0"],
        forms: Forms::Both,
        rule: tri,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_index::REARRANGE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["tril_", "triu_"],
        schemas: &["Tensor self, int diagonal=0"],
        forms: Forms::Method,
        rule: tri,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_index::REARRANGE),
        ..OpDef::PLAIN
    },
];

/// The integer value of an index element.
pub(super) fn int_of(s: Scalar) -> i64 {
    match s {
        Scalar::Bool(b) => i64::from(b),
        Scalar::Int(i) => i,
        Scalar::Float(f) => f as i64,
    }
}

/// `flip(dims)`.
fn flip(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dims = ev.arg_ints(call, "dims")?.unwrap_or_default();
    let out = ev.flip(&t, &dims)?;
    Ok(Value::tensor(out, "flip", Some(t.storage)))
}

/// `fliplr` (dim 1 of a tensor of at least 2 dims) and `flipud` (dim 0, at least 1 dim).
fn flip_lr_ud(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let (min, dim) = if call.name == "fliplr" {
        (2, 1)
    } else {
        (1, 0)
    };
    if t.ndim() < min {
        return Err(ScriptError::Runtime(format!("Input must be >= {min}-d.")));
    }
    let out = ev.flip(&t, &[dim])?;
    Ok(Value::tensor(out, &call.name, Some(t.storage)))
}

/// `rot90(k, dims)`, as ATen's: `k` quarter turns from `dims[0]` towards `dims[1]` are a
/// flip of one dim then a transpose (a non-contiguous view of the flipped copy), or a flip of
/// both dims, or a contiguous clone.
fn rot90(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let k = ev.arg_int(call, "k", 1)?;
    let dims = ev.arg_ints(call, "dims")?.unwrap_or_else(|| vec![0, 1]);
    let total = t.ndim() as i64;
    if dims.len() != 2 {
        return Err(ScriptError::Runtime(format!(
            "expected total rotation dims == 2, but got dims = {}",
            dims.len()
        )));
    }
    if total < 2 {
        return Err(ScriptError::Runtime(format!(
            "expected total dims >= 2, but got total dims = {total}"
        )));
    }
    let (d0, d1) = (dims[0], dims[1]);
    wrap_dim(d0, t.ndim()).map_err(index_err)?;
    wrap_dim(d1, t.ndim()).map_err(index_err)?;
    if d0 == d1 || (d0 - d1).abs() == total {
        return Err(ScriptError::Runtime(format!(
            "expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )));
    }
    let out = match k.rem_euclid(4) {
        1 => {
            let flipped = ev.flip(&t, &[d1])?;
            ev.transpose(&flipped, d0, d1)?
        }
        2 => ev.flip(&t, &dims)?,
        3 => {
            let flipped = ev.flip(&t, &[d0])?;
            ev.transpose(&flipped, d0, d1)?
        }
        _ => ev.convert(&t, t.dtype, MemoryFormat::Contiguous, "rot90")?,
    };
    Ok(Value::tensor(out, "rot90", Some(t.storage)))
}

/// `roll(shifts, dims)`.
fn roll(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let shifts = ev.arg_ints(call, "shifts")?.unwrap_or_default();
    let dims = ev.arg_ints(call, "dims")?.unwrap_or_default();
    let out = ev.roll(&t, &shifts, &dims)?;
    Ok(Value::tensor(out, "roll", Some(t.storage)))
}

/// `repeat(*sizes)` and `tile(dims)` (which pads `dims` with leading 1s first).
fn repeat(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let name = if call.name == "tile" {
        "dims"
    } else {
        "repeats"
    };
    let mut reps = ev.arg_ints(call, name)?.unwrap_or_default();
    if call.name == "tile" && reps.len() < t.ndim() {
        let mut padded = vec![1; t.ndim() - reps.len()];
        padded.extend(reps);
        reps = padded;
    }
    let out = ev.repeat(&t, &reps)?;
    Ok(Value::tensor(out, &call.name, Some(t.storage)))
}

/// `repeat_interleave(repeats, dim)`, and `torch.repeat_interleave(repeats)`.
fn repeat_interleave(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_opt_int(call, "dim")?;
    let out = match call.overload() {
        0 => {
            let reps = call.tensor("repeats").unwrap_or_else(|| t.clone());
            ev.repeat_interleave_tensor(&t, &reps, dim)?
        }
        1 => {
            let r = ev.arg_int(call, "repeats", 1)?;
            ev.repeat_interleave_int(&t, r, dim)?
        }
        _ => ev.repeat_interleave_indices(&t)?,
    };
    Ok(Value::tensor(out, "repeat_interleave", Some(t.storage)))
}

/// `tril`/`triu(diagonal)` and their in-place forms.
fn tri(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let k = ev.arg_int(call, "diagonal", 0)?;
    let base = call.name.trim_end_matches('_');
    let lower = base == "tril";
    if t.ndim() < 2 {
        return Err(ScriptError::Runtime(format!(
            "{base}: input tensor must have at least 2 dimensions"
        )));
    }
    ev.check_work(t.numel(), base)?;
    if ev.torch.device.meta_op {
        // On the meta device nothing is computed: a contiguous result without values.
        if call.name.ends_with('_') {
            return Ok(Value::Tensor(call.self_ref()?));
        }
        let out = ev.empty_strided(t.shape(), &contiguous_strides(t.shape()), t.dtype, base)?;
        return Ok(Value::tensor(out, base, Some(t.storage)));
    }
    let values = ev.engine.values(&t);
    let (rows, cols) = (t.shape()[t.ndim() - 2], t.shape()[t.ndim() - 1]);
    let zero = t.dtype.round(Scalar::Int(0));
    let kept: Vec<Scalar> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let i = i as i64;
            let (r, c) = ((i / cols.max(1)) % rows.max(1), i % cols.max(1));
            let keep = if lower { c - r <= k } else { c - r >= k };
            if keep {
                v
            } else {
                zero
            }
        })
        .collect();
    if call.name.ends_with('_') {
        let this = call.self_ref()?;
        ev.write_values(&t, &kept)?;
        return Ok(Value::Tensor(this));
    }
    let out = ev.empty_strided(t.shape(), &contiguous_strides(t.shape()), t.dtype, base)?;
    ev.write_values(&out, &kept)?;
    Ok(Value::tensor(out, base, Some(t.storage)))
}

impl Evaluator {
    /// Writes `values` (row-major, converted to `dst`'s dtype) into the view `dst` through one
    /// engine copy from a staging storage that the trace never sees. The path of the ops
    /// that compute on the CPU reference.
    pub(super) fn write_values(&mut self, dst: &Tensor, values: &[Scalar]) -> R<()> {
        // Values computed element by element know no complex elements.
        crate::interp::torch::ops::complex::refuse_complex_dtype(
            "an op computed from element values",
            dst.dtype,
        )?;
        let item = dst.dtype.item_size();
        let nbytes = values
            .len()
            .checked_mul(item)
            .ok_or_else(|| ScriptError::Runtime("tensor is too large".into()))?;
        self.check_memory(nbytes, "copy")?;
        let mut bytes = vec![0u8; nbytes];
        match dst.dtype {
            // The float dtypes encoded without a dispatch per element (what `write` does).
            DType::Float32 => {
                for (out, v) in bytes.chunks_exact_mut(4).zip(values) {
                    out.copy_from_slice(&v.to_f32().to_le_bytes());
                }
            }
            DType::Float64 => {
                for (out, v) in bytes.chunks_exact_mut(8).zip(values) {
                    out.copy_from_slice(&v.to_f64().to_le_bytes());
                }
            }
            dtype => {
                for (i, v) in values.iter().enumerate() {
                    dtype.write(&mut bytes, i, *v);
                }
            }
        }
        let staging = self.engine.allocate_with(bytes);
        let src = Tensor {
            storage: staging,
            dtype: dst.dtype,
            layout: Layout::contiguous(dst.shape()),
        };
        if dst.numel() > 0 {
            self.engine.copy(dst, &src);
        }
        self.engine.free(staging);
        self.note_write(dst);
        Ok(())
    }

    /// A new tensor of `shape` and `strides` holding `values` (row-major).
    pub(super) fn strided_from_values(
        &mut self,
        shape: &[i64],
        strides: &[i64],
        dtype: DType,
        values: &[Scalar],
        what: &str,
    ) -> R<Tensor> {
        let out = self.empty_strided(shape, strides, dtype, what)?;
        self.write_values(&out, values)?;
        Ok(out)
    }

    /// `flip`: the result is allocated like `empty_like(self)` (dense strides kept) and
    /// filled by one copy from the view of `self` with the flipped dims' strides negated.
    pub(super) fn flip(&mut self, t: &Tensor, dims: &[i64]) -> R<Tensor> {
        let mut flipped = vec![false; t.ndim()];
        for &d in dims {
            let w = wrap_dim(d, t.ndim()).map_err(index_err)?;
            if flipped.get(w).copied().unwrap_or(false) {
                return Err(ScriptError::Runtime(format!(
                    "dim {w} appears multiple times in the list of dims"
                )));
            }
            if let Some(f) = flipped.get_mut(w) {
                *f = true;
            }
        }
        self.check_work(t.numel(), "flip")?;
        let strides = if t.layout.is_non_overlapping_and_dense() {
            t.strides().to_vec()
        } else {
            infer_dense_strides(t.shape(), t.strides())
        };
        let out = self.empty_strided(t.shape(), &strides, t.dtype, "flip")?;
        if t.numel() == 0 {
            return Ok(out);
        }
        let mut src = t.clone();
        for (d, &f) in flipped.iter().enumerate() {
            let n = src.layout.shape[d];
            if f && n > 1 {
                src.layout.offset += (n - 1) * src.layout.strides[d];
                src.layout.strides[d] = -src.layout.strides[d];
            }
        }
        self.engine.copy(&out, &src);
        Ok(out)
    }

    /// `roll`, as ATen's `roll_cpu`/`roll_common`: no dims rolls the flattened tensor; each
    /// dim is `cat` of the two narrowed parts, one dim after another.
    pub(super) fn roll(&mut self, t: &Tensor, shifts: &[i64], dims: &[i64]) -> R<Tensor> {
        if shifts.is_empty() {
            return Err(ScriptError::Runtime("`shifts` required".into()));
        }
        if dims.is_empty() && shifts.len() == 1 {
            let flat_src = if t.layout.is_contiguous() {
                t.clone()
            } else {
                self.convert(t, t.dtype, MemoryFormat::Contiguous, "contiguous")?
            };
            let flat = self.view(&flat_src, &[t.numel()])?;
            let rolled = self.roll_one(&flat, shifts[0], 0)?;
            return self.view(&rolled, t.shape());
        }
        if shifts.len() != dims.len() {
            return Err(ScriptError::Runtime(format!(
                "shifts and dimensions must align. shifts: {}, dims:{}",
                shifts.len(),
                dims.len()
            )));
        }
        let mut current = t.clone();
        for (&s, &d) in shifts.iter().zip(dims) {
            current = self.roll_one(&current, s, d)?;
        }
        Ok(current)
    }

    /// One dim of `roll`.
    fn roll_one(&mut self, t: &Tensor, shift: i64, dim: i64) -> R<Tensor> {
        let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
        if t.numel() == 0 {
            return self.convert(t, t.dtype, MemoryFormat::Preserve, "roll");
        }
        let size = t.shape()[d];
        let mut start = (size - shift % size) % size;
        if start < 0 {
            start += size;
        }
        let tail = self.narrow(t, d as i64, start, size - start)?;
        let head = self.narrow(t, d as i64, 0, start)?;
        self.cat(&[tail, head], d as i64, None)
    }

    /// `repeat(reps)`: a contiguous result, seen as `[r0, s0, r1, s1, ...]` and filled by
    /// one copy from `self` expanded along the `r` dims (ATen's unfold-and-copy).
    pub(super) fn repeat(&mut self, t: &Tensor, reps: &[i64]) -> R<Tensor> {
        if reps.len() < t.ndim() {
            return Err(ScriptError::Runtime(
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor".into(),
            ));
        }
        let lead = reps.len() - t.ndim();
        let mut in_shape = vec![1; lead];
        in_shape.extend_from_slice(t.shape());
        let mut in_strides = vec![0; lead];
        in_strides.extend_from_slice(t.strides());
        let shape: Vec<i64> = reps
            .iter()
            .zip(&in_shape)
            .map(|(&r, &n)| r.saturating_mul(n))
            .collect();
        self.check_shape(&shape)?;
        self.check_work(numel_of(&shape), "repeat")?;
        let strides = contiguous_strides(&shape);
        let out = self.empty_strided(&shape, &strides, t.dtype, "repeat")?;
        if numel_of(&shape) == 0 {
            return Ok(out);
        }
        // ATen's CPU kernel then builds its unfold permutation from int64 index tensors:
        // `arange(d)`, a wrapped number, `arange(d) + 1` (d = the result's dims), their `cat`.
        if !self.is_meta(&out) {
            let d = 8 * shape.len() as i64;
            self.note_kernel_events(&[d, 8, d, -8, 2 * d, -d, -d, -2 * d]);
        }
        let mut dst_layout = Layout {
            shape: vec![],
            strides: vec![],
            offset: 0,
        };
        let mut src_layout = Layout {
            shape: vec![],
            strides: vec![],
            offset: t.layout.offset,
        };
        for i in 0..shape.len() {
            dst_layout.shape.extend([reps[i], in_shape[i]]);
            dst_layout
                .strides
                .extend([in_shape[i] * strides[i], strides[i]]);
            src_layout.shape.extend([reps[i], in_shape[i]]);
            src_layout.strides.extend([0, in_strides[i]]);
        }
        self.engine
            .copy(&out.with_layout(dst_layout), &t.with_layout(src_layout));
        Ok(out)
    }

    /// `repeat_interleave(int)`: a contiguous result seen with `dim` split into
    /// `[n, repeats]` (or, without a dim, `self`'s shape plus `[repeats]`), filled by one
    /// copy from `self` expanded along the new dim.
    pub(super) fn repeat_interleave_int(
        &mut self,
        t: &Tensor,
        repeats: i64,
        dim: Option<i64>,
    ) -> R<Tensor> {
        if repeats < 0 {
            return Err(ScriptError::Runtime("Repeats must be non-negative".into()));
        }
        let (shape, split_at) = match dim {
            None => (vec![t.numel().saturating_mul(repeats)], t.ndim()),
            Some(d) => {
                let d = wrap_dim(d, t.ndim()).map_err(index_err)?;
                let mut shape = t.shape().to_vec();
                if let Some(n) = shape.get_mut(d) {
                    *n = n.saturating_mul(repeats);
                }
                (shape, d + 1)
            }
        };
        self.check_shape(&shape)?;
        self.check_work(numel_of(&shape), "repeat_interleave")?;
        let out = self.empty(
            &shape,
            t.dtype,
            MemoryFormat::Contiguous,
            "repeat_interleave",
        )?;
        if numel_of(&shape) == 0 {
            return Ok(out);
        }
        // Source: `self` with a broadcast dim of `repeats` after `split_at - 1`.
        let mut src = t.layout.clone();
        src.shape.insert(split_at.min(src.shape.len()), repeats);
        src.strides.insert(split_at.min(src.strides.len()), 0);
        let dst = Layout::contiguous(&src.shape);
        self.engine.copy(&out.with_layout(dst), &t.with_layout(src));
        Ok(out)
    }

    /// `repeat_interleave(Tensor repeats)`: the index of each output slice computed on the
    /// CPU reference (it depends on the repeats' values), then `index_select`.
    pub(super) fn repeat_interleave_tensor(
        &mut self,
        t: &Tensor,
        repeats: &Tensor,
        dim: Option<i64>,
    ) -> R<Tensor> {
        let (input, d) = match dim {
            None => (self.reshape(t, &[t.numel()])?.0, 0),
            Some(d) => (t.clone(), wrap_dim(d, t.ndim()).map_err(index_err)?),
        };
        let n = input.shape().get(d).copied().unwrap_or(1);
        let mut reps: Vec<i64> = self
            .engine
            .values(repeats)
            .into_iter()
            .map(int_of)
            .collect();
        if repeats.ndim() == 0 {
            reps = vec![reps.first().copied().unwrap_or(0); n as usize];
        } else if repeats.ndim() != 1 {
            return Err(ScriptError::Runtime(
                "repeat_interleave only accept 1D vector as repeat".into(),
            ));
        } else if reps.len() as i64 != n {
            return Err(ScriptError::Runtime(format!(
                "repeats must have the same size as input along dim, but got repeats.size(0) = {} and input.size(0) = {n}",
                reps.len()
            )));
        }
        if reps.iter().any(|&r| r < 0) {
            return Err(ScriptError::Runtime("repeats can not be negative".into()));
        }
        let total: i64 = reps.iter().fold(0i64, |a, &r| a.saturating_add(r));
        self.check_work(total, "repeat_interleave")?;
        let index: Vec<i64> = reps
            .iter()
            .enumerate()
            .flat_map(|(i, &r)| std::iter::repeat_n(i as i64, r as usize))
            .collect();
        self.index_select_values(&input, d, &index, "repeat_interleave")
    }

    /// `torch.repeat_interleave(repeats)`: `[0] * r0 + [1] * r1 + ...`.
    fn repeat_interleave_indices(&mut self, repeats: &Tensor) -> R<Tensor> {
        if repeats.ndim() != 1 {
            return Err(ScriptError::Runtime(
                "repeat_interleave only accept 1D vector as repeat".into(),
            ));
        }
        if repeats.dtype != DType::Int64 && repeats.dtype != DType::Int32 {
            return Err(ScriptError::Runtime(
                "repeats has to be Long or Int tensor".into(),
            ));
        }
        let reps: Vec<i64> = self
            .engine
            .values(repeats)
            .into_iter()
            .map(int_of)
            .collect();
        if reps.iter().any(|&r| r < 0) {
            return Err(ScriptError::Runtime("repeats can not be negative".into()));
        }
        let total: i64 = reps.iter().fold(0i64, |a, &r| a.saturating_add(r));
        self.check_work(total, "repeat_interleave")?;
        let values: Vec<Scalar> = reps
            .iter()
            .enumerate()
            .flat_map(|(i, &r)| std::iter::repeat_n(Scalar::Int(i as i64), r as usize))
            .collect();
        self.strided_from_values(&[total], &[1], repeats.dtype, &values, "repeat_interleave")
    }

    /// `self` gathered along `dim` at `index` (already checked) into a contiguous tensor,
    /// computed on the CPU reference.
    pub(super) fn index_select_values(
        &mut self,
        t: &Tensor,
        dim: usize,
        index: &[i64],
        what: &str,
    ) -> R<Tensor> {
        let mut shape = t.shape().to_vec();
        if let Some(n) = shape.get_mut(dim) {
            *n = index.len() as i64;
        }
        self.check_shape(&shape)?;
        self.check_work(numel_of(&shape), what)?;
        if self.torch.device.meta_op {
            // On the meta device nothing is computed: a contiguous result without values.
            return self.empty_strided(&shape, &contiguous_strides(&shape), t.dtype, what);
        }
        let values = self.engine.values(t);
        let n = t.shape().get(dim).copied().unwrap_or(1);
        let inner: i64 = t.shape().iter().skip(dim + 1).product();
        let outer: i64 = t.shape().iter().take(dim).product();
        let mut out = Vec::with_capacity(numel_of(&shape) as usize);
        for o in 0..outer {
            for &i in index {
                let base = (o * n + i) * inner;
                for k in 0..inner {
                    out.push(values[(base + k) as usize]);
                }
            }
        }
        let strides = contiguous_strides(&shape);
        self.strided_from_values(&shape, &strides, t.dtype, &out, what)
    }
}
