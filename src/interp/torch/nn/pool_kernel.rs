//! The arithmetic of 2-d and 3-d pooling on host values, plane by plane, in the order of ATen's CPU
//! kernels (`cpu_max_pool`, `cpu_avg_pool`, `cpu_adaptive_avg_pool`, `cpu_adaptive_max_pool`
//! and their backwards): sums in the dtype's accumulation type (`float` for float32, float16
//! and bfloat16, `double` for float64, `int64_t` for integers), the same divisions, and the
//! same rule for a maximum (`val > max || isnan(val)`, the first index on ties).

use crate::core::tensor::{DType, Scalar};

/// A value the pooling kernels compute in: `f32`, `f64` or `i64`.
pub(crate) trait Num: Copy + PartialEq {
    fn zero() -> Self;
    /// The start of a maximum (`-inf`, or the lowest integer).
    fn lowest() -> Self;
    fn add(self, other: Self) -> Self;
    /// `self / n` as C++ divides an accumulator by an `int64_t`.
    fn div_count(self, n: i64) -> Self;
    /// Whether `self` replaces `max` as the maximum.
    fn beats(self, max: Self) -> bool;
    fn of(s: Scalar) -> Self;
    fn scalar(self) -> Scalar;
}

impl Num for f32 {
    fn zero() -> f32 {
        0.0
    }
    fn lowest() -> f32 {
        f32::NEG_INFINITY
    }
    fn add(self, other: f32) -> f32 {
        self + other
    }
    fn div_count(self, n: i64) -> f32 {
        self / n as f32
    }
    fn beats(self, max: f32) -> bool {
        self > max || self.is_nan()
    }
    fn of(s: Scalar) -> f32 {
        s.to_f32()
    }
    fn scalar(self) -> Scalar {
        Scalar::Float(f64::from(self))
    }
}

impl Num for f64 {
    fn zero() -> f64 {
        0.0
    }
    fn lowest() -> f64 {
        f64::NEG_INFINITY
    }
    fn add(self, other: f64) -> f64 {
        self + other
    }
    fn div_count(self, n: i64) -> f64 {
        self / n as f64
    }
    fn beats(self, max: f64) -> bool {
        self > max || self.is_nan()
    }
    fn of(s: Scalar) -> f64 {
        s.to_f64()
    }
    fn scalar(self) -> Scalar {
        Scalar::Float(self)
    }
}

impl Num for i64 {
    fn zero() -> i64 {
        0
    }
    fn lowest() -> i64 {
        i64::MIN
    }
    fn add(self, other: i64) -> i64 {
        self.wrapping_add(other)
    }
    fn div_count(self, n: i64) -> i64 {
        self.checked_div(n).unwrap_or(0)
    }
    fn beats(self, max: i64) -> bool {
        self > max
    }
    fn of(s: Scalar) -> i64 {
        s.to_wrapped_int()
    }
    fn scalar(self) -> Scalar {
        Scalar::Int(self)
    }
}

/// Which accumulation type a dtype pools in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AccType {
    F32,
    F64,
    I64,
}

impl AccType {
    /// `at::opmath_type` of the dtype.
    pub(crate) fn of(dtype: DType) -> AccType {
        match dtype {
            DType::Float64 => AccType::F64,
            d if d.is_floating() => AccType::F32,
            _ => AccType::I64,
        }
    }
}

/// A pooling's windows over one plane: three spatial dimensions (depth, height, width); a
/// 2-d pooling has depth 1 (kernel 1, stride 1, no padding), a 1-d one height 1 as well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Windows {
    /// Planes (batch times channels).
    pub planes: usize,
    pub in_size: [usize; 3],
    pub out_size: [usize; 3],
    pub kernel: [i64; 3],
    pub stride: [i64; 3],
    pub pad: [i64; 3],
    pub dilation: [i64; 3],
}

impl Windows {
    fn in_plane(&self) -> usize {
        self.in_size.iter().product()
    }
    fn out_plane(&self) -> usize {
        self.out_size.iter().product()
    }

    /// The input positions `[start, end)` (by `dilation`) of output `o` in dimension `d`.
    fn max_range(&self, d: usize, o: usize) -> (i64, i64) {
        let mut start = o as i64 * self.stride[d] - self.pad[d];
        let end = (start + (self.kernel[d] - 1) * self.dilation[d] + 1).min(self.in_size[d] as i64);
        while start < 0 {
            start += self.dilation[d];
        }
        (start, end)
    }

