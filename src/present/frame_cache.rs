//! The canvas-2D fallback's frames of a render plan's scene (`render::Scene::draw`, the CPU
//! reference of the GPU shader, pixel for pixel) at a cost that follows the frame's pixels,
//! not the cells. The plan's colour of every cell is asked once per change of data
//! (`Scene::pixel` itself, with nothing drawn over); a frame then maps each device pixel to its
//! cell with the plan's `PixelMap` (one lookup per pixel row and column) and copies that
//! colour or, for heatmaps below a pixel per cell, combines the pyramid nodes under the
//! pixel's footprint as `Pyramid::footprint_value` does (at most 2 × 2 nodes, no allocation);
//! the plan's separators, grid lines, highlighted cells and rings go where `Scene::pixel` puts
//! them. Pure: the web app's painter puts the bytes on a canvas; native tests compare them
//! with `Scene::draw`.

use std::collections::HashSet;

use crate::present::render::colour::{
    heat_colour, GRID_LINE_COLOUR, HIGHLIGHT_COLOUR, SEPARATOR_COLOUR,
};
use crate::present::render::pyramid::{combine, display_value};
use crate::present::render::viewport::FRAC_BITS;
use crate::present::render::{Frame as PlanFrame, Grid, GridKind, Mode, PixelMap, Rgba, Scene};

/// Highlighted cells searched for before checking every pixel instead.
const HIGHLIGHT_CAP: usize = 1 << 16;
/// The colour this step's writes flash towards.
pub const FLASH_RGB: [f64; 3] = [255.0, 150.0, 60.0];

/// What frames of one scene are drawn from (see the module documentation).
#[derive(Default)]
pub struct FrameCache {
    /// Every cell's colour (row-major) and the grid's columns, built on first use after a
    /// change of data.
    cells: Option<(usize, Vec<u32>)>,
    /// Cells (row-major) whose storage element this step wrote.
    written: Option<Vec<bool>>,
    /// The last frame's cells (no highlight, no rings), and what it was drawn for.
    base: Vec<u8>,
    base_key: Option<BaseKey>,
}

/// What a frame's cells depend on besides the data: the pixel mapping, the size, lines,
/// separators and the flash (its bits).
type BaseKey = (PixelMap, (u32, u32), bool, bool, u64);

fn packed(c: Rgba) -> u32 {
    u32::from_le_bytes(c)
}

/// The plan's colour of every cell: the colour `Scene::pixel` gives a pixel showing it at
/// one pixel per cell or more, with nothing drawn over.
fn cell_colours(scene: &Scene) -> Vec<u32> {
    let grid = &scene.grid;
    let one = 1i64 << FRAC_BITS;
    // Pixel (x, y) of this frame shows cell (y, x): its centre is the cell's.
    let frame = PlanFrame {
        map: PixelMap {
            step: one,
            origin_x: one / 2,
            origin_y: one / 2,
            level: 0,
        },
        size: (grid.cols as u32, grid.rows as u32),
        grid_lines: false,
        separators: false,
        highlight: None,
        marks: Vec::new(),
    };
    let mut colours = Vec::with_capacity(grid.rows * grid.cols);
    for y in 0..grid.rows as u32 {
        for x in 0..grid.cols as u32 {
            colours.push(packed(scene.pixel(&frame, x, y)));
        }
    }
    colours
}

/// The pyramid nodes of level `l` (`levels[l - 1]`) that cells `first..=last` of an axis of
/// `n` nodes fall in.
fn node_span((first, last): (usize, usize), l: usize, n: usize) -> (usize, usize) {
    (first >> l, (last >> l).min(n.saturating_sub(1)))
}

/// A heatmap pixel's colour below a pixel per cell: the nodes of `level` under its footprint
/// (`rows` × `cols` nodes, inclusive) combined in row-major order, as
/// `Pyramid::footprint_value`.
fn footprint_colour(scene: &Scene, l: usize, rows: (usize, usize), cols: (usize, usize)) -> Rgba {
    let v = match scene.pyramid.levels.get(l.wrapping_sub(1)) {
        Some(lv) => {
            let mut nodes = [[0.0f32; 3]; 4];
            let mut k = 0;
            for r in rows.0..=rows.1 {
                for c in cols.0..=cols.1 {
                    if k < 4 {
                        nodes[k] = lv.nodes[r * lv.cols + c];
                        k += 1;
                    }
                }
            }
            display_value(combine(&nodes[..k]))
        }
        None => f32::NAN,
    };
    heat_colour(v, scene.range.lo, scene.range.inv_span())
}

