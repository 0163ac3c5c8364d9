//! `stridescope bench`: the layout-conversion kernels timed on the GPU, against the
//! adapter's own `copy_buffer_to_buffer` of the same bytes and against the CPU engine.
//! Figures are bytes read + written over the median time of several runs.
//!
//! The cases ([`cases`]) are shared with the browser's benchmark page (`www/bench.html`,
//! through `web_bench`), which times them with [`run_case_with_readback`]: each run is the
//! copy plus reading the result back, as a web page must (and as TensorFlow.js's
//! `await tensor.data()` does), so the page can compare with TensorFlow.js's transposes.

#[cfg(not(target_arch = "wasm32"))]
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::core::tensor::layout::{channels_last_strides, contiguous_strides};
use crate::core::tensor::{DType, Layout, StorageId, Tensor};
use crate::engines::gpu::{GpuEngine, GpuError};
use crate::engines::{CpuEngine, Engine};

/// Timed runs per figure (the median is reported).
#[cfg(not(target_arch = "wasm32"))]
const GPU_RUNS: usize = 5;
#[cfg(not(target_arch = "wasm32"))]
const CPU_RUNS: usize = 3;

/// The whole report, as `stridescope bench --json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// The adapter's name (`llvmpipe (LLVM 15.0.6, 256 bits)`).
    pub adapter: String,
    /// The backend (`Vulkan`, `Gl`, `BrowserWebGpu`).
    pub backend: String,
    pub results: Vec<BenchResult>,
}

/// One kernel on one shape and dtype.
#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    /// `transpose_2d`, `nchw_to_nhwc`, `nhwc_to_nchw`, `permute_3d`.
    pub kernel: String,
    /// The logical shape of the result.
    pub shape: Vec<i64>,
    pub dtype: String,
    /// Bytes read + written by one run.
    pub bytes: u64,
    /// Our kernel: bytes over the median time.
    pub gpu_gbps: f64,
    /// `copy_buffer_to_buffer` of the same number of bytes, same adapter, same run.
    pub copy_gbps: f64,
    /// The CPU engine's copy of the same views.
    pub cpu_gbps: f64,
    /// The GPU result equals the CPU engine's, byte for byte.
    pub verified: bool,
}

/// One benchmark case: copy `src` (a view of a contiguous storage) into a fresh storage
/// laid out as `dst_strides`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// `transpose_2d`, `nchw_to_nhwc`, `nhwc_to_nchw`, `permute_3d`.
    pub kernel: &'static str,
    pub dtype: DType,
    /// Shape and strides of the source view (over a contiguous storage of the same numel).
    pub src_shape: Vec<i64>,
    pub src_strides: Vec<i64>,
    /// Strides of the destination (same shape as the source view).
    pub dst_strides: Vec<i64>,
}

impl Case {
    /// Number of elements.
    pub fn numel(&self) -> i64 {
        self.src_shape.iter().product()
    }

    /// Bytes read + written by one run.
    pub fn bytes_moved(&self) -> u64 {
        2 * self.numel() as u64 * self.dtype.item_size() as u64
    }

    /// The same copy as a transpose of dense arrays (what `tf.transpose` and
    /// `numpy.transpose` take): the shape of the source storage read as a contiguous array,
    /// and the permutation `perm` such that `transpose(source, perm)` is the destination
    /// storage read as a contiguous array (output dim `j` is source dim `perm[j]`).
    pub fn as_dense_transpose(&self) -> (Vec<i64>, Vec<usize>) {
        // Physical order of the logical dims in each storage: outermost (largest stride)
        // first.
        let order = |strides: &[i64]| {
            let mut dims: Vec<usize> = (0..strides.len()).collect();
            crate::core::tensor::stable_sort::sort_by(&mut dims, |&a, &b| {
                strides[b].cmp(&strides[a]).then(a.cmp(&b))
            });
            dims
        };
        let src_order = order(&self.src_strides);
        let dst_order = order(&self.dst_strides);
        let shape = src_order.iter().map(|&d| self.src_shape[d]).collect();
        let perm = dst_order
            .iter()
            .map(|d| src_order.iter().position(|s| s == d).unwrap_or(0))
            .collect();
        (shape, perm)
    }

