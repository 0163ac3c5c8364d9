//! The memory panel: the step's live bytes and what it allocated, the memory timeline of the
//! run (`memory_timeline.rs`), the step's changes as a memory tracker prints them
//! (`memory_changes.rs`) and the model summary (`model_summary.rs`), with the reader's choice
//! of units and the "as on a CUDA device" switch ([`MemoryPrefs`], remembered).

use leptos::prelude::*;

use crate::present::memory_units::{cuda_block_bytes, format_bytes, ByteUnits};
use crate::shells::web::i18n::{t, tf};
use crate::shells::web::panels::memory_changes::MemoryChanges;
use crate::shells::web::panels::memory_timeline::MemoryTimeline;
use crate::shells::web::panels::model_summary::ModelSummary;
use crate::shells::web::{load, save, AppState};

const UNITS_KEY: &str = "stridescope.memory-units";
const CUDA_KEY: &str = "stridescope.memory-cuda";

thread_local! {
    /// The run's "as on a CUDA device" option when a link or the switch chose it (else the
    /// remembered switch).
    static CUDA_RUN: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Whether scripts run as on a CUDA device: the link's or the switch's choice, else the
/// switch as remembered from the last visit.
pub fn cuda_run() -> bool {
    CUDA_RUN
        .with(|c| c.get())
        .unwrap_or_else(|| load(CUDA_KEY).as_deref() == Some("true"))
}

/// Makes scripts run as on a CUDA device (`on`) or not, from the next run.
pub fn set_cuda_run(on: bool) {
    CUDA_RUN.with(|c| c.set(Some(on)));
}

/// How the memory panels write bytes, remembered in the browser's storage.
#[derive(Clone, Copy)]
pub struct MemoryPrefs {
    /// Decimal (MB, as the course articles) or binary (MiB, as nvidia-smi).
    pub units: RwSignal<ByteUnits>,
    /// Counted as PyTorch's CUDA caching allocator counts (512-byte blocks).
    pub cuda: RwSignal<bool>,
    /// The storage whose views a hovered saved-by badge lights up.
    pub lit: RwSignal<Option<crate::core::tensor::StorageId>>,
}

impl MemoryPrefs {
    /// The choices kept from the last visit (decimal units, CPU figures by default).
    pub fn new() -> Self {
        MemoryPrefs {
            units: RwSignal::new(ByteUnits::from_key(
                load(UNITS_KEY).as_deref().unwrap_or_default(),
            )),
            cuda: RwSignal::new(cuda_run()),
            lit: RwSignal::new(None),
        }
    }

    /// `n` bytes in the chosen units (tracked).
    pub fn bytes(&self, n: u64) -> String {
        format_bytes(n, self.units.get())
    }
}

impl Default for MemoryPrefs {
    fn default() -> Self {
        Self::new()
    }
}

/// Makes the page's memory preferences and lights the views of the storage a hovered
/// saved-by badge names (again after each step: the views are drawn anew).
pub fn provide_memory_prefs(state: AppState) {
    let prefs = MemoryPrefs::new();
    provide_context(prefs);
    Effect::new(move |_| {
        let lit = prefs.lit.get();
        state.step.track();
        state.trace.track();
        crate::shells::web::panels::memory_roles::light_storage(lit);
    });
}

/// The page's memory preferences (made on first use when no ancestor provided them).
pub fn memory_prefs() -> MemoryPrefs {
    use_context::<MemoryPrefs>().unwrap_or_else(|| {
        let p = MemoryPrefs::new();
        provide_context(p);
        p
    })
}

/// The units switch and the "as on a CUDA device" switch, with the sentence saying what the
/// CUDA figures are.
#[component]
fn MemorySwitches() -> impl IntoView {
    let prefs = memory_prefs();
    let state = expect_context::<AppState>();
    let set_units = move |u: ByteUnits| {
        prefs.units.set(u);
        save(UNITS_KEY, u.key());
    };
    let unit_button = move |u: ByteUnits, label: &'static str, title: &'static str| {
        view! {
            <button type="button" class="seg" data-testid=format!("memory-units-{}", u.key())
                aria-pressed=move || (prefs.units.get() == u).to_string()
                title=t(title) on:click=move |_| set_units(u)>{t(label)}</button>
        }
    };
    view! {
        <div class="mem-switches">
            <div class="mem-units" role="group" aria-label=t("memtl-units")>
                <span class="muted" aria-hidden="true">{t("memtl-units")}</span>
                {unit_button(ByteUnits::Decimal, "memtl-units-decimal", "memtl-units-decimal-title")}
                {unit_button(ByteUnits::Binary, "memtl-units-binary", "memtl-units-binary-title")}
            </div>
            <label class="mem-cuda">
                <input type="checkbox" data-testid="memory-cuda"
                    prop:checked=move || prefs.cuda.get()
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        prefs.cuda.set(on);
                        save(CUDA_KEY, if on { "true" } else { "false" });
                        // The script runs again, as on a CUDA device or not (what the
                        // editor holds is kept).
                        set_cuda_run(on);
                        crate::shells::web::run::run_now(state);
                    }/>
                {t("memtl-cuda")}
            </label>
        </div>
        <Show when=move || prefs.cuda.get()>
            <p class="mem-cuda-note" data-testid="memory-cuda-note">{t("memtl-cuda-note")}</p>
            <p class="mem-cuda-note" data-testid="memory-cuda-run">{t("memtl-cuda-run")}</p>
        </Show>
    }
}

