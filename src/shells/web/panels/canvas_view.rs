//! Large views and storage strips (more than `render::CANVAS_MIN_CELLS` cells) drawn on a
//! `<canvas>`: the toolbar (zoom, fit, RGB or heatmap, back to cells), pointer, wheel, pinch
//! and keyboard interaction, picking by the render plan's arithmetic, and the page's hover,
//! pin, stride-jump and write-flash state drawn over the picture. What draws the pixels is a
//! [`Painter`]: `gpu_painter.rs` (the GPU render path) where the page has a WebGPU engine,
//! else `canvas2d.rs`.
//!
//! The canvas carries the contract the tests read: `data-testid="gpu-view"`, `data-name` (a
//! view) or `data-storage` (a storage), `data-renderer`, `data-cell-px` (a cell's size in CSS
//! pixels), `data-pan` (`x,y`: where cell (0, 0)'s top-left is, from the canvas's top-left;
//! `0,0` at the default pan), `data-highlight-offset` (the storage element highlighted now,
//! empty when none of this storage is), `data-pinned-offset` (likewise for the pinned one),
//! `data-mode` (`rgb`, `heatmap` or `tint`), `data-rows`/`data-cols` (the drawing's grid) and
//! `data-recorded` (whether the values are in the trace), `data-frame-source` (`gpu` when the
//! canvas shows the GPU's frame, `cpu` when the canvas-2D painter drew it) and `data-present`
//! (`canvas` when WebGPU frames are presented on the canvas, `readback` when they are read
//! back, `none` for the canvas-2D painter); with WebGPU, `data-gpu-frames` (GPU frames
//! presented so far), `data-gpu-done` (those the GPU finished) and `data-gpu-ms` (the last
//! one's time from submitting to done). A transparent overlay canvas above it (no test id,
//! hidden from assistive technology) carries what the WebGPU painter draws in 2-D.

use std::collections::HashSet;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::tensor::StorageId;
use crate::core::trace::Step;
use crate::present::cells::dims_text;
use crate::present::render::{Mode, Scene, Viewport, GPU_MIN_CELLS};
use crate::shells::web::i18n::{t as tr, tf};
use crate::shells::web::panels::canvas2d::Canvas2d;
pub(super) use crate::shells::web::panels::canvas_source::Drawn;
use crate::shells::web::panels::canvas_source::{source_of, values_of, Source};
pub(super) use crate::shells::web::panels::painter::{Frame, Painter, Target};
pub use crate::shells::web::panels::readout::CellReadout;
use crate::shells::web::{AppState, Hover};

/// Whether a drawing of `cells` cells goes on a canvas rather than into the DOM.
pub(super) fn is_large(cells: usize) -> bool {
    cells > GPU_MIN_CELLS
}

/// The reader's choices for large drawings, kept across steps: which are drawn as cells (the
/// DOM grid) instead of pixels, and which image-shaped views as a heatmap instead of RGB.
#[derive(Clone, Copy)]
pub struct CanvasPrefs {
    /// Keys (`view:NAME`, `storage:ID`) of drawings shown as cells.
    pub as_cells: RwSignal<HashSet<String>>,
    /// Keys of image-shaped views shown as a heatmap.
    pub heatmap: RwSignal<HashSet<String>>,
}

impl CanvasPrefs {
    /// No choice made yet: every large drawing on a canvas, images in RGB.
    pub fn new() -> Self {
        CanvasPrefs {
            as_cells: RwSignal::new(HashSet::new()),
            heatmap: RwSignal::new(HashSet::new()),
        }
    }
}

impl Default for CanvasPrefs {
    fn default() -> Self {
        Self::new()
    }
}

/// The key of a view's drawing in [`CanvasPrefs`].
pub(super) fn view_pref_key(name: &str) -> String {
    format!("view:{name}")
}

