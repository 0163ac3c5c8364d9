//! PyTorch's CPU random generator, bit for bit (torch 2.15, x86-64).
//!
//! [`CpuGenerator`] is ATen's `CPUGeneratorImpl`: the mt19937 engine of
//! `aten/src/ATen/core/MT19937RNGEngine.h` (32-bit `random()`, `random64()` as two draws, high
//! word first) plus the cached second Box-Muller sample. [`sample`] draws what one of ATen's CPU
//! kernels (`aten/src/ATen/native/cpu/DistributionTemplates.h`) writes, element by element, and
//! [`randperm`] is `randperm_cpu` of `TensorFactories.cpp`.
//!
//! Which call uses which [`Distribution`] (all on the default generator):
//!
//! | Python | distribution | dtype |
//! |---|---|---|
//! | `torch.rand(*size)`, `rand_like(t)`, `t.uniform_()` | `Uniform { from: 0, to: 1 }` | default float / `t`'s |
//! | `t.uniform_(a, b)` | `Uniform { from: a, to: b }` | `t`'s |
//! | `torch.randn(*size)`, `randn_like(t)`, `t.normal_()` | `Normal { mean: 0, std: 1 }` | default float / `t`'s |
//! | `t.normal_(m, s)` | `Normal { mean: m, std: s }` | `t`'s |
//! | `torch.randint(low, high, size)`, `randint(high, size)` (`low = 0`), `randint_like(t, low, high)` | `RandomFromTo { from: low, to_exclusive: high }` | `int64` unless `dtype=` / `t`'s |
//! | `t.random_(from, to)`, `t.random_(to)` (`from = 0`) | `RandomFromTo` | `t`'s |
//! | `t.random_(from, None)` | `RandomFrom { from }` (`[from, max]`; `from = -2**63` is the full 64-bit range) | `t`'s |
//! | `t.random_()` | `RandomDefault` (`[0, 2**mantissa]` for floats, `[0, max]` for integers, `{False, True}` for bool) | `t`'s |
//!
//! The `_like` functions and the factories create the tensor first (`empty_like` keeps the
//! input's strides when it is dense) and then call the in-place method, so their values follow
//! the same rules, including the element order below.
//!
//! # Element order
//!
//! [`sample`] returns values in the order the kernel writes them:
//!
//! * `Normal` on a tensor that is C-contiguous (`Tensor.is_contiguous()`, size-1 dims ignored)
//!   with at least 16 elements (`contiguous = true`): `normal_fill`, which works on the flat
//!   buffer; value `i` goes to storage element `offset + i`.
//! * everything else (`Uniform`, the `Random*` kinds, and `Normal` on smaller or non-contiguous
//!   tensors): `cpu_serial_kernel` over a nullary `TensorIterator`, which reorders the
//!   dimensions by stride (`TensorIteratorBase::reorder_dimensions`: the smallest stride
//!   innermost, equal strides keep their order) and visits them row-major in that order. For
//!   every tensor made by slicing, transposing or permuting a contiguous one (and for
//!   channels-last tensors) that is increasing storage offset: value `i` goes to the element
//!   with the `i`-th smallest offset. A transposed tensor therefore gets its values in memory
//!   order, not in logical (row-major) order; for a contiguous tensor both agree. (Checked with
//!   torch 2.15 on `.t()`, `[:, 1]`, `[::2, 1:4]`, `.permute(2, 0, 1)` and channels-last.)
//!
//! Values come back as [`Scalar`]s already rounded to `dtype` (`Scalar::Float` for floating
//! dtypes, `Scalar::Int` for integers, `Scalar::Bool` for bool), so writing them converts
//! nothing.
//!
//! # Platform
//!
//! `normal_` on float32, float16 and bfloat16 tensors of 16 or more contiguous elements is
//! vectorized in ATen; on x86-64 (the AVX2 kernel, which AVX-512 machines also run, since
//! `normal_stub` has no AVX-512 variant) it uses the Cephes polynomials of `avx_mathfun.h` with
//! the fused multiply-adds GCC emitted for them (read off the disassembly of
//! `libtorch_cpu.so`). That is what [`sample`] reproduces. Builds without that kernel (ARM,
//! such as Apple silicon) compute these values with other code and may differ in the last bits.
//! The double-precision paths call libm's `log`, `log1p`, `sin` and `cos`: natively Rust calls
//! the same glibc functions as PyTorch. On wasm32 Rust uses its own libm port, which differs
//! from glibc in the last bit for about 3% of these inputs (measured over 2M Box-Muller
//! pairs): float64 `normal_` values can then differ by one ulp; none of the values rounded to
//! float32 (and so float16/bfloat16) differed.
//!
//! # What changed against older ATen sources
//!
//! Checked against torch 2.15 (see `tests/rng.rs`), where the published headers of older
//! releases say otherwise:
//! * `random_(from, to)` draws `random64()` from a range of `2**28` on (not `2**32`), for every
//!   dtype, int32 included.
//! * `uniform_` computes in float for float16/bfloat16 too, with the 24-bit uniform, `from`
//!   and `to` as floats and a fused multiply-add; in every dtype a result that rounds to `to`
//!   becomes `from`.
//! * the contiguous `normal_` of float16/bfloat16 runs the float32 AVX2 block on 16 fresh
//!   float uniforms per block and rounds; a partial last block draws 16 more for the last 16
//!   elements (float32 draws every element's uniform first, then 16 more).

