//! The float matrix product of the CPU engine: `out[i][j]` is `0.0 + a[i][0]·b[0][j] +
//! a[i][1]·b[1][j] + ...`, each product and each addition rounded in `f64` in `p` order
//! (no fused multiply-add), exactly the reference loop's sums, computed in register blocks
//! of `MR` rows by `NR` columns over packed panels. The blocks change which sums are in
//! flight together, never the order of one sum's additions.

/// One block of `MR` rows by `NR` columns: `acc[r][c] = Σ_p a[p][r] · b[p][c]` in `p` order
/// from `0.0`, where `a` holds `MR` values per `p` and `b` `NR`. The block is as large as the
/// registers hold, so that enough independent sums are in flight to hide each addition's
/// latency.
#[inline(always)]
fn block<const MR: usize, const NR: usize>(a: &[f64], b: &[f64]) -> [[f64; NR]; MR] {
    let mut acc = [[0.0f64; NR]; MR];
    for (a, b) in a.chunks_exact(MR).zip(b.chunks_exact(NR)) {
        for r in 0..MR {
            let x = a[r];
            for c in 0..NR {
                acc[r][c] += x * b[c];
            }
        }
    }
    acc
}

/// A matrix's values and where element `[i][j]` is: `values[i * row + j * col]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Matrix<'a> {
    /// The values.
    pub values: &'a [f64],
    /// The step between rows.
    pub row: usize,
    /// The step between columns.
    pub col: usize,
}

impl Matrix<'_> {
    #[inline(always)]
    pub(super) fn at(&self, i: usize, j: usize) -> f64 {
        self.values[i * self.row + j * self.col]
    }
}

/// `a @ b` for `a` (m x k) and `b` (k x n).
#[inline(always)]
fn product<const MR: usize, const NR: usize>(
    a: Matrix,
    b: Matrix,
    m: usize,
    k: usize,
    n: usize,
    block: impl Fn(&[f64], &[f64]) -> [[f64; NR]; MR],
) -> Vec<f64> {
    packed_product(a, b, m, 0..k, n, |v| v, block)
}

/// The sums over `p` in `range` of `a[i][p] · b[p][j]`, each `MR` rows by `NR` columns at a
/// time by `block` over packed panels of values `convert`ed to `T` (`b` as panels of `NR`
/// columns, the last one padded with zeros, each `range.len()` rows of `NR`; `a` as columns
/// of `MR` rows): the packing both the float64 product and float32's chains
/// (`sgemm.rs`) run their register blocks over.
#[inline(always)]
pub(super) fn packed_product<T: Copy + Default, const MR: usize, const NR: usize>(
    a: Matrix,
    b: Matrix,
    m: usize,
    range: std::ops::Range<usize>,
    n: usize,
    convert: impl Fn(f64) -> T,
    block: impl Fn(&[T], &[T]) -> [[T; NR]; MR],
) -> Vec<T> {
    let k = range.len();
    let mut out = vec![T::default(); m * n];
    if m == 0 || n == 0 || k == 0 {
        // No product to add: every sum is the starting zero.
        return out;
    }
    let panels = n.div_ceil(NR);
    let mut packed_b = vec![T::default(); panels * k * NR];
    for (jp, panel) in packed_b.chunks_exact_mut(k * NR).enumerate() {
        let cols = NR.min(n - jp * NR);
        for (row, p) in panel.chunks_exact_mut(NR).zip(range.clone()) {
            for (c, v) in row[..cols].iter_mut().enumerate() {
                *v = convert(b.at(p, jp * NR + c));
            }
        }
    }
    let mut packed_a = vec![T::default(); k * MR];
    for ib in (0..m).step_by(MR) {
        let rows = MR.min(m - ib);
        packed_a.fill(T::default());
        for (column, p) in packed_a.chunks_exact_mut(MR).zip(range.clone()) {
            for (r, v) in column[..rows].iter_mut().enumerate() {
                *v = convert(a.at(ib + r, p));
            }
        }
        for (jp, panel) in packed_b.chunks_exact(k * NR).enumerate() {
            let acc = block(&packed_a, panel);
            let cols = NR.min(n - jp * NR);
            for (r, acc_row) in acc.iter().enumerate().take(rows) {
                let at = (ib + r) * n + jp * NR;
                out[at..at + cols].copy_from_slice(&acc_row[..cols]);
            }
        }
    }
    out
}

