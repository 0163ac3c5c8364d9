//! Render plans for large views and storages (pure presentation: no wgpu, no DOM).
//!
//! The single source of truth for what a large view looks like. Three drawers use it and
//! must agree pixel for pixel: the GPU shader (`shaders/render.wgsl`, same arithmetic,
//! `painters::render`), the canvas-2D fallback of the web app ([`Scene::draw`]) and
//! render-bench's CPU reference ([`reference_pixel`]).
//!
//! * [`grid`]: a view (shape, stride, offset, dtype) or a storage as a 2-D grid of cells,
//!   index <-> cell both ways, and the storage element of each cell.
//! * [`viewport`]: pan and zoom ([`Viewport`]), and the fixed-point device pixel -> cell
//!   mapping ([`PixelMap`]) that drawing and picking share.
//! * [`colour`]: the colormap (viridis, one table for the CPU and, as [`colormap_words`], the GPU), the
//!   value range, NaN/±inf colours, RGB image bytes and the channel tint.
//! * [`image`]: which views are images ([`image_layout`]) and which channel each storage
//!   element of an image belongs to ([`TintSpec`]).
//! * [`pyramid`]: the min/max/mean pyramid for cells smaller than a pixel.
//! * [`scene`]: a frame's plan ([`Frame`]) and the colour of each pixel ([`Scene`]).
//!
//! Complex views draw their real part (a view of the float halves).

pub mod colour;
pub mod grid;
pub mod image;
pub mod pyramid;
pub mod scene;
pub mod viewport;

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;

pub use colour::{colormap_lut, colormap_words, ImageScale, Rgba, ValueRange};
pub use grid::{default_strip_width, Grid, GridKind, ViewSpec};
pub use image::{image_layout, ImageLayout, TintSpec};
pub use pyramid::Pyramid;
pub use scene::{reference_pixel, storage_values, Frame, Mode, Scene};
pub use viewport::{PixelMap, Viewport};

/// Views up to this rank are drawn.
pub const MAX_RANK: usize = 8;

/// Views with more cells than this are drawn by the GPU (or the canvas-2D fallback), not
/// as DOM cells.
pub const GPU_MIN_CELLS: usize = 4096;

/// Why a view cannot be laid out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// Shape and strides differ in length.
    #[error("a view of {shape} dims has {stride} strides")]
    RankMismatch {
        /// Dims in the shape.
        shape: usize,
        /// Dims in the strides.
        stride: usize,
    },
    /// More dims than the renderer handles.
    #[error("views of more than 8 dims are not drawn (this one has {0})")]
    RankTooLarge(usize),
}
