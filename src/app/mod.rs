//! The web app (Leptos, client-side rendering). It renders a [`Trace`] and never computes
//! semantics: every number it shows comes from the trace or from `ui_model`.
//!
//! State is a handful of signals ([`AppState`]): the script, the trace of the last run, the
//! current step, the hovered cell, the picked dimension and the theme. Everything else is
//! derived. Hover highlighting is applied imperatively to the matching cells (one query per
//! hover), so hovering never re-renders a panel.

mod editor;
mod panels;

use std::sync::Arc;
use std::time::Duration;

use leptos::leptos_dom::helpers::{set_timeout_with_handle, TimeoutHandle};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use std::cell::RefCell;
use std::rc::Rc;

use crate::engine::gpu::GpuEngine;
use crate::engine::mirror::{MirrorEngine, MirrorStats};
use crate::engine::{CpuEngine, Engine};
use crate::eval::{Evaluator, Limits};
use crate::tensor::{DType, StorageId};
use crate::trace::{Step, Trace, TraceScalar};

pub use editor::Editor;
pub use panels::{MemoryPanel, OutputPanel, StoragePanel, ViewsPanel};

/// Scripts longer than this are not run in the browser (the page must stay responsive).
pub const MAX_SCRIPT_BYTES: usize = 100_000;
/// Scripts with more lines than this are not run in the browser.
pub const MAX_SCRIPT_LINES: usize = 2_000;
const SCRIPT_KEY: &str = "stridescope.script";
const THEME_KEY: &str = "stridescope.theme";

/// The hovered cell: a storage element, and the view cell it was reached from (if any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    pub storage: String,
    pub offset: i64,
    /// View name and logical index, when a view cell is hovered.
    pub view: Option<(String, Vec<i64>)>,
}

/// Which engine ran the script, for the badge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineInfo {
    /// `WebGPU` or `CPU`.
    pub kind: String,
    /// Adapter or reason, shown next to the kind.
    pub detail: String,
}

/// The app's source-of-truth signals.
#[derive(Clone, Copy)]
pub struct AppState {
    pub script: RwSignal<String>,
    pub trace: RwSignal<Arc<Trace>>,
    pub notice: RwSignal<Option<String>>,
    pub step: RwSignal<usize>,
    pub hover: RwSignal<Option<Hover>>,
    pub picked: RwSignal<Option<(String, usize)>>,
    pub dark: RwSignal<bool>,
    pub engine: RwSignal<EngineInfo>,
}

impl AppState {
    /// Applies `f` to the current step's record without copying it (subscribes to changes).
    pub fn with_current<R>(&self, f: impl FnOnce(&Step) -> R) -> Option<R> {
        let i = self.step.get();
        self.trace.with(|t| t.steps.get(i).map(f))
    }

    /// The current step's record, without subscribing to changes.
    pub fn current_untracked(&self) -> Option<Step> {
        let i = self.step.get_untracked();
        self.trace.with_untracked(|t| t.steps.get(i).cloned())
    }

    /// The current step's record (cloned out of the trace).
    pub fn current(&self) -> Option<Step> {
        let i = self.step.get();
        self.trace.with(|t| t.steps.get(i).cloned())
    }
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

fn load(key: &str) -> Option<String> {
    local_storage().and_then(|s| s.get_item(key).ok().flatten())
}

fn save(key: &str, value: &str) {
    if let Some(s) = local_storage() {
        // Quota errors only mean the script is not kept; the page goes on.
        let _ = s.set_item(key, value);
    }
}

fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .map(|m| m.matches())
        .unwrap_or(false)
}

thread_local! {
    /// The WebGPU engine, once an adapter was found (None: the CPU engine runs alone).
    static GPU: RefCell<Option<Rc<RefCell<GpuEngine>>>> = const { RefCell::new(None) };
    /// What the last mirrored run did on the GPU.
    static STATS: Rc<RefCell<MirrorStats>> = Rc::new(RefCell::new(MirrorStats::default()));
}

fn gpu() -> Option<Rc<RefCell<GpuEngine>>> {
    GPU.with(|g| g.borrow().clone())
}

