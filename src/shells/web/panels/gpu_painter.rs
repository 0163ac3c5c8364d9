//! The WebGPU painter: a large drawing's cells drawn by the GPU render path
//! (`painters::render`): one full-target triangle per frame whose fragment shader reads
//! the values from a storage buffer.
//!
//! At the script's last step the buffer is the engine's own (the one the compute shaders
//! wrote: nothing is copied). An earlier step exists only as trace values: on each change of
//! data they are uploaded once, as f32, into one buffer the painter owns (through its
//! `GpuView`; the engine forgets it at once and it is freed when the next data replace it).
//! Frames never copy the data: one uniform write when the pan, zoom or highlight changed,
//! one render pass.
//!
//! The frame is drawn offscreen and its pixels come back by one asynchronous read, then go
//! on the canvas's 2-D context (a WebGPU canvas context loses the device on SwiftShader in
//! headless Chromium, and a 2-D canvas is what the PNG export reads). A GPU frame is shown
//! only for the plan it was drawn for (data, pan, zoom, highlight): until the frame of the
//! current plan is back, the canvas-2D painter draws the same picture, so that a canvas is
//! never blank and never shows cells where they no longer are. Cell values as text, the pinned and stride-jump rings and
//! the write flash are drawn over it in 2-D; where the GPU cannot draw the data (values not
//! recorded, a view beyond the adapter's limits) the canvas-2D painter draws the canvas.

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use std::time::Duration;

use leptos::leptos_dom::helpers::{set_timeout_with_handle, TimeoutHandle};
use wasm_bindgen::Clamped;

use crate::core::tensor::{DType, StorageId};
use crate::engines::gpu::GpuEngine;
use crate::engines::Engine;
use crate::painters::render::{FrameReadback, GpuView};
use crate::painters::GpuPainter;
use crate::present::frame_cache::FLASH_RGB;
use crate::present::render::{Frame as PlanFrame, Grid};
use crate::shells::web::panels::canvas2d::{context, draw_over, Canvas2d};
use crate::shells::web::panels::canvas_source::Source;
use crate::shells::web::panels::canvas_view::{Frame, Painter};

/// Written elements whose cells the flash finds one by one (more: it looks at every
/// visible cell, up to [`FLASH_VISIBLE_CAP`]).
const FLASH_WRITTEN_CAP: usize = 4096;
/// Visible cells the flash checks for a write.
const FLASH_VISIBLE_CAP: usize = 1 << 16;
/// Cells of one written element that flash.
const FLASH_CELLS_CAP: usize = 64;

/// How long the plan (pan, zoom, highlight) must stay the same before the GPU is asked for
/// its frame. Meanwhile the CPU draws every frame, so a GPU frame that would arrive after the
/// plan changed again is never drawn for nothing (on SwiftShader it would take the cores the
/// CPU's frames need).
const SETTLE_MS: f64 = 120.0;

/// A frame read back: the data's generation and the plan it was drawn for, its pixels, and
/// the milliseconds from asking to having them.
type Drawn = (u64, PlanFrame, Vec<u8>, f64);

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// The WebGPU painter (see the module documentation).
pub(super) struct WebGpuPainter {
    engine: Rc<RefCell<GpuEngine>>,
    /// The render pipelines, drawing from the engine's buffers.
    painter: GpuPainter,
    /// The data prepared for drawing (None: the canvas-2D painter draws them).
    view: Option<GpuView>,
    /// Counts changes of data (a frame read back for older data is not shown).
    generation: u64,
    target: Option<FrameReadback>,
    /// A frame is being drawn and read.
    in_flight: Rc<RefCell<bool>>,
    /// The last frame read back.
    ready: Rc<RefCell<Option<Drawn>>>,
    /// Asks for a paint (when a frame is back).
    wake: Option<Rc<dyn Fn()>>,
    fallback: Canvas2d,
    written: HashSet<i64>,
    /// Frames of the GPU shown (the canvas's `data-gpu-frames`).
    shown: u64,
    /// The plan of the last paint, and since when it has not changed (ms).
    last_plan: Option<(PlanFrame, f64)>,
    /// The paint that asks the GPU once the plan has settled.
    settle: Option<TimeoutHandle>,
}

/// The engine's storage holding trace storage `id` (`s<n>`) after the last run.
fn engine_storage(id: &str) -> Option<StorageId> {
    let n = id.strip_prefix('s')?.parse().ok()?;
    crate::shells::web::STATS.with(|s| s.borrow().ids.get(&StorageId(n)).copied())
}

