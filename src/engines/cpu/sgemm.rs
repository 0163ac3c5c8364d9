//! The float32 matrix product as MKL's `sgemm` computes it on x86 CPUs, which is what
//! PyTorch's `mm`, `addmm`, `matmul` and `bmm` call for float32 on a CPU: each `out[i][j]` is
//! a chain of float32 fused multiply-adds in `p` order from `0.0`
//! (`acc = fma(a[i][p], b[p][j], acc)`), without a second rounding of each product.
//!
//! MKL splits a long `k`: up to 384 it is one chain; up to 768 two chains (the first
//! `ceil(k / 2)` values of `p`, then the rest), each from `0.0`, added in float32 at the end.
//! Beyond 768 the split depends on how many threads MKL runs (measured with PyTorch 2.15 on
//! 1 and 2 threads: the results differ), so there the product is [`super::gemm::matmul`]'s
//! float64 sum rounded once, the closest to every split. Measured against `torch.mm` at 60
//! shapes (`k` 2 to 700, `m` and `n` 2 to 2000, each operand row-major or transposed): every
//! element equal, except where `b` is transposed and `m`, `n` and `k` are small: there MKL
//! takes a dot-product kernel, 16 lanes along `p` (lane `l` a chain of the `p` with `p % 16 ==
//! l`) added by halves at the end, which [`takes_dot_kernel`] chooses for the small shapes
//! where it was measured (a `Linear` layer of a few inputs on a few samples: `x @ W.t()`).
//!
//! The chains run in register blocks like [`super::gemm`]'s: with the CPU's fused
//! multiply-add on x86, and elsewhere with [`fused`], which computes the same correctly
//! rounded result from a float64 sum. WebAssembly has no fused multiply-add: its blocks round
//! the float64 sum to float32 (the same result unless the sum lands on a float32 tie) and
//! redo a block with [`fused`]'s arithmetic where one did. (A sum in float32's subnormal
//! range rounds at another bit, which that test does not watch: there the browser may differ
//! from [`fused`] by an ulp.)

use super::gemm::{self, Matrix};

/// The longest `k` MKL adds as one chain.
const ONE_CHAIN: usize = 384;
/// The longest `k` MKL adds as two chains.
const TWO_CHAINS: usize = 768;

/// `fma(x, y, acc)` in float32, correctly rounded: the product of two float32 values is exact
/// in float64, and the float64 sum is rounded to odd (when it was inexact, its last bit is
/// made 1 in the direction of what was lost), so that rounding it to float32 rounds once.
#[inline(always)]
pub(super) fn fused(x: f32, y: f32, acc: f32) -> f32 {
    let (acc, product) = (f64::from(acc), f64::from(x) * f64::from(y));
    let sum = acc + product;
    // Knuth's two-sum: what the rounding of `sum` lost.
    let back = sum - acc;
    let lost = (acc - (sum - back)) + (product - back);
    let bits = sum.to_bits();
    let sum = if lost != 0.0 && bits & 1 == 0 && sum.is_finite() {
        // The odd neighbour on the side of the exact sum.
        if (lost > 0.0) == (sum > 0.0) {
            f64::from_bits(bits + 1)
        } else {
            f64::from_bits(bits - 1)
        }
    } else {
        sum
    };
    sum as f32
}

/// The chains of `p` in `range`, each from `0.0`: the reference loop, one element at a time.
fn chains_reference(
    a: Matrix,
    b: Matrix,
    m: usize,
    range: std::ops::Range<usize>,
    n: usize,
) -> Vec<f32> {
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0f32;
            for p in range.clone() {
                acc = fused(a.at(i, p) as f32, b.at(p, j) as f32, acc);
            }
            out.push(acc);
        }
    }
    out
}

/// One block of `MR` rows by `NR` columns of chains, with [`fused`].
#[inline(always)]
fn block<const MR: usize, const NR: usize>(a: &[f32], b: &[f32]) -> [[f32; NR]; MR] {
    let mut acc = [[0.0f32; NR]; MR];
    for (a, b) in a.chunks_exact(MR).zip(b.chunks_exact(NR)) {
        for r in 0..MR {
            let x = a[r];
            for c in 0..NR {
                acc[r][c] = fused(x, b[c], acc[r][c]);
            }
        }
    }
    acc
}

/// The chains of `p` in `range` over [`gemm::packed_product`]'s panels, computed `MR` rows
/// by `NR` columns at a time by `block`.
#[inline(always)]
fn chains<const MR: usize, const NR: usize>(
    a: Matrix,
    b: Matrix,
    m: usize,
    range: std::ops::Range<usize>,
    n: usize,
    block: impl Fn(&[f32], &[f32]) -> [[f32; NR]; MR],
) -> Vec<f32> {
    gemm::packed_product(a, b, m, range, n, |v| v as f32, block)
}