/// Blocks with explicit vectors: the same multiplications and additions as [`block`] (no
/// fused multiply-add), with the accumulators held in registers.
#[cfg(all(target_arch = "x86_64", not(target_arch = "wasm32")))]
mod x86 {
    use super::Matrix;
    use std::arch::x86_64::*;

    /// [`super::block`] for 8 rows by 16 columns: 16 of the 32 AVX-512 registers
    /// accumulate.
    #[target_feature(enable = "avx512f")]
    fn block_8x16(a: &[f64], b: &[f64]) -> [[f64; 16]; 8] {
        let k = (a.len() / 8).min(b.len() / 16);
        let mut acc = [_mm512_setzero_pd(); 16];
        for p in 0..k {
            let (ap, bp) = (&a[p * 8..p * 8 + 8], &b[p * 16..p * 16 + 16]);
            // SAFETY: `bp` holds 16 values, read as two vectors of 8.
            let (b0, b1) = unsafe {
                (
                    _mm512_loadu_pd(bp.as_ptr()),
                    _mm512_loadu_pd(bp.as_ptr().add(8)),
                )
            };
            for r in 0..8 {
                let x = _mm512_set1_pd(ap[r]);
                acc[2 * r] = _mm512_add_pd(acc[2 * r], _mm512_mul_pd(x, b0));
                acc[2 * r + 1] = _mm512_add_pd(acc[2 * r + 1], _mm512_mul_pd(x, b1));
            }
        }
        let mut out = [[0.0f64; 16]; 8];
        for (r, row) in out.iter_mut().enumerate() {
            // SAFETY: each row holds 16 values, written as two vectors of 8.
            unsafe {
                _mm512_storeu_pd(row.as_mut_ptr(), acc[2 * r]);
                _mm512_storeu_pd(row.as_mut_ptr().add(8), acc[2 * r + 1]);
            }
        }
        out
    }

    /// [`super::block`] for 4 rows by 8 columns: 8 of the 16 AVX2 registers accumulate.
    #[target_feature(enable = "avx2")]
    fn block_4x8(a: &[f64], b: &[f64]) -> [[f64; 8]; 4] {
        let k = (a.len() / 4).min(b.len() / 8);
        let mut acc = [_mm256_setzero_pd(); 8];
        for p in 0..k {
            let (ap, bp) = (&a[p * 4..p * 4 + 4], &b[p * 8..p * 8 + 8]);
            // SAFETY: `bp` holds 8 values, read as two vectors of 4.
            let (b0, b1) = unsafe {
                (
                    _mm256_loadu_pd(bp.as_ptr()),
                    _mm256_loadu_pd(bp.as_ptr().add(4)),
                )
            };
            for r in 0..4 {
                let x = _mm256_set1_pd(ap[r]);
                acc[2 * r] = _mm256_add_pd(acc[2 * r], _mm256_mul_pd(x, b0));
                acc[2 * r + 1] = _mm256_add_pd(acc[2 * r + 1], _mm256_mul_pd(x, b1));
            }
        }
        let mut out = [[0.0f64; 8]; 4];
        for (r, row) in out.iter_mut().enumerate() {
            // SAFETY: each row holds 8 values, written as two vectors of 4.
            unsafe {
                _mm256_storeu_pd(row.as_mut_ptr(), acc[2 * r]);
                _mm256_storeu_pd(row.as_mut_ptr().add(4), acc[2 * r + 1]);
            }
        }
        out
    }

    /// The product with AVX-512 blocks.
    #[target_feature(enable = "avx512f")]
    pub(super) fn product_avx512(a: Matrix, b: Matrix, m: usize, k: usize, n: usize) -> Vec<f64> {
        super::product::<8, 16>(a, b, m, k, n, |a, b| block_8x16(a, b))
    }

    /// The product with AVX2 blocks.
    #[target_feature(enable = "avx2")]
    pub(super) fn product_avx2(a: Matrix, b: Matrix, m: usize, k: usize, n: usize) -> Vec<f64> {
        super::product::<4, 8>(a, b, m, k, n, |a, b| block_4x8(a, b))
    }
}

