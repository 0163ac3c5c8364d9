//! `layer_norm`'s and `group_norm`'s CPU kernels for `float32` and `float64` inputs, in ATen's
//! arithmetic: the moments of each row by `RowwiseMoments` (`moments_utils.h`: Welford
//! updates in `Vectorized` lanes, chunks of 16 vectors merged as a binary counter, the
//! leftover elements in a scalar Welford loop, the lanes merged last), then
//! `rstd = 1 / sqrt(var + eps)`, and the outputs as `LayerNormKernelImplInternal`
//! (`(x * rstd + (-rstd * mean)) * gamma + beta`) and `GroupNormKernelImplInternal`
//! (`(x - mean) * rstd`, or `scale * x + bias` per channel) compute them. The compiler
//! contracts the Welford updates' and `group_norm`'s multiply-adds into FMA instructions (not
//! `layer_norm`'s output, which PyTorch gives as exactly zero for a row of one element).

use crate::core::tensor::{DType, Scalar};
use crate::interp::torch::nn::norm_backward::Plan;
use crate::interp::value::Value;
use crate::interp::Evaluator;

/// Vectors per Welford chunk (`kChunkSize`).
const CHUNK: usize = 16;

/// The arithmetic of one dtype: rounding, fused multiply-add, lanes per vector (AVX-512).
#[derive(Clone, Copy)]
struct Arith {
    double: bool,
}

impl Arith {
    fn r(self, v: f64) -> f64 {
        if self.double {
            v
        } else {
            f64::from(v as f32)
        }
    }

    fn fma(self, a: f64, b: f64, c: f64) -> f64 {
        if self.double {
            a.mul_add(b, c)
        } else {
            f64::from((a as f32).mul_add(b as f32, c as f32))
        }
    }

    fn lanes(self) -> usize {
        if self.double {
            8
        } else {
            16
        }
    }
}

/// Welford moments of one lane: count, mean, sum of squared deviations.
#[derive(Clone, Copy, Default)]
struct Moments {
    m1: f64,
    m2: f64,
}

/// `AddMomentsVec` / `AddMoments`: merges `(count_add, add)` into `(count, into)`.
fn add_moments(a: Arith, count_add: usize, add: Moments, count: usize, into: &mut Moments) {
    let n = count + count_add;
    let c = if n == 0 {
        0.0
    } else {
        a.r(count_add as f64 / n as f64)
    };
    let delta = a.r(add.m1 - into.m1);
    into.m1 = a.fma(delta, c, into.m1);
    let extra = a.fma(a.r(a.r(delta * delta) * c), a.r(count as f64), add.m2);
    into.m2 = a.r(into.m2 + extra);
}

/// `RowwiseMoments(X, N)`: the mean and the biased variance of a row, in the dtype.
fn rowwise_moments(a: Arith, x: &[f64]) -> (f64, f64) {
    let width = a.lanes();
    let total = x.len();
    let vectors = total / width;
    let chunks = vectors.div_ceil(CHUNK);
    let depth = if chunks <= 2 {
        1
    } else {
        (usize::BITS - (chunks - 1).leading_zeros()) as usize
    };
    let coefficients: Vec<f64> = (0..CHUNK).map(|j| a.r(1.0 / (j + 1) as f64)).collect();
    let mut counts = vec![0usize; depth];
    let mut stack = vec![vec![Moments::default(); width]; depth];
    for i in 0..chunks {
        let base = i * CHUNK * width;
        let m0 = CHUNK.min(vectors - i * CHUNK);
        let mut lanes = vec![Moments::default(); width];
        for (j, coefficient) in coefficients.iter().enumerate().take(m0) {
            for (l, lane) in lanes.iter_mut().enumerate() {
                let v = x[base + j * width + l];
                let delta = a.r(v - lane.m1);
                lane.m1 = a.fma(delta, *coefficient, lane.m1);
                lane.m2 = a.fma(delta, a.r(v - lane.m1), lane.m2);
            }
        }
        for (l, lane) in lanes.iter().enumerate() {
            add_moments(a, m0, *lane, counts[0], &mut stack[0][l]);
        }
        counts[0] += m0;
        let mut mask = i + 1;
        let mut j = 1;
        while j < depth && mask & 1 == 0 {
            let (lower, upper) = stack.split_at_mut(j);
            for (l, lane) in lower[j - 1].iter().enumerate() {
                add_moments(a, counts[j - 1], *lane, counts[j], &mut upper[0][l]);
            }
            counts[j] += counts[j - 1];
            counts[j - 1] = 0;
            lower[j - 1] = vec![Moments::default(); width];
            mask >>= 1;
            j += 1;
        }
    }
    for i in 1..depth {
        let (lower, upper) = stack.split_at_mut(i);
        for (l, lane) in upper[0].iter().enumerate() {
            add_moments(a, counts[i], *lane, counts[0], &mut lower[0][l]);
        }
        counts[0] += counts[i];
    }
    let mut count = 0usize;
    let mut scalar = Moments::default();
    for &v in &x[vectors * width..] {
        let delta = a.r(v - scalar.m1);
        count += 1;
        scalar.m1 = a.r(scalar.m1 + a.r(delta / count as f64));
        scalar.m2 = a.fma(delta, a.r(v - scalar.m1), scalar.m2);
    }
    for lane in stack.first().map_or(&[][..], |s| &s[..]) {
        add_moments(a, vectors, *lane, count, &mut scalar);
        count += vectors;
    }
    (scalar.m1, a.r(scalar.m2 / total.max(1) as f64))
}

