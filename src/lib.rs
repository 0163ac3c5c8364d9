//! Stridescope: run PyTorch notebook scripts and see how tensors live in memory.
//!
//! The layers, from the bottom: [`tensor`] (layout math and the tensor model, pure),
//! [`script`] (parsing the notebook language), [`engine`] (where bytes live and move: the CPU
//! reference engine), [`eval`] (PyTorch semantics, statement by statement), [`trace`] (what
//! the views render) and [`print`] (Python's and PyTorch's printouts).
//! See `ARCHITECTURE.md` for the map and the invariants.

pub mod engine;
pub mod eval;
pub mod export;
pub mod frame_cache;
pub mod i18n;
pub mod image;
pub mod lesson_play;
pub mod lessons;
pub mod print;
pub mod render;
pub mod script;
pub mod share;
pub mod tensor;
pub mod trace;
pub mod ui_model;
pub mod web_bench;

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;

/// The scenario the app opens with: the story of a tensor, its storage and its views.
pub const DEFAULT_SCENARIO: &str = include_str!("../www/scenarios/default.py");

#[cfg(target_arch = "wasm32")]
pub mod app;
