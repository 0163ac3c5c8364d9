//! `cargo bench --bench gpu_kernels`: the GPU layout-conversion kernels against
//! `copy_buffer_to_buffer` and the CPU engine (the same cases as `stridescope bench`).

use stridescope::engine::gpu::{bench, GpuEngine};

fn main() {
    // `cargo bench` passes `--bench`; a further argument filters the cases.
    let only = std::env::args().skip(1).find(|a| !a.starts_with("--"));
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
