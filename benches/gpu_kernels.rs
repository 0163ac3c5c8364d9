//! `cargo bench --bench gpu_kernels`: the GPU layout-conversion kernels against
//! `copy_buffer_to_buffer` and the CPU engine (the same cases as `stridescope bench`).
//! `cargo bench --bench gpu_kernels -- nchw` runs the cases whose kernel or dtype contains
//! `nchw`. Under `cargo test --all-targets` (no `--bench` flag) it only says so and exits.

use stridescope::engines::gpu::GpuEngine;
use stridescope::shells::bench::gpu as bench;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--bench") {
        println!(
            "gpu_kernels: run with `cargo bench --bench gpu_kernels` (skipped under cargo test)"
        );
        return;
    }
    let only = args.iter().find(|a| !a.starts_with("--")).cloned();
    let mut gpu = match GpuEngine::new_blocking() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("gpu_kernels: {e}");
            std::process::exit(2);
        }
    };
    let report = bench::run(&mut gpu, only.as_deref(), &mut |line| eprintln!("{line}"));
    println!("{}", report.table());
}
