//! The `stridescope` binary: the command line natively, the web app in the browser.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(stridescope::cli::run(&args));
}

#[cfg(target_arch = "wasm32")]
fn main() {
    stridescope::app::mount();
}