/// Whether the kernels of this file compute `dtype`.
pub(super) fn rows_dtype(dtype: DType) -> bool {
    matches!(dtype, DType::Float32 | DType::Float64)
}

/// `t`'s values on the host; none on the meta device, where nothing is computed.
pub(super) fn host_values(
    ev: &mut crate::interp::Evaluator,
    meta: bool,
    t: &crate::core::tensor::Tensor,
) -> Vec<f64> {
    if meta {
        return Vec::new();
    }
    ev.nn_read_host(t)
}

/// `plan`'s exact moments of `x` (mean, variance and count of each group); none on the meta
/// device, where nothing is computed.
pub(super) fn moments(meta: bool, plan: &Plan, x: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    if meta {
        return Default::default();
    }
    plan.moments(x)
}

/// The moments of each statistics group of `plan` (its elements are contiguous in row-major
/// order), and `rstd`: `1 / sqrt(var + eps)` in the dtype for `layer_norm`, `1 / sqrt(max(var,
/// 0) + eps)` computed in double and stored in the dtype for `group_norm`.
pub(super) fn row_stats(
    x: &[f64],
    plan: &Plan,
    dtype: DType,
    eps: f64,
    layer: bool,
) -> (Vec<f64>, Vec<f64>) {
    let a = Arith {
        double: dtype == DType::Float64,
    };
    let span = plan.stat_span.max(1);
    let mut mean = Vec::with_capacity(plan.stats);
    let mut rstd = Vec::with_capacity(plan.stats);
    for row in x.chunks(span) {
        let (m, var) = rowwise_moments(a, row);
        mean.push(m);
        let r = if layer {
            a.r(1.0 / a.r(a.r(var + a.r(eps)).sqrt()))
        } else {
            a.r(1.0 / (var.max(0.0) + eps).sqrt())
        };
        rstd.push(r);
    }
    (mean, rstd)
}

/// `layer_norm`'s output: `(x * rstd + (-rstd * mean)) * gamma + beta`, each operation rounded.
pub(super) fn layer_output(
    x: &[f64],
    plan: &Plan,
    stats: (&[f64], &[f64]),
    weight: Option<&[f64]>,
    bias: Option<&[f64]>,
    dtype: DType,
) -> Vec<Scalar> {
    let a = Arith {
        double: dtype == DType::Float64,
    };
    let (mean, rstd) = stats;
    let span = plan.stat_span.max(1);
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let (row, j) = (i / span, i % span);
            let shift = a.r(-rstd[row] * mean[row]);
            let gamma = weight.and_then(|w| w.get(j)).copied().unwrap_or(1.0);
            let beta = bias.and_then(|b| b.get(j)).copied().unwrap_or(0.0);
            let normalized = a.r(a.r(v * rstd[row]) + shift);
            Scalar::Float(a.r(a.r(normalized * gamma) + beta))
        })
        .collect()
}

/// `group_norm`'s output: `(x - mean) * rstd` without affine parameters, else
/// `scale * x + bias` with `scale = rstd * gamma` and `bias = -scale * mean + beta`.
pub(super) fn group_output(
    x: &[f64],
    plan: &Plan,
    stats: (&[f64], &[f64]),
    weight: Option<&[f64]>,
    bias: Option<&[f64]>,
    dtype: DType,
) -> Vec<Scalar> {
    let a = Arith {
        double: dtype == DType::Float64,
    };
    let (mean, rstd) = stats;
    let span = plan.stat_span.max(1);
    let inner = plan.affine_span.max(1);
    let channels = plan.channels.max(1);
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let g = i / span;
            if weight.is_none() && bias.is_none() {
                return Scalar::Float(a.r(a.r(v - mean[g]) * rstd[g]));
            }
            let c = (i / inner) % channels;
            let gamma = weight.and_then(|w| w.get(c)).copied().unwrap_or(1.0);
            let beta = bias.and_then(|b| b.get(c)).copied().unwrap_or(0.0);
            let scale = a.r(rstd[g] * gamma);
            let shift = a.fma(-scale, mean[g], beta);
            Scalar::Float(a.fma(scale, v, shift))
        })
        .collect()
}

/// The statistics ATen's norm kernel returns besides `out` (mean and rstd, `stats` shaped)
/// when no node keeps them: allocated after the output and freed as the op returns (a meta
/// op allocates nothing).
pub(super) fn unkept_stats(
    ev: &mut Evaluator,
    out: &Value,
    stats: &[i64],
    dtype: DType,
    meta: bool,
) {
    if meta || Evaluator::has_node(out) {
        return;
    }
    let bytes = stats.iter().product::<i64>().max(0) * dtype.item_size() as i64;
    ev.note_kernel_events(&[bytes, bytes]);
}

/// `batch_norm`'s statistics' shape: `[C]` in training, `[0]` in evaluation mode.
pub(super) fn bn_stats_shape(training: bool, channels: usize) -> Vec<i64> {
    vec![if training { channels as i64 } else { 0 }]
}

/// `layer_norm`'s statistics' shape: `shape` with its trailing dimensions whose product is
/// `features` (the normalized ones) set to 1.
pub(super) fn layer_stats_shape(shape: &[i64], features: usize) -> Vec<i64> {
    let mut out = shape.to_vec();
    let mut product = 1usize;
    for d in out.iter_mut().rev() {
        if product >= features {
            break;
        }
        product *= (*d).max(0) as usize;
        *d = 1;
    }
    out
}
