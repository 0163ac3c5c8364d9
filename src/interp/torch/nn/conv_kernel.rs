//! The arithmetic of convolutions on host values, as im2col + matrix products (the way
//! ATen's `slow_conv2d` lowers them), for the forward and the backward of `conv1d`,
//! `conv3d` and the transposed convolutions.
//!
//! Every convolution relates two spaces: `x` (the convolution's input, the transposed
//! convolution's output) and `y` (the convolution's output, the transposed convolution's
//! input), by `x_pos = y_pos * stride - pad + k * dilation`, through a weight indexed
//! `[y channel, x channel within its group, kd, kh, kw]`. Three kernels follow from it:
//! [`y_from_x`] (a convolution), [`x_from_y`] (its input's gradient, or a transposed
//! convolution) and [`weight_from`] (the weight's gradient). Every convolution is a
//! three-dimensional one here: a 2-d one has depth 1, a 1-d one depth and height 1.
//!
//! Floating values are added in `f64` and rounded once to the dtype by the caller (closer to
//! the exact sum than PyTorch's float kernels, within the oracle's tolerance); integers wrap
//! as C++'s do. A float32 convolution's forward is [`y_from_x_f32`], PyTorch's order of
//! fused multiply-adds bit for bit.

/// A number the kernels add and multiply: `f64` for floating dtypes, `i64` (wrapping) for
/// integer ones.
pub(crate) trait Elem: Copy + Default + PartialEq {
    /// `self + a * b`.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `self + other`.
    fn plus(self, other: Self) -> Self;
}

impl Elem for f64 {
    fn mul_add(self, a: f64, b: f64) -> f64 {
        self + a * b
    }
    fn plus(self, other: f64) -> f64 {
        self + other
    }
}

impl Elem for i64 {
    fn mul_add(self, a: i64, b: i64) -> i64 {
        self.wrapping_add(a.wrapping_mul(b))
    }
    fn plus(self, other: i64) -> i64 {
        self.wrapping_add(other)
    }
}

/// The shapes of one convolution (three spatial dimensions: depth, height, width; a 2-d one
/// has depth 1, a 1-d one depth and height 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    /// Batch size.
    pub n: usize,
    pub groups: usize,
    /// Channels of `x` and of `y`.
    pub x_channels: usize,
    pub y_channels: usize,
    /// Spatial sizes of `x` and `y`, and of the kernel.
    pub x_size: [usize; 3],
    pub y_size: [usize; 3],
    pub kernel: [usize; 3],
    pub stride: [usize; 3],
    /// Padding before each spatial dimension of `x` (the padding after it only changes
    /// `y_size`).
    pub pad: [usize; 3],
    pub dilation: [usize; 3],
}

impl Geometry {
    fn xcg(&self) -> usize {
        self.x_channels / self.groups.max(1)
    }
    fn ycg(&self) -> usize {
        self.y_channels / self.groups.max(1)
    }
    fn k(&self) -> usize {
        self.kernel.iter().product()
    }
    fn xp(&self) -> usize {
        self.x_size.iter().product()
    }
    fn yp(&self) -> usize {
        self.y_size.iter().product()
    }

    /// The kernel offsets `(kd, kh, kw)` in row-major order.
    fn offsets(&self) -> impl Iterator<Item = [usize; 3]> {
        let [kd, kh, kw] = self.kernel;
        (0..kd).flat_map(move |a| (0..kh).flat_map(move |b| (0..kw).map(move |c| [a, b, c])))
    }

    /// The `y` positions `(od, oh, ow)` in row-major order.
    fn y_positions(&self) -> impl Iterator<Item = [usize; 3]> {
        let [d, h, w] = self.y_size;
        (0..d).flat_map(move |a| (0..h).flat_map(move |b| (0..w).map(move |c| [a, b, c])))
    }

    /// The flat `x` position within a plane of `y` position `o` at kernel offset `k`, if
    /// inside.
    fn x_flat(&self, o: [usize; 3], k: [usize; 3]) -> Option<usize> {
        let [_, xh, xw] = self.x_size;
        let d = self.x_at(0, o[0], k[0])?;
        let h = self.x_at(1, o[1], k[1])?;
        let w = self.x_at(2, o[2], k[2])?;
        Some((d * xh + h) * xw + w)
    }

