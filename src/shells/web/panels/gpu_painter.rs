//! The WebGPU painter: a large drawing's cells drawn by the GPU render path
//! (`painters::render`), presented on the canvas: the canvas's WebGPU context is configured
//! on the engine's device (`painters::present`), and a frame is one render pass into its
//! current texture whose fragment shader reads the values from a storage buffer. No
//! read-back, no copy, no canvas-2D painting of the data.
//!
//! At the script's last step the buffer is the engine's own (the one the compute shaders
//! wrote: nothing is copied; the page's engine facade, `GpuData`, says which). An earlier
//! step exists only as trace values: on each change of data they are uploaded once, as f32,
//! into one buffer the painter owns (through its `GpuView`; the engine forgets it at once and
//! it is freed when the next data replace it).
//!
//! Frames are drawn from the page's animation frames, only when the plan of the cells (data,
//! pan, zoom) changed, and one at a time for the whole page: while a frame's work is on the
//! GPU the next (of any canvas) waits and then draws the plan of that moment, so input never
//! queues frames, and the page's next animation frame (which waits for the GPU's frames) never
//! waits for more than one. What goes over the
//! cells is drawn on a transparent overlay canvas above, in device pixels of the same plan and
//! in the same task as the frame, so the two never disagree about where cells are: the hover
//! highlight and its alias rings (the pixels `Scene::pixel` paints), the write flash, values as
//! text, the pinned and stride-jump rings. A hover thus costs the GPU nothing: on a GPU that is
//! a CPU (SwiftShader), four canvases' frames per hover would hold the page for the time of
//! four frames.
//!
//! Where the GPU cannot draw the data (values not recorded, a view beyond the adapter's
//! limits), the canvas-2D painter draws the same picture on the overlay. If the canvas's
//! context cannot be configured, or the device is lost, the view goes to the canvas-2D
//! painter for good and says so once in the console; after a lost device the next data use
//! the page's new device.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::{Rc, Weak};

use wasm_bindgen::{JsCast, JsValue};

use crate::core::tensor::DType;
use crate::engines::gpu::GpuEngine;
use crate::engines::Engine;
use crate::painters::render::GpuView;
use crate::painters::{GpuPainter, PresentIssue, Presenter};
use crate::present::frame_cache::FLASH_RGB;
use crate::present::render::colour::HIGHLIGHT_COLOUR;
use crate::present::render::scene::MARK_RING_PX;
use crate::present::render::{Frame as PlanFrame, Grid};
use crate::shells::web::panels::canvas2d::{context, draw_over, Canvas2d};
use crate::shells::web::panels::canvas_source::Source;
use crate::shells::web::panels::canvas_view::{Frame, Painter, Target};
use crate::shells::web::GpuData;

/// Written elements whose cells the flash finds one by one (more: it looks at every
/// visible cell, up to [`FLASH_VISIBLE_CAP`]).
const FLASH_WRITTEN_CAP: usize = 4096;
/// Visible cells the flash checks for a write.
const FLASH_VISIBLE_CAP: usize = 1 << 16;
/// Cells of one written element that flash.
const FLASH_CELLS_CAP: usize = 64;
/// Cells whose pixels the highlight finds one by one (more aliases: every pixel asks its
/// cell), as the canvas-2D painter's `FrameCache`.
const HIGHLIGHT_CAP: usize = 1 << 16;

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// What the console says once when a view goes to the canvas-2D painter.
const FALLBACK_NOTE: &str =
    "Stridescope: a large view is drawn by the canvas-2D painter from now on";
/// What it says when that is because the device was lost.
const LOST_NOTE: &str = "Stridescope: a large view is drawn by the canvas-2D painter from now on: the WebGPU device was lost (the next data use a new one)";

fn log(text: String) {
    web_sys::console::log_1(&text.into());
}

/// The frames a painter presented and how their work went (shared with the callbacks that
/// hear the GPU finish a frame).
#[derive(Default)]
struct Progress {
    /// Frames whose work the GPU finished (the canvas's `data-gpu-done`).
    done: Cell<u64>,
}

/// The page's GPU frames, one at a time for all its canvases (of one engine): while a frame's
/// work is on the GPU the other canvases' frames wait, so that the GPU never holds more than one
/// frame that the page's next animation frame waits for.
#[derive(Default)]
struct FrameQueue {
    /// A frame's work is on the GPU.
    in_flight: Cell<bool>,
    /// The painters waiting for it (each asks for a paint when it is done).
    waiting: RefCell<Vec<Rc<dyn Fn()>>>,
}