use crate::core::tensor::{DType, Scalar, ScriptError};

mod checks;
mod normal;
use checks::*;
use normal::*;

const MERSENNE_STATE_N: usize = 624;
const MERSENNE_STATE_M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UMASK: u32 = 0x8000_0000;
const LMASK: u32 = 0x7fff_ffff;

/// PyTorch's CPU generator (`at::CPUGeneratorImpl`): an mt19937 engine seeded with a 64-bit
/// seed (only its low 32 bits enter the state) and the cached second samples of Box-Muller.
#[derive(Clone, Debug)]
pub struct CpuGenerator {
    seed: u64,
    state: [u32; MERSENNE_STATE_N],
    left: u32,
    next: usize,
    next_float_normal_sample: Option<f32>,
    next_double_normal_sample: Option<f64>,
}

impl CpuGenerator {
    /// `default_rng_seed_val`: the seed of a new `torch.Generator()`. The process-wide default
    /// generator of a real Python process is seeded from `/dev/urandom` instead (so
    /// `torch.initial_seed()` differs per process); Stridescope starts here so that scripts
    /// are reproducible. A script that calls `torch.manual_seed(s)` matches PyTorch exactly.
    pub const DEFAULT_SEED: u64 = 67_280_421_310_721;

    /// A generator seeded with `seed` (`torch.Generator().manual_seed(seed)`).
    pub fn new(seed: u64) -> Self {
        let mut generator = CpuGenerator {
            seed,
            state: [0; MERSENNE_STATE_N],
            left: 1,
            next: 0,
            next_float_normal_sample: None,
            next_double_normal_sample: None,
        };
        generator.manual_seed(seed);
        generator
    }

    /// `torch.manual_seed(seed)`: reseeds the engine and clears both normal caches.
    pub fn manual_seed(&mut self, seed: u64) {
        self.next_float_normal_sample = None;
        self.next_double_normal_sample = None;
        self.seed = seed;
        self.state[0] = (seed & 0xffff_ffff) as u32;
        for j in 1..MERSENNE_STATE_N {
            let prev = self.state[j - 1];
            self.state[j] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(j as u32);
        }
        self.left = 1;
        self.next = 0;
    }

    /// `torch.initial_seed()`: the seed last given.
    pub fn initial_seed(&self) -> u64 {
        self.seed
    }