    /// Multiply-adds of one kernel: every `y` element of every batch reads `x_channels /
    /// groups * kh * kw` products.
    pub(crate) fn multiply_adds(&self) -> u128 {
        (self.n * self.y_channels * self.yp()) as u128 * (self.xcg() * self.k()) as u128
    }

    /// Elements of the im2col matrix of one batch element.
    pub(crate) fn column_elements(&self) -> u128 {
        (self.x_channels * self.k()) as u128 * self.yp() as u128
    }

    /// The `x` position of `y` position `o` at kernel offset `k` in dimension `d`, if inside.
    fn x_at(&self, d: usize, o: usize, k: usize) -> Option<usize> {
        let at = (o * self.stride[d] + k * self.dilation[d]).checked_sub(self.pad[d])?;
        (at < self.x_size[d]).then_some(at)
    }
}

/// Rows and columns of `c` one step of [`gemm`] keeps in registers.
const MR: usize = 4;
const NR: usize = 8;

/// `c (m x n) += a (m x k) @ b (k x n)`, all row-major: `b` packed in panels of `NR`
/// columns, then tiles of `MR x NR` accumulated over the whole of `k` and added to `c`.
fn gemm<T: Elem>(c: &mut [T], a: &[T], b: &[T], m: usize, k: usize, n: usize) {
    if m == 0 || k == 0 || n == 0 {
        return;
    }
    let full_cols = n - n % NR;
    let panels = full_cols / NR;
    let mut packed = vec![T::default(); panels * k * NR];
    for p in 0..k {
        let row = &b[p * n..p * n + full_cols];
        for (jb, chunk) in row.chunks_exact(NR).enumerate() {
            let at = (jb * k + p) * NR;
            packed[at..at + NR].copy_from_slice(chunk);
        }
    }
    let mut i = 0;
    while i + MR <= m {
        for (jb, panel) in packed.chunks_exact(k * NR).enumerate() {
            let mut acc = [[T::default(); NR]; MR];
            for (p, b_row) in panel.chunks_exact(NR).enumerate() {
                for (r, acc_row) in acc.iter_mut().enumerate() {
                    let a_rp = a[(i + r) * k + p];
                    for (v, &bv) in acc_row.iter_mut().zip(b_row) {
                        *v = v.mul_add(a_rp, bv);
                    }
                }
            }
            for (r, acc_row) in acc.iter().enumerate() {
                let at = (i + r) * n + jb * NR;
                for (cv, &v) in c[at..at + NR].iter_mut().zip(acc_row) {
                    *cv = cv.plus(v);
                }
            }
        }
        if full_cols < n {
            gemm_rows(c, a, b, (i, i + MR), k, n, full_cols);
        }
        i += MR;
    }
    gemm_rows(c, a, b, (i, m), k, n, 0);
}

/// The plain product for rows `rows` of `c`, from column `from` on.
fn gemm_rows<T: Elem>(
    c: &mut [T],
    a: &[T],
    b: &[T],
    rows: (usize, usize),
    k: usize,
    n: usize,
    from: usize,
) {
    for i in rows.0..rows.1 {
        let c_row = &mut c[i * n + from..(i + 1) * n];
        for p in 0..k {
            let aip = a[i * k + p];
            let b_row = &b[p * n + from..(p + 1) * n];
            for (cv, &bv) in c_row.iter_mut().zip(b_row) {
                *cv = cv.mul_add(aip, bv);
            }
        }
    }
}

/// A row-major `rows x cols` matrix transposed.
fn transpose<T: Elem>(a: &[T], rows: usize, cols: usize) -> Vec<T> {
    let mut out = vec![T::default(); a.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = a[r * cols + c];
        }
    }
    out
}

/// The im2col matrix `[xcg * kd * kh * kw, yd * yh * yw]` of group `g` of batch element `b`
/// of `x`.
fn im2col<T: Elem>(x: &[T], geo: &Geometry, b: usize, g: usize, col: &mut [T]) {
    let (xcg, k, yp) = (geo.xcg(), geo.k(), geo.yp());
    for c in 0..xcg {
        let plane_at = (b * geo.x_channels + g * xcg + c) * geo.xp();
        let plane = &x[plane_at..plane_at + geo.xp()];
        for (ki, off) in geo.offsets().enumerate() {
            let row_at = (c * k + ki) * yp;
            let row = &mut col[row_at..row_at + yp];
            for (v, o) in row.iter_mut().zip(geo.y_positions()) {
                *v = geo.x_flat(o, off).map_or(T::default(), |at| plane[at]);
            }
        }
    }
}

