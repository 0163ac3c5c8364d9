//! `torch.sqrt` of a float32 (and float64) tensor as PyTorch 2.15 computes it on the reference CPU
//! (AVX-512): ATen's `sqrt` kernel calls MKL's `vsSqrt` (`mkl_vml_kernel_sSqrt_Z0HAynn`),
//! which is not correctly rounded: `r = vrsqrt14(x)`, `y = r·x`, `e = fma(-y, y, x)`,
//! `sqrt = fma(e, r·0.5, y)`. It is one ulp below the correctly rounded root for about 0.6%
//! of inputs (measured on 1.4 million floats from 1e-30 to 1e6: this reproduces every normal
//! one; the correctly rounded root differed in 9834). `vrsqrt14` is a hardware
//! approximation whose result depends on the exponent's parity and the top 15 mantissa bits
//! only; its 65536 values are in `rsqrt14.delta` (recorded by
//! `tools/oracle/rsqrt14/gen_rsqrt14.c`), so the trace is the same on every machine.
//! Subnormal inputs take another MKL path (not modelled: correctly rounded here). float64
//! (`mkl_vml_kernel_dSqrt_Z0HAynn`) takes two Newton steps from the same table
//! ([`sqrt_f64`]); float16/bfloat16 are correctly rounded (ATen's own vectorized sqrt).

/// `vrsqrt14` of every float in `[0.5, 2)`, delta-coded (it shrinks to under 1 KB in the
/// gzipped wasm, where the 128 KiB table took 128 KiB): for each exponent parity, the first
/// entry as a little-endian `u16`, then each next entry's difference from the one before as
/// a wrapping `i8`.
static RSQRT14_DELTAS: &[u8; 65538] = include_bytes!("rsqrt14.delta");

/// The table, decoded once: entry `parity · 32768 + (mantissa >> 8)` is the result's
/// mantissa bits 7..22.
fn rsqrt14_table() -> &'static [u16] {
    static TABLE: std::sync::OnceLock<Vec<u16>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Vec::with_capacity(65536);
        for half in RSQRT14_DELTAS.chunks_exact(2 + 32767) {
            let mut value = u16::from_le_bytes([half[0], half[1]]);
            table.push(value);
            for &delta in &half[2..] {
                value = value.wrapping_add_signed(i16::from(delta as i8));
                table.push(value);
            }
        }
        table
    })
}

/// `vrsqrt14ps` of a positive normal float.
fn rsqrt14(x: f32) -> f32 {
    let u = x.to_bits();
    let e = (u >> 23) & 0xff;
    let m = u & 0x7f_ffff;
    // x = x' · 4^k with x' in [0.5, 1) (odd unbiased exponent: parity 0) or [1, 2).
    let parity = e & 1;
    let k = (e as i32 - (126 + parity as i32)) / 2;
    if parity == 1 && m == 0 {
        // A power of 4: the root is exact.
        return f32::from_bits(((127 - k) as u32) << 23);
    }
    let i = ((parity << 15) | (m >> 8)) as usize;
    let s = u32::from(rsqrt14_table()[i]);
    let exponent = if parity == 0 { 127 } else { 126 };
    f32::from_bits((((exponent - k) as u32) << 23) | (s << 7))
}

/// `torch.sqrt(x)` for one float32, as MKL's AVX-512 kernel computes it.
pub(crate) fn sqrt_f32(x: f32) -> f32 {
    if !x.is_normal() || x < 0.0 {
        // Zeros, negatives (NaN), infinities, NaN and subnormals.
        return x.sqrt();
    }
    let r = rsqrt14(x);
    let y = r * x;
    let e = (-y).mul_add(y, x);
    e.mul_add(r * 0.5, y)
}

/// `vrsqrt14pd` of a positive normal double: the same table as `vrsqrt14ps` (measured: equal
/// to `vrsqrt14ps` of the double truncated to float for 2 million doubles).
fn rsqrt14_f64(x: f64) -> f64 {
    let u = x.to_bits();
    let e = ((u >> 52) & 0x7ff) as i64;
    let m = u & ((1 << 52) - 1);
    let parity = (e & 1) as u64;
    let k = (e - (1022 + parity as i64)) / 2;
    if parity == 1 && m == 0 {
        return f64::from_bits(((1023 - k) as u64) << 52);
    }
    let i = ((parity << 15) | (m >> 37)) as usize;
    let s = u64::from(rsqrt14_table()[i]);
    let exponent = if parity == 0 { 1023 } else { 1022 };
    f64::from_bits((((exponent - k) as u64) << 52) | (s << 36))
}

/// `torch.sqrt(x)` for one float64, as MKL's AVX-512 kernel (`mkl_vml_kernel_dSqrt_Z0HAynn`)
/// computes it: two Newton steps from `vrsqrt14pd`. Inputs below 2^-916 take another path (not
/// modelled: correctly rounded here).
pub(crate) fn sqrt_f64(x: f64) -> f64 {
    if !x.is_normal() || x < 0.0 {
        return x.sqrt();
    }
    let r = rsqrt14_f64(x);
    if r > f64::from_bits(0x5c90_0000_0000_0000) {
        return x.sqrt();
    }
    let h = r * 0.5;
    let y = r * x;
    let e = (-y).mul_add(h, 0.5);
    let y = e.mul_add(y, y);
    let h = e.mul_add(h, h);
    let d = (-y).mul_add(y, x);
    d.mul_add(h, y)
}

#[cfg(test)]
mod tests {
    use super::sqrt_f32;

    #[test]
    fn matches_pytorch_where_the_correctly_rounded_root_does_not() {
        // (x, torch.sqrt(x)) recorded with torch 2.15 on the reference CPU.
        for (x, root) in [
            // one ulp below the correctly rounded 0x3b8301bf and 0x3b012706
            (0x3786_1592_u32, 0x3b83_01be_u32),
            (0x3682_50b3, 0x3b01_2705),
            (0x3f9e_3779, 0x3f8e_4f00),
            (100.0f32.to_bits(), 10.0f32.to_bits()),
            (1.0f32.to_bits(), 1.0f32.to_bits()),
            (4.0f32.to_bits(), 2.0f32.to_bits()),
            (0.25f32.to_bits(), 0.5f32.to_bits()),
        ] {
            let got = sqrt_f32(f32::from_bits(x)).to_bits();
            assert_eq!(got, root, "sqrt({:e})", f32::from_bits(x));
        }
        // float64 (MKL's dSqrt): one ulp below the correctly rounded ...6af4 and ...95dd.
        for (x, root) in [
            (0x3ff2_b191_e167_e1ad_u64, 0x3ff1_4b61_4ad0_6af3_u64),
            (0x3faf_a3e8_fd51_62ff, 0x3fcf_d1d3_2e1b_95dc),
            (4.0f64.to_bits(), 2.0f64.to_bits()),
        ] {
            assert_eq!(super::sqrt_f64(f64::from_bits(x)).to_bits(), root);
        }
        assert!(sqrt_f32(-1.0).is_nan());
        assert_eq!(sqrt_f32(0.0), 0.0);
        assert_eq!(sqrt_f32(f32::INFINITY), f32::INFINITY);
    }
}
