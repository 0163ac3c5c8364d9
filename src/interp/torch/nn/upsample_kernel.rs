//! The arithmetic of `F.interpolate` on host values, as ATen's CPU kernels compute it
//! (`aten/src/ATen/native/UpSample.h` and `cpu/UpSampleKernel.cpp`, `UpSampleMoreKernel.cpp`):
//! the source indices (`area_pixel_compute_scale`, `area_pixel_compute_source_index`,
//! `nearest_idx`, `nearest_exact_idx`), the linear weights in the input's `opmath` type, and
//! the sums in the order (and with the fused multiply-adds) PyTorch's x86-64 AVX2 build
//! compiles them to. Values are in logical (row-major) order, planes first.

/// A float type the kernels compute in: `f32` (float32's `opmath`) or `f64`.
pub(crate) trait Real:
    Copy
    + PartialOrd
    + std::ops::Mul<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Add<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    /// Bytes of one value (the AVX2 vector holds `32 / BYTES` of them).
    const BYTES: usize;
    fn of_i64(v: i64) -> Self;
    fn of_f64(v: f64) -> Self;
    fn f64(self) -> f64;
    fn fma(self, b: Self, c: Self) -> Self;
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const BYTES: usize = 4;
    fn of_i64(v: i64) -> f32 {
        v as f32
    }
    fn of_f64(v: f64) -> f32 {
        v as f32
    }
    fn f64(self) -> f64 {
        f64::from(self)
    }
    fn fma(self, b: f32, c: f32) -> f32 {
        self.mul_add(b, c)
    }
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    const BYTES: usize = 8;
    fn of_i64(v: i64) -> f64 {
        v as f64
    }
    fn of_f64(v: f64) -> f64 {
        v
    }
    fn f64(self) -> f64 {
        self
    }
    fn fma(self, b: f64, c: f64) -> f64 {
        self.mul_add(b, c)
    }
}

/// C's `floorf` of a value (converted to `float` first) as an index.
fn floorf(v: f64) -> i64 {
    (v as f32).floor() as i64
}

/// `compute_scales_value`: `1 / scale` when a positive scale was given, else `in / out`.
fn scales_value<T: Real>(scale: Option<f64>, input: i64, output: i64) -> T {
    match scale {
        Some(s) if s > 0.0 => T::of_f64(1.0 / s),
        _ => {
            let i = T::of_i64(input);
            let o = T::of_i64(output);
            T::of_f64(i.f64() / o.f64())
        }
    }
}

/// `area_pixel_compute_scale`.
pub(crate) fn area_scale<T: Real>(input: i64, output: i64, align: bool, scale: Option<f64>) -> T {
    if align {
        if output > 1 {
            T::of_f64(T::of_i64(input - 1).f64() / T::of_i64(output - 1).f64())
        } else {
            T::ZERO
        }
    } else {
        scales_value(scale, input, output)
    }
}

/// `area_pixel_compute_source_index` (not cubic); `fused` where the compiler made
/// `scale * (i + 0.5) - 0.5` one multiply-add.
fn source_index<T: Real>(scale: T, dst: i64, align: bool, fused: bool) -> T {
    if align {
        return scale * T::of_i64(dst);
    }
    let half = T::of_f64(0.5);
    let at = T::of_i64(dst) + half;
    let v = if fused {
        scale.fma(at, T::ZERO - half)
    } else {
        scale * at - half
    };
    if v < T::ZERO {
        T::ZERO
    } else {
        v
    }
}

/// Which nearest rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Nearest {
    /// `mode='nearest'`.
    Floor,
    /// `mode='nearest-exact'`.
    Exact,
}

