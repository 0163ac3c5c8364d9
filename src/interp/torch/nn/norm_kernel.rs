//! `batch_norm`'s CPU kernels for `float32` and `float64` inputs, in ATen's arithmetic
//! (`batch_norm_kernel.cpp` and `Normalization.cpp`): statistics summed in double from the
//! elements of each channel in order, each float operation rounded to the dtype as the kernel
//! rounds it, the output as `x * alpha + beta` per channel, and the backward's `k`, `grad_mean`
//! and `(dy - grad_mean - dx) * invstd * w`. Reduced-precision inputs use the double-precision
//! formulas of [`crate::interp::torch::nn::norm_backward`].

use crate::core::tensor::{DType, Scalar, Tensor};
use crate::interp::torch::nn::norm_backward::Plan;

/// One float operation's result in `dtype` (`float` rounding for `float32`, none for `float64`).
fn rounder(dtype: DType) -> impl Fn(f64) -> f64 {
    move |v: f64| {
        if dtype == DType::Float64 {
            v
        } else {
            f64::from(v as f32)
        }
    }
}

/// `a * b + c` with one rounding, in the dtype: the compiler contracts the kernels'
/// multiply-adds into FMA instructions.
fn fma(dtype: DType, a: f64, b: f64, c: f64) -> f64 {
    if dtype == DType::Float64 {
        a.mul_add(b, c)
    } else {
        f64::from((a as f32).mul_add(b as f32, c as f32))
    }
}

/// Whether the kernels of this file compute `dtype`.
pub(super) fn exact_dtype(dtype: DType) -> bool {
    matches!(dtype, DType::Float32 | DType::Float64)
}

/// What a training step computes per channel: the saved mean and inverse standard deviation
/// (in the dtype), and the running statistics' new values.
pub(super) struct BatchStats {
    pub mean: Vec<f64>,
    pub invstd: Vec<f64>,
    pub running_mean: Vec<f64>,
    pub running_var: Vec<f64>,
}

/// `batch_norm_cpu_collect_stats` and `batch_norm_cpu_update_stats_template`: the mean
/// `(scalar_t)(sum / N)` with a double sum, `var_sum` a double sum of `(x - mean)²` in the
/// dtype, `invstd = 1 / sqrt(var_sum / n + eps)`, and the running statistics with momentum (the
/// unbiased variance `var_sum / (n - 1)`).
/// `batch_norm_cpu_collect_stats_contiguous_impl`: per channel, a double sum of its elements
/// in order, the mean in the dtype, and a double sum of `(x - mean)²` in the dtype.
fn contiguous_moments(x: &[f64], plan: &Plan, dtype: DType) -> (Vec<f64>, Vec<f64>, f64) {
    let r = rounder(dtype);
    let channels = plan.stats;
    let mut sum = vec![0.0; channels];
    let mut count = vec![0usize; channels];
    for (i, &v) in x.iter().enumerate() {
        let c = plan.stat(i);
        sum[c] += v;
        count[c] += 1;
    }
    let n = count.first().copied().unwrap_or(0) as f64;
    let mean: Vec<f64> = sum.iter().map(|s| r(s / n)).collect();
    let mut var_sum = vec![0.0; channels];
    for (i, &v) in x.iter().enumerate() {
        let c = plan.stat(i);
        let d = r(v - mean[c]);
        var_sum[c] += r(d * d);
    }
    (mean, var_sum.into_iter().map(&r).collect(), n)
}

/// `batch_norm_cpu_collect_stats_channels_last_impl` (also an `N×C×1…` input): with more rows
/// than threads, each thread sums its rows in the dtype and the partials are summed in double;
/// otherwise each channel is summed in double.
fn channels_last_moments(x: &[f64], plan: &Plan, dtype: DType) -> (Vec<f64>, Vec<f64>, f64) {
    let r = rounder(dtype);
    let channels = plan.stats;
    let rows = x.len() / channels.max(1);
    let by_row = row_major(x, plan);
    let n = rows as f64;
    if rows > ATEN_THREADS {
        let chunks = thread_chunks(rows);
        let partials = |f: &dyn Fn(usize, usize, f64) -> f64| -> Vec<f64> {
            (0..channels)
                .map(|c| {
                    let mut total = 0.0;
                    for &(begin, end) in &chunks {
                        let mut acc = 0.0;
                        for row in begin..end {
                            acc = f(row, c, acc);
                        }
                        total += acc;
                    }
                    total
                })
                .collect()
        };
        let sum = partials(&|row, c, acc| r(by_row[row * channels + c] + acc));
        let mean: Vec<f64> = sum.iter().map(|s| r(s / n)).collect();
        let var_sum = partials(&|row, c, acc| {
            let d = r(by_row[row * channels + c] - mean[c]);
            fma(dtype, d, d, acc)
        });
        return (mean, var_sum.into_iter().map(&r).collect(), n);
    }
    let mut sum = vec![0.0; channels];
    for (k, &v) in by_row.iter().enumerate() {
        sum[k % channels.max(1)] += v;
    }
    let mean: Vec<f64> = sum.iter().map(|s| r(s / n)).collect();
    let mut var_sum = vec![0.0; channels];
    for (k, &v) in by_row.iter().enumerate() {
        let c = k % channels.max(1);
        let d = r(v - mean[c]);
        var_sum[c] += r(d * d);
    }
    (mean, var_sum.into_iter().map(&r).collect(), n)
}