/// The key of a storage's drawing in [`CanvasPrefs`].
pub(super) fn storage_pref_key(id: StorageId) -> String {
    format!("storage:{id}")
}

/// One large drawing's live state.
pub(super) struct CanvasView {
    src: Source,
    painter: Box<dyn Painter>,
    canvas: Option<web_sys::HtmlCanvasElement>,
    /// The transparent canvas above it.
    overlay: Option<web_sys::HtmlCanvasElement>,
    viewport: Viewport,
    frame_pending: bool,
    /// Pointers down: id and last position (two of them pinch).
    pointers: Vec<(i32, f64, f64)>,
    /// Pixels moved since the pointer went down (a click moves less than a few).
    dragged: f64,
    highlight: Option<i64>,
    pinned: Option<i64>,
    jumps: Rc<Vec<i64>>,
    flash_since: Option<f64>,
    dark: bool,
    /// The cell the keyboard is on.
    cursor: (usize, usize),
    /// The step shown is the last of a run on WebGPU (the painter may read its buffers).
    last_on_gpu: bool,
    state: AppState,
    /// Where the viewport is kept across redraws of the panel.
    key: String,
    /// The painter's name as the page shows it.
    renderer: RwSignal<&'static str>,
}

/// The painter of a new canvas: the GPU's where the page has a WebGPU engine, or had one
/// (after a lost device it draws in 2-D on its overlay, keeping the canvas for a new device).
fn new_painter() -> Box<dyn Painter> {
    use crate::shells::web::GpuData;
    let data = GpuData::current();
    if data.is_some() || GpuData::lost_before() {
        return Box::new(crate::shells::web::panels::gpu_painter::WebGpuPainter::new(
            data,
        ));
    }
    Box::new(Canvas2d::default())
}

/// How long a write flashes, in milliseconds.
const FLASH_MS: f64 = 1200.0;
/// Most CSS pixels a canvas is high.
const MAX_CSS_H: f64 = 440.0;

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

