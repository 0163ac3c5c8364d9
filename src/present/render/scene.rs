//! One frame's plan and the colour of every pixel, computed on the CPU: what the GPU shader
//! draws (render-bench and the tests compare them pixel by pixel) and what the canvas-2D
//! fallback draws.

use crate::core::tensor::DType;
use crate::present::render::colour::{
    channel_byte, heat_colour, tint_colour, ImageScale, Rgba, ValueRange, BACKGROUND,
    GRID_LINE_COLOUR, HIGHLIGHT_COLOUR, SEPARATOR_COLOUR,
};
use crate::present::render::grid::Grid;
use crate::present::render::image::TintSpec;
use crate::present::render::pyramid::Pyramid;
use crate::present::render::viewport::{PixelMap, Viewport, GRID_LINE_MIN_PX, SEPARATOR_MIN_PX};

/// At most this many aliases of the highlighted element get a ring.
pub const MAX_MARKS: usize = 16;
/// A ring surrounds a box of at least this many device pixels.
pub const MARK_MIN_DEVICE_PX: i64 = 9;
/// The ring's thickness in device pixels.
pub const MARK_RING_PX: i64 = 2;

/// How the cells are coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Values through the colormap (range from the data).
    Heat,
    /// An image's pixels as RGB (the grid must be an image grid).
    Rgb(ImageScale),
    /// Each storage cell tinted by its image channel.
    Tint(TintSpec),
}

/// The storage's elements as f32 (each rounded once from its exact value, as
/// `Scalar::to_f32`, subnormals flushed to a zero of their sign, as GPUs may; complex
/// storages give their halves in turn).
pub fn storage_values(bytes: &[u8], dtype: DType) -> Vec<f32> {
    let dtype = dtype.real_part();
    let n = bytes.len() / dtype.item_size();
    (0..n)
        .map(|i| flush_subnormal(dtype.read(bytes, i).to_f32()))
        .collect()
}

/// `v`, or a zero of its sign when it is subnormal.
pub fn flush_subnormal(v: f32) -> f32 {
    if v.to_bits() & 0x7f80_0000 == 0 {
        f32::from_bits(v.to_bits() & 0x8000_0000)
    } else {
        v
    }
}

/// A view or storage ready to draw: its grid, its storage's values, how it is coloured,
/// and (heatmaps) its pyramid and range.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The cells.
    pub grid: Grid,
    /// The storage's elements as f32 ([`storage_values`]).
    pub values: Vec<f32>,
    /// How cells are coloured.
    pub mode: Mode,
    /// Heatmaps: the min/max/mean pyramid of the cells.
    pub pyramid: Pyramid,
    /// Heatmaps: the range of the cells' finite values.
    pub range: ValueRange,
}

/// A frame: the pixel mapping and what is drawn over the values.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Device pixel -> cell.
    pub map: PixelMap,
    /// The frame's size in device pixels.
    pub size: (u32, u32),
    /// Draw grid lines.
    pub grid_lines: bool,
    /// Draw slice separators.
    pub separators: bool,
    /// The highlighted storage element.
    pub highlight: Option<i64>,
    /// Rings around aliases of the highlighted element: `[x0, y0, x1, y1]` inner boxes in
    /// device pixels (the ring is [`MARK_RING_PX`] wide outside them).
    pub marks: Vec<[i64; 4]>,
}

impl Frame {
    /// The frame of `grid` under `viewport`, highlighting storage element `highlight`.
    pub fn new(viewport: &Viewport, grid: &Grid, highlight: Option<i64>) -> Frame {
        let map = viewport.pixel_map();
        let marks = match highlight {
            None => Vec::new(),
            Some(h) => grid
                .cells_at_offset(h, MAX_MARKS)
                .into_iter()
                .map(|(r, c)| mark_box(&map, r, c))
                .collect(),
        };
        Frame {
            map,
            size: viewport.device_size(),
            grid_lines: viewport.cell_px >= GRID_LINE_MIN_PX,
            separators: viewport.cell_px >= SEPARATOR_MIN_PX,
            highlight,
            marks,
        }
    }

    /// True when device pixel `(x, y)` lies on a highlight ring.
    pub fn on_ring(&self, x: i64, y: i64) -> bool {
        self.marks.iter().any(|&[x0, y0, x1, y1]| {
            let outer = x >= x0 - MARK_RING_PX
                && x < x1 + MARK_RING_PX
                && y >= y0 - MARK_RING_PX
                && y < y1 + MARK_RING_PX;
            let inner = x >= x0 && x < x1 && y >= y0 && y < y1;
            outer && !inner
        })
    }
}

/// The inner box of the ring around cell `(r, c)`: its pixels, grown to
/// [`MARK_MIN_DEVICE_PX`] about their middle.
fn mark_box(map: &PixelMap, r: usize, c: usize) -> [i64; 4] {
    let grow = |(a, b): (i64, i64)| {
        if b - a >= MARK_MIN_DEVICE_PX {
            (a, b)
        } else {
            let mid2 = a + b;
            let a = (mid2 - MARK_MIN_DEVICE_PX).div_euclid(2);
            (a, a + MARK_MIN_DEVICE_PX)
        }
    };
    let (x0, x1) = grow(map.pixels_of(c, map.origin_x));
    let (y0, y1) = grow(map.pixels_of(r, map.origin_y));
    [x0, y0, x1, y1]
}

