//! Typed float paths of the CPU engine: `float32`/`float64` views read straight into `f64`
//! lanes, computed with the very expressions of [`super::apply_unary`],
//! [`super::apply_binary`] and the reference product, and written back, without a
//! [`Scalar`] per element. Each path answers `None` (or `false`) where it does not apply
//! (another dtype, an op without a typed form, a view outside its storage), and the caller
//! runs the element-by-element reference instead, which stays the oracle of these paths
//! (`CpuEngine::*_reference`, `tests/cpu_kernels.rs`).

use std::collections::BTreeMap;

use crate::core::tensor::{DType, Layout, Scalar, StorageId, Tensor};
use crate::engines::{BinaryOp, Operand, UnaryOp};

/// The float dtypes of the typed paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Float {
    F32,
    F64,
}

impl Float {
    /// The typed form of `dtype`, if it has one.
    pub(super) fn of(dtype: DType) -> Option<Float> {
        match dtype {
            DType::Float32 => Some(Float::F32),
            DType::Float64 => Some(Float::F64),
            _ => None,
        }
    }

    fn size(self) -> usize {
        match self {
            Float::F32 => 4,
            Float::F64 => 8,
        }
    }

    /// `x` rounded to this type's precision, as `DType::round` rounds a `Scalar::Float`.
    #[inline(always)]
    fn round(self, x: f64) -> f64 {
        match self {
            Float::F32 => f64::from(x as f32),
            Float::F64 => x,
        }
    }
}

/// Whether every element of `layout` lies in a storage of `elements` elements.
fn in_bounds(layout: &Layout, elements: usize) -> bool {
    match layout.extent() {
        None => true,
        Some((lo, hi)) => lo >= 0 && usize::try_from(hi).is_ok_and(|hi| hi <= elements),
    }
}

/// Calls `row(first, stride, len)` for each innermost row of `layout`, in logical order
/// (a contiguous view is one row).
fn rows(layout: &Layout, mut row: impl FnMut(usize, isize, usize)) {
    let n = layout.numel();
    if n <= 0 {
        return;
    }
    if layout.is_contiguous() || layout.ndim() == 0 {
        return row(layout.offset as usize, 1, n as usize);
    }
    let last = layout.ndim() - 1;
    let outer = Layout {
        shape: layout.shape[..last].to_vec(),
        strides: layout.strides[..last].to_vec(),
        offset: layout.offset,
    };
    let (len, stride) = (layout.shape[last] as usize, layout.strides[last] as isize);
    for first in outer.offsets() {
        row(first as usize, stride, len);
    }
}