fn log(text: String) {
    web_sys::console::log_1(&text.into());
}

impl WebGpuPainter {
    /// A painter drawing with `engine`.
    pub(super) fn new(engine: Rc<RefCell<GpuEngine>>) -> Self {
        WebGpuPainter {
            engine,
            painter: GpuPainter::new(),
            view: None,
            generation: 0,
            target: None,
            in_flight: Rc::new(RefCell::new(false)),
            ready: Rc::new(RefCell::new(None)),
            wake: None,
            fallback: Canvas2d::default(),
            written: HashSet::new(),
            shown: 0,
            last_plan: None,
            settle: None,
        }
    }

    /// Prepares the data for drawing: the engine's buffer at the last step, else the step's
    /// values uploaded once.
    fn prepare(&mut self, src: &Source, last_on_gpu: bool) -> Option<GpuView> {
        let scene = src.scene.as_ref()?;
        let Ok(mut engine) = self.engine.try_borrow_mut() else {
            log("Stridescope: the GPU engine is busy, drawing in 2-D".into());
            return None;
        };
        if last_on_gpu {
            if let Some(id) = engine_storage(&src.storage) {
                if let Ok(view) =
                    self.painter
                        .prepare_view(&engine, id, src.grid.clone(), scene.mode)
                {
                    return Some(view);
                }
            }
        }
        let bytes: Vec<u8> = scene.values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let id = engine.allocate_with(bytes);
        let grid = Grid {
            dtype: DType::Float32,
            ..src.grid.clone()
        };
        let view = self.painter.prepare_view(&engine, id, grid, scene.mode);
        // The view holds the buffer; the engine need not (a new run clears it anyway).
        engine.free(id);
        view.map_err(|e| log(format!("Stridescope: {} is drawn in 2-D: {e}", src.storage)))
            .ok()
    }

    /// Starts drawing and reading the frame of `plan`, unless one is on its way.
    fn request(&mut self, plan: PlanFrame) {
        if *self.in_flight.borrow() {
            return;
        }
        let Some(view) = &mut self.view else { return };
        let Ok(engine) = self.engine.try_borrow() else {
            return;
        };
        if self.target.as_ref().map(|t| t.size()) != Some(plan.size) {
            self.target = Some(FrameReadback::new(&engine, plan.size.0, plan.size.1));
        }
        let Some(target) = &self.target else { return };
        let read = self.painter.draw_and_read(&engine, view, &plan, target);
        *self.in_flight.borrow_mut() = true;
        let (in_flight, ready) = (Rc::clone(&self.in_flight), Rc::clone(&self.ready));
        let (wake, generation, asked) = (self.wake.clone(), self.generation, now());
        leptos::task::spawn_local(async move {
            let got = read.await;
            *in_flight.borrow_mut() = false;
            match got {
                Ok(bytes) => *ready.borrow_mut() = Some((generation, plan, bytes, now() - asked)),
                Err(e) => log(format!("Stridescope: reading a frame back failed: {e}")),
            }
            if let Some(wake) = wake {
                wake();
            }
        });
    }

    /// Asks for a paint in `ms` milliseconds (replacing an earlier such request).
    fn wake_in(&mut self, ms: f64) {
        if let Some(old) = self.settle.take() {
            old.clear();
        }
        let Some(wake) = self.wake.clone() else {
            return;
        };
        let delay = Duration::from_millis(ms.ceil().max(1.0) as u64);
        self.settle = set_timeout_with_handle(move || wake(), delay).ok();
    }

