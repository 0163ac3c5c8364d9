//! The `stridescope` binary: the command line natively, the web app in the browser (or,
//! on the benchmark page, nothing until the page calls `web_bench`).

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(stridescope::shells::cli::run(&args));
}

#[cfg(target_arch = "wasm32")]
fn main() {
    // The benchmark page (www/bench.html) loads the same wasm and drives
    // `stridescope::shells::bench::web` itself: only the app's page mounts the app.
    if !stridescope::shells::bench::web::is_bench_page() {
        stridescope::shells::web::mount();
    }
}