/// Blocks with WebAssembly's 128-bit vectors (the web build enables `simd128`, which every
/// browser with WebGPU runs): the same multiplications and additions as [`block`] (wasm has
/// no fused multiply-add), two columns a vector.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
    use super::Matrix;
    use core::arch::wasm32::*;

    /// [`super::block`] for 4 rows by 8 columns: 16 vectors accumulate.
    #[inline(always)]
    fn block_4x8(a: &[f64], b: &[f64]) -> [[f64; 8]; 4] {
        let k = (a.len() / 4).min(b.len() / 8);
        let mut acc = [f64x2_splat(0.0); 16];
        for p in 0..k {
            let (ap, bp) = (&a[p * 4..p * 4 + 4], &b[p * 8..p * 8 + 8]);
            let bv = [
                f64x2(bp[0], bp[1]),
                f64x2(bp[2], bp[3]),
                f64x2(bp[4], bp[5]),
                f64x2(bp[6], bp[7]),
            ];
            for r in 0..4 {
                let x = f64x2_splat(ap[r]);
                for (c, &bc) in bv.iter().enumerate() {
                    acc[4 * r + c] = f64x2_add(acc[4 * r + c], f64x2_mul(x, bc));
                }
            }
        }
        let mut out = [[0.0f64; 8]; 4];
        for (r, row) in out.iter_mut().enumerate() {
            for c in 0..4 {
                let v = acc[4 * r + c];
                row[2 * c] = f64x2_extract_lane::<0>(v);
                row[2 * c + 1] = f64x2_extract_lane::<1>(v);
            }
        }
        out
    }

    /// The product with 128-bit blocks.
    pub(super) fn product_simd128(a: Matrix, b: Matrix, m: usize, k: usize, n: usize) -> Vec<f64> {
        super::product::<4, 8>(a, b, m, k, n, block_4x8)
    }
}

/// `a @ b` for `a` (m x k) and `b` (k x n), with the widest vectors the machine has (the
/// same sums whichever).
pub(super) fn matmul(a: Matrix, b: Matrix, m: usize, k: usize, n: usize) -> Vec<f64> {
    #[cfg(all(target_arch = "x86_64", not(target_arch = "wasm32")))]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has the feature the function is compiled for.
            return unsafe { x86::product_avx512(a, b, m, k, n) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has the feature the function is compiled for.
            return unsafe { x86::product_avx2(a, b, m, k, n) };
        }
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        return wasm::product_simd128(a, b, m, k, n);
    }
    #[allow(unreachable_code)]
    product::<4, 8>(a, b, m, k, n, block::<4, 8>)
}

/// The reference loop the blocks reproduce: each product added in `p` order from `0.0`.
pub(super) fn matmul_reference(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut out = vec![0.0f64; m * n];
    if n == 0 {
        return out;
    }
    for (row, a_row) in out.chunks_exact_mut(n).zip(a.chunks_exact(k.max(1))) {
        for (&a_ip, b_row) in a_row.iter().zip(b.chunks_exact(n)).take(k) {
            for (o, &b_pj) in row.iter_mut().zip(b_row) {
                *o += a_ip * b_pj;
            }
        }
    }
    out
}

/// `a @ b` for `a` (m x k) and `b` (k x n) as ATen's small batched-product loop adds in
/// float (its opmath for float32, float16 and bfloat16): each product rounded to float32,
/// added to a float32 sum in `p` order from zero (no fused multiply-add).
pub(super) fn matmul_float(a: Matrix, b: Matrix, m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0f32;
            for p in 0..k {
                acc += a.at(i, p) as f32 * b.at(p, j) as f32;
            }
            out.push(f64::from(acc));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_sum_in_the_reference_order() {
        // Values whose sums depend on the order of additions.
        let value = |i: usize| ((i * 7919 % 1013) as f64 - 500.0) * 1.000_000_1f64.powi(i as i32);
        for (m, k, n) in [
            (1, 1, 1),
            (5, 3, 9),
            (4, 0, 8),
            (0, 3, 2),
            (7, 33, 17),
            (64, 100, 10),
        ] {
            let a: Vec<f64> = (0..m * k).map(value).collect();
            let b: Vec<f64> = (0..k * n).map(|i| value(i + 17) * 1e-3).collect();
            let rows = |values, cols| Matrix {
                values,
                row: cols,
                col: 1,
            };
            let fast = matmul(rows(&a, k), rows(&b, n), m, k, n);
            let slow = matmul_reference(&a, &b, m, k, n);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fast), bits(&slow), "{m}x{k}x{n}");
        }
    }
}