/// Blocks with the CPU's fused multiply-add.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Matrix;
    use std::arch::x86_64::*;

    /// 8 rows by 32 columns: 16 of the 32 AVX-512 registers accumulate.
    #[target_feature(enable = "avx512f")]
    fn block_8x32(a: &[f32], b: &[f32]) -> [[f32; 32]; 8] {
        let k = (a.len() / 8).min(b.len() / 32);
        let mut acc = [_mm512_setzero_ps(); 16];
        for p in 0..k {
            let (ap, bp) = (&a[p * 8..p * 8 + 8], &b[p * 32..p * 32 + 32]);
            // SAFETY: `bp` holds 32 values, read as two vectors of 16.
            let (b0, b1) = unsafe {
                (
                    _mm512_loadu_ps(bp.as_ptr()),
                    _mm512_loadu_ps(bp.as_ptr().add(16)),
                )
            };
            for r in 0..8 {
                let x = _mm512_set1_ps(ap[r]);
                acc[2 * r] = _mm512_fmadd_ps(x, b0, acc[2 * r]);
                acc[2 * r + 1] = _mm512_fmadd_ps(x, b1, acc[2 * r + 1]);
            }
        }
        let mut out = [[0.0f32; 32]; 8];
        for (r, row) in out.iter_mut().enumerate() {
            // SAFETY: each row holds 32 values, written as two vectors of 16.
            unsafe {
                _mm512_storeu_ps(row.as_mut_ptr(), acc[2 * r]);
                _mm512_storeu_ps(row.as_mut_ptr().add(16), acc[2 * r + 1]);
            }
        }
        out
    }

    /// 4 rows by 16 columns: 8 of the 16 AVX2 registers accumulate.
    #[target_feature(enable = "avx2,fma")]
    fn block_4x16(a: &[f32], b: &[f32]) -> [[f32; 16]; 4] {
        let k = (a.len() / 4).min(b.len() / 16);
        let mut acc = [_mm256_setzero_ps(); 8];
        for p in 0..k {
            let (ap, bp) = (&a[p * 4..p * 4 + 4], &b[p * 16..p * 16 + 16]);
            // SAFETY: `bp` holds 16 values, read as two vectors of 8.
            let (b0, b1) = unsafe {
                (
                    _mm256_loadu_ps(bp.as_ptr()),
                    _mm256_loadu_ps(bp.as_ptr().add(8)),
                )
            };
            for r in 0..4 {
                let x = _mm256_set1_ps(ap[r]);
                acc[2 * r] = _mm256_fmadd_ps(x, b0, acc[2 * r]);
                acc[2 * r + 1] = _mm256_fmadd_ps(x, b1, acc[2 * r + 1]);
            }
        }
        let mut out = [[0.0f32; 16]; 4];
        for (r, row) in out.iter_mut().enumerate() {
            // SAFETY: each row holds 16 values, written as two vectors of 8.
            unsafe {
                _mm256_storeu_ps(row.as_mut_ptr(), acc[2 * r]);
                _mm256_storeu_ps(row.as_mut_ptr().add(8), acc[2 * r + 1]);
            }
        }
        out
    }

    /// The chains with AVX-512 blocks.
    #[target_feature(enable = "avx512f")]
    pub(super) fn chains_avx512(
        a: Matrix,
        b: Matrix,
        m: usize,
        range: std::ops::Range<usize>,
        n: usize,
    ) -> Vec<f32> {
        super::chains::<8, 32>(a, b, m, range, n, |a, b| block_8x32(a, b))
    }

    /// The chains with AVX2 blocks.
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn chains_avx2(
        a: Matrix,
        b: Matrix,
        m: usize,
        range: std::ops::Range<usize>,
        n: usize,
    ) -> Vec<f32> {
        super::chains::<4, 16>(a, b, m, range, n, |a, b| block_4x16(a, b))
    }
}