/// `nearest_idx` / `nearest_exact_idx` (the channels-last kernels and the backwards).
pub(crate) fn nearest_idx(
    rule: Nearest,
    o: i64,
    input: i64,
    output: i64,
    scale: Option<f64>,
) -> i64 {
    match rule {
        Nearest::Floor => {
            if output == input {
                return o;
            }
            if output == 2 * input {
                return o >> 1;
            }
            let s: f32 = scales_value(scale, input, output);
            floorf(f64::from(o as f32 * s)).min(input - 1)
        }
        Nearest::Exact => {
            let s: f32 = scales_value(scale, input, output);
            floorf((o as f64 + 0.5) * f64::from(s)).min(input - 1)
        }
    }
}

/// The generic kernel's nearest indices (`HelperInterpNearest`, `HelperInterpNearestExact`:
/// no special case for equal or doubled sizes), in the input's `opmath` type.
pub(crate) fn nearest_generic<T: Real>(
    rule: Nearest,
    input: i64,
    output: i64,
    scale: Option<f64>,
) -> Vec<usize> {
    let s: T = area_scale(input, output, false, scale);
    (0..output)
        .map(|o| {
            let i = match rule {
                Nearest::Floor => floorf(source_index(s, o, true, false).f64()),
                Nearest::Exact => floorf(source_index(s, o, false, false).f64() + 0.5),
            };
            i.min(input - 1).max(0) as usize
        })
        .collect()
}

/// The nearest indices the kernel ATen picks uses.
pub(crate) fn nearest_indices<T: Real>(
    rule: Nearest,
    channels_last: bool,
    input: i64,
    output: i64,
    scale: Option<f64>,
) -> Vec<usize> {
    if channels_last {
        (0..output)
            .map(|o| nearest_idx(rule, o, input, output, scale).max(0) as usize)
            .collect()
    } else {
        nearest_generic::<T>(rule, input, output, scale)
    }
}

/// One output position's two source indices and weights (`compute_source_index_and_lambda`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lambda<T> {
    pub i0: usize,
    pub i1: usize,
    pub l0: T,
    pub l1: T,
}

/// `compute_source_index_and_lambda` with `guard_index_and_lambda`.
pub(crate) fn lambdas<T: Real>(
    input: i64,
    output: i64,
    align: bool,
    scale: Option<f64>,
    fused: bool,
) -> Vec<Lambda<T>> {
    let ratio: T = area_scale(input, output, align, scale);
    (0..output)
        .map(|o| {
            if output == input {
                let i = o as usize;
                return Lambda {
                    i0: i,
                    i1: i,
                    l0: T::ONE,
                    l1: T::ZERO,
                };
            }
            let real = source_index(ratio, o, align, fused);
            let i0 = floorf(real.f64()).min(input - 1);
            let mut l1 = real - T::of_i64(i0);
            if l1 < T::ZERO {
                l1 = T::ZERO;
            }
            if l1 > T::ONE {
                l1 = T::ONE;
            }
            let i1 = i0 + i64::from(i0 < input - 1);
            Lambda {
                i0: i0.max(0) as usize,
                i1: i1.max(0) as usize,
                l0: T::ONE - l1,
                l1,
            }
        })
        .collect()
}

/// Gathers `x` (planes of `in_size`) at per-dimension indices: a nearest upsampling of any
/// value type.
pub(crate) fn gather<V: Copy>(
    x: &[V],
    planes: usize,
    in_size: &[usize],
    idx: &[Vec<usize>],
) -> Vec<V> {
    let in_plane: usize = in_size.iter().product();
    let out_plane: usize = idx.iter().map(Vec::len).product();
    let mut out = Vec::with_capacity(planes * out_plane);
    let n = in_size.len();
    let mut pos = vec![0usize; n];
    for p in 0..planes {
        let base = p * in_plane;
        pos.iter_mut().for_each(|v| *v = 0);
        for _ in 0..out_plane {
            let mut at = 0;
            for d in 0..n {
                at = at * in_size[d] + idx[d][pos[d]];
            }
            out.push(x[base + at]);
            for d in (0..n).rev() {
                pos[d] += 1;
                if pos[d] < idx[d].len() {
                    break;
                }
                pos[d] = 0;
            }
        }
    }
    out
}

