//! The canvas-2D painter: the render plan's picture (`render::Scene::pixel`, the CPU
//! reference of the GPU shader) drawn without WebGPU, at a cost that follows the canvas's
//! pixels, not the cells.
//!
//! When the data change it asks the plan for the colour of every cell (level 0) and, for
//! heatmaps zoomed below a pixel per cell, of every pyramid block of the level in use (built
//! on first use). A frame then maps each device pixel to its cell with the plan's
//! [`PixelMap`] (one lookup per row and per column) and copies that cell's colour, draws the
//! plan's grid lines, separators, highlighted cells and rings exactly where
//! `render::Scene::pixel` puts them, and hands the bytes to `putImageData`. Cell values as
//! text, the pinned ring, stride jumps and the write flash are drawn over it.

use std::collections::HashSet;

use wasm_bindgen::{Clamped, JsCast};

use super::canvas_source::Source;
use super::canvas_view::{Frame, Painter};
use crate::render::colour::{GRID_LINE_COLOUR, HIGHLIGHT_COLOUR, SEPARATOR_COLOUR};
use crate::render::viewport::{FRAC_BITS, TEXT_MIN_PX};
use crate::render::{Frame as PlanFrame, GridKind, Mode, PixelMap, Rgba, Scene};

/// Highlighted cells searched for before checking every pixel instead.
const HIGHLIGHT_CAP: usize = 1 << 16;
/// Rings drawn around the pinned element's cells and the stride jumps.
const RING_CAP: usize = 64;

/// Colours of one level: a cell's (level 0) or a pyramid block's, row-major.
struct Level {
    cols: usize,
    colours: Vec<u32>,
}

/// The canvas-2D painter (see the module documentation).
#[derive(Default)]
pub(super) struct Canvas2d {
    /// Level `L`'s colours, built on first use after a change of data.
    levels: Vec<Option<Level>>,
    /// Cells (level 0, row-major) whose storage element this step wrote.
    written: Option<Vec<bool>>,
    /// The frame's bytes, kept between frames.
    bytes: Vec<u8>,
}

fn packed(c: Rgba) -> u32 {
    u32::from_le_bytes(c)
}

/// The plan's colour of every block of level `level` (cells at level 0): the colour
/// `Scene::pixel` gives a pixel showing it, with nothing drawn over.
fn level_colours(scene: &Scene, level: u32) -> Level {
    let grid = &scene.grid;
    let block = 1usize << level;
    let (rows, cols) = (grid.rows.div_ceil(block), grid.cols.div_ceil(block));
    let one = 1i64 << FRAC_BITS;
    // Pixel (x, y) of this frame shows block (y, x): its first cell at level 0 (the pixel's
    // centre), the block itself above.
    let map = PixelMap {
        step: one << level,
        origin_x: if level == 0 { one / 2 } else { 0 },
        origin_y: if level == 0 { one / 2 } else { 0 },
        level,
    };
    let frame = PlanFrame {
        map,
        size: (cols as u32, rows as u32),
        grid_lines: false,
        separators: false,
        highlight: None,
        marks: Vec::new(),
    };
    let mut colours = Vec::with_capacity(rows * cols);
    for y in 0..rows as u32 {
        for x in 0..cols as u32 {
            colours.push(packed(scene.pixel(&frame, x, y)));
        }
    }
    Level { cols, colours }
}

/// The context of `canvas`, if it can draw.
fn context(canvas: &web_sys::HtmlCanvasElement) -> Option<web_sys::CanvasRenderingContext2d> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
}

impl Canvas2d {
    /// The colours of `level` of `scene`, built now if needed.
    fn level(&mut self, scene: &Scene, level: u32) -> &Level {
        let l = level as usize;
        if self.levels.len() <= l {
            self.levels.resize_with(l + 1, || None);
        }
        self.levels[l].get_or_insert_with(|| level_colours(scene, level))
    }

