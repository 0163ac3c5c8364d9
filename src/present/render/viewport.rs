//! The canvas's pan and zoom, and the one mapping from a device pixel to a cell that the
//! shader, the canvas-2D fallback and picking all use.
//!
//! The mapping is integer arithmetic in fixed point ([`FRAC_BITS`] fractional bits), so the
//! GPU and the CPU compute the same cell for every pixel: the cell coordinate of device
//! pixel `p`'s centre is `origin + p * step`, and the cell is its floor.

use std::ops::Range;

/// Fractional bits of the fixed-point cell coordinates.
pub const FRAC_BITS: u32 = 24;
/// The largest cell, in CSS pixels.
pub const MAX_CELL_PX: f64 = 256.0;
/// The smallest cell, in CSS pixels (whatever the grid, zooming out stops here).
pub const MIN_CELL_PX: f64 = 1.0 / 65536.0;
/// Grid lines are drawn when cells are at least this large (CSS pixels).
pub const GRID_LINE_MIN_PX: f64 = 6.0;
/// Values are written in the cells (by the shell, over the drawing) from this size on.
pub const TEXT_MIN_PX: f64 = 28.0;
/// Slice separators are drawn when cells are at least this large (CSS pixels).
pub const SEPARATOR_MIN_PX: f64 = 2.0;
/// Of the grid, at least this many CSS pixels (or the whole grid) stay in the canvas.
pub const KEEP_VISIBLE_PX: f64 = 32.0;

/// Pan and zoom of one canvas. `pan_x`/`pan_y` are where the grid's top-left corner is, in
/// CSS pixels from the canvas's top-left: cell `(i, j)` has its top-left at
/// `(pan_x + j * cell_px, pan_y + i * cell_px)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Canvas width in CSS pixels.
    pub width: f64,
    /// Canvas height in CSS pixels.
    pub height: f64,
    /// Device pixels per CSS pixel.
    pub dpr: f64,
    /// The side of one cell in CSS pixels.
    pub cell_px: f64,
    /// The grid's left edge, CSS pixels from the canvas's left edge.
    pub pan_x: f64,
    /// The grid's top edge, CSS pixels from the canvas's top edge.
    pub pan_y: f64,
}

/// The cell size that fits a `rows` × `cols` grid in a `width` × `height` canvas.
pub fn fit_cell_px(width: f64, height: f64, rows: usize, cols: usize) -> f64 {
    if rows == 0 || cols == 0 {
        return MAX_CELL_PX.min(width.max(1.0));
    }
    (width / cols as f64)
        .min(height / rows as f64)
        .clamp(MIN_CELL_PX, MAX_CELL_PX)
}

/// Device pixel -> cell, in fixed point (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelMap {
    /// Cells per device pixel, times `2^FRAC_BITS` (at least 1).
    pub step: i64,
    /// The column coordinate of device pixel column 0's centre, times `2^FRAC_BITS`.
    pub origin_x: i64,
    /// The row coordinate of device pixel row 0's centre, times `2^FRAC_BITS`.
    pub origin_y: i64,
    /// The pyramid level a pixel reads: 0 when a cell covers a pixel or more, else one more
    /// than the smallest `L` with `2^L` cells >= one pixel. Blocks at least twice the
    /// pixel's footprint make the footprint straddle a block edge only about half the time
    /// per axis: about 2 node reads per pixel instead of nearly 4.
    pub level: u32,
}

impl PixelMap {
    /// The cell coordinate (row or column) device pixel `p` shows along an axis of `n`
    /// cells whose pixel 0 centre is at `origin`, or None when it shows none.
    ///
    /// At level 0 it is the floor of the pixel centre's coordinate. At coarser levels a
    /// pixel whose footprint `[centre - step/2, centre + step/2)` overlaps the grid shows
    /// the clamped cell, so that a partial block at an edge still gets a pixel.
    pub fn coord(&self, p: i64, origin: i64, n: usize) -> Option<usize> {
        let pos = origin.wrapping_add(p.wrapping_mul(self.step));
        let n = n as i64;
        if self.level == 0 {
            if pos < 0 {
                return None;
            }
            let c = pos >> FRAC_BITS;
            return (c < n).then_some(c as usize);
        }
        let half = self.step >> 1;
        if pos.wrapping_add(half) <= 0 || pos.wrapping_sub(half) >= (n << FRAC_BITS) {
            return None;
        }
        Some((pos >> FRAC_BITS).clamp(0, n - 1) as usize)
    }

