//! The CPU engine's layout copies without a `Scalar` per element.
//!
//! A copy is planned the way ATen's TensorIterator plans one: size-1 dims dropped, the
//! rest ordered by the destination's strides (innermost = smallest), adjacent dims merged
//! where both operands step through them as one, and the outer dims walked with an
//! odometer. The innermost run is then
//! - a slice copy when both operands are contiguous along it,
//! - a tiled 2-D transpose when the source is contiguous along another dim
//!   (NCHW -> NHWC, `.t()`), so both sides touch whole cache lines,
//! - else a strided loop.
//!
//! Elements of one dtype move as raw little-endian words, with the two things a round trip
//! through [`DType::read`] / [`DType::write`] changes: a bool byte becomes 0 or 1, and a
//! float16 / bfloat16 / float32 NaN gets its quiet bit (float64 is read and written without
//! a conversion, so its bits are kept). Other dtype pairs convert each element with
//! `DType::read` and `DType::write` themselves.
//!
//! Plans exist only for same-shaped, in-bounds views with non-negative strides whose
//! destination elements are distinct; [`copy_ordered`] covers the rest in logical order.

use crate::core::tensor::{DType, Layout};

/// One dim of a planned copy: its size and the strides (in elements) of both operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dim {
    size: usize,
    src: usize,
    dst: usize,
}

/// A copy reduced to its essential loops: dims outermost first.
#[derive(Debug, PartialEq, Eq)]
struct Plan {
    dims: Vec<Dim>,
    src_offset: usize,
    dst_offset: usize,
}

/// Tile of the tiled transpose, in elements: along the dim the source is dense in (two
/// 64-byte cache lines), and along the destination's dense dim (8: each of those source
/// lines is one of 8 far apart, which stay in L1 even when their distance maps them all
/// to one cache set, as NCHW's power-of-two planes do).
fn tile(item_size: usize) -> (usize, usize) {
    (128 / item_size, 8)
}

/// True when every element of `layout` (a non-negative stride for each dim) is a storage
/// element of its own: sorted by stride, each dim steps past everything the smaller dims
/// reach. Sufficient, not necessary; a `false` only costs the ordered path.
fn distinct_elements(dims: &[(usize, usize)]) -> bool {
    let mut sorted: Vec<(usize, usize)> = dims.to_vec();
    crate::core::tensor::stable_sort::sort_by_key(&mut sorted, |&(_, stride)| stride);
    let mut reach: usize = 0;
    for (size, stride) in sorted {
        if stride <= reach {
            return false;
        }
        reach = match (size - 1)
            .checked_mul(stride)
            .and_then(|r| r.checked_add(reach))
        {
            Some(r) => r,
            None => return false,
        };
    }
    true
}

/// The last storage element (plus one) a layout reaches, when its offset and strides are
/// non-negative and it has elements; `None` otherwise.
fn reach(layout: &Layout) -> Option<usize> {
    if layout.offset < 0 || layout.strides.iter().any(|&s| s < 0) {
        return None;
    }
    let (_, end) = layout.extent()?;
    usize::try_from(end).ok()
}

/// Whether every element of `layout` lies in a storage of `elements` elements (an empty
/// view always does).
fn in_bounds(layout: &Layout, elements: usize) -> bool {
    match layout.extent() {
        None => true,
        Some((lo, hi)) => lo >= 0 && usize::try_from(hi).is_ok_and(|hi| hi <= elements),
    }
}