/// Adds the im2col matrix `col` of group `g` of batch element `b` back into `x`.
fn col2im<T: Elem>(col: &[T], geo: &Geometry, b: usize, g: usize, x: &mut [T]) {
    let (xcg, k, yp) = (geo.xcg(), geo.k(), geo.yp());
    for c in 0..xcg {
        let plane_at = (b * geo.x_channels + g * xcg + c) * geo.xp();
        for (ki, off) in geo.offsets().enumerate() {
            let row_at = (c * k + ki) * yp;
            let row = &col[row_at..row_at + yp];
            for (&v, o) in row.iter().zip(geo.y_positions()) {
                if let Some(at) = geo.x_flat(o, off) {
                    x[plane_at + at] = x[plane_at + at].plus(v);
                }
            }
        }
    }
}

/// `y[b, yc] = Σ w[yc, c, i, j] · x[b, group's c, y·s - p + k·d]`: a convolution's output
/// (no bias), or a transposed convolution's input gradient. `x` is `[n, x_channels, xh,
/// xw]`, `w` is `[y_channels, x_channels / groups, kh, kw]`, both row-major.
pub(crate) fn y_from_x<T: Elem>(x: &[T], w: &[T], geo: &Geometry) -> Vec<T> {
    let (ycg, rows, yp) = (geo.ycg(), geo.xcg() * geo.k(), geo.yp());
    let mut y = vec![T::default(); geo.n * geo.y_channels * yp];
    let mut col = vec![T::default(); rows * yp];
    for b in 0..geo.n {
        for g in 0..geo.groups {
            im2col(x, geo, b, g, &mut col);
            let w_g = &w[g * ycg * rows..(g + 1) * ycg * rows];
            let at = (b * geo.y_channels + g * ycg) * yp;
            gemm(&mut y[at..at + ycg * yp], w_g, &col, ycg, rows, yp);
        }
    }
    y
}

/// A float32 convolution's output (no bias) as PyTorch's CPU kernel (oneDNN) adds it, bit
/// for bit: each output element a float32 accumulator from zero, one fused multiply-add per
/// kernel position and input channel, the channels innermost (`kd, kh, kw, c`); padding adds
/// nothing. `x` and `w` hold float32 values.
pub(crate) fn y_from_x_f32(x: &[f64], w: &[f64], geo: &Geometry) -> Vec<f64> {
    let (xcg, ycg, k) = (geo.xcg(), geo.ycg(), geo.k());
    let xp = geo.xp();
    let x: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let w: Vec<f32> = w.iter().map(|&v| v as f32).collect();
    let offsets: Vec<[usize; 3]> = geo.offsets().collect();
    let mut y = Vec::with_capacity(geo.n * geo.y_channels * geo.yp());
    for b in 0..geo.n {
        for yc in 0..geo.y_channels {
            let g = yc / ycg.max(1);
            let x_at = (b * geo.x_channels + g * xcg) * xp;
            let w_at = yc * xcg * k;
            for o in geo.y_positions() {
                let mut acc = 0.0f32;
                for (ki, &off) in offsets.iter().enumerate() {
                    let Some(at) = geo.x_flat(o, off) else {
                        continue;
                    };
                    for c in 0..xcg {
                        let xv = x[x_at + c * xp + at];
                        let wv = w[w_at + c * k + ki];
                        acc = xv.mul_add(wv, acc);
                    }
                }
                y.push(f64::from(acc));
            }
        }
    }
    y
}