/// A frame queue and the engine it is for.
type EngineQueue = (Weak<RefCell<GpuEngine>>, Rc<FrameQueue>);

thread_local! {
    /// The page's frame queue.
    static QUEUE: RefCell<Option<EngineQueue>> = const { RefCell::new(None) };
}

/// The frame queue of `data`'s engine (a new engine starts a new one).
fn frame_queue(data: &GpuData) -> Rc<FrameQueue> {
    QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        if let Some((engine, queue)) = &*q {
            if engine
                .upgrade()
                .is_some_and(|e| Rc::ptr_eq(&e, data.engine()))
            {
                return Rc::clone(queue);
            }
        }
        let queue = Rc::new(FrameQueue::default());
        *q = Some((Rc::downgrade(data.engine()), Rc::clone(&queue)));
        queue
    })
}

/// Why the painter no longer presents.
#[derive(Clone, Debug, PartialEq)]
enum Failure {
    /// The canvas gives no WebGPU context, or it cannot be configured on this device.
    Context(String),
    /// The engine's device was lost (a new one may come with the next data).
    DeviceLost,
}

/// The WebGPU painter (see the module documentation).
pub(super) struct WebGpuPainter {
    /// The engine it draws with (None: the page lost its device and has no new one yet).
    data: Option<GpuData>,
    /// The render pipelines, drawing from the engine's buffers.
    painter: GpuPainter,
    /// The data prepared for drawing (None: the canvas-2D painter draws them).
    view: Option<GpuView>,
    /// The canvas's context, configured on the engine's device.
    presenter: Option<Presenter>,
    failure: Option<Failure>,
    /// Counts changes of data.
    generation: u64,
    /// The data and plan of the frame the canvas shows (None: no GPU frame).
    shown: Option<(u64, PlanFrame)>,
    progress: Rc<Progress>,
    /// Frames presented (the canvas's `data-gpu-frames`).
    frames: u64,
    /// Asks for a paint.
    wake: Option<Rc<dyn Fn()>>,
    fallback: Canvas2d,
    written: HashSet<i64>,
}

impl WebGpuPainter {
    /// A painter drawing with the page's WebGPU engine (None: the page lost its device; the
    /// canvas-2D painter draws, on the overlay, until data come with a new one).
    pub(super) fn new(data: Option<GpuData>) -> Self {
        let failure = data.is_none().then_some(Failure::DeviceLost);
        WebGpuPainter {
            data,
            painter: GpuPainter::new(),
            view: None,
            presenter: None,
            failure,
            generation: 0,
            shown: None,
            progress: Rc::new(Progress::default()),
            frames: 0,
            wake: None,
            fallback: Canvas2d::default(),
            written: HashSet::new(),
        }
    }