/// Linear interpolation along one dimension (`upsample_linear1d`, the generic kernel).
pub(crate) fn linear_1d<T: Real>(x: &[T], planes: usize, width: usize, lw: &[Lambda<T>]) -> Vec<T> {
    let mut out = Vec::with_capacity(planes * lw.len());
    for p in 0..planes {
        let row = &x[p * width..(p + 1) * width];
        for l in lw {
            out.push(row[l.i0].fma(l.l0, row[l.i1] * l.l1));
        }
    }
    out
}

/// Bilinear interpolation (`upsample_bilinear2d`): the generic kernel's nested sums, or the
/// channels-last kernel's (weights multiplied first; AVX2 vectors over the channels, the
/// remainder one by one). `channels` is C (planes = N * C).
#[allow(clippy::too_many_arguments)]
pub(crate) fn bilinear<T: Real>(
    x: &[T],
    planes: usize,
    channels: usize,
    in_size: [usize; 2],
    lh: &[Lambda<T>],
    lw: &[Lambda<T>],
    channels_last: bool,
) -> Vec<T> {
    let [h, w] = in_size;
    let mut out = Vec::with_capacity(planes * lh.len() * lw.len());
    let lanes = 32 / T::BYTES;
    let vectored = channels - channels % lanes;
    for p in 0..planes {
        let c = p % channels.max(1);
        let plane = &x[p * h * w..(p + 1) * h * w];
        let at = |i: usize, j: usize| plane[i * w + j];
        for a in lh {
            for b in lw {
                let (x00, x01, x10, x11) = (
                    at(a.i0, b.i0),
                    at(a.i0, b.i1),
                    at(a.i1, b.i0),
                    at(a.i1, b.i1),
                );
                let v = if channels_last {
                    let (w00, w01, w10, w11) = (a.l0 * b.l0, a.l0 * b.l1, a.l1 * b.l0, a.l1 * b.l1);
                    if c < vectored {
                        let r = x10 * w10;
                        let r = x11.fma(w11, r);
                        let r = x01.fma(w01, r);
                        x00.fma(w00, r)
                    } else {
                        let r = x00.fma(w00, x01 * w01);
                        let r = x10.fma(w10, r);
                        x11.fma(w11, r)
                    }
                } else {
                    let t0 = x00.fma(b.l0, x01 * b.l1);
                    let t1 = x10.fma(b.l0, x11 * b.l1);
                    t0.fma(a.l0, t1 * a.l1)
                };
                out.push(v);
            }
        }
    }
    out
}

/// The gradient of a nearest upsampling: each output gradient added to its source cell, in
/// the output's order (`cpu_upsample_nearest_backward`).
pub(crate) fn nearest_backward<T: Real>(
    g: &[T],
    planes: usize,
    in_size: &[usize],
    idx: &[Vec<usize>],
) -> Vec<T> {
    let in_plane: usize = in_size.iter().product();
    let out_plane: usize = idx.iter().map(Vec::len).product();
    let mut acc = vec![T::ZERO; planes * in_plane];
    let n = in_size.len();
    let mut pos = vec![0usize; n];
    for p in 0..planes {
        pos.iter_mut().for_each(|v| *v = 0);
        for k in 0..out_plane {
            let mut at = 0;
            for d in 0..n {
                at = at * in_size[d] + idx[d][pos[d]];
            }
            let cell = &mut acc[p * in_plane + at];
            *cell = *cell + g[p * out_plane + k];
            for d in (0..n).rev() {
                pos[d] += 1;
                if pos[d] < idx[d].len() {
                    break;
                }
                pos[d] = 0;
            }
        }
    }
    acc
}

