//! The browser's GPU benchmark (`www/bench.html`, `www/bench.js`): the cases of
//! `stridescope bench` run through WebGPU, each run being the copy plus reading the result
//! back, and verified against the CPU engine. The page puts TensorFlow.js's transposes of
//! the same shapes beside them.
//!
//! A thin shell over [`crate::shells::bench::gpu`]: the functions below are exported to
//! JavaScript and answer JSON text; every failure reaches the page as a rejected promise
//! whose value is a readable message. The page's wasm is the app's: `main` does not mount
//! the app when the page's `<body>` says `data-page="bench"` ([`is_bench_page`]).
#![cfg(target_arch = "wasm32")]

use std::cell::{Cell, RefCell};

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::core::tensor::DType;
use crate::engines::gpu::GpuEngine;
use crate::shells::bench::gpu::{cases, run_case_with_readback, Case};

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`: milliseconds, sub-millisecond resolution.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

thread_local! {
    /// The engine kept between calls (device and pipelines are made once).
    static ENGINE: RefCell<Option<GpuEngine>> = const { RefCell::new(None) };
    /// True while an exported call is using the engine.
    static BUSY: Cell<bool> = const { Cell::new(false) };
}

/// True on the benchmark page (`<body data-page="bench">`), where the app is not mounted.
pub fn is_bench_page() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
        .and_then(|b| b.get_attribute("data-page"))
        .is_some_and(|page| page == "bench")
}

/// One case as the page lists it.
#[derive(Serialize)]
struct CaseInfo {
    index: usize,
    kernel: &'static str,
    /// The logical shape (`stridescope bench`'s).
    shape: Vec<i64>,
    dtype: &'static str,
    /// Bytes read + written by one run.
    bytes: u64,
    /// The same copy as a transpose of dense arrays: the source's shape and the permutation.
    transpose_shape: Vec<i64>,
    perm: Vec<usize>,
    /// TensorFlow.js's dtype of the same element type, or null where it has none.
    tfjs_dtype: Option<&'static str>,
    /// Why TensorFlow.js cannot run this case (null where it can).
    tfjs_missing: Option<String>,
}

/// TensorFlow.js's dtype for `dtype`, where it stores the same bytes per element (its
/// WebGPU backend has float32 and int32 only, among the element types of these cases).
fn tfjs_dtype(dtype: DType) -> Result<&'static str, String> {
    match dtype {
        DType::Float32 => Ok("float32"),
        DType::Int32 => Ok("int32"),
        other => Err(format!("TensorFlow.js has no {} tensors", other.name())),
    }
}

fn case_info(index: usize, case: &Case) -> CaseInfo {
    let (transpose_shape, perm) = case.as_dense_transpose();
    let tfjs = tfjs_dtype(case.dtype);
    CaseInfo {
        index,
        kernel: case.kernel,
        shape: case.src_shape.clone(),
        dtype: case.dtype.name(),
        bytes: case.bytes_moved(),
        transpose_shape,
        perm,
        tfjs_dtype: tfjs.as_ref().ok().copied(),
        tfjs_missing: tfjs.err(),
    }
}

fn to_json<T: Serialize>(value: &T) -> Result<String, JsValue> {
    serde_json::to_string(value).map_err(|e| JsValue::from_str(&format!("JSON: {e}")))
}

/// The benchmark's cases, as JSON: `[{index, kernel, shape, dtype, bytes, transpose_shape,
/// perm, tfjs_dtype, tfjs_missing}]`.
#[wasm_bindgen(js_name = gpuBenchCases)]
pub fn gpu_bench_cases() -> Result<String, JsValue> {
    let list: Vec<CaseInfo> = cases()
        .iter()
        .enumerate()
        .map(|(i, c)| case_info(i, c))
        .collect();
    to_json(&list)
}

/// Marks the engine busy for the life of one exported call.
struct BusyGuard;

impl BusyGuard {
    fn acquire() -> Result<BusyGuard, JsValue> {
        if BUSY.with(|b| b.replace(true)) {
            return Err(JsValue::from_str("a benchmark run is already in progress"));
        }
        Ok(BusyGuard)
    }
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        BUSY.with(|b| b.set(false));
    }
}

/// The engine kept between calls, or a new one.
async fn take_engine() -> Result<GpuEngine, JsValue> {
    if let Some(engine) = ENGINE.with(|e| e.borrow_mut().take()) {
        return Ok(engine);
    }
    GpuEngine::new()
        .await
        .map_err(|e| JsValue::from_str(&e.to_string()))
}

/// What the GPU engine found, as JSON: `{name, backend, device_type, transpose_kernel}`.
#[derive(Serialize)]
struct AdapterReport {
    name: String,
    backend: String,
    device_type: String,
    /// Which transpose kernel the engine picks on this adapter.
    transpose_kernel: &'static str,
}

/// Opens the GPU engine (once) and describes its adapter, as JSON. Rejects with a readable
/// message when there is no WebGPU adapter.
#[wasm_bindgen(js_name = gpuBenchAdapter)]
pub async fn gpu_bench_adapter() -> Result<String, JsValue> {
    console_error_panic_hook::set_once();
    let _busy = BusyGuard::acquire()?;
    let engine = take_engine().await?;
    let info = engine.adapter_info().clone();
    ENGINE.with(|e| *e.borrow_mut() = Some(engine));
    let cpu = info.device_type == wgpu::DeviceType::Cpu;
    to_json(&AdapterReport {
        name: info.name,
        backend: format!("{:?}", info.backend),
        device_type: format!("{:?}", info.device_type),
        transpose_kernel: if cpu {
            "register-tiled (CPU adapter: no workgroup barriers)"
        } else {
            "workgroup-memory 32x32 tile (4- and 8-byte elements)"
        },
    })
}

/// Runs case `index` with `runs` timed runs (after one warm-up), verifies it against the CPU
/// engine and answers [`crate::shells::bench::gpu::ReadbackResult`] as JSON.
#[wasm_bindgen(js_name = gpuBenchRun)]
pub async fn gpu_bench_run(index: usize, runs: usize) -> Result<String, JsValue> {
    console_error_panic_hook::set_once();
    let all = cases();
    let case = all.get(index).ok_or_else(|| {
        JsValue::from_str(&format!("no case {index} (there are {} cases)", all.len()))
    })?;
    let _busy = BusyGuard::acquire()?;
    let mut engine = take_engine().await?;
    let result =
        run_case_with_readback(&mut engine, case, index as u64 + 1, runs, &performance_now).await;
    match result {
        Ok(result) => {
            ENGINE.with(|e| *e.borrow_mut() = Some(engine));
            to_json(&result)
        }
        // A failed read-back may mean a lost device: the next call opens a new one.
        Err(e) => Err(JsValue::from_str(&format!(
            "{} {:?} {}: {e}",
            case.kernel,
            case.src_shape,
            case.dtype.name()
        ))),
    }
}