/// Blocks with WebAssembly's 128-bit vectors: [`fused`] two lanes at a time, each float32
/// accumulator held exactly in a float64 lane.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
    use super::Matrix;
    use core::arch::wasm32::*;

    /// [`super::fused`] on two lanes: `acc` holds float32 values, `x` and `y` too.
    #[inline(always)]
    fn fused2(x: v128, y: v128, acc: v128) -> v128 {
        let product = f64x2_mul(x, y);
        let sum = f64x2_add(acc, product);
        let back = f64x2_sub(sum, acc);
        let lost = f64x2_add(
            f64x2_sub(acc, f64x2_sub(sum, back)),
            f64x2_sub(product, back),
        );
        let zero = f64x2_splat(0.0);
        // Lanes whose sum was inexact (`lost` neither zero nor NaN) and whose last bit is 0.
        let inexact = v128_and(f64x2_ne(lost, zero), f64x2_eq(lost, lost));
        let even = i64x2_eq(v128_and(sum, i64x2_splat(1)), i64x2_splat(0));
        // +1 where `lost` has the sign of `sum`, -1 where not.
        let step = v128_or(i64x2_shr(v128_xor(sum, lost), 63), i64x2_splat(1));
        let sum = i64x2_add(sum, v128_and(step, v128_and(inexact, even)));
        f64x2_promote_low_f32x4(f32x4_demote_f64x2_zero(sum))
    }

    /// `fma(x, y, acc)` on two lanes as the float64 sum rounded to float32, which equals
    /// [`fused2`] unless the float64 sum landed on a float32 tie (its 29 low bits a one and
    /// zeros), where it may have rounded twice: those lanes come back all ones.
    #[inline(always)]
    fn rounded2(x: v128, y: v128, acc: v128) -> (v128, v128) {
        let sum = f64x2_add(acc, f64x2_mul(x, y));
        let low = v128_and(sum, i64x2_splat(0x1fff_ffff));
        let tie = i64x2_eq(low, i64x2_splat(0x1000_0000));
        (f64x2_promote_low_f32x4(f32x4_demote_f64x2_zero(sum)), tie)
    }

    /// 4 rows by 4 columns, 8 vectors accumulating with `step` (few enough that they, the
    /// operands and the temporaries stay in a browser's 16 vector registers); `None` when a
    /// lane met a tie on the way (`step`'s second result).
    #[inline(always)]
    fn block_4x4(
        a: &[f64],
        b: &[f64],
        step: impl Fn(v128, v128, v128) -> (v128, v128),
    ) -> Option<[[f64; 4]; 4]> {
        let k = (a.len() / 4).min(b.len() / 4);
        let mut acc = [f64x2_splat(0.0); 8];
        let mut ties = i64x2_splat(0);
        for p in 0..k {
            let (ap, bp) = (&a[p * 4..p * 4 + 4], &b[p * 4..p * 4 + 4]);
            let bv = [f64x2(bp[0], bp[1]), f64x2(bp[2], bp[3])];
            for r in 0..4 {
                let x = f64x2_splat(ap[r]);
                for (c, &bc) in bv.iter().enumerate() {
                    let (next, tie) = step(x, bc, acc[2 * r + c]);
                    acc[2 * r + c] = next;
                    ties = v128_or(ties, tie);
                }
            }
        }
        if v128_any_true(ties) {
            return None;
        }
        let mut out = [[0.0f64; 4]; 4];
        for (r, row) in out.iter_mut().enumerate() {
            for c in 0..2 {
                let v = acc[2 * r + c];
                row[2 * c] = f64x2_extract_lane::<0>(v);
                row[2 * c + 1] = f64x2_extract_lane::<1>(v);
            }
        }
        Some(out)
    }

    /// A block the fast way ([`rounded2`], a float64 sum rounded to float32), and again
    /// with [`fused2`] where a sum met a float32 tie (rare: its 29 low bits must be exactly
    /// a one and zeros). (A sum in float32's subnormal range rounds at another bit, which
    /// the tie test does not watch.)
    fn block_4x4_checked(a: &[f64], b: &[f64]) -> [[f64; 4]; 4] {
        block_4x4(a, b, rounded2).unwrap_or_else(|| {
            let never = i64x2_splat(0);
            block_4x4(a, b, |x, y, acc| (fused2(x, y, acc), never)).unwrap_or_default()
        })
    }

    /// The chains with 128-bit blocks.
    pub(super) fn chains_simd128(
        a: Matrix,
        b: Matrix,
        m: usize,
        range: std::ops::Range<usize>,
        n: usize,
    ) -> Vec<f32> {
        // Packed as float64 (each float32 value exactly), the lanes' type.
        let widened = |v: f64| f64::from(v as f32);
        super::gemm::packed_product(a, b, m, range, n, widened, block_4x4_checked)
            .into_iter()
            .map(|v| v as f32)
            .collect()
    }
}

/// The chains of `p` in `range` with the widest vectors the machine has (the same results
/// whichever).
fn chains_fast(
    a: Matrix,
    b: Matrix,
    m: usize,
    range: std::ops::Range<usize>,
    n: usize,
) -> Vec<f32> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has the feature the function is compiled for.
            return unsafe { x86::chains_avx512(a, b, m, range, n) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { x86::chains_avx2(a, b, m, range, n) };
        }
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        return wasm::chains_simd128(a, b, m, range, n);
    }
    #[allow(unreachable_code)]
    chains::<4, 8>(a, b, m, range, n, block::<4, 8>)
}