    /// This step's writes, blended towards the flash colour by `f.flash`.
    fn flash(&self, ctx: &web_sys::CanvasRenderingContext2d, src: &Source, f: &Frame) {
        if f.flash <= 0.0 || self.written.is_empty() {
            return;
        }
        let vp = &f.viewport;
        let _ = ctx.set_transform(vp.dpr, 0.0, 0.0, vp.dpr, 0.0, 0.0);
        let [r, g, b] = FLASH_RGB;
        ctx.set_fill_style_str(&format!("rgba({r},{g},{b},{:.3})", f.flash));
        let fill = |row: usize, col: usize| {
            let [x, y, w, h] = vp.cell_rect(row, col);
            let px = 1.0 / vp.dpr;
            ctx.fill_rect(x, y, w.max(px), h.max(px));
        };
        let (rows, cols) = vp.visible_cells(src.grid.rows, src.grid.cols);
        if self.written.len() <= FLASH_WRITTEN_CAP {
            for &e in &self.written {
                for (row, col) in src.grid.cells_at_offset(e, FLASH_CELLS_CAP) {
                    if rows.contains(&row) && cols.contains(&col) {
                        fill(row, col);
                    }
                }
            }
        } else if rows.len().saturating_mul(cols.len()) <= FLASH_VISIBLE_CAP {
            for row in rows {
                for col in cols.clone() {
                    let hit = src.grid.cell_offset(row, col);
                    if hit.is_some_and(|e| self.written.contains(&e)) {
                        fill(row, col);
                    }
                }
            }
        }
    }
}

impl Painter for WebGpuPainter {
    fn name(&self) -> &'static str {
        if self.view.is_some() {
            "webgpu"
        } else {
            "canvas2d"
        }
    }

    fn set_waker(&mut self, wake: Rc<dyn Fn()>) {
        self.wake = Some(wake);
    }

    fn set_data(&mut self, src: &Source, written: &HashSet<i64>, last_on_gpu: bool) {
        self.fallback.set_data(src, written, last_on_gpu);
        self.written = written.clone();
        self.generation += 1;
        // The old view (and a buffer it owns) goes first.
        self.view = None;
        self.view = self.prepare(src, last_on_gpu);
    }

    fn paint(&mut self, canvas: &web_sys::HtmlCanvasElement, src: &Source, f: &Frame) {
        if self.view.is_none() {
            self.fallback.paint(canvas, src, f);
            return;
        }
        let plan = PlanFrame::new(&f.viewport, &src.grid, f.highlight);
        let current = {
            let ready = self.ready.borrow();
            matches!(&*ready, Some((g, p, _, _)) if *g == self.generation && *p == plan)
        };
        if !current {
            // The GPU's frame of this plan is drawn and read back; until it is here the CPU
            // draws this frame, the same picture (tested pixel for pixel), so that a pan, a
            // zoom or a hover shows at once where the cells are now: an older GPU frame
            // would show them where they were (on SwiftShader a frame comes back 50 to
            // 300 ms later). The GPU is asked once the plan has settled.
            let since = match &self.last_plan {
                Some((last, since)) if *last == plan => *since,
                _ => now(),
            };
            self.last_plan = Some((plan.clone(), since));
            let waited = now() - since;
            if waited >= SETTLE_MS {
                self.request(plan.clone());
            } else {
                self.wake_in(SETTLE_MS - waited);
            }
            self.fallback.paint(canvas, src, f);
            let _ = canvas.set_attribute("data-frame-source", "cpu");
            return;
        }
        let ready = self.ready.borrow();
        let (w, h) = plan.size;
        let Some((_, _, bytes, ms)) = ready
            .as_ref()
            .filter(|(_, _, bytes, _)| bytes.len() == w as usize * h as usize * 4)
        else {
            drop(ready);
            self.fallback.paint(canvas, src, f);
            let _ = canvas.set_attribute("data-frame-source", "cpu");
            return;
        };
        let Some(ctx) = context(canvas) else { return };
        if canvas.width() != w || canvas.height() != h {
            canvas.set_width(w);
            canvas.set_height(h);
        }
        let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
        self.shown += 1;
        let _ = canvas.set_attribute("data-gpu-frames", &self.shown.to_string());
        let _ = canvas.set_attribute("data-gpu-ms", &format!("{ms:.1}"));
        let _ = canvas.set_attribute("data-frame-source", "gpu");
        if let Ok(image) =
            web_sys::ImageData::new_with_u8_clamped_array_and_sh(Clamped(bytes), w, h)
        {
            let _ = ctx.put_image_data(&image, 0.0, 0.0);
        }
        self.flash(&ctx, src, f);
        let scene = src.scene.as_ref();
        let map = &plan.map;
        let colour = |r: usize, c: usize| {
            let scene = scene?;
            let (x0, x1) = map.pixels_of(c, map.origin_x);
            let (y0, y1) = map.pixels_of(r, map.origin_y);
            let (x, y) = ((x0 + x1) / 2, (y0 + y1) / 2);
            let (x, y) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
            Some(scene.pixel(&plan, x, y))
        };
        draw_over(&ctx, src, f, &colour);
    }
}