impl FrameCache {
    /// The data changed: forgets the colours, and marks the cells of `grid` that read an
    /// element of `written`.
    pub fn set_data(&mut self, grid: &Grid, written: &HashSet<i64>) {
        self.cells = None;
        self.base_key = None;
        self.written = (!written.is_empty()).then(|| {
            let mut mask = vec![false; grid.rows * grid.cols];
            for r in 0..grid.rows {
                for c in 0..grid.cols {
                    if grid.cell_offsets(r, c).iter().any(|o| written.contains(o)) {
                        mask[r * grid.cols + c] = true;
                    }
                }
            }
            mask
        });
    }

    /// Cell `(row, col)`'s colour, when the cells' colours are built.
    pub fn cell_colour(&self, row: usize, col: usize) -> Option<Rgba> {
        let (cols, colours) = self.cells.as_ref()?;
        (col < *cols)
            .then(|| colours.get(row * cols + col))
            .flatten()
            .map(|c| c.to_le_bytes())
    }

    /// The plan's picture of `scene` under `plan` as RGBA bytes, row-major (what
    /// `Scene::draw` gives), with this step's writes blended towards the flash colour by
    /// `flash` (0: not at all). `out` is reused. A frame that differs from the last only by
    /// its highlight (a hover) copies the last one's cells and draws the highlight again.
    pub fn draw(&mut self, scene: &Scene, plan: &PlanFrame, flash: f64, out: &mut Vec<u8>) {
        let key = (
            plan.map,
            plan.size,
            plan.grid_lines,
            plan.separators,
            flash.to_bits(),
        );
        if self.base_key != Some(key) {
            let mut base = std::mem::take(&mut self.base);
            self.draw_cells(scene, plan, flash, &mut base);
            self.base = base;
            self.base_key = Some(key);
        }
        out.clear();
        out.extend_from_slice(&self.base);
        let (w, h) = (plan.size.0 as usize, plan.size.1 as usize);
        if let Some(target) = plan.highlight {
            let xs = columns(&plan.map, &scene.grid, w);
            highlight_cells(scene, plan, target, &xs, out, w, h);
        }
        rings(plan, out, w, h);
    }

