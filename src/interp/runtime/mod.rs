//! The evaluator's runtime: what a statement leaves behind (the recorder) and storages that
//! are windows of another storage's memory.

pub(crate) mod recorder;
pub(crate) mod windows;