/// ATen's CPU thread count where PyTorch was recorded (`torch.get_num_threads()`): the
/// channels-last reductions sum one partial per thread of `at::parallel_for`.
pub(crate) const ATEN_THREADS: usize = 2;

/// The rows `[begin, end)` each thread of `at::parallel_for(0, rows, 1)` takes.
fn thread_chunks(rows: usize) -> Vec<(usize, usize)> {
    let threads = ATEN_THREADS.min(rows).max(1);
    let chunk = rows.div_ceil(threads);
    (0..threads)
        .map(|t| (t * chunk, ((t + 1) * chunk).min(rows)))
        .filter(|(begin, end)| begin < end)
        .collect()
}

/// Whether ATen takes the channels-last kernels for an input: a channels-last one, or a
/// contiguous one with one element per channel and sample (`N×C×1…`).
pub(super) fn takes_channels_last(layout: &crate::core::tensor::Layout) -> bool {
    let inner: i64 = layout.shape.iter().skip(2).product();
    if layout.is_contiguous() {
        inner == 1
    } else {
        layout.is_channels_last_contiguous()
    }
}

/// The values (row-major) laid out as rows of channels, in the order a channels-last storage
/// holds them: row `n * inner + s`, channel `c`.
fn row_major(x: &[f64], plan: &Plan) -> Vec<f64> {
    let channels = plan.stats.max(1);
    let inner = plan.stat_span.max(1);
    let mut out = vec![0.0; x.len()];
    for (i, &v) in x.iter().enumerate() {
        let c = plan.stat(i);
        let row = (i / (channels * inner)) * inner + i % inner;
        if let Some(slot) = out.get_mut(row * channels + c) {
            *slot = v;
        }
    }
    out
}

pub(super) fn batch_stats(
    x: &[f64],
    plan: &Plan,
    dtype: DType,
    eps: f64,
    momentum: f64,
    running: (&[f64], &[f64]),
    channels_last: bool,
) -> BatchStats {
    let r = rounder(dtype);
    let (mean, var_sum, n) = if channels_last {
        channels_last_moments(x, plan, dtype)
    } else {
        contiguous_moments(x, plan, dtype)
    };
    let invstd = var_sum
        .iter()
        .map(|&s| {
            let var = r(s / n);
            if var != 0.0 || eps != 0.0 {
                r(1.0 / (var + eps).sqrt())
            } else {
                0.0
            }
        })
        .collect();
    let (old_mean, old_var) = running;
    let running_mean = old_mean
        .iter()
        .zip(&mean)
        .map(|(o, m)| momentum * m + (1.0 - momentum) * o)
        .collect();
    let running_var = old_var
        .iter()
        .zip(&var_sum)
        .map(|(o, s)| momentum * r(s / (n - 1.0)) + (1.0 - momentum) * o)
        .collect();
    BatchStats {
        mean,
        invstd,
        running_mean,
        running_var,
    }
}

/// Evaluation mode's `invstd` in the forward kernel: `1 / sqrt(running_var + (scalar_t)eps)`
/// in the dtype.
pub(super) fn eval_invstd(running_var: &[f64], dtype: DType, eps: f64) -> Vec<f64> {
    let r = rounder(dtype);
    running_var
        .iter()
        .map(|&v| r(1.0 / r(r(v + r(eps)).sqrt())))
        .collect()
}

