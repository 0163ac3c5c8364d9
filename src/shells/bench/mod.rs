//! Benchmarks shared by the command line and the browser: the GPU layout kernels, the GPU
//! renderer's frames, and the browser's WebGPU bench page.

pub mod gpu;
#[cfg(not(target_arch = "wasm32"))]
pub mod render;
pub mod web;