thread_local! {
    /// Each drawing's viewport, by its [`CanvasPrefs`] key, with the grid and width it was
    /// for: a panel redrawn (a dim picked, a view added) keeps the zoom and pan.
    static VIEWPORTS: std::cell::RefCell<std::collections::HashMap<String, (usize, usize, Viewport)>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
    /// The drawings on the page, for the PNG export.
    static LIVE: std::cell::RefCell<Vec<Handle>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The picture `canvas` (a `gpu-view` canvas) shows, drawn now, as a PNG data URL: its
/// painter's frame with what goes over it (a WebGPU canvas is read in the task that drew it).
pub(crate) fn canvas_picture(canvas: &web_sys::HtmlCanvasElement) -> Option<String> {
    let live = LIVE.with(|l| l.borrow().clone());
    let v = live
        .into_iter()
        .find(|v| v.try_with_value(|v| v.canvas.as_ref() == Some(canvas)) == Some(true))?;
    v.try_update_value(|v| v.snapshot()).flatten()
}

impl CanvasView {
    fn new(src: Source, state: AppState, key: String, renderer: RwSignal<&'static str>) -> Self {
        CanvasView {
            src,
            painter: new_painter(),
            canvas: None,
            overlay: None,
            viewport: Viewport::fit(1.0, 1.0, 1.0, 1, 1),
            frame_pending: false,
            pointers: Vec::new(),
            dragged: 0.0,
            highlight: None,
            pinned: None,
            jumps: Rc::new(Vec::new()),
            flash_since: None,
            dark: false,
            cursor: (0, 0),
            last_on_gpu: false,
            state,
            key,
            renderer,
        }
    }

    fn grid(&self) -> (usize, usize) {
        (self.src.grid.rows, self.src.grid.cols)
    }

    /// Sizes the canvas to its box (full width; as high as the fitted grid, up to
    /// `MAX_CSS_H`) and fits the drawing, or keeps the zoom and pan it had (`keep`).
    fn measure(&mut self, keep: bool) {
        let Some(canvas) = &self.canvas else { return };
        let width = canvas
            .parent_element()
            .map(|p| p.client_width() as f64)
            .unwrap_or(0.0)
            .max(64.0)
            .floor();
        let (rows, cols) = self.grid();
        let across = width / cols.max(1) as f64;
        let height = (rows as f64 * across).clamp(48.0, MAX_CSS_H).ceil();
        let dpr = web_sys::window()
            .map(|w| w.device_pixel_ratio())
            .unwrap_or(1.0);
        let fit = Viewport::fit(width, height, dpr, rows, cols);
        let kept = VIEWPORTS.with(|m| m.borrow().get(&self.key).copied());
        self.viewport = match kept {
            Some((r, c, v)) if keep && (r, c) == (rows, cols) && v.width == width => v,
            _ => fit,
        };
        let (w, h) = self.viewport.device_size();
        let style = format!("width:{width}px;height:{height}px");
        // A canvas's picture is cleared whenever its size is set, even to the same.
        for c in [Some(canvas), self.overlay.as_ref()].into_iter().flatten() {
            if (c.width(), c.height()) != (w, h) {
                c.set_width(w);
                c.set_height(h);
            }
            let _ = c.set_attribute("style", &style);
        }
        self.stamp();
    }

    /// Writes the viewport into the canvas's attributes and keeps it.
    fn stamp(&self) {
        let v = self.viewport;
        let (rows, cols) = self.grid();
        VIEWPORTS.with(|m| m.borrow_mut().insert(self.key.clone(), (rows, cols, v)));
        let Some(canvas) = &self.canvas else { return };
        let _ = canvas.set_attribute("data-cell-px", &v.cell_px.to_string());
        let _ = canvas.set_attribute("data-pan", &format!("{},{}", v.pan_x, v.pan_y));
    }

    fn frame(&self) -> Frame {
        let flash = self
            .flash_since
            .map(|t| (1.0 - (now() - t) / FLASH_MS).clamp(0.0, 1.0))
            .unwrap_or(0.0);
        let (state, storage) = (self.state, self.src.storage);
        Frame {
            viewport: self.viewport,
            highlight: self.highlight,
            pinned: self.pinned,
            jumps: Rc::clone(&self.jumps),
            flash,
            dark: self.dark,
            text: Box::new(move |e| {
                let e = usize::try_from(e).ok()?;
                state.trace.with_untracked(|t| {
                    let step = t.steps.get(state.step.get_untracked())?;
                    let s = step.storages.iter().find(|s| s.id == storage)?;
                    s.values
                        .as_ref()?
                        .get(e)
                        .map(crate::present::cells::value_text)
                })
            }),
            not_recorded: tf("canvas-not-recorded", &[("count", self.src.count.into())]),
        }
    }

    /// Draws a frame now (from the animation frame callback); true while a write flashes.
    fn paint(&mut self) -> bool {
        self.frame_pending = false;
        let (Some(canvas), Some(overlay)) = (self.canvas.clone(), self.overlay.clone()) else {
            return false;
        };
        let frame = self.frame();
        let started = now();
        let target = Target {
            canvas: &canvas,
            overlay: &overlay,
        };
        self.painter.paint(&target, &self.src, &frame);
        let _ = canvas.set_attribute("data-frame-ms", &format!("{:.2}", now() - started));
        self.show_renderer();
        frame.flash > 0.0
    }

    /// Draws a frame now and returns the picture, as a PNG data URL.
    fn snapshot(&mut self) -> Option<String> {
        let (Some(canvas), Some(overlay)) = (self.canvas.clone(), self.overlay.clone()) else {
            return None;
        };
        let frame = self.frame();
        let target = Target {
            canvas: &canvas,
            overlay: &overlay,
        };
        let picture = self.painter.snapshot(&target, &self.src, &frame);
        self.show_renderer();
        picture
    }

    /// The cell at CSS point `(x, y)` of the canvas, with its view index and storage
    /// element.
    ///
    /// The cell is the one whose square (`Viewport::cell_rect`) holds the point, as the
    /// contract places cells: cell (i, j) spans `[pan + j·cell, pan + (j + 1)·cell)`. Where
    /// cells are larger than a device pixel this is the cell the pointer's pixel shows; below
    /// a pixel per cell, a pixel shows one of the several cells it covers, and the point
    /// names the one under it.
    fn pick(&self, x: f64, y: f64) -> Option<((usize, usize), Vec<i64>, i64)> {
        let vp = &self.viewport;
        let at = |p: f64, pan: f64| {
            let k = ((p - pan) / vp.cell_px).floor();
            (k.is_finite() && k >= 0.0).then_some(k as usize)
        };
        let (row, col) = (at(y, vp.pan_y)?, at(x, vp.pan_x)?);
        self.cell(row, col).map(|(i, o)| ((row, col), i, o))
    }

    /// Cell `(row, col)`'s view index and storage element.
    fn cell(&self, row: usize, col: usize) -> Option<(Vec<i64>, i64)> {
        let g = &self.src.grid;
        let index = g.cell_index(row, col)?;
        let offset = g.cell_offset(row, col)?;
        Some((index.into_iter().map(|i| i as i64).collect(), offset))
    }

    /// The page's hover of a cell.
    fn hover(&self, index: Vec<i64>, offset: i64) -> Hover {
        Hover {
            storage: self.src.storage,
            offset,
            view: self.src.view.clone().map(|n| (n, index)),
        }
    }

    /// Shows the painter's name (it draws in 2-D where the GPU cannot), how its frames reach
    /// the canvas and who drew the picture shown.
    fn show_renderer(&self) {
        let name = self.painter.name();
        if self.renderer.get_untracked() != name {
            self.renderer.set(name);
        }
        if let Some(canvas) = &self.canvas {
            let _ = canvas.set_attribute("data-present", self.painter.present());
            let _ = canvas.set_attribute("data-frame-source", self.painter.frame_source());
        }
    }

    /// Takes `step`'s values and writes; true when the picture changed.
    fn refresh(&mut self, step: &Step, first: bool) -> bool {
        let record = step.storages.iter().find(|s| s.id == self.src.storage);
        let written = crate::present::cells::storage_written(step, self.src.storage);
        let values = record.and_then(values_of);
        let changed = match (&self.src.scene, values) {
            (Some(scene), Some(v)) if scene.values != v => {
                self.src.scene = Some(Scene::new(self.src.grid.clone(), v, scene.mode));
                true
            }
            _ => false,
        };
        // The GPU's buffers hold the values of a run's last step (drawn from there even where
        // the trace has no values).
        let state = self.state;
        let steps = state.trace.with_untracked(|t| t.steps.len());
        let last_on_gpu = state.step.get_untracked() + 1 >= steps
            && state
                .engine
                .with_untracked(|e| e.kind == crate::shells::web::EngineKind::WebGpu);
        let changed = changed || last_on_gpu != self.last_on_gpu;
        self.last_on_gpu = last_on_gpu;
        if changed || first || !written.is_empty() {
            self.painter.set_data(&self.src, &written, last_on_gpu);
            self.show_renderer();
            if !written.is_empty() {
                self.flash_since = Some(now());
            }
        }
        if let Some(canvas) = &self.canvas {
            let _ = canvas.set_attribute("data-written", &written.len().to_string());
        }
        changed || first || !written.is_empty()
    }
}

type Handle = StoredValue<CanvasView, LocalStorage>;

/// Paints `v` in the next animation frame (once, however many changes come before it).
fn repaint(v: Handle) {
    let first = v
        .try_update_value(|v| !std::mem::replace(&mut v.frame_pending, true))
        .unwrap_or(false);
    if first {
        request_animation_frame(move || {
            if v.try_update_value(|v| v.paint()) == Some(true) {
                repaint(v);
            }
        });
    }
}

/// The storage element of `storage` that `h` is on, if it is.
fn offset_in(h: Option<Hover>, storage: StorageId) -> Option<i64> {
    h.filter(|h| h.storage == storage).map(|h| h.offset)
}

/// A mouse event's point in CSS pixels of the element it is handled on.
fn local(ev: &web_sys::MouseEvent) -> (f64, f64) {
    let get = |k: &str| {
        js_sys::Reflect::get(ev, &k.into())
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0)
    };
    let rect = ev
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map(|t| t.get_bounding_client_rect());
    match rect {
        Some(r) => (get("clientX") - r.left(), get("clientY") - r.top()),
        None => (0.0, 0.0),
    }
}