    /// Fills `self.bytes` with the plan's picture of `scene` under `plan` (and the write
    /// flash blended in).
    fn draw_pixels(&mut self, scene: &Scene, plan: &PlanFrame, flash: f64) {
        let grid = &scene.grid;
        let map = plan.map;
        let (w, h) = (plan.size.0 as usize, plan.size.1 as usize);
        let heat = matches!(scene.mode, Mode::Heat) && grid.kind != GridKind::Image;
        let level = if heat { map.level } else { 0 };
        let xs: Vec<(Option<usize>, bool)> = (0..w as i64)
            .map(|x| (map.col(x, grid.cols), map.starts_cell(x, map.origin_x)))
            .collect();
        let written = if flash > 0.0 {
            self.written.take()
        } else {
            None
        };
        let (lcols, colours) = {
            let l = self.level(scene, level);
            (l.cols, std::mem::take(&mut self.levels[level as usize]))
        };
        let colours = colours.map(|l| l.colours).unwrap_or_default();
        let mut out = std::mem::take(&mut self.bytes);
        out.clear();
        out.resize(w * h * 4, 0);
        let pixels: &mut [u8] = &mut out;
        let flash_rgb = [255.0, 150.0, 60.0];
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
            let line = &mut pixels[y * w * 4..(y + 1) * w * 4];
            let lrow = (row >> level) * lcols;
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
                    let c = colours.get(lrow + (col >> level)).copied().unwrap_or(0);
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
        self.levels[level as usize] = Some(Level {
            cols: lcols,
            colours,
        });
        if written.is_some() {
            self.written = written;
        }
        if let Some(h_off) = plan.highlight {
            highlight_cells(scene, plan, h_off, &xs, pixels, w, h);
        }
        rings(plan, pixels, w, h);
        self.bytes = out;
    }
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
        let (x0, x1) = map.pixels_of(c, map.origin_x);
        let (y0, y1) = map.pixels_of(r, map.origin_y);
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
    use crate::render::scene::MARK_RING_PX;
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

/// Dark or light text that reads on `c`.
fn text_on(c: Rgba) -> &'static str {
    let l = 0.299 * f64::from(c[0]) + 0.587 * f64::from(c[1]) + 0.114 * f64::from(c[2]);
    if l > 140.0 || c[3] == 0 {
        "#111"
    } else {
        "#fff"
    }
}