    /// `CPUGeneratorImpl::random()`: the next 32-bit output of mt19937.
    pub fn random(&mut self) -> u32 {
        self.left -= 1;
        if self.left == 0 {
            self.next_state();
        }
        let mut y = self.state[self.next];
        self.next += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `CPUGeneratorImpl::random64()`: two 32-bit draws, the first one the high word.
    pub fn random64(&mut self) -> u64 {
        let hi = self.random();
        let lo = self.random();
        (u64::from(hi) << 32) | u64::from(lo)
    }

    /// The cached float normal sample (`next_float_normal_sample`); no kernel reachable from
    /// Python's `rand*`/`normal_` sets it, but `manual_seed` clears it as PyTorch does.
    pub fn next_float_normal_sample(&self) -> Option<f32> {
        self.next_float_normal_sample
    }

    /// The cached double normal sample left by the serial `normal_` path.
    pub fn next_double_normal_sample(&self) -> Option<f64> {
        self.next_double_normal_sample
    }

    fn next_state(&mut self) {
        fn twist(u: u32, v: u32) -> u32 {
            (((u & UMASK) | (v & LMASK)) >> 1) ^ if v & 1 != 0 { MATRIX_A } else { 0 }
        }
        let s = &mut self.state;
        for j in 0..MERSENNE_STATE_N - MERSENNE_STATE_M {
            s[j] = s[j + MERSENNE_STATE_M] ^ twist(s[j], s[j + 1]);
        }
        for j in MERSENNE_STATE_N - MERSENNE_STATE_M..MERSENNE_STATE_N - 1 {
            s[j] = s[j + MERSENNE_STATE_M - MERSENNE_STATE_N] ^ twist(s[j], s[j + 1]);
        }
        s[MERSENNE_STATE_N - 1] = s[MERSENNE_STATE_M - 1] ^ twist(s[MERSENNE_STATE_N - 1], s[0]);
        self.left = MERSENNE_STATE_N as u32;
        self.next = 0;
    }

    /// `uniform_real_distribution<float>(0, 1)`: 24 random bits scaled to `[0, 1)`.
    fn uniform_f32(&mut self) -> f32 {
        (self.random() & 0x00ff_ffff) as f32 * (1.0 / 16_777_216.0)
    }

    /// `uniform_real_distribution<double>(0, 1)`: 53 random bits scaled to `[0, 1)`.
    fn uniform_f64(&mut self) -> f64 {
        (self.random64() & 0x001f_ffff_ffff_ffff) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `normal_distribution<double>(mean, std)`: Box-Muller with the cached second sample.
    fn normal_f64(&mut self, mean: f64, std: f64) -> f64 {
        if let Some(cached) = self.next_double_normal_sample.take() {
            return cached.mul_add(std, mean);
        }
        let u1 = self.uniform_f64();
        let u2 = self.uniform_f64();
        let r = ((-u2).ln_1p() * -2.0).sqrt();
        let theta = std::f64::consts::TAU * u1;
        let (sin, cos) = (theta.sin(), theta.cos());
        self.next_double_normal_sample = Some(r * sin);
        (r * cos).mul_add(std, mean)
    }
}

impl Default for CpuGenerator {
    fn default() -> Self {
        CpuGenerator::new(CpuGenerator::DEFAULT_SEED)
    }
}

/// What to draw: the distribution of one of ATen's CPU random kernels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    /// `uniform_(from, to)`: `[from, to)`; `torch.rand` is `from = 0, to = 1`.
    Uniform { from: f64, to: f64 },
    /// `normal_(mean, std)`; `torch.randn` is `mean = 0, std = 1`.
    Normal { mean: f64, std: f64 },
    /// `random_(from, to)` and `torch.randint`: integers in `[from, to_exclusive)`.
    RandomFromTo { from: i64, to_exclusive: i64 },
    /// `random_(from, None)`: integers in `[from, max]` where `max` is the dtype's largest
    /// integer (`2**mantissa` for floating dtypes); `from = i64::MIN` draws the whole 64-bit
    /// range.
    RandomFrom { from: i64 },
    /// `random_()`: `[0, 2**mantissa]` for floating dtypes, `[0, max]` for integers, both
    /// values for bool.
    RandomDefault,
}

/// Draws `numel` values as ATen's CPU kernel for `dist` writes them into a tensor of `dtype`,
/// in the kernel's order (see the module documentation: value `i` goes to the `i`-th element in
/// `TensorIterator` order, which is storage order for any dense or strided tensor with positive
/// strides). `contiguous` is `Tensor.is_contiguous()`; it only matters for `Normal` (16 or more
/// contiguous elements take the blocked `normal_fill`).
///
/// Arguments are validated first, with PyTorch's messages, also when `numel` is 0 (PyTorch
/// checks before it returns early on an empty tensor); on an error the generator is untouched.
pub fn sample(
    generator: &mut CpuGenerator,
    dist: &Distribution,
    dtype: DType,
    numel: usize,
    contiguous: bool,
) -> Result<Vec<Scalar>, ScriptError> {
    match *dist {
        Distribution::Uniform { from, to } => {
            check_uniform(from, to, dtype)?;
            Ok(uniform(generator, from, to, dtype, numel))
        }
        Distribution::Normal { mean, std } => {
            if std.is_nan() || std < 0.0 {
                return Err(ScriptError::Runtime(format!(
                    "normal expects std >= 0.0, but found std {}",
                    cpp_double(std)
                )));
            }
            if numel == 0 {
                return Ok(Vec::new());
            }
            if !dtype.is_floating() {
                return Err(not_implemented("normal_kernel_cpu", dtype));
            }
            Ok(normal(generator, mean, std, dtype, numel, contiguous))
        }
        Distribution::RandomFromTo { from, to_exclusive } => {
            let (from, range) = check_from_to(from, to_exclusive, dtype)?;
            Ok(random_from_to(generator, range, from, dtype, numel))
        }
        Distribution::RandomFrom { from } => {
            if from == i64::MIN {
                if numel == 0 {
                    return Ok(Vec::new());
                }
                match dtype {
                    DType::Int64 | DType::Float64 | DType::Float32 | DType::BFloat16 => {}
                    DType::Bool | DType::Float16 => {
                        return Err(not_implemented(
                            "random_full_64_bits_range_kernel_cpu",
                            dtype,
                        ))
                    }
                    _ => {
                        return Err(ScriptError::Runtime(
                            "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16"
                                .into(),
                        ))
                    }
                }
                return Ok((0..numel)
                    .map(|_| from_i64(generator.random64() as i64, dtype))
                    .collect());
            }
            let (from, range) = check_from(from, dtype)?;
            Ok(random_from_to(generator, range, from, dtype, numel))
        }
        Distribution::RandomDefault => Ok(random_default(generator, dtype, numel)),
    }
}

/// `bernoulli_(p)` with a tensor of probabilities on the CPU (`bernoulli_tensor_cpu_kernel`):
/// one `bernoulli_distribution` draw per element, in order: a uniform draw (`double` when the
/// probabilities are `float64`, else `float`) below the element's probability is a one.
pub fn bernoulli(generator: &mut CpuGenerator, probabilities: &[f64], double: bool) -> Vec<bool> {
    probabilities
        .iter()
        .map(|&p| {
            if double {
                generator.uniform_f64() < p
            } else {
                generator.uniform_f32() < p as f32
            }
        })
        .collect()
}

/// `torch.randperm(n)` on the CPU: a permutation of `0..n` (`randperm_cpu`). Small `n` swaps
/// forward with `random() % (n - i)`; `n` of `u32::MAX / 20` or more uses the inside-out
/// Fisher-Yates shuffle with `random64() % (i + 1)`. Convert the values to the requested
/// dtype after checking it with [`check_randperm_dtype`]. This allocates `n` values: callers
/// apply their memory limits first.
pub fn randperm(generator: &mut CpuGenerator, n: i64) -> Result<Vec<i64>, ScriptError> {
    if n < 0 {
        return Err(ScriptError::Runtime(format!(
            "Trying to create tensor with negative dimension {n}: [{n}]"
        )));
    }
    let len = usize::try_from(n)
        .map_err(|_| ScriptError::Runtime(format!("randperm: n={n} is too large")))?;
    if n < i64::from(u32::MAX / 20) {
        let mut values: Vec<i64> = (0..n).collect();
        for i in 0..len.saturating_sub(1) {
            let z = (u64::from(generator.random()) % (len - i) as u64) as usize;
            values.swap(i, z + i);
        }
        Ok(values)
    } else {
        let mut values = vec![0i64; len];
        for i in 0..len {
            let z = (generator.random64() % (i as u64 + 1)) as usize;
            values[i] = values[z];
            values[z] = i as i64;
        }
        Ok(values)
    }
}

/// The dtype checks of `torch.randperm(n, dtype=...)`, made before anything is drawn.
pub fn check_randperm_dtype(n: i64, dtype: DType) -> Result<(), ScriptError> {
    let limit = match dtype {
        DType::Bool => return Err(not_implemented("randperm", dtype)),
        DType::Float16 => Some(((1 << 11) + 1, "2049 for Half")),
        DType::Float32 => Some(((1 << 24) + 1, "2^24+1 for Float")),
        DType::Float64 => Some(((1 << 53) + 1, "2^53+1 for Double")),
        _ => None,
    };
    if let Some((max, text)) = limit {
        if n > max {
            return Err(ScriptError::Runtime(format!(
                "n cannot be greater than {text} type."
            )));
        }
    }
    let int_max = match dtype {
        DType::UInt8 => Some(i64::from(u8::MAX)),
        DType::Int8 => Some(i64::from(i8::MAX)),
        DType::Int16 => Some(i64::from(i16::MAX)),
        DType::Int32 => Some(i64::from(i32::MAX)),
        _ => None,
    };
    if let Some(max) = int_max {
        if n > 0 && n - 1 > max {
            return Err(ScriptError::Runtime(format!(
                "value cannot be converted to type {} without overflow",
                dtype.c10_scalar_name()
            )));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- validation

/// `uniform_kernel`: `x * (to - from) + from` with `x` the 24-bit uniform in float (53-bit in
/// double), `from` and `to` as float (double) and the multiply-add fused, then rounded to the
/// dtype. A value that rounds up to `to` (most often in float16 and bfloat16, near the top of
/// the range) is replaced by `from`, for every dtype, as torch 2.15 does:
/// `uniform_(1.0, 1.0000001)` on float32 gives only `1.0`.
fn uniform(gen: &mut CpuGenerator, from: f64, to: f64, dtype: DType, numel: usize) -> Vec<Scalar> {
    if dtype == DType::Float64 {
        let range = to - from;
        return (0..numel)
            .map(|_| {
                let v = gen.uniform_f64().mul_add(range, from);
                Scalar::Float(if v >= to { from } else { v })
            })
            .collect();
    }
    let (from32, to32) = (from as f32, to as f32);
    let range = to32 - from32;
    let (low, high) = (from_f32(from32, dtype), from_f32(to32, dtype));
    (0..numel)
        .map(|_| {
            let v = from_f32(gen.uniform_f32().mul_add(range, from32), dtype);
            if scalar_f64(v) >= scalar_f64(high) {
                low
            } else {
                v
            }
        })
        .collect()
}

/// `random_from_to_kernel`: `(v % range) + from` with `v` from `random64()` when the range is
/// `2**28` or more (torch 2.15 draws 64 bits from there on, for every dtype, to keep the modulo
/// bias small; older releases switched at `2**32`), else from `random()`.
fn random_from_to(
    gen: &mut CpuGenerator,
    range: u64,
    from: i64,
    dtype: DType,
    numel: usize,
) -> Vec<Scalar> {
    let wide = range >= 1 << 28;
    (0..numel)
        .map(|_| {
            let v = if wide {
                gen.random64()
            } else {
                u64::from(gen.random())
            };
            // `range` is never 0 here: a 2**64 range takes the full-range kernel.
            let offset = v.checked_rem(range).unwrap_or(v);
            from_i64(offset.wrapping_add(from as u64) as i64, dtype)
        })
        .collect()
}

/// `random_kernel` (`random_()`): `uniform_int_distribution` per dtype.
fn random_default(gen: &mut CpuGenerator, dtype: DType, numel: usize) -> Vec<Scalar> {
    (0..numel)
        .map(|_| match dtype {
            DType::Bool => Scalar::Bool(gen.random() & 1 == 1),
            DType::Int64 => Scalar::Int((gen.random64() % (1u64 << 63)) as i64),
            DType::Float64 => Scalar::Float((gen.random64() % ((1u64 << 53) + 1)) as f64),
            DType::Float32 => from_i64((gen.random() as u64 % ((1 << 24) + 1)) as i64, dtype),
            DType::Float16 => from_i64((gen.random() as u64 % ((1 << 11) + 1)) as i64, dtype),
            DType::BFloat16 => from_i64((gen.random() as u64 % ((1 << 8) + 1)) as i64, dtype),
            _ => {
                let max = int_limits(dtype).1 as u64;
                from_i64((u64::from(gen.random()) % (max + 1)) as i64, dtype)
            }
        })
        .collect()
}

// ---------------------------------------------------------------- messages

/// A double as C++'s `operator<<` prints it (`%g` with 6 significant digits): `2`, `0.1`,
/// `1e+06`, `3e+38`, `nan`, `-inf`.
pub fn cpp_double(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        };
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let mantissa = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        strip_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_matches_the_reference_sequence() {
        // std::mt19937 with seed 5489 gives 3499211612 first; its 10000th output is 4123659995.
        let mut g = CpuGenerator::new(5489);
        assert_eq!(g.random(), 3_499_211_612);
        for _ in 1..9999 {
            g.random();
        }
        assert_eq!(g.random(), 4_123_659_995);
    }

    #[test]
    fn seed_uses_the_low_32_bits_and_keeps_the_full_seed() {
        let mut a = CpuGenerator::new(CpuGenerator::DEFAULT_SEED);
        let mut b = CpuGenerator::new(CpuGenerator::DEFAULT_SEED & 0xffff_ffff);
        assert_eq!(a.random(), b.random());
        assert_eq!(a.initial_seed(), CpuGenerator::DEFAULT_SEED);
    }

    #[test]
    fn manual_seed_clears_the_normal_cache() {
        let mut g = CpuGenerator::new(1);
        sample(
            &mut g,
            &Distribution::Normal {
                mean: 0.0,
                std: 1.0,
            },
            DType::Float32,
            1,
            true,
        )
        .map(|_| ())
        .unwrap_or_default();
        assert!(g.next_double_normal_sample().is_some());
        g.manual_seed(1);
        assert!(g.next_double_normal_sample().is_none());
    }

    #[test]
    fn extreme_arguments_never_panic() {
        let floats = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            0.0,
            1e-300,
        ];
        let ints = [i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX];
        let mut dists = vec![Distribution::RandomDefault];
        for &a in &floats {
            for &b in &floats {
                dists.push(Distribution::Uniform { from: a, to: b });
                dists.push(Distribution::Normal { mean: a, std: b });
            }
        }
        for &a in &ints {
            dists.push(Distribution::RandomFrom { from: a });
            for &b in &ints {
                dists.push(Distribution::RandomFromTo {
                    from: a,
                    to_exclusive: b,
                });
            }
        }
        let mut g = CpuGenerator::new(3);
        for dtype in DType::ALL {
            for dist in &dists {
                for numel in [0, 1, 17] {
                    for contiguous in [false, true] {
                        if let Ok(values) = sample(&mut g, dist, dtype, numel, contiguous) {
                            assert_eq!(values.len(), numel);
                        }
                    }
                }
            }
            for n in [-1, 0, 1, 129, 2050, i64::MIN] {
                let _ = check_randperm_dtype(n, dtype);
            }
        }
        assert!(randperm(&mut g, i64::MIN).is_err());
        assert_eq!(randperm(&mut g, 1).ok(), Some(vec![0]));
    }

    #[test]
    fn cpp_double_prints_like_ostream() {
        assert_eq!(cpp_double(2.0), "2");
        assert_eq!(cpp_double(-1.0), "-1");
        assert_eq!(cpp_double(3e38), "3e+38");
        assert_eq!(cpp_double(1e6), "1e+06");
        assert_eq!(cpp_double(0.1), "0.1");
        assert_eq!(cpp_double(123456.0), "123456");
        assert_eq!(cpp_double(1.5e-7), "1.5e-07");
        assert_eq!(cpp_double(f64::NAN), "nan");
    }

    #[test]
    fn errors_leave_the_generator_untouched() {
        let mut g = CpuGenerator::new(7);
        let err = sample(
            &mut g,
            &Distribution::RandomFromTo {
                from: 5,
                to_exclusive: 2,
            },
            DType::Int64,
            3,
            true,
        );
        assert_eq!(
            err.err().map(|e| e.to_string()),
            Some(
                "RuntimeError: random_ expects 'from' to be less than 'to', but got from=5 >= to=2"
                    .into()
            )
        );
        assert_eq!(g.random(), CpuGenerator::new(7).random());
    }
}