/// Plans `dst[i] = src[i]` for two views of the same shape; `None` when the views are not
/// plannable (see the module doc) or empty (`reach` is `None` for an empty view).
fn plan(dst: &Layout, src: &Layout, dst_elements: usize, src_elements: usize) -> Option<Plan> {
    if dst.shape != src.shape || dst.strides.len() != dst.shape.len() {
        return None;
    }
    if reach(dst)? > dst_elements || reach(src)? > src_elements {
        return None;
    }
    let mut dims: Vec<Dim> = Vec::with_capacity(dst.shape.len());
    for d in 0..dst.shape.len() {
        let size = usize::try_from(dst.shape[d]).ok()?;
        if size != 1 {
            dims.push(Dim {
                size,
                src: usize::try_from(src.strides[d]).ok()?,
                dst: usize::try_from(dst.strides[d]).ok()?,
            });
        }
    }
    let sizes_strides: Vec<(usize, usize)> = dims.iter().map(|d| (d.size, d.dst)).collect();
    if !distinct_elements(&sizes_strides) {
        return None;
    }
    // Outermost first: largest destination stride first (they are all distinct).
    crate::core::tensor::stable_sort::sort_by_key(&mut dims, |d| std::cmp::Reverse(d.dst));
    let mut merged: Vec<Dim> = Vec::with_capacity(dims.len());
    for dim in dims {
        match merged.last_mut() {
            Some(outer) if dim.size * dim.src == outer.src && dim.size * dim.dst == outer.dst => {
                outer.size *= dim.size;
                outer.src = dim.src;
                outer.dst = dim.dst;
            }
            _ => merged.push(dim),
        }
    }
    Some(Plan {
        dims: merged,
        src_offset: usize::try_from(src.offset).ok()?,
        dst_offset: usize::try_from(dst.offset).ok()?,
    })
}

/// Calls `body(src, dst)` with the element offsets of every index of `dims` (row-major),
/// starting from `src`, `dst`.
fn for_each_index(dims: &[Dim], src: usize, dst: usize, mut body: impl FnMut(usize, usize)) {
    let total: usize = dims.iter().map(|d| d.size).product();
    let mut index = vec![0usize; dims.len()];
    let (mut s, mut d) = (src, dst);
    for _ in 0..total {
        body(s, d);
        for k in (0..dims.len()).rev() {
            index[k] += 1;
            s += dims[k].src;
            d += dims[k].dst;
            if index[k] < dims[k].size {
                break;
            }
            s -= dims[k].src * dims[k].size;
            d -= dims[k].dst * dims[k].size;
            index[k] = 0;
        }
    }
}

/// A little-endian word of one element's bytes.
trait Word: Copy {
    const SIZE: usize;
    fn load(bytes: &[u8], index: usize) -> Self;
    fn store(self, bytes: &mut [u8], index: usize);
}

macro_rules! word {
    ($t:ty, $n:expr) => {
        impl Word for $t {
            const SIZE: usize = $n;
            #[inline(always)]
            fn load(bytes: &[u8], index: usize) -> $t {
                let mut raw = [0u8; $n];
                raw.copy_from_slice(&bytes[index * $n..index * $n + $n]);
                <$t>::from_le_bytes(raw)
            }
            #[inline(always)]
            fn store(self, bytes: &mut [u8], index: usize) {
                bytes[index * $n..index * $n + $n].copy_from_slice(&self.to_le_bytes());
            }
        }
    };
}

word!(u8, 1);
word!(u16, 2);
word!(u32, 4);
word!(u64, 8);

/// Runs a plan, element `f(src)` into `dst`.
fn run<W: Word>(plan: &Plan, src: &[u8], dst: &mut [u8], f: impl Fn(W) -> W + Copy) {
    let Some((&inner, outer)) = plan.dims.split_last() else {
        // A 0-d or all-size-1 view: one element.
        f(W::load(src, plan.src_offset)).store(dst, plan.dst_offset);
        return;
    };
    let n = inner.size;
    if inner.src == 1 && inner.dst == 1 {
        for_each_index(outer, plan.src_offset, plan.dst_offset, |s, d| {
            let from = &src[s * W::SIZE..(s + n) * W::SIZE];
            let to = &mut dst[d * W::SIZE..(d + n) * W::SIZE];
            for (a, b) in from.chunks_exact(W::SIZE).zip(to.chunks_exact_mut(W::SIZE)) {
                f(W::load(a, 0)).store(b, 0);
            }
        });
        return;
    }
    // The dim along which the source is densest, if it is denser than the inner one.
    let across = outer
        .iter()
        .enumerate()
        .min_by_key(|(_, d)| d.src)
        .filter(|(_, d)| d.src < inner.src)
        .map(|(k, _)| k);
    let Some(t) = across else {
        for_each_index(outer, plan.src_offset, plan.dst_offset, |s, d| {
            for j in 0..n {
                f(W::load(src, s + j * inner.src)).store(dst, d + j * inner.dst);
            }
        });
        return;
    };
    let rows = outer[t];
    let mut rest: Vec<Dim> = outer.to_vec();
    rest.remove(t);
    let (bi, bj) = tile(W::SIZE);
    for_each_index(&rest, plan.src_offset, plan.dst_offset, |s, d| {
        for i0 in (0..rows.size).step_by(bi) {
            let i1 = (i0 + bi).min(rows.size);
            for j0 in (0..n).step_by(bj) {
                let j1 = (j0 + bj).min(n);
                for i in i0..i1 {
                    let (s_row, d_row) = (s + i * rows.src, d + i * rows.dst);
                    for j in j0..j1 {
                        f(W::load(src, s_row + j * inner.src)).store(dst, d_row + j * inner.dst);
                    }
                }
            }
        }
    });
}