/// Runs `script` within the browser's limits: on WebGPU (mirrored by the CPU reference
/// engine, which answers reads) when an adapter was found, else on the CPU engine. Returns
/// the trace and whether the GPU ran it, or why the script was not run.
pub fn run_script(script: &str) -> Result<(Trace, bool), String> {
    let lines = script.lines().count();
    if script.len() > MAX_SCRIPT_BYTES || lines > MAX_SCRIPT_LINES {
        return Err(format!(
            "This script is {} in {} lines; the browser runs scripts up to {} and {} lines, so the page stays responsive. Shorten it to run it (nothing you typed is lost).",
            crate::ui_model::bytes_text(script.len()),
            lines,
            crate::ui_model::bytes_text(MAX_SCRIPT_BYTES),
            MAX_SCRIPT_LINES
        ));
    }
    // The browser records at most 64 Ki values per tensor: the page draws summaries beyond.
    let limits = Limits {
        max_statements: MAX_SCRIPT_LINES,
        max_recorded_elements: 1 << 16,
        ..Limits::default()
    };
    let engine: Box<dyn Engine> = match gpu() {
        Some(g) if g.try_borrow_mut().is_ok() => {
            Box::new(MirrorEngine::new(g, STATS.with(Rc::clone)))
        }
        _ => Box::new(CpuEngine::new()),
    };
    let on_gpu = engine.name() != "cpu";
    Ok((Evaluator::new(engine, limits).run(script), on_gpu))
}

/// Re-runs the script now, keeping the step where it was when possible.
pub fn run_now(state: AppState) {
    let script = state.script.get_untracked();
    match run_script(&script) {
        Ok((trace, on_gpu)) => {
            let n = trace.steps.len();
            state.notice.set(None);
            if on_gpu {
                let s = STATS.with(|s| s.borrow().clone());
                let adapter = gpu().map(|g| adapter_name(&g.borrow())).unwrap_or_default();
                state.engine.set(EngineInfo {
                    kind: "WebGPU".into(),
                    detail: format!(
                        "{adapter} · {} ops as compute shaders, {} on the CPU",
                        s.gpu_ops, s.cpu_ops
                    ),
                });
            } else if gpu().is_some() {
                state.engine.set(EngineInfo {
                    kind: "CPU".into(),
                    detail: "WebGPU busy; reference engine".into(),
                });
            }
            let trace = Arc::new(trace);
            if on_gpu {
                verify_on_gpu(state, Arc::clone(&trace));
            }
            state.trace.set(trace);
            let step = state.step.get_untracked();
            if step >= n {
                state.step.set(n.saturating_sub(1));
            }
        }
        Err(message) => state.notice.set(Some(message)),
    }
}

fn adapter_name(g: &GpuEngine) -> String {
    let info = g.adapter_info();
    if info.name.is_empty() {
        "browser adapter".to_string()
    } else {
        info.name.clone()
    }
}

/// Reads the GPU's copy of every storage after the run back (asynchronously, the browser's
/// only way) and compares it with the reference values the page shows.
fn verify_on_gpu(state: AppState, trace: Arc<Trace>) {
    let Some(engine) = gpu() else { return };
    let Some(last) = trace.steps.last() else {
        return;
    };
    // Every read is encoded now, before another run can reuse the GPU's storages; only the
    // waiting happens later.
    let ids = STATS.with(|s| s.borrow().ids.clone());
    let reads: Vec<_> = last
        .storages
        .iter()
        .filter_map(|storage| {
            let expected = storage.values.clone()?;
            let dtype = DType::from_name(&storage.dtype)?;
            let gpu_id = storage
                .id
                .trim_start_matches('s')
                .parse()
                .ok()
                .and_then(|n| ids.get(&StorageId(n)))?;
            Some((
                storage.id.clone(),
                dtype,
                expected,
                engine.borrow().read_later(*gpu_id),
            ))
        })
        .collect();
    leptos::task::spawn_local(async move {
        let mut checked = 0;
        for (id, dtype, expected, read) in reads {
            let bytes = match read.await {
                Ok(b) => b,
                Err(e) => {
                    web_sys::console::log_1(
                        &format!("Stridescope: reading the GPU back failed: {e}").into(),
                    );
                    return;
                }
            };
            let got: Vec<TraceScalar> = (0..bytes.len() / dtype.item_size())
                .map(|i| TraceScalar(dtype.read(&bytes, i)))
                .collect();
            if got != expected {
                web_sys::console::log_1(
                    &format!("Stridescope: WebGPU's {id} differs from the reference").into(),
                );
                if Arc::ptr_eq(&trace, &state.trace.get_untracked()) {
                    state.engine.set(EngineInfo {
                        kind: "CPU".into(),
                        detail: format!("WebGPU's {id} differed from the reference; showing the CPU engine's results"),
                    });
                }
                return;
            }
            checked += 1;
        }
        // Only if this run is still the one shown.
        if Arc::ptr_eq(&trace, &state.trace.get_untracked()) {
            state.engine.update(|e| {
                if e.kind == "WebGPU" {
                    e.detail = format!("{} · {checked} storages read back and verified", e.detail);
                }
            });
        }
    });
}