impl Painter for Canvas2d {
    fn name(&self) -> &'static str {
        "canvas2d"
    }

    fn set_data(&mut self, src: &Source, written: &HashSet<i64>) {
        self.levels.clear();
        self.written = (!written.is_empty()).then(|| {
            let g = &src.grid;
            let mut mask = vec![false; g.rows * g.cols];
            for r in 0..g.rows {
                for c in 0..g.cols {
                    if g.cell_offsets(r, c).iter().any(|o| written.contains(o)) {
                        mask[r * g.cols + c] = true;
                    }
                }
            }
            mask
        });
    }

    fn paint(&mut self, canvas: &web_sys::HtmlCanvasElement, src: &Source, f: &Frame) {
        let Some(ctx) = context(canvas) else { return };
        let plan = PlanFrame::new(&f.viewport, &src.grid, f.highlight);
        let (w, h) = plan.size;
        if canvas.width() != w || canvas.height() != h {
            canvas.set_width(w);
            canvas.set_height(h);
        }
        let vp = &f.viewport;
        match &src.scene {
            Some(scene) => {
                self.draw_pixels(scene, &plan, f.flash);
                if let Ok(image) =
                    web_sys::ImageData::new_with_u8_clamped_array_and_sh(Clamped(&self.bytes), w, h)
                {
                    let _ = ctx.put_image_data(&image, 0.0, 0.0);
                }
            }
            None => {
                // No values: the cells' places, grey, and the highlight's rings.
                ctx.clear_rect(0.0, 0.0, f64::from(w), f64::from(h));
                let _ = ctx.set_transform(vp.dpr, 0.0, 0.0, vp.dpr, 0.0, 0.0);
                ctx.set_fill_style_str(if f.dark { "#2c2e33" } else { "#d9dce1" });
                let g = &src.grid;
                ctx.fill_rect(
                    vp.pan_x,
                    vp.pan_y,
                    g.cols as f64 * vp.cell_px,
                    g.rows as f64 * vp.cell_px,
                );
                let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
                ctx.set_fill_style_str("rgb(255,64,0)");
                for &[x0, y0, x1, y1] in &plan.marks {
                    ctx.fill_rect(
                        (x0 - 2) as f64,
                        (y0 - 2) as f64,
                        (x1 - x0 + 4) as f64,
                        (y1 - y0 + 4) as f64,
                    );
                }
            }
        }
        let _ = ctx.set_transform(vp.dpr, 0.0, 0.0, vp.dpr, 0.0, 0.0);
        let (rows, cols) = vp.visible_cells(src.grid.rows, src.grid.cols);
        // Values as text where cells are large enough.
        if vp.cell_px >= TEXT_MIN_PX && src.grid.kind != GridKind::Image {
            let size = (vp.cell_px * 0.32).min(14.0);
            ctx.set_font(&format!("{size:.1}px ui-monospace, monospace"));
            ctx.set_text_align("center");
            ctx.set_text_baseline("middle");
            let chars = ((vp.cell_px - 4.0) / (size * 0.62)).floor().max(1.0) as usize;
            let base = self.levels.first().and_then(|l| l.as_ref());
            for r in rows.clone() {
                for c in cols.clone() {
                    let Some(e) = src.grid.cell_offset(r, c) else {
                        continue;
                    };
                    let Some(text) = (f.text)(e) else { continue };
                    let text = clip(&text, chars);
                    let colour = base
                        .and_then(|l| l.colours.get(r * l.cols + c))
                        .map(|&p| p.to_le_bytes())
                        .unwrap_or([220, 220, 220, 255]);
                    ctx.set_fill_style_str(text_on(colour));
                    let [x, y, cw, ch] = vp.cell_rect(r, c);
                    let _ = ctx.fill_text(&text, x + cw / 2.0, y + ch / 2.0);
                }
            }
        }
        // The pinned element's cells and the stride jumps: rings.
        let ring = |offset: i64, colour: &str, width: f64| {
            ctx.set_stroke_style_str(colour);
            ctx.set_line_width(width);
            for (r, c) in src.grid.cells_at_offset(offset, RING_CAP) {
                let [x, y, cw, ch] = vp.cell_rect(r, c);
                let (cw, ch) = (cw.max(5.0), ch.max(5.0));
                ctx.stroke_rect(x - width, y - width, cw + 2.0 * width, ch + 2.0 * width);
            }
        };
        if let Some(p) = f.pinned {
            ring(p, if f.dark { "#56b4e9" } else { "#0072b2" }, 2.0);
        }
        for &j in f.jumps.iter() {
            ring(j, "#cc79a7", 1.5);
        }
        if src.scene.is_none() {
            ctx.set_font("600 14px system-ui, sans-serif");
            ctx.set_text_align("center");
            ctx.set_text_baseline("middle");
            ctx.set_fill_style_str(if f.dark { "#ececec" } else { "#1d1d1f" });
            let lines = wrap(&f.not_recorded, vp.width - 24.0);
            let top = vp.height / 2.0 - (lines.len() as f64 - 1.0) * 10.0;
            for (k, line) in lines.iter().enumerate() {
                let _ = ctx.fill_text(line, vp.width / 2.0, top + k as f64 * 20.0);
            }
        }
    }
}

/// `text` in lines of at most about `width` CSS pixels of 14 px type (by words; CJK text,
/// which has no spaces, by characters).
fn wrap(text: &str, width: f64) -> Vec<String> {
    let char_w = |c: char| if c.is_ascii() { 7.8 } else { 14.0 };
    let mut lines = vec![String::new()];
    let mut used = 0.0;
    for piece in text.split_inclusive(|c: char| c == ' ' || !c.is_ascii()) {
        let w: f64 = piece.chars().map(char_w).sum();
        if used + w > width && used > 0.0 {
            lines.push(String::new());
            used = 0.0;
        }
        if let Some(line) = lines.last_mut() {
            line.push_str(piece);
        }
        used += w;
    }
    lines.iter().map(|l| l.trim().to_string()).collect()
}

/// At most `n` characters, with `…` when cut.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}