#[inline(always)]
fn f32_at(bytes: &[u8], i: usize) -> f32 {
    let b = &bytes[i * 4..i * 4 + 4];
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

#[inline(always)]
fn f64_at(bytes: &[u8], i: usize) -> f64 {
    let b = &bytes[i * 8..i * 8 + 8];
    f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

/// The elements of a float view in logical order, as `DType::read(..).to_f64()` reads
/// them; `None` for another dtype or a view outside `bytes`.
pub(super) fn read(bytes: &[u8], view: &Tensor) -> Option<Vec<f64>> {
    read_map(bytes, view, |x| x)
}

/// [`read`] with each value mapped by `f` as it is read (one vector, one pass).
#[inline(always)]
pub(super) fn read_map<T>(bytes: &[u8], view: &Tensor, f: impl Fn(f64) -> T) -> Option<Vec<T>> {
    let float = Float::of(view.dtype)?;
    if !in_bounds(&view.layout, bytes.len() / float.size()) {
        return None;
    }
    let mut out = Vec::with_capacity(view.layout.numel().max(0) as usize);
    rows(&view.layout, |first, stride, len| match (float, stride) {
        (Float::F32, 1) => out.extend(
            bytes[first * 4..(first + len) * 4]
                .chunks_exact(4)
                .map(|b| f(f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))),
        ),
        (Float::F64, 1) => out.extend(bytes[first * 8..(first + len) * 8].chunks_exact(8).map(
            |b| {
                f(f64::from_le_bytes([
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                ]))
            },
        )),
        (Float::F32, s) => out.extend((0..len).map(|i| {
            f(f64::from(f32_at(
                bytes,
                (first as isize + i as isize * s) as usize,
            )))
        })),
        (Float::F64, s) => out
            .extend((0..len).map(|i| f(f64_at(bytes, (first as isize + i as isize * s) as usize)))),
    });
    Some(out)
}

/// The elements of a 2-D float view and the steps between its rows and its columns in the
/// returned values: a transposed contiguous view (`x.t()`) is read in storage order, any
/// other in logical order; `None` as for [`read`].
pub(super) fn read_matrix(bytes: &[u8], view: &Tensor) -> Option<(Vec<f64>, usize, usize)> {
    let (shape, strides) = (&view.layout.shape, &view.layout.strides);
    let [rows, cols] = shape[..] else {
        return None;
    };
    if !view.layout.is_contiguous() && rows > 1 && cols > 1 && strides[..] == [1, rows] {
        let stored = Tensor {
            storage: view.storage,
            dtype: view.dtype,
            layout: Layout {
                shape: vec![cols, rows],
                strides: vec![rows, 1],
                offset: view.layout.offset,
            },
        };
        return Some((read(bytes, &stored)?, 1, rows as usize));
    }
    Some((read(bytes, view)?, cols.max(0) as usize, 1))
}

/// Writes `values` (logical order) into a float view, converted as `DType::write` converts
/// a `Scalar::Float` (later elements win where the view overlaps itself); `false` (nothing
/// written) for another dtype or a view outside `bytes`.
pub(super) fn write(bytes: &mut [u8], view: &Tensor, values: &[f64]) -> bool {
    let Some(float) = Float::of(view.dtype) else {
        return false;
    };
    if !in_bounds(&view.layout, bytes.len() / float.size())
        || values.len() != view.layout.numel().max(0) as usize
    {
        return false;
    }
    let mut next = 0;
    rows(&view.layout, |first, stride, len| {
        let chunk = &values[next..next + len];
        next += len;
        match (float, stride) {
            (Float::F32, 1) => {
                for (out, v) in bytes[first * 4..(first + len) * 4]
                    .chunks_exact_mut(4)
                    .zip(chunk)
                {
                    out.copy_from_slice(&(*v as f32).to_le_bytes());
                }
            }
            (Float::F64, 1) => {
                for (out, v) in bytes[first * 8..(first + len) * 8]
                    .chunks_exact_mut(8)
                    .zip(chunk)
                {
                    out.copy_from_slice(&v.to_le_bytes());
                }
            }
            (float, s) => {
                let size = float.size();
                for (i, v) in chunk.iter().enumerate() {
                    let at = (first as isize + i as isize * s) as usize * size;
                    match float {
                        Float::F32 => bytes[at..at + 4].copy_from_slice(&(*v as f32).to_le_bytes()),
                        Float::F64 => bytes[at..at + 8].copy_from_slice(&v.to_le_bytes()),
                    }
                }
            }
        }
    });
    true
}

/// The engine's storages.
pub(super) type Storages = BTreeMap<StorageId, Vec<u8>>;

/// The bytes of a view's storage (none for an unknown one).
fn bytes_of<'a>(storages: &'a Storages, t: &Tensor) -> &'a [u8] {
    storages.get(&t.storage).map(Vec::as_slice).unwrap_or(&[])
}

/// One operand of a typed binary op, in the compute type's precision.
enum Lane {
    Values(Vec<f64>),
    Scalar(f64),
}

/// An operand's values converted into `compute`'s arithmetic, as `to_compute` converts
/// them; `None` where the operand is no float tensor or number.
fn lane(storages: &Storages, operand: &Operand, compute: Float) -> Option<Lane> {
    match operand {
        Operand::Tensor(t) => {
            let mut values = read(bytes_of(storages, t), t)?;
            if compute == Float::F32 && t.dtype != DType::Float32 {
                for v in &mut values {
                    *v = compute.round(*v);
                }
            }
            Some(Lane::Values(values))
        }
        Operand::Scalar(s) => {
            let dtype = match compute {
                Float::F32 => DType::Float32,
                Float::F64 => DType::Float64,
            };
            Some(Lane::Scalar(super::to_compute(*s, dtype).to_f64()))
        }
    }
}