    /// Prepares the data for drawing: the engine's buffer at the last step (even where the
    /// trace holds no values), else the step's values uploaded once.
    fn prepare(&mut self, src: &Source, last_on_gpu: bool) -> Option<GpuView> {
        let data = self.data.clone()?;
        let Ok(mut engine) = data.engine().try_borrow_mut() else {
            log("Stridescope: the GPU engine is busy, drawing in 2-D".into());
            return None;
        };
        if last_on_gpu {
            if let Some(id) = data.storage_of(src.storage) {
                if let Ok(view) =
                    self.painter
                        .prepare_view(&engine, id, src.grid.clone(), src.colouring)
                {
                    return Some(view);
                }
            }
        }
        let scene = src.scene.as_ref()?;
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

    /// Whether its engine is still the page's.
    fn is_current(&self) -> bool {
        self.data.as_ref().is_some_and(GpuData::is_current)
    }

    /// Stops presenting for `failure`, says so once, and clears what the canvas showed.
    fn fail(&mut self, canvas: &web_sys::HtmlCanvasElement, failure: Failure) {
        if self.failure.is_none() {
            log(match &failure {
                Failure::Context(e) => format!("{FALLBACK_NOTE}: {e}"),
                Failure::DeviceLost => LOST_NOTE.into(),
            });
        }
        self.failure = Some(failure);
        self.view = None;
        self.release(canvas);
    }

    /// Leaves the canvas's context unconfigured (transparent): the fallback draws on the
    /// overlay. A later frame configures it again.
    fn release(&mut self, canvas: &web_sys::HtmlCanvasElement) {
        if self.presenter.take().is_some() {
            if let Ok(Some(ctx)) = canvas.get_context("webgpu") {
                let unconfigure = js_sys::Reflect::get(&ctx, &JsValue::from_str("unconfigure"));
                if let Ok(f) = unconfigure.and_then(|f| f.dyn_into::<js_sys::Function>()) {
                    let _ = f.call0(&ctx);
                }
            }
        }
        self.shown = None;
    }

    /// The canvas's presenter, made on first use from the engine's instance.
    fn presenter(&mut self, canvas: &web_sys::HtmlCanvasElement) -> Result<(), Failure> {
        if self.presenter.is_some() {
            return Ok(());
        }
        let Some(data) = &self.data else {
            return Err(Failure::DeviceLost);
        };
        let engine = data.engine().borrow();
        let surface = engine
            .instance()
            .create_surface(wgpu::SurfaceTarget::Canvas(canvas.clone()))
            .map_err(|e| Failure::Context(format!("no WebGPU context on the canvas: {e}")))?;
        self.presenter = Some(Presenter::new(&engine, surface));
        Ok(())
    }

    /// Draws and presents the frame of `plan` (one render pass; no read-back), and counts it
    /// done when the GPU says so.
    fn present(
        &mut self,
        canvas: &web_sys::HtmlCanvasElement,
        plan: &PlanFrame,
    ) -> Result<(), PresentIssue> {
        let (Some(presenter), Some(view)) = (&mut self.presenter, &mut self.view) else {
            return Err(PresentIssue::Lost("no view"));
        };
        let Some(data) = &self.data else {
            return Err(PresentIssue::Lost("no engine"));
        };
        let Ok(engine) = data.engine().try_borrow() else {
            return Err(PresentIssue::Skipped("the GPU engine is busy"));
        };
        let asked = now();
        presenter.present(&engine, &mut self.painter, view, plan)?;
        self.frames += 1;
        let _ = canvas.set_attribute("data-gpu-frames", &self.frames.to_string());
        let done = crate::painters::present::work_done(&engine);
        drop(engine);
        let queue = frame_queue(data);
        queue.in_flight.set(true);
        let progress = Rc::clone(&self.progress);
        let canvas = canvas.clone();
        leptos::task::spawn_local(async move {
            done.await;
            queue.in_flight.set(false);
            progress.done.set(progress.done.get() + 1);
            let _ = canvas.set_attribute("data-gpu-done", &progress.done.get().to_string());
            let _ = canvas.set_attribute("data-gpu-ms", &format!("{:.1}", now() - asked));
            let waiting = queue.waiting.take();
            for wake in waiting {
                wake();
            }
        });
        Ok(())
    }

    /// The overlay of a presented frame: this step's writes (blended towards the flash
    /// colour by `f.flash`), the highlight and its rings (`plan`'s), then values as text and
    /// the pinned and stride-jump rings.
    fn overlay(
        &self,
        overlay: &web_sys::HtmlCanvasElement,
        src: &Source,
        f: &Frame,
        plan: &PlanFrame,
    ) {
        let Some(ctx) = context(overlay) else { return };
        let (w, h) = plan.size;
        if overlay.width() != w || overlay.height() != h {
            overlay.set_width(w);
            overlay.set_height(h);
        }
        let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
        ctx.clear_rect(0.0, 0.0, f64::from(w), f64::from(h));
        self.flash(&ctx, src, f);
        let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
        paint_highlight(&ctx, &src.grid, plan);
        let scene = src.scene.as_ref();
        let map = &plan.map;
        let colour = |r: usize, c: usize| {
            let scene = scene?;
            let (x0, x1) = map.pixels_of(c, map.origin_x);
            let (y0, y1) = map.pixels_of(r, map.origin_y);
            let (x, y) = ((x0 + x1) / 2, (y0 + y1) / 2);
            let (x, y) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
            Some(scene.pixel(plan, x, y))
        };
        draw_over(&ctx, src, f, &colour, false);
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

    /// Paints with the canvas-2D painter, on the overlay (the canvas holds a WebGPU context).
    fn paint_fallback(&mut self, target: &Target, src: &Source, f: &Frame) {
        self.release(target.canvas);
        self.fallback.paint_on(target.overlay, src, f);
    }

    /// Paints a frame; `force`: present it even if the canvas shows that plan or a frame is
    /// on its way (the PNG export reads the canvas in this task).
    fn draw(&mut self, target: &Target, src: &Source, f: &Frame, force: bool) {
        if self.failure.is_none() && !self.is_current() {
            self.fail(target.canvas, Failure::DeviceLost);
        }
        if self.failure.is_some() || self.view.is_none() {
            self.paint_fallback(target, src, f);
            return;
        }
        // The GPU draws the cells; the highlight goes on the overlay.
        let plan = PlanFrame::new(&f.viewport, &src.grid, None);
        let stale = !matches!(&self.shown, Some((g, p)) if *g == self.generation && *p == plan);
        if stale || force {
            let queue = self.data.as_ref().map(frame_queue);
            if let Some(queue) = queue.filter(|q| q.in_flight.get() && !force) {
                // The canvas keeps the frame it shows, and the overlay that goes with it;
                // the plan of the moment is drawn once the GPU is done.
                if let Some(wake) = &self.wake {
                    let mut waiting = queue.waiting.borrow_mut();
                    if !waiting.iter().any(|w| Rc::ptr_eq(w, wake)) {
                        waiting.push(Rc::clone(wake));
                    }
                }
                return;
            }
            if let Err(failure) = self.presenter(target.canvas) {
                self.fail(target.canvas, failure);
                self.paint_fallback(target, src, f);
                return;
            }
            match self.present(target.canvas, &plan) {
                Ok(()) => self.shown = Some((self.generation, plan.clone())),
                Err(PresentIssue::Skipped(_)) => {
                    // Asked again after this paint (no frame is on its way to ask).
                    if let Some(wake) = self.wake.clone() {
                        leptos::task::spawn_local(async move { wake() });
                    }
                    return;
                }
                Err(PresentIssue::Lost(why)) => {
                    let failure = if self.is_current() {
                        Failure::Context(format!("the canvas's WebGPU context failed ({why})"))
                    } else {
                        Failure::DeviceLost
                    };
                    self.fail(target.canvas, failure);
                    self.paint_fallback(target, src, f);
                    return;
                }
            }
        }
        let lit = PlanFrame::new(&f.viewport, &src.grid, f.highlight);
        self.overlay(target.overlay, src, f, &lit);
    }
}

impl Painter for WebGpuPainter {
    fn name(&self) -> &'static str {
        if self.failure.is_none() && self.view.is_some() {
            "webgpu"
        } else {
            "canvas2d"
        }
    }

    // While WebGPU is the renderer every frame the canvas shows is the GPU's, presented on
    // it (before the first one it shows none); otherwise the canvas-2D painter draws them all.
    fn present(&self) -> &'static str {
        if self.name() == "webgpu" {
            "canvas"
        } else {
            "none"
        }
    }