    /// The cells (first and last, inclusive) that device pixel `p`'s footprint
    /// `[centre - step/2, centre - step/2 + step)` overlaps along an axis of `n` cells, or
    /// None when it overlaps none. At level `L` they span at most two blocks of `2^L`.
    pub fn footprint(&self, p: i64, origin: i64, n: usize) -> Option<(usize, usize)> {
        let pos = origin.wrapping_add(p.wrapping_mul(self.step));
        let lo = pos.wrapping_sub(self.step >> 1);
        let hi = lo.wrapping_add(self.step - 1);
        let n = n as i64;
        if hi < 0 || (lo >> FRAC_BITS) >= n {
            return None;
        }
        Some((
            (lo >> FRAC_BITS).max(0) as usize,
            (hi >> FRAC_BITS).min(n - 1) as usize,
        ))
    }

    /// The column device pixel column `x` shows in a grid of `cols` columns.
    pub fn col(&self, x: i64, cols: usize) -> Option<usize> {
        self.coord(x, self.origin_x, cols)
    }

    /// The row device pixel row `y` shows in a grid of `rows` rows.
    pub fn row(&self, y: i64, rows: usize) -> Option<usize> {
        self.coord(y, self.origin_y, rows)
    }

    /// True when device pixel `p` is the first one of its cell along an axis (where a grid
    /// line is drawn): the pixel before it shows another cell coordinate.
    pub fn starts_cell(&self, p: i64, origin: i64) -> bool {
        let pos = origin.wrapping_add(p.wrapping_mul(self.step));
        (pos >> FRAC_BITS) != (pos.wrapping_sub(self.step) >> FRAC_BITS)
    }

    /// The device pixels `[first, end)` along an axis whose centres fall in cell `c`; when
    /// the cell is narrower than a pixel and no centre falls in it, the one pixel whose
    /// footprint contains the cell's start.
    pub fn pixels_of(&self, c: usize, origin: i64) -> (i64, i64) {
        let start = ((c as i64) << FRAC_BITS) - origin;
        let end = ((c as i64 + 1) << FRAC_BITS) - origin;
        let first = ceil_div(start, self.step);
        let last = ceil_div(end, self.step);
        if last > first {
            (first, last)
        } else {
            let p = (start + (self.step >> 1)).div_euclid(self.step);
            (p, p + 1)
        }
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b) + i64::from(a.rem_euclid(b) != 0)
}

impl Viewport {
    /// The default view of a `rows` × `cols` grid: pan (0, 0), the cell size that fits it.
    pub fn fit(width: f64, height: f64, dpr: f64, rows: usize, cols: usize) -> Viewport {
        Viewport {
            width: width.max(1.0),
            height: height.max(1.0),
            dpr: if dpr.is_finite() && dpr > 0.0 {
                dpr
            } else {
                1.0
            },
            cell_px: fit_cell_px(width.max(1.0), height.max(1.0), rows, cols),
            pan_x: 0.0,
            pan_y: 0.0,
        }
    }

    /// The canvas's size in device pixels.
    pub fn device_size(&self) -> (u32, u32) {
        let d = |v: f64| (v * self.dpr).round().clamp(1.0, 16384.0) as u32;
        (d(self.width), d(self.height))
    }

    /// One cell's side in device pixels.
    pub fn cell_device_px(&self) -> f64 {
        self.cell_px * self.dpr
    }

    /// The fixed-point device pixel -> cell mapping of this view.
    pub fn pixel_map(&self) -> PixelMap {
        let one = (1i64 << FRAC_BITS) as f64;
        let step = (one / self.cell_device_px()).round().max(1.0) as i64;
        let origin = |pan: f64| ((0.5 / self.dpr - pan) / self.cell_px * one).round() as i64;
        let mut level = 0;
        while (1i64 << (FRAC_BITS + level)) < step {
            level += 1;
        }
        if level > 0 {
            level += 1;
        }
        PixelMap {
            step,
            origin_x: origin(self.pan_x),
            origin_y: origin(self.pan_y),
            level,
        }
    }