/// The gradient of a linear (1-d) or bilinear (2-d) upsampling
/// (`cpu_upsample_linear_backward`): each weight times the gradient added in one fused
/// multiply-add, corners in the order 00, 01, 10, 11.
pub(crate) fn linear_backward<T: Real>(
    g: &[T],
    planes: usize,
    in_size: &[usize],
    ls: &[Vec<Lambda<T>>],
) -> Vec<T> {
    let in_plane: usize = in_size.iter().product();
    let mut acc = vec![T::ZERO; planes * in_plane];
    let mut k = 0;
    for p in 0..planes {
        let base = p * in_plane;
        match ls {
            [lw] => {
                for l in lw {
                    let v = g[k];
                    k += 1;
                    let a = &mut acc[base + l.i0];
                    *a = l.l0.fma(v, *a);
                    let a = &mut acc[base + l.i1];
                    *a = l.l1.fma(v, *a);
                }
            }
            [lh, lw] => {
                let w = in_size[1];
                for a in lh {
                    for b in lw {
                        let v = g[k];
                        k += 1;
                        for (i, li) in [(a.i0, a.l0), (a.i1, a.l1)] {
                            for (j, lj) in [(b.i0, b.l0), (b.i1, b.l1)] {
                                let cell = &mut acc[base + i * w + j];
                                *cell = (li * lj).fma(v, *cell);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    acc
}

/// `pixel_shuffle` (`down = false`) or `pixel_unshuffle` of logical values of `shape`
/// (`(*, C, H, W)`) by `r`: the output's values in logical order.
pub(crate) fn pixel_shuffle<V: Copy>(x: &[V], shape: &[i64], r: usize, down: bool) -> Vec<V> {
    let n = shape.len();
    let u = |v: i64| v.max(0) as usize;
    let batch: usize = shape[..n - 3].iter().map(|&v| u(v)).product();
    let (c, h, w) = (u(shape[n - 3]), u(shape[n - 2]), u(shape[n - 1]));
    let mut out = Vec::with_capacity(x.len());
    if r == 0 {
        return out;
    }
    if !down {
        let oc = c / r.saturating_mul(r);
        for b in 0..batch {
            for k in 0..oc {
                for i in 0..h * r {
                    for j in 0..w * r {
                        let ch = k * r * r + (i % r) * r + j % r;
                        out.push(x[((b * c + ch) * h + i / r) * w + j / r]);
                    }
                }
            }
        }
    } else {
        let (oh, ow) = (h / r, w / r);
        for b in 0..batch {
            for k in 0..c {
                for ri in 0..r {
                    for rj in 0..r {
                        for i in 0..oh {
                            for j in 0..ow {
                                out.push(x[((b * c + k) * h + i * r + ri) * w + j * r + rj]);
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_doubles_by_shifting_and_exact_rounds_centres() {
        let idx = nearest_generic::<f32>(Nearest::Floor, 4, 8, Some(2.0));
        assert_eq!(idx, vec![0, 0, 1, 1, 2, 2, 3, 3]);
        let idx = nearest_generic::<f32>(Nearest::Exact, 3, 2, None);
        assert_eq!(idx, vec![0, 2]);
        assert_eq!(nearest_idx(Nearest::Floor, 2, 3, 3, Some(1.2)), 2);
        assert_eq!(
            nearest_generic::<f32>(Nearest::Floor, 3, 3, Some(1.2)),
            vec![0, 0, 1]
        );
    }

    #[test]
    fn bilinear_keeps_corners_with_align_corners() {
        let x: Vec<f32> = (0..16).map(|v| v as f32).collect();
        let lh = lambdas::<f32>(4, 6, true, None, false);
        let out = bilinear(&x, 1, 1, [4, 4], &lh, &lh, false);
        assert_eq!(out[0], 0.0);
        assert_eq!(out[35], 15.0);
    }

    #[test]
    fn pixel_unshuffle_inverts_pixel_shuffle() {
        let x: Vec<i32> = (0..32).collect();
        let y = pixel_shuffle(&x, &[1, 8, 2, 2], 2, false);
        assert_eq!(pixel_shuffle(&y, &[1, 2, 4, 4], 2, true), x);
    }
}