impl Scene {
    /// A scene of `grid` over a storage whose elements are `values`: for heatmaps the
    /// pyramid and range are built here (once per change of data).
    pub fn new(grid: Grid, values: Vec<f32>, mode: Mode) -> Scene {
        let mut scene = Scene {
            grid,
            values,
            mode,
            pyramid: Pyramid::default(),
            range: ValueRange { lo: 0.0, hi: 0.0 },
        };
        if mode == Mode::Heat {
            let pyramid = Pyramid::build(scene.grid.rows, scene.grid.cols, |r, c| {
                scene.cell_value(r, c)
            });
            scene.range = pyramid.range();
            scene.pyramid = pyramid;
        }
        scene
    }

    /// Storage element `e`'s value (NaN outside the storage).
    pub fn element(&self, e: i64) -> f32 {
        usize::try_from(e)
            .ok()
            .and_then(|e| self.values.get(e).copied())
            .unwrap_or(f32::NAN)
    }

    /// The value of cell `(row, col)` (an image's: its first channel's), None when empty.
    pub fn cell_value(&self, row: usize, col: usize) -> Option<f32> {
        self.grid.cell_offset(row, col).map(|e| self.element(e))
    }

    /// The colour of a cell's value (no highlight, no lines); heatmaps below one pixel
    /// per cell show the pyramid's value of the pixel's footprint.
    fn cell_colour(&self, frame: &Frame, (x, y): (i64, i64), row: usize, col: usize) -> Rgba {
        let Some(e) = self.grid.cell_offset(row, col) else {
            return BACKGROUND;
        };
        let map = &frame.map;
        match self.mode {
            Mode::Heat => {
                let v = if map.level > 0 {
                    let rows = map.footprint(y, map.origin_y, self.grid.rows);
                    let cols = map.footprint(x, map.origin_x, self.grid.cols);
                    match rows.zip(cols) {
                        Some((rows, cols)) => self.pyramid.footprint_value(map.level, rows, cols),
                        None => f32::NAN,
                    }
                } else {
                    self.element(e)
                };
                heat_colour(v, self.range.lo, self.range.inv_span())
            }
            Mode::Rgb(scale) => {
                let s = self.grid.channel_stride;
                let b = |k: i64| channel_byte(self.element(e + k * s), scale);
                [b(0), b(1), b(2), 255]
            }
            Mode::Tint(tint) => {
                tint_colour(tint.channel(e), channel_byte(self.element(e), tint.scale))
            }
        }
    }

    /// The colour of device pixel `(x, y)` of `frame`: the CPU reference of the shader.
    pub fn pixel(&self, frame: &Frame, x: u32, y: u32) -> Rgba {
        let (x, y) = (i64::from(x), i64::from(y));
        if frame.on_ring(x, y) {
            return HIGHLIGHT_COLOUR;
        }
        let map = &frame.map;
        let (Some(row), Some(col)) = (map.row(y, self.grid.rows), map.col(x, self.grid.cols))
        else {
            return BACKGROUND;
        };
        if !self.grid.has_cell(row, col) {
            return BACKGROUND;
        }
        let starts_row = map.starts_cell(y, map.origin_y);
        if frame.separators
            && self.grid.slice_rows > 0
            && row > 0
            && row % self.grid.slice_rows == 0
            && starts_row
        {
            return SEPARATOR_COLOUR;
        }
        if frame.grid_lines && (starts_row || map.starts_cell(x, map.origin_x)) {
            return GRID_LINE_COLOUR;
        }
        if let (Some(h), Some(e)) = (frame.highlight, self.grid.cell_offset(row, col)) {
            let cs = self.grid.channel_stride;
            let rgb = matches!(self.mode, Mode::Rgb(_));
            if e == h || (rgb && (e + cs == h || e + 2 * cs == h)) {
                return HIGHLIGHT_COLOUR;
            }
        }
        self.cell_colour(frame, (x, y), row, col)
    }

    /// The whole frame as RGBA bytes, row-major (what the canvas-2D fallback puts in its
    /// `ImageData`).
    pub fn draw(&self, frame: &Frame) -> Vec<u8> {
        let (w, h) = frame.size;
        let mut out = Vec::with_capacity(w as usize * h as usize * 4);
        for y in 0..h {
            for x in 0..w {
                out.extend_from_slice(&self.pixel(frame, x, y));
            }
        }
        out
    }
}

/// The colour of device pixel `(x, y)` of `frame` over `scene`, computed on the CPU from
/// the values: what render-bench verifies GPU pixels against.
pub fn reference_pixel(scene: &Scene, frame: &Frame, x: u32, y: u32) -> Rgba {
    scene.pixel(frame, x, y)
}
