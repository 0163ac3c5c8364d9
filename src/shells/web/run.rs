//! Running the script on the browser's engines: WebGPU (mirrored by the CPU reference)
//! when an adapter was found, else the CPU engine; the GPU's results read back and verified
//! after each run.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::{GetUntracked, Set, Update, WithUntracked};

use crate::core::tensor::StorageId;
use crate::core::trace::{Trace, TraceScalar};
use crate::engines::gpu::GpuEngine;
use crate::engines::mirror::{MirrorEngine, MirrorStats};
use crate::engines::{CpuEngine, Engine};
use crate::interp::Limits;
use crate::present::i18n::Msg;
use crate::shells::web::{
    core_link, i18n, images, AppState, EngineInfo, EngineKind, MAX_SCRIPT_BYTES, MAX_SCRIPT_LINES,
};

thread_local! {
    /// The WebGPU engine, once an adapter was found (None: the CPU engine runs alone).
    pub(super) static GPU: RefCell<Option<Rc<RefCell<GpuEngine>>>> = const { RefCell::new(None) };
    /// What the last mirrored run did on the GPU.
    pub(super) static STATS: Rc<RefCell<MirrorStats>> = Rc::new(RefCell::new(MirrorStats::default()));
    /// The WebGPU device was lost: the next run asks for a new one.
    static LOST: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// A WebGPU device was lost since the page opened.
    static EVER_LOST: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

pub(super) fn gpu() -> Option<Rc<RefCell<GpuEngine>>> {
    GPU.with(|g| g.borrow().clone())
}

/// What the page's painters may ask of the engine that ran the script: the WebGPU engine
/// they draw with, whether it is still the page's (not lost), and which of its storages
/// holds a trace storage after the last run. Nothing else in the page reaches the engine's
/// id map.
#[derive(Clone)]
pub(crate) struct GpuData {
    engine: Rc<RefCell<GpuEngine>>,
}

impl GpuData {
    /// The page's WebGPU engine, while it has one (None: no adapter, or the device was lost).
    pub(crate) fn current() -> Option<GpuData> {
        gpu().map(|engine| GpuData { engine })
    }

    /// The engine, to draw with.
    pub(crate) fn engine(&self) -> &Rc<RefCell<GpuEngine>> {
        &self.engine
    }

    /// Whether the page lost a WebGPU device since it opened (its canvases then wait for a new
    /// one).
    pub(crate) fn lost_before() -> bool {
        EVER_LOST.with(|l| l.get())
    }

    /// Whether this is still the page's engine (false once its device was lost).
    pub(crate) fn is_current(&self) -> bool {
        gpu().is_some_and(|g| Rc::ptr_eq(&g, &self.engine))
    }

    /// The engine's storage that holds the trace's storage `id` after the last run on the GPU
    /// (None: not mirrored, or no longer the page's engine).
    pub(crate) fn storage_of(&self, id: StorageId) -> Option<StorageId> {
        if !self.is_current() {
            return None;
        }
        STATS.with(|s| s.borrow().ids.get(&id).copied())
    }
}

/// The most statements a run in the page executes (an endless loop stops there; the steps
/// before it are kept). Sub-steps are recorded within the recorder's own budget.
pub const MAX_EXECUTED_STATEMENTS: usize = 50_000;

/// Runs `script` within the browser's limits: on WebGPU (mirrored by the CPU reference
/// engine, which answers reads) when an adapter was found, else on the CPU engine. Returns
/// the trace and whether the GPU ran it, or why the script was not run.
pub fn run_script(script: &str) -> Result<(Trace, bool), Msg> {
    let lines = script.lines().count();
    if script.len() > MAX_SCRIPT_BYTES || lines > MAX_SCRIPT_LINES {
        return Err(Msg::new("notice-too-long")
            .arg("size", crate::present::cells::bytes_text(script.len()))
            .arg("lines", lines)
            .arg("max", crate::present::cells::bytes_text(MAX_SCRIPT_BYTES))
            .arg("maxlines", MAX_SCRIPT_LINES));
    }
    // The browser records at most 1 Mi values per tensor and storage (a 1024 × 1024 view, a
    // 512 × 512 RGB image): the canvases draw them; beyond, they say the values are not
    // recorded. A trace records at most 16 Mi values in all (a loop over a large tensor
    // records it once per sub-step: about 400 MB before this cap, unbounded without it).
    // Statements executed (loop bodies and forwards included) stop a run at
    // `MAX_EXECUTED_STATEMENTS`, not at the script's line limit: the two-layer network's
    // 500 iterations execute about 4,500.
    let limits = Limits {
        max_statements: MAX_EXECUTED_STATEMENTS,
        max_recorded_elements: 1 << 20,
        max_recorded_total: 1 << 24,
        ..Limits::default()
    };
    let engine: Box<dyn Engine> = match gpu() {
        Some(g) if g.try_borrow_mut().is_ok() => {
            Box::new(MirrorEngine::new(g, STATS.with(Rc::clone)))
        }
        _ => Box::new(CpuEngine::new()),
    };
    let on_gpu = engine.name() != "cpu";
    let Some(core) = core_link::core() else {
        return Err(Msg::new("notice-loading"));
    };
    let cuda = crate::shells::web::panels::memory::cuda_run();
    Ok((
        core.run(script, limits, engine, images::library(), cuda),
        on_gpu,
    ))
}

/// Re-runs the script now, keeping the step where it was when possible.
pub fn run_now(state: AppState) {
    // After a lost device, the next run asks for a new one (it re-runs once it is open).
    if LOST.with(|l| l.replace(false)) && gpu().is_none() {
        start_gpu(state);
    }
    if core_link::core().is_none() {
        core_link::load(move |loaded| match loaded {
            Ok(_) => run_now(state),
            Err(error) => state
                .notice
                .set(Some(Msg::new("notice-load-failed").arg("error", error))),
        });
        return;
    }
    images::prepare(state);
    let script = state.script.get_untracked();
    match run_script(&script) {
        Ok((trace, on_gpu)) => {
            let trace = crate::present::cells::flatten_substeps(trace);
            let n = trace.steps.len();
            state.notice.set(None);
            if on_gpu {
                let s = STATS.with(|s| s.borrow().clone());
                let adapter = gpu().map(|g| adapter_name(&g.borrow())).unwrap_or_default();
                state.engine.set(EngineInfo {
                    kind: EngineKind::WebGpu,
                    detail: Msg::new("engine-gpu-ran")
                        .arg("adapter", adapter)
                        .arg("gpu", s.gpu_ops)
                        .arg("cpu", s.cpu_ops),
                });
            } else if gpu().is_some() {
                state
                    .engine
                    .set(EngineInfo::cpu(Msg::new("engine-gpu-busy")));
            }
            let trace = Arc::new(trace);
            if on_gpu {
                verify_on_gpu(state, Arc::clone(&trace));
            }
            // In a lesson the diagram follows the last statement as the student writes.
            let was_last =
                state.step.get_untracked() + 1 >= state.trace.with_untracked(|t| t.steps.len());
            state.trace.set(trace);
            let step = state.step.get_untracked();
            if step >= n || (state.lesson && was_last) {
                state.step.set(n.saturating_sub(1));
            }
        }
        Err(message) => state.notice.set(Some(message)),
    }
}

pub(super) fn adapter_name(g: &GpuEngine) -> String {
    let info = g.adapter_info();
    if info.name.is_empty() {
        i18n::t_untracked("engine-browser-adapter")
    } else {
        info.name.clone()
    }
}

/// Reads the GPU's copy of every storage after the run back (asynchronously, the browser's
/// only way) and compares it with the reference values the page shows.
pub(super) fn verify_on_gpu(state: AppState, trace: Arc<Trace>) {
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
            let dtype = storage.dtype;
            let gpu_id = ids.get(&storage.id)?;
            Some((
                storage.id,
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
            if got[..] != expected[..] {
                web_sys::console::log_1(
                    &format!("Stridescope: WebGPU's {id} differs from the reference").into(),
                );
                if Arc::ptr_eq(&trace, &state.trace.get_untracked()) {
                    state.engine.set(EngineInfo::cpu(
                        Msg::new("engine-gpu-differs").arg("id", id),
                    ));
                }
                return;
            }
            checked += 1;
        }
        // Only if this run is still the one shown.
        if Arc::ptr_eq(&trace, &state.trace.get_untracked()) {
            state.engine.update(|e| {
                if e.kind == EngineKind::WebGpu && e.detail.id == "engine-gpu-ran" {
                    e.detail.id = "engine-gpu-verified";
                    e.detail.args.push(("count", checked.into()));
                }
            });
        }
    });
}

/// Looks for a WebGPU adapter; with one, the script re-runs on it.
pub(super) fn start_gpu(state: AppState) {
    leptos::task::spawn_local(async move {
        match GpuEngine::new().await {
            Ok(engine) => {
                // A lost device falls back to the CPU engine; the script stays as it is.
                engine.on_device_lost(move |reason| {
                    GPU.with(|g| *g.borrow_mut() = None);
                    state.engine.set(EngineInfo::cpu(
                        Msg::new("engine-gpu-lost").arg("reason", reason),
                    ));
                    EVER_LOST.with(|l| l.set(true));
                    run_now(state);
                    LOST.with(|l| l.set(true));
                });
                GPU.with(|g| *g.borrow_mut() = Some(Rc::new(RefCell::new(engine))));
                run_now(state);
            }
            Err(e) => {
                web_sys::console::log_1(
                    &format!("Stridescope: no WebGPU, running on the CPU engine: {e}").into(),
                );
                state
                    .engine
                    .set(EngineInfo::cpu(Msg::new("engine-no-adapter")));
            }
        }
    });
}
