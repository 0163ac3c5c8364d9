//! The GPU render path: large views drawn by a fragment shader that reads the engine's
//! storage buffer, following the render plans of [`crate::present::render`]: presented on a
//! surface (`present.rs`) or read back (`render.rs`'s [`FrameReadback`], for exports, tests
//! and benchmarks).

pub mod pipelines;
pub mod present;
pub mod render;

pub use present::{PresentIssue, Presenter};
pub use render::{FrameReadback, GpuView, RenderIssue};

/// Draws large views from a [`GpuEngine`](crate::engines::gpu::GpuEngine)'s storage buffers.
/// It holds the render family's layouts and pipelines (made on first use); the engine holds
/// none of them and lends its device, queue and buffers to each call.
#[derive(Default)]
pub struct GpuPainter {
    cache: pipelines::RenderCache,
}

impl GpuPainter {
    /// A painter with nothing compiled yet.
    pub fn new() -> Self {
        Self::default()
    }
}
