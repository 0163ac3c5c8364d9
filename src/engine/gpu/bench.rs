//! `stridescope bench`: the layout-conversion kernels timed on the GPU, against the
//! adapter's own `copy_buffer_to_buffer` of the same bytes and against the CPU engine.
//! Figures are bytes read + written over the median time of several runs.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::GpuEngine;
use crate::engine::{CpuEngine, Engine};
use crate::tensor::layout::{channels_last_strides, contiguous_strides};
use crate::tensor::{DType, Layout, StorageId, Tensor};

/// Timed runs per figure (the median is reported).
const GPU_RUNS: usize = 5;
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
struct Case {
    kernel: &'static str,
    dtype: DType,
    /// Shape and strides of the source view (over a contiguous storage of the same numel).
    src_shape: Vec<i64>,
    src_strides: Vec<i64>,
    /// Strides of the destination (same shape as the source view).
    dst_strides: Vec<i64>,
}

fn cases() -> Vec<Case> {
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
fn pseudo_random_bytes(n: usize, seed: u64) -> Vec<u8> {
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

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times
        .get(times.len() / 2)
        .copied()
        .unwrap_or(Duration::from_secs(1))
}

fn gbps(bytes: u64, time: Duration) -> f64 {
    let secs = time.as_secs_f64().max(1e-9);
    (bytes as f64 / secs / 1e9 * 1000.0).round() / 1000.0
}

/// Runs every case (or those whose kernel or dtype name contains `only`); `progress` gets
/// one line per finished case.
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

fn run_case(gpu: &mut GpuEngine, case: &Case, seed: u64) -> BenchResult {
    let numel: i64 = case.src_shape.iter().product();
    let item = case.dtype.item_size();
    let nbytes = numel as usize * item;
    let bytes_moved = 2 * nbytes as u64;
    let data = pseudo_random_bytes(nbytes, seed);
    let view = |storage: StorageId, strides: &[i64]| Tensor {
        storage,
        dtype: case.dtype,
        layout: Layout {
            shape: case.src_shape.clone(),
            strides: strides.to_vec(),
            offset: 0,
        },
    };

    // The GPU kernel.
    let src_id = gpu.allocate_with(data.clone());
    let dst_id = gpu.allocate(nbytes);
    let (src, dst) = (
        view(src_id, &case.src_strides),
        view(dst_id, &case.dst_strides),
    );
    gpu.copy(&dst, &src);
    gpu.wait_idle();
    let mut times = Vec::with_capacity(GPU_RUNS);
    for _ in 0..GPU_RUNS {
        let start = Instant::now();
        gpu.copy(&dst, &src);
        gpu.wait_idle();
        times.push(start.elapsed());
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
            gpu.storages.get(&src_id).and_then(|s| s.buffer.clone()),
            gpu.storages.get(&dst_id).and_then(|s| s.buffer.clone()),
        );
        match buffers {
            (Some(a), Some(b)) => {
                let size = a.size().min(b.size());
                let mut times = Vec::with_capacity(GPU_RUNS);
                for run in 0..=GPU_RUNS {
                    let start = Instant::now();
                    let mut encoder = gpu.encoder();
                    encoder.copy_buffer_to_buffer(&a, 0, &b, 0, size);
                    gpu.submit(encoder);
                    gpu.wait_idle();
                    if run > 0 {
                        times.push(start.elapsed());
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
    let (src, dst) = (
        view(cpu_src, &case.src_strides),
        view(cpu_dst, &case.dst_strides),
    );
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
