//! `cargo bench --bench render`: GPU frames of large views offscreen at 1920×1080 (the
//! same cases as `stridescope render-bench`), each verified against the CPU reference.
//! Under `cargo test --all-targets` (no `--bench` flag) it only says so and exits.

use stridescope::engines::gpu::GpuEngine;
use stridescope::shells::bench::render as render_bench;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("render: run with `cargo bench --bench render` (skipped under cargo test)");
        return;
    }
    let mut gpu = match GpuEngine::new_blocking() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("render: {e}");
            std::process::exit(2);
        }
    };
    let report = render_bench::run(&mut gpu, &mut |line| eprintln!("{line}"));
    println!("{}", report.table());
}