/// The button that draws a large view or storage on a canvas again.
pub(super) fn to_pixels_button(key: String) -> AnyView {
    let prefs = expect_context::<CanvasPrefs>();
    view! {
        <div class="canvas-tools">
            <button class="ghost" data-testid="canvas-toggle" title=tr("canvas-as-pixels-title")
                on:click=move |_| prefs.as_cells.update(|s| { s.remove(&key); })>{tr("canvas-as-pixels")}</button>
        </div>
    }
    .into_any()
}

/// The canvas drawing of a large view or storage, with its toolbar; `key` is its
/// [`CanvasPrefs`] key, `name` the view's or storage's name, `jumps` the storage elements of
/// the picked dim's stride walk (storages).
pub(super) fn canvas_drawing(
    state: AppState,
    step: &Step,
    drawn: Drawn,
    key: String,
    name: String,
    jumps: Vec<i64>,
) -> AnyView {
    let prefs = expect_context::<CanvasPrefs>();
    let heatmap = prefs.heatmap.with_untracked(|h| h.contains(&key));
    let (src, is_image) = source_of(&drawn, step, heatmap);
    let storage = src.storage;
    let mode = src.mode;
    let recorded = src.scene.is_some();
    let (rows, cols) = (src.grid.rows, src.grid.cols);
    let count = src.count;
    let range = src
        .scene
        .as_ref()
        .filter(|s| s.mode == Mode::Heat)
        .map(|s| {
            let text = |v: f32| {
                crate::present::cells::value_text(&crate::core::trace::TraceScalar(
                    crate::core::tensor::Scalar::Float(f64::from(v)),
                ))
            };
            tf(
                "canvas-range",
                &[
                    ("min", text(s.range.lo).into()),
                    ("max", text(s.range.hi).into()),
                ],
            )
        });
    let (testid_name, testid_storage, label) = match &drawn {
        Drawn::View(t) => (
            Some(t.name.clone()),
            None,
            tf(
                "canvas-view-label",
                &[
                    ("name", (&t.name).into()),
                    ("shape", dims_text(&t.shape).into()),
                    ("count", count.into()),
                ],
            ),
        ),
        Drawn::Storage(s) => (
            None,
            Some(s.id.to_string()),
            tf(
                "canvas-storage-label",
                &[("id", (&s.id).into()), ("count", count.into())],
            ),
        ),
    };
    let jump_count = jumps.len();
    let renderer = RwSignal::new("canvas2d");
    let mut view_state = CanvasView::new(src, state, key.clone(), renderer);
    view_state.jumps = Rc::new(jumps);
    renderer.set(view_state.painter.name());
    let (present, source) = (
        view_state.painter.present(),
        view_state.painter.frame_source(),
    );
    let v: Handle = StoredValue::new_local(view_state);
    v.update_value(|s| s.painter.set_waker(Rc::new(move || repaint(v))));
    let node = NodeRef::<leptos::html::Canvas>::new();
    let over = NodeRef::<leptos::html::Canvas>::new();
    // Mounted: size, keep the zoom it had (or fit), paint.
    Effect::new(move |_| {
        let (Some(canvas), Some(overlay)) = (node.get(), over.get()) else {
            return;
        };
        v.update_value(|v| {
            v.canvas = Some(canvas.clone());
            v.overlay = Some(overlay.clone());
            v.measure(true);
        });
        repaint(v);
    });
    LIVE.with(|l| l.borrow_mut().push(v));
    on_cleanup(move || LIVE.with(|l| l.borrow_mut().retain(|h| *h != v)));
    // Each step's values and writes.
    Effect::new(move |first: Option<()>| {
        let changed = state
            .with_current(|step| v.try_update_value(|v| v.refresh(step, first.is_none())))
            .flatten();
        if changed == Some(true) {
            repaint(v);
        }
    });
    // Hover and pin: the highlighted element of this storage.
    let store = storage;
    Effect::new(move |_| {
        let pinned = state.pinned.get();
        let hover = state.hover.get();
        let dark = state.dark.get();
        let lit = offset_in(hover.or_else(|| pinned.clone()), store);
        let pin = offset_in(pinned, store);
        let changed = v
            .try_update_value(|v| {
                let changed = (v.highlight, v.pinned, v.dark) != (lit, pin, dark);
                v.highlight = lit;
                v.pinned = pin;
                v.dark = dark;
                if let Some(canvas) = &v.canvas {
                    let text = |o: Option<i64>| o.map(|o| o.to_string()).unwrap_or_default();
                    let _ = canvas.set_attribute("data-highlight-offset", &text(lit));
                    let _ = canvas.set_attribute("data-pinned-offset", &text(pin));
                }
                changed
            })
            .unwrap_or(false);
        if changed {
            repaint(v);
        }
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        v.try_update_value(|v| v.measure(false));
        repaint(v);
    });
    on_cleanup(move || resize.remove());

    let hover_at = move |x: f64, y: f64| {
        let picked = v.try_with_value(|v| v.pick(x, y)).flatten();
        set_hover(state, v, picked);
    };
    let on_down = move |ev: web_sys::PointerEvent| {
        let (x, y) = local(&ev);
        if let Some(t) = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        {
            let _ = t.set_pointer_capture(ev.pointer_id());
        }
        v.update_value(|v| {
            v.pointers.retain(|p| p.0 != ev.pointer_id());
            v.pointers.push((ev.pointer_id(), x, y));
            v.dragged = 0.0;
        });
    };
    let on_move = move |ev: web_sys::PointerEvent| {
        let (x, y) = local(&ev);
        let moved = v
            .try_update_value(|v| {
                let id = ev.pointer_id();
                let Some(k) = v.pointers.iter().position(|p| p.0 == id) else {
                    return false;
                };
                let (_, px, py) = v.pointers[k];
                let (rows, cols) = v.grid();
                if v.pointers.len() >= 2 {
                    // Pinch: the distance between the two pointers scales the zoom, about
                    // their midpoint.
                    let other = v.pointers[1 - k.min(1)];
                    let before = ((px - other.1).powi(2) + (py - other.2).powi(2)).sqrt();
                    let after = ((x - other.1).powi(2) + (y - other.2).powi(2)).sqrt();
                    if before > 1.0 {
                        let (mx, my) = ((x + other.1) / 2.0, (y + other.2) / 2.0);
                        v.viewport.zoom_at(after / before, mx, my, rows, cols);
                    }
                } else {
                    v.viewport.pan_by(x - px, y - py, rows, cols);
                }
                v.dragged += (x - px).abs() + (y - py).abs();
                v.pointers[k] = (id, x, y);
                v.stamp();
                true
            })
            .unwrap_or(false);
        if moved {
            repaint(v);
        }
        hover_at(x, y);
    };
    let on_up = move |ev: web_sys::PointerEvent| {
        let (x, y) = local(&ev);
        let click = v
            .try_update_value(|v| {
                let was = v.pointers.len();
                v.pointers.retain(|p| p.0 != ev.pointer_id());
                was == 1 && v.pointers.is_empty() && v.dragged < 4.0
            })
            .unwrap_or(false);
        if click {
            pin_at(state, v, x, y);
        }
    };
    let on_cancel = move |ev: web_sys::PointerEvent| {
        v.update_value(|v| v.pointers.retain(|p| p.0 != ev.pointer_id()));
    };
    let on_wheel = move |ev: web_sys::WheelEvent| {
        ev.prevent_default();
        let (x, y) = local(&ev);
        // Pinch on a touchpad arrives as ctrl+wheel, in finer steps.
        let per = if ev.ctrl_key() { 0.01 } else { 0.0015 };
        let factor = (-ev.delta_y() * per).exp();
        v.update_value(|v| {
            let (rows, cols) = v.grid();
            v.viewport.zoom_at(factor, x, y, rows, cols);
            v.stamp();
        });
        repaint(v);
        hover_at(x, y);
    };
    let zoom_by = move |factor: f64| {
        v.update_value(|v| {
            let (rows, cols) = v.grid();
            let (cx, cy) = (v.viewport.width / 2.0, v.viewport.height / 2.0);
            v.viewport.zoom_at(factor, cx, cy, rows, cols);
            v.stamp();
        });
        repaint(v);
    };
    let fit = move || {
        v.update_value(|v| v.measure(false));
        repaint(v);
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let step = |dr: i64, dc: i64| {
            ev.prevent_default();
            ev.stop_propagation();
            move_cursor(state, v, dr, dc);
        };
        match ev.key().as_str() {
            "+" | "=" => zoom_by(1.25),
            "-" | "_" => zoom_by(0.8),
            "0" => fit(),
            "ArrowLeft" => return step(0, -1),
            "ArrowRight" => return step(0, 1),
            "ArrowUp" => return step(-1, 0),
            "ArrowDown" => return step(1, 0),
            "Enter" | " " => {
                let at = v.with_value(|v| v.cursor);
                let picked = v.with_value(|v| v.cell(at.0, at.1));
                if let Some((index, offset)) = picked {
                    toggle_pin(state, v, index, offset);
                }
            }
            _ => return,
        }
        ev.prevent_default();
        ev.stop_propagation();
    };
    let on_focus = move |_| move_cursor(state, v, 0, 0);
    let toggle_key = key.clone();
    let to_cells = move |_| {
        prefs.as_cells.update(|s| {
            s.insert(toggle_key.clone());
        });
    };
    let mode_key = key.clone();
    let toggle_mode = move |_| {
        prefs.heatmap.update(|s| {
            if !s.remove(&mode_key) {
                s.insert(mode_key.clone());
            }
        });
    };
    let tools = tf("canvas-tools", &[("name", (&name).into())]);
    let note = (!recorded).then(|| {
        view! { <p class="canvas-note" data-testid="canvas-not-recorded">{tf("canvas-not-recorded", &[("count", count.into())])}</p> }
    });
    view! {
        <div class="canvas-tools" role="toolbar" aria-label=tools>
            <button class="ghost" data-testid="canvas-zoom-out" aria-label=tr("canvas-zoom-out") title=tr("canvas-zoom-out") on:click=move |_| zoom_by(0.8)>"−"</button>
            <button class="ghost" data-testid="canvas-zoom-in" aria-label=tr("canvas-zoom-in") title=tr("canvas-zoom-in") on:click=move |_| zoom_by(1.25)>"+"</button>
            <button class="ghost" data-testid="canvas-fit" title=tr("canvas-fit-title") on:click=move |_| fit()>{tr("canvas-fit")}</button>
            {is_image.then(|| view! {
                <button class="ghost" data-testid="canvas-mode" aria-pressed=(!heatmap).to_string()
                    title=if heatmap { tr("canvas-rgb-title") } else { tr("canvas-heatmap-title") }
                    on:click=toggle_mode>{if heatmap { tr("canvas-rgb") } else { tr("canvas-heatmap") }}</button>
            })}
            <button class="ghost" data-testid="canvas-toggle" title=tr("canvas-as-cells-title") on:click=to_cells>{tr("canvas-as-cells")}</button>
            <span class="hint">{tr("canvas-hint")}</span>
            {range.map(|r| view! { <span class="hint mono">{r}</span> })}
            <span class="hint">{move || tf("canvas-renderer", &[("renderer", renderer.get().into())])}</span>
        </div>
        {note}
        <div class="canvas-box">
            <canvas node_ref=node class="large-canvas" data-testid="gpu-view" data-name=testid_name data-storage=testid_storage
                data-renderer=move || renderer.get() data-mode=mode data-rows=rows data-cols=cols data-recorded=recorded.to_string()
                data-highlight-offset="" data-pinned-offset="" data-cell-px="" data-pan="0,0" data-jumps=jump_count
                data-present=present data-frame-source=source
                role="img" tabindex="0" aria-label=label
                on:pointerdown=on_down on:pointermove=on_move on:pointerup=on_up on:pointercancel=on_cancel
                on:wheel=on_wheel on:keydown=on_key on:focus=on_focus></canvas>
            <canvas node_ref=over class="large-canvas-overlay" aria-hidden="true"></canvas>
        </div>
    }
    .into_any()
}