    /// The source and destination views of this case over storages `src` and `dst`.
    fn views(&self, src: StorageId, dst: StorageId) -> (Tensor, Tensor) {
        let view = |storage: StorageId, strides: &[i64]| Tensor {
            storage,
            dtype: self.dtype,
            layout: Layout {
                shape: self.src_shape.clone(),
                strides: strides.to_vec(),
                offset: 0,
            },
        };
        (view(src, &self.src_strides), view(dst, &self.dst_strides))
    }
}

/// The benchmark's cases, in the order `stridescope bench` prints them (the seed of case
/// `i`'s data is `i + 1`).
pub fn cases() -> Vec<Case> {
    let square = vec![4096i64, 4096];
    let nchw = vec![8i64, 64, 128, 256];
    let cube = vec![256i64, 256, 256];
    let nchw_to_nhwc = |dtype| Case {
        kernel: "nchw_to_nhwc",
        dtype,
        src_shape: nchw.clone(),
        src_strides: contiguous_strides(&nchw),
        dst_strides: channels_last_strides(&nchw),
    };
    vec![
        Case {
            kernel: "transpose_2d",
            dtype: DType::Float32,
            src_shape: square.clone(),
            // `.t()` of a contiguous 4096x4096.
            src_strides: vec![1, 4096],
            dst_strides: contiguous_strides(&square),
        },
        nchw_to_nhwc(DType::Float32),
        Case {
            kernel: "nhwc_to_nchw",
            dtype: DType::Float32,
            src_shape: nchw.clone(),
            src_strides: channels_last_strides(&nchw),
            dst_strides: contiguous_strides(&nchw),
        },
        Case {
            kernel: "permute_3d",
            dtype: DType::Float32,
            // `permute(2, 0, 1)` of a contiguous 256^3.
            src_shape: cube.clone(),
            src_strides: vec![1, 65536, 256],
            dst_strides: contiguous_strides(&cube),
        },
        nchw_to_nhwc(DType::Int64),
        nchw_to_nhwc(DType::Float16),
        nchw_to_nhwc(DType::UInt8),
    ]
}

/// Deterministic pseudo-random bytes (every bit pattern, NaNs included).
pub fn pseudo_random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(&state.to_le_bytes());
    }
    out.truncate(n);
    out
}

#[cfg(not(target_arch = "wasm32"))]
fn median(mut times: Vec<Duration>) -> Duration {
    crate::core::tensor::stable_sort::sort(&mut times);
    times
        .get(times.len() / 2)
        .copied()
        .unwrap_or(Duration::from_secs(1))
}

#[cfg(not(target_arch = "wasm32"))]
fn gbps(bytes: u64, time: Duration) -> f64 {
    let secs = time.as_secs_f64().max(1e-9);
    (bytes as f64 / secs / 1e9 * 1000.0).round() / 1000.0
}

/// Runs every case (or those whose kernel or dtype name contains `only`); `progress` gets
/// one line per finished case.
#[cfg(not(target_arch = "wasm32"))]
pub fn run(gpu: &mut GpuEngine, only: Option<&str>, progress: &mut dyn FnMut(&str)) -> BenchReport {
    let info = gpu.adapter_info().clone();
    let mut results = Vec::new();
    for (i, case) in cases().into_iter().enumerate() {
        if let Some(filter) = only {
            if !case.kernel.contains(filter) && !case.dtype.name().contains(filter) {
                continue;
            }
        }
        let result = run_case(gpu, &case, i as u64 + 1);
        progress(&format!(
            "{} {:?} {}: gpu {:.3} GB/s, copy {:.3} GB/s, cpu {:.3} GB/s, verified {}",
            result.kernel,
            result.shape,
            result.dtype,
            result.gpu_gbps,
            result.copy_gbps,
            result.cpu_gbps,
            result.verified
        ));
        results.push(result);
    }
    BenchReport {
        adapter: info.name,
        backend: format!("{:?}", info.backend),
        results,
    }
}