    /// `avg_pool`'s window of output `o` in dimension `d`: the clipped range and the size
    /// of the unclipped one (up to the padded end).
    fn avg_range(&self, d: usize, o: usize) -> (i64, i64, i64) {
        let start = o as i64 * self.stride[d] - self.pad[d];
        let end = (start + self.kernel[d]).min(self.in_size[d] as i64 + self.pad[d]);
        let size = end - start;
        (start.max(0), end.min(self.in_size[d] as i64), size)
    }

    /// Every output position `[od, oh, ow]` of a plane, in row-major order.
    fn outputs(&self) -> impl Iterator<Item = [usize; 3]> {
        let [d, h, w] = self.out_size;
        (0..d).flat_map(move |a| (0..h).flat_map(move |b| (0..w).map(move |c| [a, b, c])))
    }

    /// The flat index of input position `[id, ih, iw]` within a plane.
    fn at(&self, p: [i64; 3]) -> i64 {
        (p[0] * self.in_size[1] as i64 + p[1]) * self.in_size[2] as i64 + p[2]
    }
}

/// `max_pool2d`/`max_pool3d`: the maxima and their flat indices within each input plane.
pub(crate) fn max_pool<T: Num>(x: &[T], w: &Windows) -> (Vec<T>, Vec<i64>) {
    let ip = w.in_plane();
    let mut values = Vec::with_capacity(w.planes * w.out_plane());
    let mut indices = Vec::with_capacity(w.planes * w.out_plane());
    for p in 0..w.planes {
        let plane = &x[p * ip..(p + 1) * ip];
        for o in w.outputs() {
            let (d0, d1) = w.max_range(0, o[0]);
            let (h0, h1) = w.max_range(1, o[1]);
            let (w0, w1) = w.max_range(2, o[2]);
            let mut max_index = w.at([d0, h0, w0]);
            let mut max = T::lowest();
            let mut id = d0;
            while id < d1 {
                let mut ih = h0;
                while ih < h1 {
                    let mut iw = w0;
                    while iw < w1 {
                        let index = w.at([id, ih, iw]);
                        let v = plane[index as usize];
                        if v.beats(max) {
                            max = v;
                            max_index = index;
                        }
                        iw += w.dilation[2];
                    }
                    ih += w.dilation[1];
                }
                id += w.dilation[0];
            }
            values.push(max);
            indices.push(max_index);
        }
    }
    (values, indices)
}

/// Adds each output gradient into the input position its maximum came from.
pub(crate) fn max_pool_backward<T: Num>(g: &[T], indices: &[i64], w: &Windows) -> Vec<T> {
    let (ip, op) = (w.in_plane(), w.out_plane());
    let mut out = vec![T::zero(); w.planes * ip];
    for p in 0..w.planes {
        for o in 0..op {
            let at = p * op + o;
            if let Some(i) = indices.get(at).and_then(|&i| usize::try_from(i).ok()) {
                if i < ip {
                    out[p * ip + i] = out[p * ip + i].add(g[at]);
                }
            }
        }
    }
    out
}

/// The divisor of an `avg_pool` window and its clipped ranges `[start, end)` per dimension.
fn divisor(
    w: &Windows,
    o: [usize; 3],
    include_pad: bool,
    over: Option<i64>,
) -> (i64, [(i64, i64); 3]) {
    let r = [0, 1, 2].map(|d| w.avg_range(d, o[d]));
    let d = match over {
        Some(d) => d,
        None if include_pad => r[0].2 * r[1].2 * r[2].2,
        None => r.iter().map(|(a, b, _)| b - a).product(),
    };
    (d, r.map(|(a, b, _)| (a, b)))
}

/// Every input position of a window's ranges, in row-major order.
fn window(r: [(i64, i64); 3]) -> impl Iterator<Item = [i64; 3]> {
    let [(d0, d1), (h0, h1), (w0, w1)] = r;
    (d0..d1).flat_map(move |a| (h0..h1).flat_map(move |b| (w0..w1).map(move |c| [a, b, c])))
}

/// `avg_pool2d`/`avg_pool3d`.
pub(crate) fn avg_pool<T: Num>(
    x: &[T],
    w: &Windows,
    include_pad: bool,
    over: Option<i64>,
) -> Vec<T> {
    let ip = w.in_plane();
    let mut out = Vec::with_capacity(w.planes * w.out_plane());
    for p in 0..w.planes {
        let plane = &x[p * ip..(p + 1) * ip];
        for o in w.outputs() {
            let (d, r) = divisor(w, o, include_pad, over);
            let mut sum = T::zero();
            for i in window(r) {
                sum = sum.add(plane[w.at(i) as usize]);
            }
            out.push(sum.div_count(d));
        }
    }
    out
}