/// `f(x, y)` rounded to `compute`'s precision for each pair of `x` and `y`.
#[inline(always)]
fn zip_with(x: &Lane, y: &Lane, n: usize, compute: Float, f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    let g = |a: f64, b: f64| compute.round(f(a, b));
    match (x, y) {
        (Lane::Values(a), Lane::Values(b)) => a.iter().zip(b).map(|(&a, &b)| g(a, b)).collect(),
        (Lane::Values(a), Lane::Scalar(b)) => a.iter().map(|&a| g(a, *b)).collect(),
        (Lane::Scalar(a), Lane::Values(b)) => b.iter().map(|&b| g(*a, b)).collect(),
        (Lane::Scalar(a), Lane::Scalar(b)) => vec![g(*a, *b); n],
    }
}

/// `dst = a op b` on float views and numbers computed in `float32`/`float64`: the values to
/// write in `dst`'s logical order, or `None` where the typed path does not apply.
pub(super) fn binary(
    storages: &Storages,
    op: BinaryOp,
    dst: &Tensor,
    a: &Operand,
    b: &Operand,
    compute: DType,
) -> Option<Vec<f64>> {
    let compute = Float::of(compute)?;
    Float::of(dst.dtype)?;
    if op.is_comparison() || matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor) {
        return None;
    }
    let n = dst.numel().max(0) as usize;
    let (x, y) = (lane(storages, a, compute)?, lane(storages, b, compute)?);
    for l in [&x, &y] {
        if let Lane::Values(v) = l {
            if v.len() != n {
                return None;
            }
        }
    }
    Some(match op {
        BinaryOp::Add => zip_with(&x, &y, n, compute, |a, b| a + b),
        BinaryOp::Sub => zip_with(&x, &y, n, compute, |a, b| a - b),
        BinaryOp::Mul => zip_with(&x, &y, n, compute, |a, b| a * b),
        BinaryOp::Div => zip_with(&x, &y, n, compute, |a, b| a / b),
        BinaryOp::FloorDiv => zip_with(&x, &y, n, compute, |a, b| (a / b).floor()),
        BinaryOp::TruncDiv => zip_with(&x, &y, n, compute, |a, b| (a / b).trunc()),
        BinaryOp::Rem => zip_with(&x, &y, n, compute, super::float_rem),
        BinaryOp::Pow => zip_with(&x, &y, n, compute, f64::powf),
        _ => return None,
    })
}

/// `dst = op(src)` for a float `src` computed in `float32`/`float64`: the values to write,
/// or `None` where the typed path does not apply.
pub(super) fn unary(bytes: &[u8], op: UnaryOp, src: &Tensor, compute: DType) -> Option<Vec<f64>> {
    let float = Float::of(compute)?;
    let bound = |b: Option<Scalar>| b.map(|s| super::to_compute(s, compute).to_f64());
    let mut values = read(bytes, src)?;
    if float == Float::F32 && src.dtype != DType::Float32 {
        for v in &mut values {
            *v = float.round(*v);
        }
    }
    let map = |values: &mut [f64], f: &dyn Fn(f64) -> f64| {
        for v in values {
            *v = f(*v);
        }
    };
    match op {
        UnaryOp::Neg => values.iter_mut().for_each(|v| *v = -*v),
        UnaryOp::Abs => values.iter_mut().for_each(|v| *v = v.abs()),
        UnaryOp::Relu => values.iter_mut().for_each(|v| {
            if !v.is_nan() {
                *v = super::cpp_max(*v, 0.0);
            }
        }),
        UnaryOp::Clamp { min, max } => {
            let (lo, hi) = (bound(min), bound(max));
            map(&mut values, &|mut v| {
                if let Some(lo) = lo {
                    v = super::cpp_max(v, lo);
                }
                if let Some(hi) = hi {
                    v = super::cpp_min(v, hi);
                }
                v
            })
        }
        UnaryOp::LogicalNot | UnaryOp::BitNot => return None,
    }
    Some(values)
}
