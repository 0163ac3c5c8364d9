//! `normal_`: ATen's `normal_fill` (Box-Muller over 16-element blocks), with the AVX2 kernel's
//! Cephes `log`/`sincos` for float32/16/bf16 and libm for float64.

use crate::core::tensor::random::{from_f32, from_f64, CpuGenerator};
use crate::core::tensor::{DType, Scalar};

pub(super) fn scalar_f64(s: Scalar) -> f64 {
    match s {
        Scalar::Float(f) => f,
        Scalar::Int(i) => i as f64,
        Scalar::Bool(b) => f64::from(u8::from(b)),
    }
}

pub(super) fn normal(
    gen: &mut CpuGenerator,
    mean: f64,
    std: f64,
    dtype: DType,
    numel: usize,
    contiguous: bool,
) -> Vec<Scalar> {
    if numel >= 16 && contiguous {
        match dtype {
            DType::Float64 => normal_fill_f64(gen, mean, std, numel),
            DType::Float32 => normal_fill_f32(gen, mean as f32, std as f32, numel)
                .into_iter()
                .map(|v| Scalar::Float(f64::from(v)))
                .collect(),
            _ => normal_fill_reduced(gen, mean as f32, std as f32, dtype, numel),
        }
    } else {
        (0..numel)
            .map(|_| from_f64(gen.normal_f64(mean, std), dtype))
            .collect()
    }
}

/// `normal_fill<double>`: every uniform first, then Box-Muller on blocks of 16 (the first 8
/// values give the radii, the last 8 the angles); a partial last block is redone on the last
/// 16 elements with 16 fresh uniforms.
pub(super) fn normal_fill_f64(
    gen: &mut CpuGenerator,
    mean: f64,
    std: f64,
    numel: usize,
) -> Vec<Scalar> {
    fn fill16(data: &mut [f64], mean: f64, std: f64) {
        for j in 0..8 {
            let u1 = 1.0 - data[j];
            let u2 = data[j + 8];
            let radius = (u1.ln() * -2.0).sqrt();
            let theta = std::f64::consts::TAU * u2;
            let (sin, cos) = (theta.sin(), theta.cos());
            data[j] = (radius * cos).mul_add(std, mean);
            data[j + 8] = (radius * sin).mul_add(std, mean);
        }
    }
    let mut data: Vec<f64> = (0..numel).map(|_| gen.uniform_f64()).collect();
    for block in data.chunks_exact_mut(16) {
        fill16(block, mean, std);
    }
    if !numel.is_multiple_of(16) {
        let tail = &mut data[numel - 16..];
        for v in tail.iter_mut() {
            *v = gen.uniform_f64();
        }
        fill16(tail, mean, std);
    }
    data.into_iter().map(Scalar::Float).collect()
}

/// `normal_fill_AVX2` for float32: every uniform first, then [`normal_fill_16_avx2`] on blocks
/// of 16; a partial last block is redone on the last 16 elements with 16 fresh uniforms.
pub(super) fn normal_fill_f32(
    gen: &mut CpuGenerator,
    mean: f32,
    std: f32,
    numel: usize,
) -> Vec<f32> {
    let mut data: Vec<f32> = (0..numel).map(|_| gen.uniform_f32()).collect();
    for block in data.chunks_exact_mut(16) {
        normal_fill_16_avx2(block, mean, std);
    }
    if !numel.is_multiple_of(16) {
        let tail = &mut data[numel - 16..];
        for v in tail.iter_mut() {
            *v = gen.uniform_f32();
        }
        normal_fill_16_avx2(tail, mean, std);
    }
    data
}

/// The AVX2 `normal_fill` for float16 and bfloat16: block by block, 16 float uniforms go
/// through [`normal_fill_16_avx2`] and are rounded to the dtype; a partial last block draws 16
/// more uniforms for the last 16 elements. Unlike float32, the uniforms of the partial block's
/// own elements are never drawn.
pub(super) fn normal_fill_reduced(
    gen: &mut CpuGenerator,
    mean: f32,
    std: f32,
    dtype: DType,
    numel: usize,
) -> Vec<Scalar> {
    let mut out = vec![Scalar::Float(0.0); numel];
    let mut block = [0f32; 16];
    let mut fill = |gen: &mut CpuGenerator, start: usize, out: &mut [Scalar]| {
        for v in block.iter_mut() {
            *v = gen.uniform_f32();
        }
        normal_fill_16_avx2(&mut block, mean, std);
        for (slot, v) in out[start..start + 16].iter_mut().zip(block) {
            *slot = from_f32(v, dtype);
        }
    };
    let full = numel / 16;
    for b in 0..full {
        fill(gen, b * 16, &mut out);
    }
    if !numel.is_multiple_of(16) {
        fill(gen, numel - 16, &mut out);
    }
    out
}