/// float16's `read` then `write`: a NaN gets its quiet bit.
fn quiet_f16(x: u16) -> u16 {
    if x & 0x7fff > 0x7c00 {
        x | 0x0200
    } else {
        x
    }
}

/// bfloat16's `read` then `write`: a NaN gets its quiet bit.
fn quiet_bf16(x: u16) -> u16 {
    if x & 0x7fff > 0x7f80 {
        x | 0x0040
    } else {
        x
    }
}

/// float32's `read` (to f64) then `write` (to f32): a NaN gets its quiet bit.
fn quiet_f32(x: u32) -> u32 {
    if x & 0x7fff_ffff > 0x7f80_0000 {
        x | 0x0040_0000
    } else {
        x
    }
}

/// Copies `src` (elements of `src_dtype`) into `dst` (of `dst_dtype`), converting as
/// `DType::write(DType::read(..))` does. Returns false, having written nothing, when the
/// views need [`copy_ordered`] instead (see the module doc). Neither dtype is complex.
pub(super) fn copy_planned(
    dst: &mut [u8],
    dst_layout: &Layout,
    dst_dtype: DType,
    src: &[u8],
    src_layout: &Layout,
    src_dtype: DType,
) -> bool {
    let Some(plan) = plan(
        dst_layout,
        src_layout,
        dst.len() / dst_dtype.item_size(),
        src.len() / src_dtype.item_size(),
    ) else {
        return false;
    };
    if src_dtype != dst_dtype {
        run_converting(&plan, src, src_dtype, dst, dst_dtype);
        return true;
    }
    match dst_dtype {
        DType::Bool => run::<u8>(&plan, src, dst, |x| u8::from(x != 0)),
        DType::UInt8 | DType::Int8 => run::<u8>(&plan, src, dst, |x| x),
        DType::Int16 => run::<u16>(&plan, src, dst, |x| x),
        DType::Float16 => run::<u16>(&plan, src, dst, quiet_f16),
        DType::BFloat16 => run::<u16>(&plan, src, dst, quiet_bf16),
        DType::Int32 => run::<u32>(&plan, src, dst, |x| x),
        DType::Float32 => run::<u32>(&plan, src, dst, quiet_f32),
        DType::Int64 | DType::Float64 => run::<u64>(&plan, src, dst, |x| x),
        DType::Complex64 | DType::Complex128 => return false,
    }
    true
}

/// A plan between two dtypes: each element through `DType::read` and `DType::write`.
fn run_converting(plan: &Plan, src: &[u8], src_dtype: DType, dst: &mut [u8], dst_dtype: DType) {
    let (outer, inner) = match plan.dims.split_last() {
        Some((&inner, outer)) => (outer, inner),
        None => (
            &[][..],
            Dim {
                size: 1,
                src: 0,
                dst: 0,
            },
        ),
    };
    for_each_index(outer, plan.src_offset, plan.dst_offset, |s, d| {
        for j in 0..inner.size {
            dst_dtype.write(
                dst,
                d + j * inner.dst,
                src_dtype.read(src, s + j * inner.src),
            );
        }
    });
}

/// The general copy, element `i` of `src` (in logical row-major order) into element `i` of
/// `dst`, for as many elements as the shorter view has, one `DType::read` / `DType::write`
/// each; `src` is a snapshot, so overlapping views read the values from before the copy.
pub(super) fn copy_ordered(
    dst: &mut [u8],
    dst_layout: &Layout,
    dst_dtype: DType,
    src: &[u8],
    src_layout: &Layout,
    src_dtype: DType,
) {
    for (d, s) in dst_layout.offsets().zip(src_layout.offsets()) {
        dst_dtype.write(dst, d as usize, src_dtype.read(src, s as usize));
    }
}