/// Looks for a WebGPU adapter; with one, the script re-runs on it.
fn start_gpu(state: AppState) {
    leptos::task::spawn_local(async move {
        match GpuEngine::new().await {
            Ok(engine) => {
                // A lost device falls back to the CPU engine; the script stays as it is.
                engine.on_device_lost(move |reason| {
                    GPU.with(|g| *g.borrow_mut() = None);
                    state.engine.set(EngineInfo {
                        kind: "CPU".into(),
                        detail: format!("WebGPU device lost ({reason})"),
                    });
                    run_now(state);
                });
                GPU.with(|g| *g.borrow_mut() = Some(Rc::new(RefCell::new(engine))));
                run_now(state);
            }
            Err(e) => {
                web_sys::console::log_1(
                    &format!("Stridescope: no WebGPU, running on the CPU engine: {e}").into(),
                );
                state.engine.set(EngineInfo {
                    kind: "CPU".into(),
                    detail: "no WebGPU adapter".into(),
                });
            }
        }
    });
}

/// Removes `data-highlighted` from every highlighted cell and sets it on the cells of
/// `hover`'s storage element.
fn apply_highlight(hover: &Option<Hover>) {
    thread_local! {
        /// The cells highlighted now, so that clearing them needs no document-wide query.
        static LIT: std::cell::RefCell<Vec<web_sys::Element>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    LIT.with(|lit| {
        let mut lit = lit.borrow_mut();
        for el in lit.drain(..) {
            let _ = el.remove_attribute("data-highlighted");
        }
        let Some(h) = hover else { return };
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let selector = format!("[data-key=\"{}:{}\"]", css_escape(&h.storage), h.offset);
        if let Ok(cells) = document.query_selector_all(&selector) {
            for i in 0..cells.length() {
                if let Some(el) = cells
                    .item(i)
                    .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
                {
                    let _ = el.set_attribute("data-highlighted", "true");
                    lit.push(el);
                }
            }
        }
    });
}

/// Storage ids are `s<digits>`; anything else is dropped from selectors.
fn css_escape(s: &str) -> String {
    s.chars().filter(|c| c.is_ascii_alphanumeric()).collect()
}

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
    let initial = load(SCRIPT_KEY).unwrap_or_else(|| crate::DEFAULT_SCENARIO.to_string());
    let dark = match load(THEME_KEY).as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => prefers_dark(),
    };
    let state = AppState {
        script: RwSignal::new(initial),
        trace: RwSignal::new(Arc::new(Trace::default())),
        notice: RwSignal::new(None),
        step: RwSignal::new(0),
        hover: RwSignal::new(None),
        picked: RwSignal::new(None),
        dark: RwSignal::new(dark),
        engine: RwSignal::new(EngineInfo {
            kind: "CPU".into(),
            detail: "reference engine".into(),
        }),
    };
    provide_context(state);
    run_now(state);
    start_gpu(state);

    // Re-run as you type (debounced); keep the script across reloads.
    let pending: StoredValue<Option<TimeoutHandle>, LocalStorage> = StoredValue::new_local(None);
    Effect::new(move |first: Option<()>| {
        let script = state.script.get();
        if first.is_none() {
            return;
        }
        save(SCRIPT_KEY, &script);
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let handle =
            set_timeout_with_handle(move || run_now(state), Duration::from_millis(250)).ok();
        pending.set_value(handle);
    });
    // Hover: highlight imperatively after every change of hover or of what is drawn.
    Effect::new(move |_| {
        let hover = state.hover.get();
        state.step.track();
        state.trace.track();
        apply_highlight(&hover);
    });
    Effect::new(move |_| {
        let dark = state.dark.get();
        if let Some(root) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("data-theme", if dark { "dark" } else { "light" });
        }
    });
    // ←/→ step when the editor is not focused; Home/End jump.
    let keys = window_event_listener(leptos::ev::keydown, move |ev: web_sys::KeyboardEvent| {
        let in_editor = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map(|el| matches!(el.tag_name().as_str(), "TEXTAREA" | "INPUT"))
            .unwrap_or(false);
        if in_editor {
            return;
        }
        let n = state.trace.with_untracked(|t| t.steps.len());
        let step = state.step.get_untracked();
        match ev.key().as_str() {
            "ArrowRight" => state.step.set((step + 1).min(n.saturating_sub(1))),
            "ArrowLeft" => state.step.set(step.saturating_sub(1)),
            "Home" => state.step.set(0),
            "End" => state.step.set(n.saturating_sub(1)),
            _ => return,
        }
        ev.prevent_default();
    });
    on_cleanup(move || keys.remove());

    let toggle_theme = move |_| {
        let next = !state.dark.get_untracked();
        state.dark.set(next);
        save(THEME_KEY, if next { "dark" } else { "light" });
    };
    view! {
        <div class="app">
            <header class="top">
                <div class="brand">
                    <h1>"Stridescope"</h1>
                    <p class="tagline">"How PyTorch tensors live in memory: storages, strides, views and aliasing."</p>
                </div>
                <div class="top-actions">
                    <span class="badge engine" data-testid="engine-badge" title=move || state.engine.get().detail>
                        {move || {
                            let e = state.engine.get();
                            format!("{} · {}", e.kind, e.detail)
                        }}
                    </span>
                    <button class="ghost" on:click=toggle_theme aria-label="Toggle dark mode" data-testid="theme-toggle">
                        {move || if state.dark.get() { "☀ Light" } else { "☾ Dark" }}
                    </button>
                </div>
            </header>
            <main class="layout">
                <section class="left" aria-label="Script and steps">
                    <Editor/>
                    <StepControls/>
                    <OutputPanel/>
                </section>
                <section class="right" aria-label="Memory">
                    <MemoryPanel/>
                    <StoragePanel/>
                    <ViewsPanel/>
                </section>
            </main>
        </div>
    }
}