/// `x` from `y` through the weight's transpose: a convolution's input gradient, or a
/// transposed convolution's output (no bias).
pub(crate) fn x_from_y<T: Elem>(y: &[T], w: &[T], geo: &Geometry) -> Vec<T> {
    let (ycg, rows, yp) = (geo.ycg(), geo.xcg() * geo.k(), geo.yp());
    let mut x = vec![T::default(); geo.n * geo.x_channels * geo.xp()];
    let mut col = vec![T::default(); rows * yp];
    let w_t: Vec<Vec<T>> = (0..geo.groups)
        .map(|g| transpose(&w[g * ycg * rows..(g + 1) * ycg * rows], ycg, rows))
        .collect();
    for b in 0..geo.n {
        for (g, w_t) in w_t.iter().enumerate() {
            col.fill(T::default());
            let at = (b * geo.y_channels + g * ycg) * yp;
            gemm(&mut col, w_t, &y[at..at + ycg * yp], rows, ycg, yp);
            col2im(&col, geo, b, g, &mut x);
        }
    }
    x
}

/// The weight's gradient `[y_channels, x_channels / groups, kh, kw]`: `Σ_b,pos y · x`.
pub(crate) fn weight_from<T: Elem>(x: &[T], y: &[T], geo: &Geometry) -> Vec<T> {
    let (ycg, rows, yp) = (geo.ycg(), geo.xcg() * geo.k(), geo.yp());
    let mut w = vec![T::default(); geo.y_channels * rows];
    let mut col = vec![T::default(); rows * yp];
    for b in 0..geo.n {
        for g in 0..geo.groups {
            im2col(x, geo, b, g, &mut col);
            let col_t = transpose(&col, rows, yp);
            let at = (b * geo.y_channels + g * ycg) * yp;
            let w_g = &mut w[g * ycg * rows..(g + 1) * ycg * rows];
            gemm(w_g, &y[at..at + ycg * yp], &col_t, ycg, yp, rows);
        }
    }
    w
}

/// The bias's gradient: `y` summed over the batch and the positions of each channel.
pub(crate) fn bias_from<T: Elem>(y: &[T], n: usize, channels: usize, positions: usize) -> Vec<T> {
    let mut out = vec![T::default(); channels];
    for b in 0..n {
        for (c, o) in out.iter_mut().enumerate() {
            let at = (b * channels + c) * positions;
            for &v in &y[at..at + positions] {
                *o = o.plus(v);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo(x: [usize; 2], k: [usize; 2], s: usize, p: usize) -> Geometry {
        let y = [
            1,
            (x[0] + 2 * p - k[0]) / s + 1,
            (x[1] + 2 * p - k[1]) / s + 1,
        ];
        Geometry {
            n: 1,
            groups: 1,
            x_channels: 1,
            y_channels: 1,
            x_size: [1, x[0], x[1]],
            y_size: y,
            kernel: [1, k[0], k[1]],
            stride: [1, s, s],
            pad: [0, p, p],
            dilation: [1, 1, 1],
        }
    }

    #[test]
    fn a_direct_sum_agrees_with_im2col() {
        let g = geo([3, 3], [2, 2], 1, 0);
        let x: Vec<i64> = (1..=9).collect();
        let w = vec![1, 2, 3, 4];
        // [[1,2,3],[4,5,6],[7,8,9]] * [[1,2],[3,4]]
        assert_eq!(y_from_x(&x, &w, &g), vec![37, 47, 67, 77]);
    }

    #[test]
    fn the_input_gradient_is_the_adjoint() {
        // <y_from_x(x), y> == <x, x_from_y(y)> for any x, y.
        let g = geo([4, 5], [3, 2], 2, 1);
        let x: Vec<i64> = (0..20).map(|i| i * 7 % 11 - 5).collect();
        let w: Vec<i64> = (0..6).map(|i| i * 3 % 5 - 2).collect();
        let yn = g.y_size[1] * g.y_size[2];
        let y: Vec<i64> = (0..yn as i64).map(|i| i * 5 % 7 - 3).collect();
        let left: i64 = y_from_x(&x, &w, &g)
            .iter()
            .zip(&y)
            .map(|(a, b)| a * b)
            .sum();
        let right: i64 = x_from_y(&y, &w, &g)
            .iter()
            .zip(&x)
            .map(|(a, b)| a * b)
            .sum();
        assert_eq!(left, right);
        let dw = weight_from(&x, &y, &g);
        let via_w: i64 = dw.iter().zip(&w).map(|(a, b)| a * b).sum();
        assert_eq!(via_w, left);
    }
}