/// Evaluation mode's `invstd` in the backward kernel: `1 / sqrt(running_var + eps)` in
/// double, stored in the dtype.
pub(super) fn eval_invstd_backward(running_var: &[f64], dtype: DType, eps: f64) -> Vec<f64> {
    let r = rounder(dtype);
    running_var
        .iter()
        .map(|&v| r(1.0 / (v + eps).sqrt()))
        .collect()
}

/// `batch_norm_cpu_contiguous_impl`: `alpha = invstd * w`, `beta = b - mean * alpha`,
/// `y = x * alpha + beta` (multiply-adds fused).
pub(super) fn batch_output(
    x: &[f64],
    plan: &Plan,
    stats: (&[f64], &[f64]),
    weight: Option<&[f64]>,
    bias: Option<&[f64]>,
    dtype: DType,
) -> Vec<Scalar> {
    let r = rounder(dtype);
    let (mean, invstd) = stats;
    let alpha: Vec<f64> = (0..plan.stats)
        .map(|c| r(invstd[c] * weight.and_then(|w| w.get(c)).copied().unwrap_or(1.0)))
        .collect();
    let beta: Vec<f64> = (0..plan.stats)
        .map(|c| {
            let b = bias.and_then(|b| b.get(c)).copied().unwrap_or(0.0);
            fma(dtype, -mean[c], alpha[c], b)
        })
        .collect();
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let c = plan.stat(i);
            Scalar::Float(fma(dtype, v, alpha[c], beta[c]))
        })
        .collect()
}

/// `batch_norm_cpu_backward_contiguous_impl`'s gradients: input, weight and bias.
pub(super) struct BatchGrads {
    pub input: Vec<f64>,
    pub weight: Vec<f64>,
    pub bias: Vec<f64>,
}

/// The backward kernels: per channel `sum = Σ dy` and `dotp = Σ (x - mean) * dy` (each plane
/// reduced as `vec::reduce_all` does and summed in double, or, for the channels-last kernel,
/// one partial per thread in the dtype); in training `k = dotp * invstd * invstd / N`,
/// `dx = (x - mean) * k`, `gi = (dy - sum / N - dx) * invstd * w`; in evaluation
/// `gi = dy * invstd * w`.
#[allow(clippy::too_many_arguments)]
pub(super) fn batch_backward(
    x: &[f64],
    dy: &[f64],
    plan: &Plan,
    stats: (&[f64], &[f64]),
    weight: Option<&[f64]>,
    training: bool,
    dtype: DType,
    channels_last: bool,
) -> BatchGrads {
    let r = rounder(dtype);
    let (mean, invstd) = stats;
    let channels = plan.stats.max(1);
    let n = (x.len() / channels) as f64;
    let (sum, dotp) = if channels_last {
        let xs = row_major(x, plan);
        let gs = row_major(dy, plan);
        let chunks = thread_chunks(x.len() / channels);
        let mut sum = vec![0.0; channels];
        let mut dotp = vec![0.0; channels];
        for c in 0..channels {
            let (mut s, mut d) = (0.0, 0.0);
            for &(begin, end) in &chunks {
                let (mut ps, mut pd) = (0.0, 0.0);
                for row in begin..end {
                    let k = row * channels + c;
                    ps = r(ps + gs[k]);
                    pd = fma(dtype, r(xs[k] - mean[c]), gs[k], pd);
                }
                s += ps;
                d += pd;
            }
            sum[c] = r(s);
            dotp[c] = r(d);
        }
        (sum, dotp)
    } else {
        let inner = plan.stat_span.max(1);
        let batch = x.len() / (channels * inner);
        let mut sum = vec![0.0; channels];
        let mut dotp = vec![0.0; channels];
        for (c, m) in mean.iter().enumerate().take(channels) {
            for b in 0..batch {
                let at = (b * channels + c) * inner;
                let (xp, gp) = (&x[at..at + inner], &dy[at..at + inner]);
                sum[c] += reduce_all(gp, dtype);
                dotp[c] += dot_reduce_all(xp, gp, *m, dtype);
            }
        }
        (sum, dotp)
    };
    let w = |c: usize| weight.and_then(|w| w.get(c)).copied().unwrap_or(1.0);
    let k: Vec<f64> = (0..channels)
        .map(|c| r(r(r(r(dotp[c]) * invstd[c]) * invstd[c]) / n))
        .collect();
    let grad_mean: Vec<f64> = sum.iter().map(|s| r(s / n)).collect();
    let input = x
        .iter()
        .zip(dy)
        .enumerate()
        .map(|(i, (&v, &g))| {
            let c = plan.stat(i);
            if training {
                let dx = r(r(v - mean[c]) * k[c]);
                r(r(r(r(g - grad_mean[c]) - dx) * invstd[c]) * w(c))
            } else {
                r(r(g * invstd[c]) * w(c))
            }
        })
        .collect();
    BatchGrads {
        input,
        weight: (0..channels).map(|c| r(dotp[c] * invstd[c])).collect(),
        bias: sum.into_iter().map(&r).collect(),
    }
}

