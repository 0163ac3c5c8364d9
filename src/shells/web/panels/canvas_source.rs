//! What a large drawing shows: the render plan's grid and scene of a view or a storage in a
//! step (values from the trace), and how it is coloured.

use crate::core::tensor::StorageId;
use crate::core::trace::{Step, StorageRecord, TensorRecord};
use crate::present::render::{image_layout, Grid, Mode, Scene, TintSpec, ViewSpec};

/// What a canvas draws: the render plan's grid of a view or storage, and its scene (None
/// when the values are not recorded).
pub(super) struct Source {
    pub(super) grid: Grid,
    pub(super) scene: Option<Scene>,
    /// The storage the cells read.
    pub(super) storage: StorageId,
    /// The view's name (None for a storage strip).
    pub(super) view: Option<String>,
    /// `rgb`, `heatmap` or `tint` (the canvas's `data-mode`).
    pub(super) mode: &'static str,
    /// How cells are coloured (the scene's, also where the values are not recorded: the GPU
    /// draws them from its own buffer at the run's last step).
    pub(super) colouring: Mode,
    /// Cells that show an element.
    pub(super) count: usize,
}

/// A storage's elements as f32 as the plan reads them (`render::storage_values`: rounded
/// once, subnormals flushed), when recorded (complex storages are not drawn from values).
pub(super) fn values_of(s: &StorageRecord) -> Option<Vec<f32>> {
    let dtype = s.dtype;
    if dtype.is_complex() {
        return None;
    }
    s.values.as_ref().map(|v| {
        v.iter()
            .map(|x| crate::present::render::scene::flush_subnormal(x.0.to_f32()))
            .collect()
    })
}

/// The number of elements of a storage (of the dtype it was made with).
pub(super) fn element_count(s: &StorageRecord) -> usize {
    s.nbytes / s.dtype.item_size().max(1)
}

/// What a large view or storage draws, for `canvas_view::canvas_drawing`.
pub(super) enum Drawn<'a> {
    View(&'a TensorRecord),
    Storage(&'a StorageRecord),
}

/// The plan's grid and scene of a view (RGB when it is an image, unless `heatmap`) or of a
/// storage (tinted by channel when an image view reads it) in `step`.
pub(super) fn source_of(drawn: &Drawn, step: &Step, heatmap: bool) -> (Source, bool) {
    let (grid, mode, name, storage, view, values, image) = match drawn {
        Drawn::View(t) => {
            let dtype = t.dtype;
            let image = image_layout(&t.shape, &t.stride, dtype);
            let spec = ViewSpec::new(&t.shape, &t.stride, t.storage_offset, dtype);
            let (grid, mode, name) = match &image {
                Some(img) if !heatmap => (
                    Grid::for_image(img, t.storage_offset, dtype),
                    Mode::Rgb(img.scale),
                    "rgb",
                ),
                _ => (
                    Grid::for_view(&spec).unwrap_or_else(|_| Grid::for_storage(0, dtype, None)),
                    Mode::Heat,
                    "heatmap",
                ),
            };
            let values = step
                .storages
                .iter()
                .find(|s| s.id == t.storage && s.dtype == t.dtype)
                .and_then(values_of);
            let view = Some(t.name.clone());
            (grid, mode, name, t.storage, view, values, image.is_some())
        }
        Drawn::Storage(s) => {
            let dtype = s.dtype;
            let tint = step
                .tensors
                .iter()
                .filter(|t| t.storage == s.id && t.dtype == s.dtype)
                .find_map(|t| {
                    let img = image_layout(&t.shape, &t.stride, dtype)?;
                    Some((TintSpec::for_image(&img, t.storage_offset)?, img.w))
                });
            // An image's strip reads best a row of pixels to a line: W cells, or 3 W when
            // the channels interleave.
            let width = tint.map(|(spec, w)| if spec.channel_stride == 1 { 3 * w } else { w });
            let grid = Grid::for_storage(element_count(s), dtype, width);
            let (mode, name) = match tint {
                Some((spec, _)) => (Mode::Tint(spec), "tint"),
                None => (Mode::Heat, "heatmap"),
            };
            (grid, mode, name, s.id, None, values_of(s), false)
        }
    };
    let scene = values.map(|v| Scene::new(grid.clone(), v, mode));
    let count = grid.cell_count();
    let src = Source {
        grid,
        scene,
        storage,
        view,
        mode: name,
        colouring: mode,
        count,
    };
    (src, image)
}
