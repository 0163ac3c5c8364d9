//! The evaluator's runtime, in three parts that [`crate::interp::Evaluator`] holds:
//! - [`scope`]: names (the globals, the running functions' locals);
//! - [`memory`]: storages, their addresses and owners, windows of another storage's memory
//!   ([`windows`]), allocation, and the reachability walk that frees storages;
//! - [`recorder`]: what a statement leaves in the trace ([`write_log`]: the cells it wrote);
//! - [`accounting`]: where the script's memory is after each step, and its peak during it;
//!   [`summary`]: the same by layer, for the model summary.

pub(crate) mod accounting;
pub(crate) mod memory;
pub(crate) mod memory_walk;
pub(crate) mod recorder;
pub(crate) mod scope;
pub(crate) mod summary;
pub(crate) mod windows;
pub(crate) mod write_log;