/// Copies per timed run. On a real GPU one 134 MB copy takes a fraction of a millisecond,
/// less than encoding it and than a submit-and-wait round trip, so each timed run encodes
/// the same work this many times, then times their one submission until the GPU is idle,
/// divided by this (the same for the kernel and for `copy_buffer_to_buffer`). CPU adapters
/// take tens of milliseconds per copy: one is enough.
#[cfg(not(target_arch = "wasm32"))]
fn reps_per_run(gpu: &GpuEngine) -> u32 {
    if gpu.adapter_info().device_type == wgpu::DeviceType::Cpu {
        1
    } else {
        100
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn run_case(gpu: &mut GpuEngine, case: &Case, seed: u64) -> BenchResult {
    let nbytes = case.numel() as usize * case.dtype.item_size();
    let bytes_moved = case.bytes_moved();
    let data = pseudo_random_bytes(nbytes, seed);

    // The GPU kernel.
    let src_id = gpu.allocate_with(data.clone());
    let dst_id = gpu.allocate(nbytes);
    let (src, dst) = case.views(src_id, dst_id);
    gpu.copy(&dst, &src);
    gpu.wait_idle();
    let reps = reps_per_run(gpu);
    let mut times = Vec::with_capacity(GPU_RUNS);
    for _ in 0..GPU_RUNS {
        // Encoded first, then timed from their one submission to the GPU going idle.
        gpu.defer_submissions();
        for _ in 0..reps {
            gpu.copy(&dst, &src);
        }
        let start = Instant::now();
        gpu.submit_deferred();
        gpu.wait_idle();
        times.push(start.elapsed() / reps);
    }
    let gpu_time = median(times);
    if std::env::var_os("STRIDESCOPE_BENCH_CPU_TIME").is_some() {
        // Development aid on CPU adapters: the process's CPU time for 5 more runs (steadier
        // than wall time on a busy machine).
        let before = process_cpu_ticks();
        for _ in 0..5 {
            gpu.copy(&dst, &src);
            gpu.wait_idle();
        }
        let ticks = process_cpu_ticks().saturating_sub(before);
        eprintln!(
            "{} {}: {} CPU ticks for 5 runs",
            case.kernel,
            case.dtype.name(),
            ticks
        );
    }
    let gpu_result = gpu.read_storage(dst_id);

    // The adapter's own copy of the same bytes.
    let copy_time = {
        let buffers = (
            gpu.storage_buffer(src_id).and_then(|s| s.buffer),
            gpu.storage_buffer(dst_id).and_then(|s| s.buffer),
        );
        match buffers {
            (Some(a), Some(b)) => {
                let size = a.size().min(b.size());
                let mut times = Vec::with_capacity(GPU_RUNS);
                for run in 0..=GPU_RUNS {
                    gpu.defer_submissions();
                    for _ in 0..reps {
                        let mut encoder = gpu.encoder();
                        encoder.copy_buffer_to_buffer(&a, 0, &b, 0, size);
                        gpu.submit(encoder);
                    }
                    let start = Instant::now();
                    gpu.submit_deferred();
                    gpu.wait_idle();
                    if run > 0 {
                        times.push(start.elapsed() / reps);
                    }
                }
                median(times)
            }
            _ => Duration::from_secs(1),
        }
    };
    gpu.free(src_id);
    gpu.free(dst_id);
    let _ = gpu.take_op_log();

    // The CPU engine.
    let mut cpu = CpuEngine::new();
    let cpu_src = cpu.allocate_with(data);
    let cpu_dst = cpu.allocate(nbytes);
    let (src, dst) = case.views(cpu_src, cpu_dst);
    let mut times = Vec::with_capacity(CPU_RUNS);
    for _ in 0..CPU_RUNS {
        let start = Instant::now();
        cpu.copy(&dst, &src);
        times.push(start.elapsed());
    }
    let cpu_time = median(times);
    let cpu_result = cpu.read_storage(cpu_dst);

    BenchResult {
        kernel: case.kernel.to_string(),
        shape: case.src_shape.clone(),
        dtype: case.dtype.name().to_string(),
        bytes: bytes_moved,
        gpu_gbps: gbps(bytes_moved, gpu_time),
        copy_gbps: gbps(bytes_moved, copy_time),
        cpu_gbps: gbps(bytes_moved, cpu_time),
        verified: gpu_result == cpu_result,
    }
}

/// One case timed as a web page must time it: each run is the copy plus reading the whole
/// result back (the browser's `mapAsync`), as TensorFlow.js's `await tensor.data()` does.
#[derive(Clone, Debug, Serialize)]
pub struct ReadbackResult {
    pub kernel: String,
    /// The logical shape of the result.
    pub shape: Vec<i64>,
    pub dtype: String,
    /// Bytes read + written by one run (the read-back not counted).
    pub bytes: u64,
    /// Every timed run, in milliseconds.
    pub runs_ms: Vec<f64>,
    /// The median run.
    pub median_ms: f64,
    /// `bytes` over the median run.
    pub gbps: f64,
    /// The last timed run's result equals the CPU engine's copy, byte for byte.
    pub verified: bool,
    /// `gpu` when every timed copy ran as a compute shader; otherwise the GPU engine's
    /// reason for handing it to the CPU engine.
    pub engine: String,
}

/// Times `case` on `gpu` with `runs` timed runs after one warm-up run, each run being the
/// copy and the read-back of the result, then verifies the last result against the CPU
/// engine. `now` is a clock in milliseconds (`performance.now()` in the browser). Never
/// blocks in the browser: every read-back is awaited.
pub async fn run_case_with_readback(
    gpu: &mut GpuEngine,
    case: &Case,
    seed: u64,
    runs: usize,
    now: &dyn Fn() -> f64,
) -> Result<ReadbackResult, GpuError> {
    let nbytes = case.numel() as usize * case.dtype.item_size();
    let src_id = gpu.allocate_with(pseudo_random_bytes(nbytes, seed));
    let dst_id = gpu.allocate(nbytes);
    let _ = gpu.take_op_log();
    let timed = time_with_readback(gpu, case, src_id, dst_id, runs.max(1), now).await;
    gpu.free(src_id);
    gpu.free(dst_id);
    let log = gpu.take_op_log();
    let (runs_ms, gpu_result) = timed?;
    let engine = match log.iter().find(|r| r.engine != "gpu") {
        None => "gpu".to_string(),
        Some(r) => format!(
            "cpu: {}",
            r.reason.clone().unwrap_or_else(|| "unknown".to_string())
        ),
    };

    // The reference, from the same bytes (regenerated: the GPU engine's copy is freed).
    let cpu_result = {
        let mut cpu = CpuEngine::new();
        let src_id = cpu.allocate_with(pseudo_random_bytes(nbytes, seed));
        let dst_id = cpu.allocate(nbytes);
        let (src, dst) = case.views(src_id, dst_id);
        cpu.copy(&dst, &src);
        cpu.read_storage(dst_id)
    };

    let mut sorted = runs_ms.clone();
    crate::core::tensor::stable_sort::sort_by(&mut sorted, f64::total_cmp);
    let median_ms = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
    let bytes = case.bytes_moved();
    Ok(ReadbackResult {
        kernel: case.kernel.to_string(),
        shape: case.src_shape.clone(),
        dtype: case.dtype.name().to_string(),
        bytes,
        runs_ms,
        median_ms,
        gbps: bytes as f64 / (median_ms.max(1e-6) / 1000.0) / 1e9,
        verified: gpu_result == cpu_result,
        engine,
    })
}

/// The warm-up run and `runs` timed runs of one case: (milliseconds per run, last result).
async fn time_with_readback(
    gpu: &mut GpuEngine,
    case: &Case,
    src_id: StorageId,
    dst_id: StorageId,
    runs: usize,
    now: &dyn Fn() -> f64,
) -> Result<(Vec<f64>, Vec<u8>), GpuError> {
    let (src, dst) = case.views(src_id, dst_id);
    gpu.copy(&dst, &src);
    let mut result = gpu.read_later(dst_id).await?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = now();
        gpu.copy(&dst, &src);
        result = gpu.read_later(dst_id).await?;
        times.push(now() - start);
    }
    Ok((times, result))
}

impl BenchReport {
    /// Geometric mean of `gpu_gbps / copy_gbps` over the results.
    pub fn geomean_vs_copy(&self) -> f64 {
        geomean(
            self.results
                .iter()
                .map(|r| r.gpu_gbps / r.copy_gbps.max(1e-9)),
        )
    }

    /// Geometric mean of `gpu_gbps / cpu_gbps` over the results.
    pub fn geomean_vs_cpu(&self) -> f64 {
        geomean(
            self.results
                .iter()
                .map(|r| r.gpu_gbps / r.cpu_gbps.max(1e-9)),
        )
    }

    /// A readable table.
    pub fn table(&self) -> String {
        let mut out = format!("adapter: {} ({})\n", self.adapter, self.backend);
        out.push_str(&format!(
            "{:<14} {:<18} {:<8} {:>10} {:>9} {:>9} {:>9} {:>8} {:>8} {:>8}\n",
            "kernel",
            "shape",
            "dtype",
            "MB moved",
            "gpu GB/s",
            "copy GB/s",
            "cpu GB/s",
            "gpu/copy",
            "gpu/cpu",
            "verified"
        ));
        for r in &self.results {
            let shape = r
                .shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("x");
            out.push_str(&format!(
                "{:<14} {:<18} {:<8} {:>10.1} {:>9.3} {:>9.3} {:>9.3} {:>8.3} {:>8.2} {:>8}\n",
                r.kernel,
                shape,
                r.dtype,
                r.bytes as f64 / 1e6,
                r.gpu_gbps,
                r.copy_gbps,
                r.cpu_gbps,
                r.gpu_gbps / r.copy_gbps.max(1e-9),
                r.gpu_gbps / r.cpu_gbps.max(1e-9),
                r.verified
            ));
        }
        out.push_str(&format!(
            "geometric mean: gpu/copy {:.3}, gpu/cpu {:.2}",
            self.geomean_vs_copy(),
            self.geomean_vs_cpu()
        ));
        out
    }
}

fn geomean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v.max(1e-12).ln(), n + 1));
    if n == 0 {
        0.0
    } else {
        (sum / n as f64).exp()
    }
}

