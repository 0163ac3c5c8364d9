//! Stridescope: run PyTorch notebook scripts and see how tensors live in memory.
//!
//! The layers, from the bottom (imports point down only; `tests/layers.rs` checks it):
//! [`core`] (the tensor model, layout math, printouts, the trace: pure data),
//! [`lang`] (parsing the notebook language), [`engines`] (where bytes live and move: the CPU
//! reference engine and the GPU engine), [`interp`] (Python's and PyTorch's semantics,
//! statement by statement), [`lessons`] (the lesson format and its grading), [`present`]
//! (what the views draw: pure, no DOM, no wgpu), [`painters`] (the GPU render path) and
//! [`shells`] (the web app, the command line, the benchmarks).
//! See `ARCHITECTURE.md` for the map and the invariants.

pub mod core;
pub mod engines;
pub mod interp;
pub mod lang;
pub mod lessons;
pub mod painters;
pub mod present;
pub mod shells;

/// The scenario the app opens with: the story of a tensor, its storage and its views.
pub const DEFAULT_SCENARIO: &str = include_str!("../www/scenarios/default.py");