/// Whether MKL computes `a @ b` (`a` m x k with contiguous rows, `b` k x n with contiguous
/// columns, as `x @ W.t()`) with its dot-product kernel, as measured with PyTorch 2.15 on
/// AVX-512 for `m` 2 to 8: `k` up to 8 with `n` 2 to 9, and `k` up to 32 with `n` 2 or 3.
/// (Larger `k` at those `m` and `n` takes kernels not followed here; `m = 1` is a
/// matrix-vector product.)
pub(super) fn takes_dot_kernel(
    m: usize,
    k: usize,
    n: usize,
    a_rows: bool,
    b_columns: bool,
) -> bool {
    a_rows
        && b_columns
        && (2..=8).contains(&m)
        && k >= 2
        && ((k <= 8 && (2..=9).contains(&n)) || (k <= 32 && (2..=3).contains(&n)))
}

/// MKL's dot-product kernel: for each element, 16 lanes of chains along `p`, then lanes
/// `l` and `l + 8` added, then `l` and `l + 4`, `l + 2`, `l + 1`.
fn dots(a: Matrix, b: Matrix, m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let mut lanes = [0.0f32; 16];
            for p in 0..k {
                lanes[p % 16] = fused(a.at(i, p) as f32, b.at(p, j) as f32, lanes[p % 16]);
            }
            let mut width = 16;
            while width > 1 {
                width /= 2;
                for l in 0..width {
                    lanes[l] += lanes[l + width];
                }
            }
            out.push(lanes[0]);
        }
    }
    out
}

/// `a @ b` for float32 `a` (m x k) and `b` (k x n) as `sgemm` adds (see the module's docs);
/// `dot` when [`takes_dot_kernel`] says so; `reference` takes the one-element-at-a-time loop
/// that the blocks reproduce.
pub(super) fn matmul(
    a: Matrix,
    b: Matrix,
    (m, k, n): (usize, usize, usize),
    dot: bool,
    reference: bool,
) -> Vec<f64> {
    let chains = if reference {
        chains_reference
    } else {
        chains_fast
    };
    let widen = |v: Vec<f32>| v.into_iter().map(f64::from).collect();
    if dot {
        return widen(dots(a, b, m, k, n));
    }
    if k <= ONE_CHAIN {
        return widen(chains(a, b, m, 0..k, n));
    }
    if k <= TWO_CHAINS {
        let half = k.div_ceil(2);
        let first = chains(a, b, m, 0..half, n);
        let second = chains(a, b, m, half..k, n);
        return widen(first.into_iter().zip(second).map(|(x, y)| x + y).collect());
    }
    if reference {
        let dense = |t: Matrix, rows: usize, cols: usize| -> Vec<f64> {
            (0..rows)
                .flat_map(|i| (0..cols).map(move |j| t.at(i, j)))
                .collect()
        };
        gemm::matmul_reference(&dense(a, m, k), &dense(b, k, n), m, k, n)
    } else {
        gemm::matmul(a, b, m, k, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fused_rounds_once() {
        // (1 + 3u)(1 - 3u)/2^24 - (1 + 5u), u = 2^-23: just past a float32 tie, by 9·2^-70,
        // which a float64 sum drops; rounding that tie to even would go the wrong way.
        let u = f32::EPSILON;
        let (x, y, acc) = (
            1.0 + 3.0 * u,
            (1.0 - 3.0 * u) / 16_777_216.0,
            -(1.0 + 5.0 * u),
        );
        let twice = (f64::from(x) * f64::from(y) + f64::from(acc)) as f32;
        assert_ne!(
            twice.to_bits(),
            x.mul_add(y, acc).to_bits(),
            "a double rounding"
        );
        let cases = [
            (x, y, acc),
            (3.0, 1.0 / 3.0, -1.0),
            (1e20, 1e20, -f32::MAX),
            (f32::MAX, 2.0, 0.0),
            (-0.0, 1.0, 0.0),
        ];
        for (x, y, acc) in cases {
            assert_eq!(
                fused(x, y, acc).to_bits(),
                x.mul_add(y, acc).to_bits(),
                "fma({x}, {y}, {acc})"
            );
        }
        // Random-looking operands over many magnitudes.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let bits = (state as u32 & 0x807f_ffff) | ((100 + (state >> 40) as u32 % 56) << 23);
            f32::from_bits(bits)
        };
        for _ in 0..200_000 {
            let (x, y, acc) = (next(), next(), next());
            assert_eq!(
                fused(x, y, acc).to_bits(),
                x.mul_add(y, acc).to_bits(),
                "fma({x}, {y}, {acc})"
            );
        }
    }
}
