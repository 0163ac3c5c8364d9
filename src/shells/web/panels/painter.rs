//! What a large drawing's painters are: [`Painter`] (`gpu_painter.rs`, `canvas2d.rs`), the
//! canvases they draw on ([`Target`]) and what one frame shows besides the data ([`Frame`]).

use std::collections::HashSet;
use std::rc::Rc;

use crate::present::render::Viewport;
use crate::shells::web::panels::canvas_source::Source;

/// The canvases a painter draws on: the contract's canvas, and the transparent overlay
/// canvas above it.
pub(super) struct Target<'a> {
    pub(super) canvas: &'a web_sys::HtmlCanvasElement,
    pub(super) overlay: &'a web_sys::HtmlCanvasElement,
}

/// What draws a canvas's pixels from a [`Source`] (one arithmetic, the plan's, for every
/// renderer): `gpu_painter.rs` or `canvas2d.rs`.
pub(super) trait Painter {
    /// `canvas2d` or `webgpu` (the canvas's `data-renderer`).
    fn name(&self) -> &'static str;
    /// `canvas`, `readback` or `none` (the canvas's `data-present`).
    fn present(&self) -> &'static str;
    /// `gpu` or `cpu`: who drew the picture shown (the canvas's `data-frame-source`).
    fn frame_source(&self) -> &'static str;
    /// The data changed (values, or the elements this step wrote); `last_on_gpu`: the step
    /// shown is the last of a run the GPU engine mirrored (its buffers hold these values).
    fn set_data(&mut self, src: &Source, written: &HashSet<i64>, last_on_gpu: bool);
    /// Gives the painter a way to ask for a paint (a frame that comes back later).
    fn set_waker(&mut self, _wake: Rc<dyn Fn()>) {}
    /// Draws one frame.
    fn paint(&mut self, target: &Target, src: &Source, frame: &Frame);
    /// Draws one frame now and returns the picture shown, as a PNG data URL (the PNG export).
    fn snapshot(&mut self, target: &Target, src: &Source, frame: &Frame) -> Option<String>;
}

/// What one frame shows besides the data.
pub(super) struct Frame {
    pub(super) viewport: Viewport,
    pub(super) highlight: Option<i64>,
    pub(super) pinned: Option<i64>,
    /// Storage elements of the picked dim's stride walk.
    pub(super) jumps: Rc<Vec<i64>>,
    /// How strongly this step's writes flash now (0 to 1).
    pub(super) flash: f64,
    pub(super) dark: bool,
    /// A storage element's value as a cell shows it.
    pub(super) text: Box<dyn Fn(i64) -> Option<String>>,
    /// The words drawn when the values are not recorded.
    pub(super) not_recorded: String,
}