/// Lanes of ATen's `Vectorized` for the dtype on an AVX-512 CPU.
fn lanes(dtype: DType) -> usize {
    if dtype == DType::Float64 {
        8
    } else {
        16
    }
}

/// `vec::reduce_all(x + y)` over a plane: a left fold below one vector; else lane-wise sums
/// of whole vectors (the partial last one into its first lanes), then the halves added
/// pairwise (lanes `i` and `i ^ 8`, `^ 4`, `^ 2`, `^ 1`).
fn reduce_all(v: &[f64], dtype: DType) -> f64 {
    lane_reduce(v.len(), dtype, |i| v[i], |acc, i| acc + v[i])
}

/// `vec::map2_reduce_all((x - mean) * dy, x + y)` over a plane (multiply-adds fused in the
/// vector loop).
fn dot_reduce_all(x: &[f64], dy: &[f64], mean: f64, dtype: DType) -> f64 {
    let r = rounder(dtype);
    let product = |i: usize| r(r(x[i] - mean) * dy[i]);
    lane_reduce(len_min(x, dy), dtype, product, |acc, i| {
        fma(dtype, r(x[i] - mean), dy[i], acc)
    })
}

fn len_min(a: &[f64], b: &[f64]) -> usize {
    a.len().min(b.len())
}

/// The reduction shape of `vec::reduce_all`: `first(i)` is element `i` mapped, `step(acc, i)`
/// adds element `i` into a lane (before the result is rounded to the dtype).
fn lane_reduce(
    len: usize,
    dtype: DType,
    first: impl Fn(usize) -> f64,
    step: impl Fn(f64, usize) -> f64,
) -> f64 {
    let r = rounder(dtype);
    let width = lanes(dtype);
    if len == 0 {
        return 0.0;
    }
    if len < width {
        let mut acc = first(0);
        for i in 1..len {
            acc = r(acc + first(i));
        }
        return acc;
    }
    let mut acc: Vec<f64> = (0..width).map(&first).collect();
    let mut d = width;
    while d < len {
        let count = (len - d).min(width);
        for (l, lane) in acc.iter_mut().enumerate().take(count) {
            *lane = r(step(*lane, d + l));
        }
        d += width;
    }
    let mut half = width / 2;
    while half >= 1 {
        let before = acc.clone();
        for (i, lane) in acc.iter_mut().enumerate() {
            *lane = r(before[i] + before[i ^ half]);
        }
        half /= 2;
    }
    acc[0]
}

/// The threads ATen's CPU kernels share work among on the machines PyTorch was measured on.
const THREADS: i64 = 2;

/// The buffers `batch_norm`'s CPU kernel allocates after its output (measured with
/// `torch.profiler`, `(N, C)` and `(N, C, H, W)` inputs): in training the batch's mean and
/// variance sums (`C` each, freed) and, on the channels-last path with more rows than
/// threads, a `threads × C` table of per-thread partial sums in the op-math type; then the
/// transform's per-channel scale and shift (`C` each, freed). The saved mean and inverse
/// standard deviation (`C` each) are the node's; without a node they are freed at the end.
pub(super) fn batch_norm_kernel_events(
    x: &Tensor,
    channels: i64,
    training: bool,
    channels_last: bool,
    has_node: bool,
) -> Vec<i64> {
    let stats = channels * x.dtype.item_size() as i64;
    let unkept = training && !has_node;
    let mut events = Vec::new();
    if unkept {
        events.extend([stats, stats]);
    }
    if training {
        events.extend([stats, stats]);
        let rows = x.numel() / channels.max(1);
        if channels_last && rows > THREADS {
            let opmath = if x.dtype == DType::Float64 { 8 } else { 4 };
            let partials = THREADS * channels * opmath;
            events.extend([partials, -partials]);
        }
        events.extend([-stats, -stats]);
    }
    events.extend([stats, stats, -stats, -stats]);
    if unkept {
        events.extend([-stats, -stats]);
    }
    events
}
