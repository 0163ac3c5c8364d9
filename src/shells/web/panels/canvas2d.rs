//! The canvas-2D painter: the render plan's picture (`render::Scene::draw`, the CPU reference
//! of the GPU shader) drawn without WebGPU, and where the WebGPU painter cannot present (then
//! on its overlay canvas), from a [`FrameCache`] (pure: a frame's cost follows the canvas's
//! pixels, not the cells; native tests hold it to `Scene::draw`) handed to `putImageData`.
//! Cell values as text, the pinned ring and the stride jumps are drawn over it.

use std::collections::HashSet;

use wasm_bindgen::{Clamped, JsCast};

use crate::present::frame_cache::FrameCache;
use crate::present::render::viewport::TEXT_MIN_PX;
use crate::present::render::{Frame as PlanFrame, GridKind, Rgba};
use crate::shells::web::panels::canvas_source::Source;
use crate::shells::web::panels::canvas_view::{Frame, Painter, Target};

/// Rings drawn around the pinned element's cells and the stride jumps.
const RING_CAP: usize = 64;

/// The canvas-2D painter (see the module documentation).
#[derive(Default)]
pub(super) struct Canvas2d {
    /// The colours frames are drawn from.
    cache: FrameCache,
    /// The frame's bytes, kept between frames.
    bytes: Vec<u8>,
}

/// The context of `canvas`, if it can draw.
pub(super) fn context(
    canvas: &web_sys::HtmlCanvasElement,
) -> Option<web_sys::CanvasRenderingContext2d> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
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

    fn present(&self) -> &'static str {
        "none"
    }

    fn frame_source(&self) -> &'static str {
        "cpu"
    }

    fn set_data(&mut self, src: &Source, written: &HashSet<i64>, _last_on_gpu: bool) {
        self.cache.set_data(&src.grid, written);
    }

    fn paint(&mut self, target: &Target, src: &Source, f: &Frame) {
        self.paint_on(target.canvas, src, f);
    }

    fn snapshot(&mut self, target: &Target, src: &Source, f: &Frame) -> Option<String> {
        self.paint_on(target.canvas, src, f);
        target.canvas.to_data_url().ok()
    }
}

impl Canvas2d {
    /// Draws one frame on `canvas` (a canvas of its own, or the WebGPU painter's overlay):
    /// the cells, then what goes over them.
    pub(super) fn paint_on(
        &mut self,
        canvas: &web_sys::HtmlCanvasElement,
        src: &Source,
        f: &Frame,
    ) {
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
                self.cache.draw(scene, &plan, f.flash, &mut self.bytes);
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
        let cache = &self.cache;
        draw_over(
            &ctx,
            src,
            f,
            &|r, c| cache.cell_colour(r, c),
            src.scene.is_none(),
        );
    }
}

/// Draws what goes over the values on `ctx` (a canvas of the frame's device size): cell
/// values as text where cells are large enough (dark or light to read on `colour` of the
/// cell), rings around the pinned element's cells and the stride jumps, and (`words`) the
/// words that say the values are not recorded. The WebGPU painter draws it on its overlay
/// canvas.
pub(super) fn draw_over(
    ctx: &web_sys::CanvasRenderingContext2d,
    src: &Source,
    f: &Frame,
    colour: &dyn Fn(usize, usize) -> Option<Rgba>,
    words: bool,
) {
    let vp = &f.viewport;
    let _ = ctx.set_transform(vp.dpr, 0.0, 0.0, vp.dpr, 0.0, 0.0);
    let (rows, cols) = vp.visible_cells(src.grid.rows, src.grid.cols);
    // Values as text where cells are large enough.
    if vp.cell_px >= TEXT_MIN_PX && src.grid.kind != GridKind::Image {
        let size = (vp.cell_px * 0.32).min(14.0);
        ctx.set_font(&format!("{size:.1}px ui-monospace, monospace"));
        ctx.set_text_align("center");
        ctx.set_text_baseline("middle");
        let chars = ((vp.cell_px - 4.0) / (size * 0.62)).floor().max(1.0) as usize;
        for r in rows.clone() {
            for c in cols.clone() {
                let Some(e) = src.grid.cell_offset(r, c) else {
                    continue;
                };
                let Some(text) = (f.text)(e) else { continue };
                let text = clip(&text, chars);
                let colour = colour(r, c).unwrap_or([220, 220, 220, 255]);
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
    if words {
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