/// The memory panel.
#[component]
pub fn MemoryPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let prefs = memory_prefs();
    let recorded = Memo::new(move |_| {
        state
            .trace
            .with(|t| t.steps.iter().any(|s| s.memory.is_some()))
    });
    view! {
        <div class="panel memory-panel" data-testid="memory">
            {move || state.with_current(|step| {
                let this_step = if let Some(m) = &step.memory {
                    // The tracker's sums: what appeared and what vanished since the step before.
                    let cuda = prefs.cuda.get();
                    let sum = |sign: char| -> u64 {
                        m.changes
                            .iter()
                            .filter(|c| (c.sign == '+') == (sign == '+'))
                            .map(|c| if cuda { cuda_block_bytes(c.bytes) } else { c.bytes })
                            .sum()
                    };
                    match (sum('+'), sum('-')) {
                        (0, 0) => t("mem-nothing"),
                        (plus, 0) => tf("memtl-delta-plus", &[("plus", prefs.bytes(plus).into())]),
                        (0, minus) => tf("memtl-delta-minus", &[("minus", prefs.bytes(minus).into())]),
                        (plus, minus) => tf("memtl-delta", &[("plus", prefs.bytes(plus).into()), ("minus", prefs.bytes(minus).into())]),
                    }
                } else if step.allocated_bytes > 0 {
                    let op = step.created.iter().find(|c| c.kind != crate::core::trace::CreationKind::View).map(|c| c.op.clone()).unwrap_or_else(|| t("mem-this-step"));
                    tf("mem-allocated", &[("op", op.into()), ("bytes", prefs.bytes(step.allocated_bytes as u64).into())])
                } else if let Some(c) = step.created.iter().find(|c| c.kind == crate::core::trace::CreationKind::View) {
                    tf("mem-view", &[("op", (&c.op).into())])
                } else {
                    t("mem-nothing")
                };
                let total = match &step.memory {
                    Some(m) => {
                        let (live, peak) = if prefs.cuda.get() {
                            (m.cuda.live_bytes, m.cuda.peak_bytes.max(m.cuda.live_bytes))
                        } else {
                            (m.live_bytes, m.peak_bytes.unwrap_or(m.live_bytes).max(m.live_bytes))
                        };
                        tf("memtl-now", &[
                            ("n", (state.step.get() + 1).into()),
                            ("live", prefs.bytes(live).into()),
                            ("peak", prefs.bytes(peak).into()),
                        ])
                    }
                    None => tf("mem-live", &[("bytes", prefs.bytes(step.live_bytes as u64).into()), ("count", step.storages.len().into())]),
                };
                view! {
                    <div class="mem-line">
                        <span class="mem-total" data-testid="memory-total">{total}</span>
                        <span class="mem-step" data-testid="memory-step">{this_step}</span>
                    </div>
                }
            })}
            <Show when=move || recorded.get()>
                <MemorySwitches/>
                <MemoryTimeline/>
                <MemoryChanges/>
            </Show>
            <ModelSummary/>
        </div>
    }
}