/// First / previous / next / last, a timeline slider and the step label.
#[component]
pub fn StepControls() -> impl IntoView {
    let state = expect_context::<AppState>();
    let count = move || state.trace.with(|t| t.steps.len());
    let go = move |to: usize| state.step.set(to.min(count().saturating_sub(1)));
    let label = move || {
        let n = count();
        if n == 0 {
            return "No statements yet: type PyTorch in the editor".to_string();
        }
        let i = state.step.get().min(n - 1);
        let line = state
            .trace
            .with(|t| t.steps.get(i).map(|s| s.line).unwrap_or(0));
        format!("Step {} of {} · line {}", i + 1, n, line)
    };
    view! {
        <nav class="steps-bar" aria-label="Steps">
            <div class="buttons">
                <button data-testid="step-first" aria-label="First step" on:click=move |_| go(0)>"«"</button>
                <button data-testid="step-prev" aria-label="Previous step" on:click=move |_| go(state.step.get_untracked().saturating_sub(1))>"‹ Prev"</button>
                <button data-testid="step-next" aria-label="Next step" on:click=move |_| go(state.step.get_untracked() + 1)>"Next ›"</button>
                <button data-testid="step-last" aria-label="Last step" on:click=move |_| go(usize::MAX)>"»"</button>
            </div>
            <input
                type="range"
                class="timeline"
                data-testid="timeline"
                aria-label="Timeline"
                min="0"
                max=move || count().saturating_sub(1).to_string()
                prop:value=move || state.step.get().to_string()
                on:input=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<usize>() {
                        go(v);
                    }
                }
            />
            <span class="step-label" data-testid="step-label" aria-live="polite">{label}</span>
        </nav>
    }
}

/// Mounts the app on the page's `<body>`.
pub fn mount() {
    console_error_panic_hook::set_once();
    if let Some(loading) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("loading"))
    {
        loading.remove();
    }
    leptos::mount::mount_to_body(App);
}