pub(super) fn f32_bits(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// `normal_fill_16_AVX2` lane by lane, operation by operation as PyTorch's x86-64 build
/// executes it: `log256_ps` and `sincos256_ps` of `avx_mathfun.h` (Cephes polynomials) with the
/// multiply-adds GCC fused, then `fma(r * cos, std, mean)` and `fma(r * sin, std, mean)`.
pub(super) fn normal_fill_16_avx2(data: &mut [f32], mean: f32, std: f32) {
    for j in 0..8 {
        let u1 = 1.0f32 - data[j];
        let u2 = data[j + 8];
        let radius = (log_cephes(u1) * -2.0f32).sqrt();
        let theta = f32_bits(0x40c9_0fdb) * u2;
        let (sin, cos) = sincos_cephes(theta);
        data[j] = (radius * cos).mul_add(std, mean);
        data[j + 8] = (radius * sin).mul_add(std, mean);
    }
}

/// `log256_ps` for one lane (`x <= 0` gives NaN).
pub(super) fn log_cephes(x_in: f32) -> f32 {
    let one = 1.0f32;
    let invalid = x_in <= 0.0;
    let x = x_in.max(f32::from_bits(0x0080_0000));
    let imm0 = (x.to_bits() >> 23) as i32 - 0x7f;
    let mut x = f32::from_bits((x.to_bits() & !0x7f80_0000) | 0.5f32.to_bits());
    let mut e = imm0 as f32 + one;
    let mask = x < f32_bits(0x3f35_04f3);
    let tmp = if mask { x } else { 0.0 };
    if mask {
        e -= one;
    }
    x += -1.0;
    x += tmp;
    let z = x * x;
    let p = [
        0x3d90_21bb,
        0xbdeb_d1b8,
        0x3def_251a,
        0xbdfe_5d4f,
        0x3e11_e9bf,
        0xbe2a_ae50,
        0x3e4c_ceac,
        0xbe7f_fffc,
        0x3eaa_aaaa,
    ];
    let mut y = f32_bits(p[0]);
    for &c in &p[1..] {
        y = y.mul_add(x, f32_bits(c));
    }
    let eq1 = e * f32_bits(0xb95e_8083);
    y *= x;
    y = y.mul_add(z, eq1);
    y = (-z).mul_add(0.5, y);
    x += y;
    let result = e.mul_add(f32_bits(0x3f31_8000), x);
    if invalid {
        f32::from_bits(result.to_bits() | 0xffff_ffff)
    } else {
        result
    }
}

/// `sincos256_ps` for one lane: `(sin, cos)`.
pub(super) fn sincos_cephes(theta: f32) -> (f32, f32) {
    let ax = f32::from_bits(theta.to_bits() & 0x7fff_ffff);
    let mut sign_sin = theta.to_bits() & 0x8000_0000;
    let y = ax * f32_bits(0x3fa2_f983);
    let mut imm2 = (y as i32).wrapping_add(1) & !1;
    if y.is_nan() || y >= 2_147_483_648.0 {
        // cvttps2dq gives 0x80000000 for out-of-range lanes.
        imm2 = i32::MIN.wrapping_add(1) & !1;
    }
    let yf = imm2 as f32;
    let swap_sign_sin = ((imm2 & 4) as u32) << 29;
    let poly_mask = (imm2 & 2) == 0;
    sign_sin ^= swap_sign_sin;
    let mut x = yf.mul_add(f32_bits(0xbf49_0000), ax);
    x = yf.mul_add(f32_bits(0xb97d_a000), x);
    x = yf.mul_add(f32_bits(0xb322_2169), x);
    let sign_cos = ((!imm2.wrapping_sub(2) & 4) as u32) << 29;
    let z = x * x;
    let half_z = z * 0.5;
    let mut yc = f32_bits(0x37cc_f5ce).mul_add(z, f32_bits(0xbab6_061a));
    yc = yc.mul_add(z, f32_bits(0x3d2a_aaa5));
    yc *= z;
    yc = z.mul_add(yc, -half_z);
    yc += 1.0;
    let mut ys = f32_bits(0xb94c_a1f9).mul_add(z, f32_bits(0x3c08_839e));
    ys = ys.mul_add(z, f32_bits(0xbe2a_aaa3));
    ys *= z;
    ys = x.mul_add(ys, x);
    // The lanes are selected with masks and recombined with additions, as the AVX2 code
    // does (so a -0.0 comes out as +0.0).
    let (ysin2, ysin1) = if poly_mask { (ys, 0.0) } else { (0.0, yc) };
    let sin = ysin2 + ysin1;
    let cos = (ys - ysin2) + (yc - ysin1);
    (
        f32::from_bits(sin.to_bits() ^ sign_sin),
        f32::from_bits(cos.to_bits() ^ sign_cos),
    )
}