/// Whether both views lie inside their storages (what the ordered path needs to be safe
/// to run).
pub(super) fn both_in_bounds(
    dst_len: usize,
    dst_layout: &Layout,
    dst_dtype: DType,
    src_len: usize,
    src_layout: &Layout,
    src_dtype: DType,
) -> bool {
    in_bounds(dst_layout, dst_len / dst_dtype.item_size())
        && in_bounds(src_layout, src_len / src_dtype.item_size())
}

/// `dst[i] = encoded` for every element of `dst` (`encoded`: one element's bytes).
pub(super) fn fill_encoded(dst: &mut [u8], layout: &Layout, encoded: &[u8]) {
    let size = encoded.len();
    // A contiguous view is one run of elements (one byte repeated, for zeros).
    if layout.is_contiguous() && size > 0 {
        let n = layout.numel().max(0) as usize;
        let first = layout.offset.max(0) as usize * size;
        if let Some(run) = dst.get_mut(first..first + n * size) {
            if encoded.iter().all(|&b| b == encoded[0]) {
                run.fill(encoded[0]);
            } else {
                for element in run.chunks_exact_mut(size) {
                    element.copy_from_slice(encoded);
                }
            }
            return;
        }
    }
    for o in layout.offsets() {
        let at = o as usize * size;
        dst[at..at + size].copy_from_slice(encoded);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(shape: &[i64], strides: &[i64], offset: i64) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            offset,
        }
    }

    #[test]
    fn plans_merge_dims_both_operands_step_through_as_one() {
        let contiguous = layout(&[2, 3, 4], &[12, 4, 1], 0);
        let p = plan(&contiguous, &contiguous, 24, 24).expect("plannable");
        assert_eq!(
            p.dims,
            vec![Dim {
                size: 24,
                src: 1,
                dst: 1
            }]
        );
        // NCHW -> NHWC: H and W merge, C stays apart.
        let src = layout(&[2, 3, 4, 5], &[60, 20, 5, 1], 0);
        let dst = layout(&[2, 3, 4, 5], &[60, 1, 15, 3], 0);
        let p = plan(&dst, &src, 120, 120).expect("plannable");
        assert_eq!(
            p.dims,
            vec![
                Dim {
                    size: 2,
                    src: 60,
                    dst: 60
                },
                Dim {
                    size: 20,
                    src: 1,
                    dst: 3
                },
                Dim {
                    size: 3,
                    src: 20,
                    dst: 1
                },
            ]
        );
    }

    #[test]
    fn repeated_destination_elements_are_not_planned() {
        let src = layout(&[3, 2], &[2, 1], 0);
        assert!(plan(&layout(&[3, 2], &[0, 1], 0), &src, 6, 6).is_none());
        assert!(plan(&layout(&[3, 2], &[1, 1], 0), &src, 6, 6).is_none());
        assert!(plan(&layout(&[3, 2], &[2, 1], 0), &src, 6, 6).is_some());
        // Out of bounds or negative strides go to the ordered path too.
        assert!(plan(&layout(&[3, 2], &[2, 1], 1), &src, 6, 6).is_none());
        assert!(plan(&layout(&[3, 2], &[-2, 1], 4), &src, 6, 6).is_none());
    }

    #[test]
    fn nan_quieting_matches_a_round_trip_through_read_and_write() {
        let round_trip = |dtype: DType, bits: &[u8]| {
            let mut out = vec![0u8; bits.len()];
            dtype.write(&mut out, 0, dtype.read(bits, 0));
            out
        };
        for x in 0..=u16::MAX {
            let bytes = x.to_le_bytes();
            assert_eq!(
                round_trip(DType::Float16, &bytes),
                quiet_f16(x).to_le_bytes(),
                "{x:#x}"
            );
            assert_eq!(
                round_trip(DType::BFloat16, &bytes),
                quiet_bf16(x).to_le_bytes(),
                "{x:#x}"
            );
        }
        // Every float32 NaN and infinity pattern of some payloads, both signs.
        for sign in [0u32, 0x8000_0000] {
            for payload in (0..0x0080_0000u32)
                .step_by(4099)
                .chain([1, 0x3f_ffff, 0x40_0000])
            {
                let x = sign | 0x7f80_0000 | payload;
                assert_eq!(
                    round_trip(DType::Float32, &x.to_le_bytes()),
                    quiet_f32(x).to_le_bytes(),
                    "{x:#x}"
                );
            }
        }
    }
}