    /// The cell under CSS point `(x, y)` of the canvas: the cell its device pixel shows
    /// (the floor of the pixel centre's cell coordinate), or None outside the grid.
    pub fn pick(&self, x: f64, y: f64, rows: usize, cols: usize) -> Option<(usize, usize)> {
        if !(x.is_finite() && y.is_finite()) || x < 0.0 || y < 0.0 {
            return None;
        }
        let map = self.pixel_map();
        let px = (x * self.dpr).floor() as i64;
        let py = (y * self.dpr).floor() as i64;
        Some((map.row(py, rows)?, map.col(px, cols)?))
    }

    /// Cell `(row, col)`'s rectangle in CSS pixels: `[x, y, width, height]`.
    pub fn cell_rect(&self, row: usize, col: usize) -> [f64; 4] {
        [
            self.pan_x + col as f64 * self.cell_px,
            self.pan_y + row as f64 * self.cell_px,
            self.cell_px,
            self.cell_px,
        ]
    }

    /// The rows and columns at least partly inside the canvas.
    pub fn visible_cells(&self, rows: usize, cols: usize) -> (Range<usize>, Range<usize>) {
        let span = |pan: f64, extent: f64, n: usize| {
            let first = ((-pan) / self.cell_px).floor().clamp(0.0, n as f64) as usize;
            let end = ((extent - pan) / self.cell_px).ceil().clamp(0.0, n as f64) as usize;
            first..end.max(first)
        };
        (
            span(self.pan_y, self.height, rows),
            span(self.pan_x, self.width, cols),
        )
    }

    /// Zooms by `factor` about CSS point `(x, y)` (the grid point under it stays put), then
    /// clamps.
    pub fn zoom_at(&mut self, factor: f64, x: f64, y: f64, rows: usize, cols: usize) {
        if !(factor.is_finite() && factor > 0.0) {
            return;
        }
        let old = self.cell_px;
        self.cell_px = (old * factor).clamp(self.min_cell_px(rows, cols), MAX_CELL_PX);
        let ratio = self.cell_px / old;
        self.pan_x = x - (x - self.pan_x) * ratio;
        self.pan_y = y - (y - self.pan_y) * ratio;
        self.clamp(rows, cols);
    }

    /// Moves the grid by `(dx, dy)` CSS pixels, then clamps.
    pub fn pan_by(&mut self, dx: f64, dy: f64, rows: usize, cols: usize) {
        if dx.is_finite() && dy.is_finite() {
            self.pan_x += dx;
            self.pan_y += dy;
        }
        self.clamp(rows, cols);
    }

    /// Back to the default view (pan (0, 0), the fitting cell size).
    pub fn reset(&mut self, rows: usize, cols: usize) {
        *self = Viewport::fit(self.width, self.height, self.dpr, rows, cols);
    }

    /// The smallest cell size zooming out reaches: half the fitting size (never below
    /// [`MIN_CELL_PX`]).
    pub fn min_cell_px(&self, rows: usize, cols: usize) -> f64 {
        (fit_cell_px(self.width, self.height, rows, cols) * 0.5).clamp(MIN_CELL_PX, MAX_CELL_PX)
    }

    /// Keeps the cell size in range and part of the grid in the canvas (at least
    /// [`KEEP_VISIBLE_PX`] of it, or all of it when smaller).
    pub fn clamp(&mut self, rows: usize, cols: usize) {
        if !(self.cell_px.is_finite() && self.cell_px > 0.0) {
            self.cell_px = fit_cell_px(self.width, self.height, rows, cols);
        }
        self.cell_px = self
            .cell_px
            .clamp(self.min_cell_px(rows, cols), MAX_CELL_PX);
        let keep = |pan: f64, extent: f64, n: usize| {
            let size = n as f64 * self.cell_px;
            let m = KEEP_VISIBLE_PX.min(size).min(extent);
            if !pan.is_finite() {
                return 0.0;
            }
            pan.clamp(m - size, extent - m)
        };
        self.pan_x = keep(self.pan_x, self.width, cols);
        self.pan_y = keep(self.pan_y, self.height, rows);
    }
}
