//! The shells: the web app (Leptos), the command line and the benchmarks. Nothing imports a
//! shell.

pub mod bench;
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
#[cfg(target_arch = "wasm32")]
pub mod web;