    /// The frame's cells, lines and separators (no highlight, no rings) into `out`.
    fn draw_cells(&mut self, scene: &Scene, plan: &PlanFrame, flash: f64, out: &mut Vec<u8>) {
        let grid = &scene.grid;
        let map = plan.map;
        let (w, h) = (plan.size.0 as usize, plan.size.1 as usize);
        let heat = matches!(scene.mode, Mode::Heat) && grid.kind != GridKind::Image;
        // Below a pixel per cell, heatmaps read the pyramid (its top when the level is past
        // it), each pixel by its footprint.
        let level = if heat && map.level > 0 {
            (map.level as usize).min(scene.pyramid.levels.len().max(1))
        } else {
            0
        };
        let (node_rows, node_cols) = scene
            .pyramid
            .levels
            .get(level.wrapping_sub(1))
            .map_or((0, 0), |lv| (lv.rows, lv.cols));
        let xs = columns(&map, grid, w);
        let fx: Vec<Option<(usize, usize)>> = if level > 0 {
            (0..w as i64)
                .map(|x| {
                    map.footprint(x, map.origin_x, grid.cols)
                        .map(|f| node_span(f, level, node_cols))
                })
                .collect()
        } else {
            Vec::new()
        };
        let written = if flash > 0.0 {
            self.written.take()
        } else {
            None
        };
        let colours = match (level, self.cells.take()) {
            (0, None) => cell_colours(scene),
            (_, cells) => cells.map(|(_, c)| c).unwrap_or_default(),
        };
        out.clear();
        out.resize(w * h * 4, 0);
        let pixels: &mut [u8] = out;
        let flash_rgb = FLASH_RGB;
        for y in 0..h {
            let Some(row) = map.row(y as i64, grid.rows) else {
                continue;
            };
            let starts_row = map.starts_cell(y as i64, map.origin_y);
            let separator = plan.separators
                && grid.slice_rows > 0
                && row > 0
                && row.is_multiple_of(grid.slice_rows)
                && starts_row;
            let fy = if level > 0 {
                map.footprint(y as i64, map.origin_y, grid.rows)
                    .map(|f| node_span(f, level, node_rows))
            } else {
                None
            };
            let line = &mut pixels[y * w * 4..(y + 1) * w * 4];
            let lrow = row * grid.cols;
            for (x, &(col, starts_col)) in xs.iter().enumerate() {
                let Some(col) = col else { continue };
                if !grid.has_cell(row, col) {
                    continue;
                }
                let c = if separator {
                    packed(SEPARATOR_COLOUR)
                } else if plan.grid_lines && (starts_row || starts_col) {
                    packed(GRID_LINE_COLOUR)
                } else {
                    let c = if level > 0 {
                        match (fy, fx[x]) {
                            (Some(rows), Some(cols)) => {
                                packed(footprint_colour(scene, level, rows, cols))
                            }
                            _ => packed(heat_colour(
                                f32::NAN,
                                scene.range.lo,
                                scene.range.inv_span(),
                            )),
                        }
                    } else {
                        colours.get(lrow + col).copied().unwrap_or(0)
                    };
                    match &written {
                        Some(mask) if mask.get(row * grid.cols + col) == Some(&true) => {
                            let [r, g, b, a] = c.to_le_bytes();
                            let mix = |v: u8, f: f64| (v as f64 * (1.0 - flash) + f * flash) as u8;
                            u32::from_le_bytes([
                                mix(r, flash_rgb[0]),
                                mix(g, flash_rgb[1]),
                                mix(b, flash_rgb[2]),
                                a.max((255.0 * flash) as u8),
                            ])
                        }
                        _ => c,
                    }
                };
                line[x * 4..x * 4 + 4].copy_from_slice(&c.to_le_bytes());
            }
        }
        if !colours.is_empty() {
            self.cells = Some((grid.cols, colours));
        }
        if written.is_some() {
            self.written = written;
        }
    }
}

/// Each device pixel column's grid column, and whether a cell starts there.
fn columns(map: &PixelMap, grid: &Grid, w: usize) -> Vec<(Option<usize>, bool)> {
    (0..w as i64)
        .map(|x| (map.col(x, grid.cols), map.starts_cell(x, map.origin_x)))
        .collect()
}

/// Paints the pixels that show a cell reading storage element `target` (as
/// `Scene::pixel`: not over grid lines and separators).
fn highlight_cells(
    scene: &Scene,
    plan: &PlanFrame,
    target: i64,
    xs: &[(Option<usize>, bool)],
    pixels: &mut [u8],
    w: usize,
    h: usize,
) {
    let grid = &scene.grid;
    let map = plan.map;
    let colour = HIGHLIGHT_COLOUR;
    let paint = |pixels: &mut [u8], x: usize, y: usize, row: usize, starts_row: bool| {
        let (_, starts_col) = xs[x];
        let separator = plan.separators
            && grid.slice_rows > 0
            && row > 0
            && row.is_multiple_of(grid.slice_rows)
            && starts_row;
        if separator || plan.grid_lines && (starts_row || starts_col) {
            return;
        }
        pixels[(y * w + x) * 4..(y * w + x) * 4 + 4].copy_from_slice(&colour);
    };
    let cells = grid.cells_at_offset(target, HIGHLIGHT_CAP);
    if cells.len() >= HIGHLIGHT_CAP {
        // Too many aliases to list: every pixel asks its cell.
        for y in 0..h {
            let Some(row) = map.row(y as i64, grid.rows) else {
                continue;
            };
            let starts_row = map.starts_cell(y as i64, map.origin_y);
            for (x, &(col, _)) in xs.iter().enumerate() {
                if let Some(col) = col {
                    if grid.has_cell(row, col) && grid.cell_offsets(row, col).contains(&target) {
                        paint(pixels, x, y, row, starts_row);
                    }
                }
            }
        }
        return;
    }
    for (r, c) in cells {
        // The pixels whose centres fall in the cell, and one more each side: below a pixel
        // per cell, a pixel just past the grid's edge shows its edge cell.
        let (x0, x1) = map.pixels_of(c, map.origin_x);
        let (y0, y1) = map.pixels_of(r, map.origin_y);
        let (x0, x1, y0, y1) = (x0 - 1, x1 + 1, y0 - 1, y1 + 1);
        for y in y0.max(0)..y1.min(h as i64) {
            if map.row(y, grid.rows) != Some(r) {
                continue;
            }
            let starts_row = map.starts_cell(y, map.origin_y);
            for x in x0.max(0)..x1.min(w as i64) {
                if xs[x as usize].0 == Some(c) {
                    paint(pixels, x as usize, y as usize, r, starts_row);
                }
            }
        }
    }
}