/// Sets the page's hover from a picked cell (nothing picked: no hover).
fn set_hover(state: AppState, v: Handle, picked: Option<((usize, usize), Vec<i64>, i64)>) {
    let hover = picked.map(|(at, index, offset)| {
        v.update_value(|v| v.cursor = at);
        v.with_value(|v| v.hover(index, offset))
    });
    if hover != state.hover.get_untracked() {
        state.hover.set(hover);
    }
}

fn toggle_pin(state: AppState, v: Handle, index: Vec<i64>, offset: i64) {
    let h = v.with_value(|v| v.hover(index, offset));
    state.pinned.update(|p| {
        let same = p
            .as_ref()
            .is_some_and(|q| q.storage == h.storage && q.offset == h.offset);
        *p = if same { None } else { Some(h) };
    });
}

/// A click on a cell pins it (a click on the pinned element unpins it).
fn pin_at(state: AppState, v: Handle, x: f64, y: f64) {
    if let Some((_, index, offset)) = v.try_with_value(|v| v.pick(x, y)).flatten() {
        toggle_pin(state, v, index, offset);
    }
}

/// Moves the keyboard's cell and inspects it, panning to keep it in view.
fn move_cursor(state: AppState, v: Handle, dr: i64, dc: i64) {
    let picked = v
        .try_update_value(|v| {
            let (rows, cols) = v.grid();
            let (r, c) = (v.cursor.0 as i64, v.cursor.1 as i64);
            let last = |n: usize| (n.max(1) - 1) as i64;
            let at = (
                (r + dr).clamp(0, last(rows)) as usize,
                (c + dc).clamp(0, last(cols)) as usize,
            );
            v.cursor = at;
            // Pan so that the cell is in the canvas.
            let vp = &mut v.viewport;
            let [x, y, w, h] = vp.cell_rect(at.0, at.1);
            let dx = if x < 0.0 {
                -x
            } else {
                (vp.width - (x + w)).min(0.0)
            };
            let dy = if y < 0.0 {
                -y
            } else {
                (vp.height - (y + h)).min(0.0)
            };
            if dx != 0.0 || dy != 0.0 {
                vp.pan_by(dx, dy, rows, cols);
            }
            v.stamp();
            v.cell(at.0, at.1).map(|(i, o)| (at, i, o))
        })
        .flatten();
    repaint(v);
    set_hover(state, v, picked);
}