    fn frame_source(&self) -> &'static str {
        if self.name() == "webgpu" {
            "gpu"
        } else {
            "cpu"
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
        if !self.is_current() {
            // The device was lost: these data go to the page's new engine, if it has one.
            let Some(data) = GpuData::current() else {
                if self.failure.is_none() {
                    log(LOST_NOTE.into());
                }
                self.failure = Some(Failure::DeviceLost);
                return;
            };
            self.data = Some(data);
            self.painter = GpuPainter::new();
            self.presenter = None;
            self.progress = Rc::new(Progress::default());
            if self.failure == Some(Failure::DeviceLost) {
                self.failure = None;
            }
        }
        if self.failure.is_none() {
            self.view = self.prepare(src, last_on_gpu);
        }
    }

    fn paint(&mut self, target: &Target, src: &Source, f: &Frame) {
        self.draw(target, src, f, false);
    }

    fn snapshot(&mut self, target: &Target, src: &Source, f: &Frame) -> Option<String> {
        // The WebGPU canvas is read in the task that drew its frame.
        self.draw(target, src, f, true);
        compose(target)
    }
}

/// Paints, in device pixels, the highlight of `plan` as `Scene::pixel` draws it: the pixels
/// that show a cell reading the highlighted element (not over grid lines and separators),
/// then the rings around its cells.
fn paint_highlight(ctx: &web_sys::CanvasRenderingContext2d, grid: &Grid, plan: &PlanFrame) {
    let Some(target) = plan.highlight else { return };
    let (w, h) = (i64::from(plan.size.0), i64::from(plan.size.1));
    let map = &plan.map;
    let [r, g, b, _] = HIGHLIGHT_COLOUR;
    ctx.set_fill_style_str(&format!("rgb({r},{g},{b})"));
    let fill = |x0: i64, y0: i64, x1: i64, y1: i64| {
        if x1 > x0 && y1 > y0 {
            ctx.fill_rect(x0 as f64, y0 as f64, (x1 - x0) as f64, (y1 - y0) as f64);
        }
    };
    // Pixel row `y` (grid row `row`) between x0 and x1: the runs of pixels showing a lit cell.
    let row_runs = |y: i64, row: usize, x0: i64, x1: i64, lit: &dyn Fn(usize) -> bool| {
        let starts_row = map.starts_cell(y, map.origin_y);
        let separator = plan.separators
            && grid.slice_rows > 0
            && row > 0
            && row.is_multiple_of(grid.slice_rows)
            && starts_row;
        if separator || (plan.grid_lines && starts_row) {
            return;
        }
        let (x0, x1) = (x0.max(0), x1.min(w));
        let mut start = None;
        for x in x0..=x1 {
            let on = x < x1
                && map.col(x, grid.cols).is_some_and(lit)
                && !(plan.grid_lines && map.starts_cell(x, map.origin_x));
            match (on, start) {
                (true, None) => start = Some(x),
                (false, Some(s)) => {
                    fill(s, y, x, y + 1);
                    start = None;
                }
                _ => {}
            }
        }
    };
    let cells = grid.cells_at_offset(target, HIGHLIGHT_CAP);
    if cells.len() >= HIGHLIGHT_CAP {
        for y in 0..h {
            let Some(row) = map.row(y, grid.rows) else {
                continue;
            };
            row_runs(y, row, 0, w, &|c| {
                grid.has_cell(row, c) && grid.cell_offsets(row, c).contains(&target)
            });
        }
    } else {
        for (row, col) in cells {
            // The pixels whose centres fall in the cell, and one more each side (below a
            // pixel per cell, a pixel just past the grid's edge shows its edge cell).
            let (x0, x1) = map.pixels_of(col, map.origin_x);
            let (y0, y1) = map.pixels_of(row, map.origin_y);
            for y in (y0 - 1).max(0)..(y1 + 1).min(h) {
                if map.row(y, grid.rows) == Some(row) {
                    row_runs(y, row, x0 - 1, x1 + 1, &|c| c == col);
                }
            }
        }
    }
    for &[x0, y0, x1, y1] in &plan.marks {
        let (ox0, oy0) = ((x0 - MARK_RING_PX).max(0), (y0 - MARK_RING_PX).max(0));
        let (ox1, oy1) = ((x1 + MARK_RING_PX).min(w), (y1 + MARK_RING_PX).min(h));
        if ox1 <= ox0 || oy1 <= oy0 {
            // Off the canvas.
            continue;
        }
        let (my0, my1) = (y0.clamp(oy0, oy1), y1.clamp(oy0, oy1));
        fill(ox0, oy0, ox1, my0);
        fill(ox0, my1, ox1, oy1);
        fill(ox0, my0, x0.clamp(ox0, ox1), my1);
        fill(x1.clamp(ox0, ox1), my0, ox1, my1);
    }
}

/// The canvas and its overlay as one PNG data URL (read in the task that drew the frame).
pub(super) fn compose(target: &Target) -> Option<String> {
    let (w, h) = (target.canvas.width(), target.canvas.height());
    let out = web_sys::window()?
        .document()?
        .create_element("canvas")
        .ok()?
        .dyn_into::<web_sys::HtmlCanvasElement>()
        .ok()?;
    out.set_width(w);
    out.set_height(h);
    let ctx = context(&out)?;
    ctx.draw_image_with_html_canvas_element(target.canvas, 0.0, 0.0)
        .ok()?;
    if target.overlay.width() > 0 && target.overlay.height() > 0 {
        ctx.draw_image_with_html_canvas_element(target.overlay, 0.0, 0.0)
            .ok()?;
    }
    out.to_data_url().ok()
}