/// utime + stime of this process in clock ticks (Linux; 0 elsewhere).
#[cfg(not(target_arch = "wasm32"))]
fn process_cpu_ticks() -> u64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0;
    };
    let Some(after_name) = stat.rsplit(')').next() else {
        return 0;
    };
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // Fields 14 and 15 of stat; after the name, 12 and 13 (0-based from the state field).
    field(11) + field(12)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn cases_as_dense_transposes() {
        let perms: Vec<(&str, Vec<i64>, Vec<usize>)> = cases()
            .iter()
            .map(|c| {
                let (shape, perm) = c.as_dense_transpose();
                (c.kernel, shape, perm)
            })
            .collect();
        assert_eq!(perms[0], ("transpose_2d", vec![4096, 4096], vec![1, 0]));
        assert_eq!(
            perms[1],
            ("nchw_to_nhwc", vec![8, 64, 128, 256], vec![0, 2, 3, 1])
        );
        assert_eq!(
            perms[2],
            ("nhwc_to_nchw", vec![8, 128, 256, 64], vec![0, 3, 1, 2])
        );
        assert_eq!(perms[3], ("permute_3d", vec![256, 256, 256], vec![2, 0, 1]));
    }

    /// The browser's runner, natively on a small case (needs an adapter: lavapipe here).
    #[test]
    fn readback_runner_verifies_against_the_cpu_engine() {
        let shape = vec![2i64, 8, 12, 16];
        let case = Case {
            kernel: "nchw_to_nhwc",
            dtype: DType::Float16,
            src_shape: shape.clone(),
            src_strides: contiguous_strides(&shape),
            dst_strides: channels_last_strides(&shape),
        };
        let mut gpu = GpuEngine::new_blocking().expect("a GPU adapter (lavapipe)");
        let start = Instant::now();
        let clock = || start.elapsed().as_secs_f64() * 1000.0;
        let result =
            pollster::block_on(run_case_with_readback(&mut gpu, &case, 7, 3, &clock)).unwrap();
        assert!(result.verified);
        assert_eq!(result.engine, "gpu");
        assert_eq!(result.runs_ms.len(), 3);
        assert_eq!(result.bytes, 2 * 2 * 8 * 12 * 16 * 2);
    }
}