/// Paints the plan's rings around the highlighted element's cells.
fn rings(plan: &PlanFrame, pixels: &mut [u8], w: usize, h: usize) {
    use crate::present::render::scene::MARK_RING_PX;
    for &[x0, y0, x1, y1] in &plan.marks {
        let (ox0, oy0) = ((x0 - MARK_RING_PX).max(0), (y0 - MARK_RING_PX).max(0));
        let (ox1, oy1) = (
            (x1 + MARK_RING_PX).min(w as i64),
            (y1 + MARK_RING_PX).min(h as i64),
        );
        for y in oy0..oy1 {
            for x in ox0..ox1 {
                if x >= x0 && x < x1 && y >= y0 && y < y1 {
                    continue;
                }
                let at = (y as usize * w + x as usize) * 4;
                pixels[at..at + 4].copy_from_slice(&HIGHLIGHT_COLOUR);
            }
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::core::tensor::DType;
    use crate::present::render::{image_layout, TintSpec, ViewSpec, Viewport};

    /// The first pixel where `cache`'s frame and the plan's `Scene::draw` of the same frame
    /// differ: `(x, y, cache's, plan's)`.
    fn differ(
        cache: &mut FrameCache,
        scene: &Scene,
        vp: &Viewport,
        highlight: Option<i64>,
    ) -> Option<(usize, usize, Vec<u8>, Vec<u8>)> {
        let frame = PlanFrame::new(vp, &scene.grid, highlight);
        let mut out = Vec::new();
        cache.draw(scene, &frame, 0.0, &mut out);
        let plan = scene.draw(&frame);
        assert_eq!(out.len(), plan.len());
        let w = frame.size.0 as usize;
        let px = |b: &[u8], p: usize| b[p * 4..p * 4 + 4].to_vec();
        (0..plan.len() / 4)
            .find(|&p| px(&out, p) != px(&plan, p))
            .map(|p| (p % w, p / w, px(&out, p), px(&plan, p)))
    }

    /// [`differ`] with a new cache.
    fn both(
        scene: &Scene,
        vp: &Viewport,
        highlight: Option<i64>,
    ) -> Option<(usize, usize, Vec<u8>, Vec<u8>)> {
        differ(&mut FrameCache::default(), scene, vp, highlight)
    }

    /// Values with an outlier, a NaN and an infinity among a ramp.
    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| match (i as u32).wrapping_mul(2_654_435_761) ^ seed {
                h if h % 97 == 0 => f32::NAN,
                h if h % 89 == 0 => f32::INFINITY,
                h if h % 83 == 0 => 1e6,
                h => (h % 1000) as f32 / 10.0 - 40.0,
            })
            .collect()
    }

    /// A viewport of a `rows` × `cols` grid: fitted, zoomed by `zoom` about a point, panned.
    fn viewport(rows: usize, cols: usize, dpr: f64, zoom: f64, pan: (f64, f64)) -> Viewport {
        let mut vp = Viewport::fit(37.0, 23.0, dpr, rows, cols);
        vp.zoom_at(zoom, 11.3, 7.9, rows, cols);
        vp.pan_by(pan.0, pan.1, rows, cols);
        vp
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        /// Heatmaps of strided views (any strides, offsets, ranks 1 to 3), at every zoom from
        /// pyramid levels to grid lines, with and without a highlight.
        #[test]
        fn heatmaps_are_the_plans_picture(
            shape in prop::collection::vec(1i64..24, 1..4),
            strides in prop::collection::vec(-9i64..10, 3),
            zoom in prop::sample::select(vec![0.6, 1.0, 3.0, 9.0, 40.0]),
            pan in (-30.0f64..30.0, -30.0f64..30.0),
            dpr in prop::sample::select(vec![1.0, 2.0]),
            lit in 0i64..400,
            seed in 0u32..1000,
        ) {
            let stride: Vec<i64> = strides[..shape.len()].to_vec();
            let offset = stride.iter().zip(&shape).map(|(s, n)| (-s * (n - 1)).max(0)).sum();
            let grid = Grid::for_view(&ViewSpec::new(&shape, &stride, offset, DType::Float32)).unwrap();
            let scene = Scene::new(grid, values(600, seed), Mode::Heat);
            let vp = viewport(scene.grid.rows, scene.grid.cols, dpr, zoom, pan);
            // One cache through hovers (the cells are drawn once), and a new one.
            let mut cache = FrameCache::default();
            for highlight in [None, Some(lit), Some(lit + 1), None] {
                prop_assert_eq!(differ(&mut cache, &scene, &vp, highlight), None);
            }
            prop_assert_eq!(both(&scene, &vp, Some(lit)), None);
        }

        /// RGB images (planar and channels_last, batched) and tinted storage strips.
        #[test]
        fn images_and_tints_are_the_plans_picture(
            h in 1usize..12,
            w in 1usize..12,
            last in any::<bool>(),
            zoom in prop::sample::select(vec![0.7, 1.0, 5.0, 30.0]),
            pan in (-20.0f64..20.0, -20.0f64..20.0),
            lit in 0i64..300,
        ) {
            let (h, w) = (h as i64, w as i64);
            let (shape, stride) = if last {
                (vec![2, 3, h, w], vec![3 * h * w, 1, 3 * w, 3])
            } else {
                (vec![2, 3, h, w], vec![3 * h * w, h * w, w, 1])
            };
            let img = image_layout(&shape, &stride, DType::UInt8).unwrap();
            let n = (6 * h * w) as usize;
            let bytes: Vec<f32> = (0..n).map(|i| ((i * 37) % 256) as f32).collect();
            let scene = Scene::new(Grid::for_image(&img, 0, DType::UInt8), bytes.clone(), Mode::Rgb(img.scale));
            let vp = viewport(scene.grid.rows, scene.grid.cols, 1.0, zoom, pan);
            for highlight in [None, Some(lit)] {
                prop_assert_eq!(both(&scene, &vp, highlight), None);
            }
            let tint = TintSpec::for_image(&img, 0).unwrap();
            let strip = Grid::for_storage(n, DType::UInt8, Some(w as usize));
            let scene = Scene::new(strip, bytes, Mode::Tint(tint));
            let vp = viewport(scene.grid.rows, scene.grid.cols, 1.0, zoom, pan);
            prop_assert_eq!(both(&scene, &vp, Some(lit)), None);
        }
    }

    #[test]
    fn writes_flash_towards_the_flash_colour() {
        let grid = Grid::for_view(&ViewSpec::new(&[4, 4], &[4, 1], 0, DType::Float32)).unwrap();
        let scene = Scene::new(grid, (0..16).map(|v| v as f32).collect(), Mode::Heat);
        let vp = Viewport::fit(40.0, 40.0, 1.0, 4, 4);
        let frame = PlanFrame::new(&vp, &scene.grid, None);
        let mut cache = FrameCache::default();
        cache.set_data(&scene.grid, &HashSet::from([5]));
        let mut out = Vec::new();
        cache.draw(&scene, &frame, 1.0, &mut out);
        let plan = scene.draw(&frame);
        // Cell (1, 1) (element 5) is the flash colour; every other pixel is the plan's.
        let at = |x: usize, y: usize| (y * 40 + x) * 4;
        assert_eq!(out[at(15, 15)..at(15, 15) + 3], [255, 150, 60]);
        let differ = (0..1600).filter(|&p| out[p * 4..p * 4 + 4] != plan[p * 4..p * 4 + 4]);
        assert!(differ
            .clone()
            .all(|p| (10..20).contains(&(p % 40)) && (10..20).contains(&(p / 40))));
        // No flash: the plan's picture.
        cache.draw(&scene, &frame, 0.0, &mut out);
        assert_eq!(out, plan);
        let inside = at(5, 5);
        assert_eq!(
            cache.cell_colour(0, 0),
            Some(plan[inside..inside + 4].try_into().unwrap())
        );
    }
}