/// `avg_pool2d_backward`: each output gradient over its divisor, into its window.
pub(crate) fn avg_pool_backward<T: Num>(
    g: &[T],
    w: &Windows,
    include_pad: bool,
    over: Option<i64>,
) -> Vec<T> {
    let ip = w.in_plane();
    let mut out = vec![T::zero(); w.planes * ip];
    let mut at_g = 0;
    for p in 0..w.planes {
        for o in w.outputs() {
            let (d, r) = divisor(w, o, include_pad, over);
            let delta = g[at_g].div_count(d);
            at_g += 1;
            for i in window(r) {
                let at = p * ip + w.at(i) as usize;
                out[at] = out[at].add(delta);
            }
        }
    }
    out
}

/// ATen's adaptive window `[floor(o * in / out), ceil((o + 1) * in / out))`.
fn adaptive_range(o: usize, out: usize, input: usize) -> (i64, i64) {
    let start = (o * input) / out;
    let end = ((o + 1) * input).div_ceil(out);
    (start as i64, end as i64)
}

/// The adaptive windows of output `o`.
fn adaptive_window(w: &Windows, o: [usize; 3]) -> [(i64, i64); 3] {
    [0, 1, 2].map(|d| adaptive_range(o[d], w.out_size[d], w.in_size[d]))
}

/// `adaptive_avg_pool` (`sum / kd / kh / kw`, each division as ATen's kernel makes it) and
/// `adaptive_max_pool` (maxima and indices).
pub(crate) fn adaptive<T: Num>(x: &[T], w: &Windows, max: bool) -> (Vec<T>, Vec<i64>) {
    let ip = w.in_plane();
    let mut values = Vec::with_capacity(w.planes * w.out_plane());
    let mut indices = Vec::new();
    for p in 0..w.planes {
        let plane = &x[p * ip..(p + 1) * ip];
        for o in w.outputs() {
            let r = adaptive_window(w, o);
            if max {
                let mut best = T::lowest();
                let mut best_at = w.at([r[0].0, r[1].0, r[2].0]);
                for i in window(r) {
                    let v = plane[w.at(i) as usize];
                    if v.beats(best) {
                        best = v;
                        best_at = w.at(i);
                    }
                }
                values.push(best);
                indices.push(best_at);
            } else {
                let mut sum = T::zero();
                for i in window(r) {
                    sum = sum.add(plane[w.at(i) as usize]);
                }
                values.push(adaptive_mean(sum, r));
            }
        }
    }
    (values, indices)
}

/// A window's sum over its size: `sum / kh / kw` for a 2-d window, `sum / kd / kh / kw` for a
/// 3-d one (ATen's 3-d kernel divides by the product), as the kernels compute it.
fn adaptive_mean<T: Num>(sum: T, r: [(i64, i64); 3]) -> T {
    let [kd, kh, kw] = r.map(|(a, b)| b - a);
    sum.div_count(kd).div_count(kh).div_count(kw)
}

/// `adaptive_avg_pool_backward`: the gradient over the window's size into each window.
pub(crate) fn adaptive_avg_backward<T: Num>(g: &[T], w: &Windows) -> Vec<T> {
    let ip = w.in_plane();
    let mut out = vec![T::zero(); w.planes * ip];
    let mut at_g = 0;
    for p in 0..w.planes {
        for o in w.outputs() {
            let r = adaptive_window(w, o);
            let delta = adaptive_mean(g[at_g], r);
            at_g += 1;
            for i in window(r) {
                let at = p * ip + w.at(i) as usize;
                out[at] = out[at].add(delta);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_keep_the_first_index_and_nan_wins() {
        let w = Windows {
            planes: 1,
            in_size: [1, 2, 2],
            out_size: [1, 1, 1],
            kernel: [1, 2, 2],
            stride: [1, 2, 2],
            pad: [0, 0, 0],
            dilation: [1, 1, 1],
        };
        assert_eq!(max_pool(&[3.0f32, 1.0, 3.0, 3.0], &w).1, vec![0]);
        let (v, i) = max_pool(&[1.0f32, f32::NAN, 3.0, 3.0], &w);
        assert!(v[0].is_nan());
        assert_eq!(i, vec![1]);
        assert_eq!(avg_pool(&[-3i64, -4, 0, 0], &w, true, None), vec![-1]);
    }
}
