//! The web app (Leptos, client-side rendering). It renders a [`Trace`] and never computes
//! semantics: every number it shows comes from the trace or from `ui_model`.
//!
//! State is a handful of signals ([`AppState`]): the script, the trace of the last run, the
//! current step, the hovered cell, the picked dimension and the theme. Everything else is
//! derived. Hover highlighting is applied imperatively to the matching cells (one query per
//! hover), so hovering never re-renders a panel.

pub(crate) mod core_link;
mod editor;
pub mod i18n;
mod images;
pub(crate) mod lesson;
mod panels;
mod run;
mod share_ui;

use std::sync::Arc;
use std::time::Duration;

use leptos::leptos_dom::helpers::{set_timeout_with_handle, TimeoutHandle};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::trace::{Step, Trace};
use crate::present::i18n::Msg;
use i18n::{t, tf, tm};

pub use editor::Editor;
pub use panels::{MemoryPanel, OutputPanel, StoragePanel, ViewsPanel};
pub use run::run_script;
use run::start_gpu;
pub(crate) use run::{run_now, GpuData};
pub use share_ui::{EmbedBar, EmbedDialog, LinkNotice, LinkOptionsBar, ShareBar};

use crate::present::share::{self, PanelKind, SharedState, Theme};

/// Scripts longer than this are not run in the browser (the page must stay responsive).
pub const MAX_SCRIPT_BYTES: usize = share::MAX_SCRIPT_BYTES;
/// Scripts with more lines than this are not run in the browser.
pub const MAX_SCRIPT_LINES: usize = 2_000;
const SCRIPT_KEY: &str = "stridescope.script";
/// Scripts up to this size are written into the address bar's link at every change.
const HASH_AT_ONCE_BYTES: usize = 16 * 1024;
const THEME_KEY: &str = "stridescope.theme";

/// The hovered cell: a storage element, and the view cell it was reached from (if any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    pub storage: crate::core::tensor::StorageId,
    pub offset: i64,
    /// View name and logical index, when a view cell is hovered.
    pub view: Option<(String, Vec<i64>)>,
}

/// Which engine ran the script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// The CPU reference engine alone.
    Cpu,
    /// WebGPU (mirrored by the CPU reference): its buffers hold the last step's storages.
    WebGpu,
}

impl EngineKind {
    /// The badge's word: `CPU` or `WebGPU`.
    pub fn label(self) -> &'static str {
        match self {
            EngineKind::Cpu => "CPU",
            EngineKind::WebGpu => "WebGPU",
        }
    }
}

/// Which engine ran the script, for the badge.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineInfo {
    /// The engine.
    pub kind: EngineKind,
    /// Adapter or reason, shown next to the kind (put into words when shown).
    pub detail: Msg,
}

impl EngineInfo {
    fn cpu(detail: Msg) -> Self {
        EngineInfo {
            kind: EngineKind::Cpu,
            detail,
        }
    }
}

/// The app's source-of-truth signals.
#[derive(Clone, Copy)]
pub struct AppState {
    pub script: RwSignal<String>,
    pub trace: RwSignal<Arc<Trace>>,
    pub notice: RwSignal<Option<Msg>>,
    pub step: RwSignal<usize>,
    pub hover: RwSignal<Option<Hover>>,
    pub picked: RwSignal<Option<(String, usize)>>,
    /// Whether the page is dark: derived from `theme` (`Auto` follows the system's
    /// preference as the page opened).
    pub dark: Signal<bool>,
    pub engine: RwSignal<EngineInfo>,
    /// The clicked cell, highlighted until another click (it goes into share links).
    pub pinned: RwSignal<Option<Hover>>,
    /// The chosen theme (`Auto` follows the system).
    pub theme: RwSignal<Theme>,
    /// Panels not shown (embeds can show fewer).
    pub hidden: RwSignal<Vec<PanelKind>>,
    /// The editor cannot be typed in (read-only embeds).
    pub read_only: RwSignal<bool>,
    /// Why the link in the address could not be opened.
    pub link_notice: RwSignal<Option<Msg>>,
    /// The page is the compact widget for iframes (`embed.html`, `?embed`).
    pub embed: bool,
    /// The page plays a lesson (or lists them): the script is the lesson's, and neither the
    /// address bar's link nor the playground's kept script follow it.
    pub lesson: bool,
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

pub(crate) fn load(key: &str) -> Option<String> {
    local_storage().and_then(|s| s.get_item(key).ok().flatten())
}

pub(crate) fn save(key: &str, value: &str) {
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
    /// The cells highlighted now, so that clearing them needs no document-wide query.
    static LIT: std::cell::RefCell<Vec<web_sys::Element>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The cells marked pinned now.
    static PINNED: std::cell::RefCell<Vec<web_sys::Element>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Removes `data-highlighted` from every highlighted cell and sets it on the cells of
/// `hover`'s storage element.
fn apply_highlight(hover: &Option<Hover>) {
    mark_cells(&LIT, "data-highlighted", hover);
}

/// Sets `attr="true"` on every cell of `hover`'s storage element (and on no other cell).
fn mark_cells(
    marked: &'static std::thread::LocalKey<std::cell::RefCell<Vec<web_sys::Element>>>,
    attr: &str,
    hover: &Option<Hover>,
) {
    marked.with(|lit| {
        let mut lit = lit.borrow_mut();
        for el in lit.drain(..) {
            let _ = el.remove_attribute(attr);
        }
        let Some(h) = hover else { return };
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let selector = format!(
            "[data-key=\"{}:{}\"]",
            css_escape(&h.storage.to_string()),
            h.offset
        );
        if let Ok(cells) = document.query_selector_all(&selector) {
            for i in 0..cells.length() {
                if let Some(el) = cells
                    .item(i)
                    .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
                {
                    let _ = el.set_attribute(attr, "true");
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

/// What the page is made of, made once: the state, its effects and the lesson.
#[derive(Clone, Copy)]
struct Page {
    state: AppState,
    embed: bool,
    in_lesson: bool,
    lesson: Option<lesson::LessonCtx>,
    embed_open: RwSignal<bool>,
}

impl Page {
    fn new() -> Page {
        let embed = is_embed_page();
        i18n::init(embed);
        let route = lesson_route();
        let in_lesson = route.is_some();
        let (initial, link_notice) = if in_lesson {
            // The lesson sets the script when it is loaded; the hash is the lesson's.
            let mut s = SharedState::new(String::new());
            s.read_only = true;
            (s, None)
        } else {
            initial_state(embed)
        };
        if initial.cuda {
            panels::memory::set_cuda_run(true);
        }
        let theme = match initial.theme {
            Theme::Auto if !embed => match load(THEME_KEY).as_deref() {
                Some("dark") => Theme::Dark,
                Some("light") => Theme::Light,
                _ => Theme::Auto,
            },
            chosen => chosen,
        };
        let system_dark = prefers_dark();
        let theme = RwSignal::new(theme);
        let dark = Signal::derive(move || match theme.get() {
            Theme::Auto => system_dark,
            Theme::Light => false,
            Theme::Dark => true,
        });
        if embed {
            if let Some(document) = web_sys::window().and_then(|w| w.document()) {
                document.set_title(&initial.accessible_title());
            }
        }
        let state = AppState {
            script: RwSignal::new(initial.script),
            trace: RwSignal::new(Arc::new(Trace::default())),
            notice: RwSignal::new(None),
            step: RwSignal::new(initial.step),
            hover: RwSignal::new(None),
            picked: RwSignal::new(initial.picked),
            dark,
            engine: RwSignal::new(EngineInfo::cpu(Msg::new("engine-reference"))),
            pinned: RwSignal::new(initial.pinned.as_ref().and_then(share_ui::hover_of)),
            theme,
            hidden: RwSignal::new(initial.hidden),
            read_only: RwSignal::new(initial.read_only),
            link_notice: RwSignal::new(link_notice),
            embed,
            lesson: in_lesson,
        };
        provide_context(state);
        images::Images::new();
        provide_context(panels::CanvasPrefs::new());
        panels::provide_memory_prefs(state);
        let lesson_ctx = route.map(|r| lesson::start(state, r, embed));
        // Following a link to a lesson, to the list or from a lesson (a new hash) opens it.
        let hash_nav = window_event_listener(leptos::ev::hashchange, move |_| {
            let hash = web_sys::window()
                .and_then(|w| w.location().hash().ok())
                .unwrap_or_default();
            if in_lesson || crate::present::lesson_view::route(&hash, "").is_some() {
                if let Some(w) = web_sys::window() {
                    let _ = w.location().reload();
                }
            }
        });
        on_cleanup(move || hash_nav.remove());
        run_now(state);
        start_gpu(state);

        // Re-run as you type (debounced); keep the script across reloads (not in embeds: the
        // widgets of a course page would overwrite each other's and the app's).
        let pending: StoredValue<Option<TimeoutHandle>, LocalStorage> =
            StoredValue::new_local(None);
        Effect::new(move |first: Option<()>| {
            let script = state.script.get();
            if first.is_none() {
                return;
            }
            if !embed && !in_lesson {
                save(SCRIPT_KEY, &script);
            }
            if let Some(h) = pending.get_value() {
                h.clear();
            }
            let handle =
                set_timeout_with_handle(move || run_now(state), Duration::from_millis(250)).ok();
            pending.set_value(handle);
        });
        // The address bar always holds a link to what is shown (debounced; not in embeds,
        // whose link is the course page's).
        let hash_timer: StoredValue<Option<TimeoutHandle>, LocalStorage> =
            StoredValue::new_local(None);
        Effect::new(move |_| {
            state.script.track();
            state.step.track();
            state.pinned.track();
            state.picked.track();
            state.theme.track();
            state.hidden.track();
            state.read_only.track();
            if embed || in_lesson {
                return;
            }
            if let Some(h) = hash_timer.get_value() {
                h.clear();
            }
            // Small scripts (almost all) compress in well under a millisecond: written at once,
            // so that even a reload right after a keystroke keeps it. Long ones are debounced.
            let write =
                move || share_ui::write_hash(&share::encode(&share_ui::current_state(state)));
            if state.script.with_untracked(|s| s.len()) <= HASH_AT_ONCE_BYTES {
                hash_timer.set_value(None);
                write();
            } else {
                let handle = set_timeout_with_handle(write, Duration::from_millis(300)).ok();
                hash_timer.set_value(handle);
            }
        });
        if !embed && !in_lesson {
            // Leaving the page (closing the tab, following a link) within a long script's debounce
            // still leaves the latest state in the history entry: the pending write happens now.
            let flush = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
                if let Some(Some(pending)) = hash_timer.try_get_value() {
                    pending.clear();
                    share_ui::write_hash(&share::encode(&share_ui::current_state(state)));
                }
            });
            if let Some(window) = web_sys::window() {
                let _ = window
                    .add_event_listener_with_callback("pagehide", flush.as_ref().unchecked_ref());
            }
            // The listener lives as long as the page.
            flush.forget();
        }
        // Hover (else the pinned cell): highlight imperatively after every change of hover, pin
        // or of what is drawn.
        Effect::new(move |_| {
            let hover = state.hover.get();
            let pinned = state.pinned.get();
            state.step.track();
            state.trace.track();
            apply_highlight(&hover.or(pinned));
        });
        // The pinned cell's ring: only when the pin or what is drawn changes, not at every hover.
        Effect::new(move |_| {
            let pinned = state.pinned.get();
            state.step.track();
            state.trace.track();
            mark_cells(&PINNED, "data-pinned", &pinned);
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
                "Escape" if state.pinned.get_untracked().is_some() => state.pinned.set(None),
                _ => return,
            }
            ev.prevent_default();
        });
        on_cleanup(move || keys.remove());
        if embed {
            // After the first render, so that there is content to measure.
            request_animation_frame(share_ui::post_height_to_parent);
        }
        Page {
            state,
            embed,
            in_lesson,
            lesson: lesson_ctx,
            embed_open: RwSignal::new(false),
        }
    }
}

/// The page's view (in the language of the moment).
fn page_view(page: Page) -> impl IntoView {
    let Page {
        state,
        embed,
        in_lesson,
        lesson: lesson_ctx,
        embed_open,
    } = page;
    let index_page = lesson_ctx
        .is_some_and(|c| c.route.get_value() == crate::present::lesson_view::Route::Index);
    let toggle_theme = move |_| {
        let next = !state.dark.get_untracked();
        state
            .theme
            .set(if next { Theme::Dark } else { Theme::Light });
        if !embed {
            save(THEME_KEY, if next { "dark" } else { "light" });
        }
    };
    let shows = move |p: PanelKind| state.hidden.with(|h| !h.contains(&p));
    let left_shown =
        move || shows(PanelKind::Editor) || shows(PanelKind::Steps) || shows(PanelKind::Output);
    let right_shown =
        move || shows(PanelKind::Memory) || shows(PanelKind::Storage) || shows(PanelKind::Views);
    let header = if embed {
        view! { <EmbedBar/> }.into_any()
    } else {
        view! {
            <header class="top">
                <div class="brand">
                    <h1>"Stridescope"</h1>
                    <p class="tagline">{t("app-tagline")}</p>
                </div>
                <div class="top-actions">
                    <nav class="top-nav" aria-label=t("lesson-open-index")>
                        {if in_lesson {
                            view! { <a class="ghost-link" href="index.html" data-testid="playground-link">{t("lesson-playground")}</a> }.into_any()
                        } else {
                            view! { <a class="ghost-link" href="#lessons" data-testid="lessons-link">{t("lesson-open-index")}</a> }.into_any()
                        }}
                    </nav>
                    {(!in_lesson).then(|| view! { <ShareBar embed_open=embed_open/> })}
                    <span class="badge engine" data-testid="engine-badge" title=move || tm(&state.engine.get().detail)>
                        {move || {
                            let e = state.engine.get();
                            tf("engine-badge", &[("kind", e.kind.label().into()), ("detail", tm(&e.detail).into())])
                        }}
                    </span>
                    <i18n::LangSwitch/>
                    <button class="ghost" on:click=toggle_theme data-testid="theme-toggle" aria-pressed=move || state.dark.get().to_string()>
                        {t("theme-dark")}
                    </button>
                </div>
            </header>
            {(!in_lesson).then(|| view! { <EmbedDialog open=embed_open/> })}
        }
        .into_any()
    };
    let compact_lesson = embed && in_lesson;
    let editor_shown =
        move || shows(PanelKind::Editor) && (!compact_lesson || !state.read_only.get());
    let main = if index_page {
        view! {
            <main class="layout single">
                <section class="left"><lesson::LessonIndex/></section>
            </main>
        }
        .into_any()
    } else {
        view! {
            <main class="layout" class:lesson-layout=in_lesson class:single=move || !(left_shown() && right_shown()) on:click=move |ev| pin_clicked_cell(state, lesson_ctx, &ev)>
                <Show when=move || left_shown() || in_lesson>
                    <section class="left" aria-label=move || if in_lesson { t("lesson-player") } else { t("region-left") }>
                        {in_lesson.then(|| view! { <lesson::LessonPlayer/> })}
                        <Show when=editor_shown><Editor/></Show>
                        <Show when=move || shows(PanelKind::Steps) && !compact_lesson><StepControls/></Show>
                        <Show when=move || shows(PanelKind::Output)><OutputPanel/></Show>
                    </section>
                </Show>
                <Show when=right_shown>
                    <section class="right" aria-label=t("region-right")>
                        <Show when=move || shows(PanelKind::Memory)><MemoryPanel/></Show>
                        <Show when=move || shows(PanelKind::Storage)><StoragePanel/></Show>
                        <Show when=move || shows(PanelKind::Views)><ViewsPanel/></Show>
                    </section>
                </Show>
            </main>
        }
        .into_any()
    };
    view! {
        <div class="app" class:embed=embed>
            {header}
            <LinkNotice/>
            {(!embed && !in_lesson).then(|| view! { <LinkOptionsBar/> })}
            {main}
        </div>
    }
}

/// The whole app, drawn again in the new language when the reader switches (the state lives
/// in signals made once, outside): its texts are plain strings, not one effect each.
#[component]
pub fn App() -> impl IntoView {
    let state = Page::new();
    move || {
        i18n::lang();
        untrack(|| page_view(state))
    }
}

/// The lesson route of the page's address, if any (`#lesson=`, `#lessons`,
/// `#lesson-data=`, `?lesson=`).
fn lesson_route() -> Option<crate::present::lesson_view::Route> {
    let location = web_sys::window()?.location();
    crate::present::lesson_view::route(
        &location.hash().unwrap_or_default(),
        &location.search().unwrap_or_default(),
    )
}

/// Whether this page is the widget for iframes: `embed.html` (its body says so) or `?embed`.
fn is_embed_page() -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let marked = window
        .document()
        .and_then(|d| d.body())
        .map(|b| b.get_attribute("data-embed").as_deref() == Some("true"))
        .unwrap_or(false);
    marked || share::query_wants_embed(&window.location().search().unwrap_or_default())
}

/// What the page opens with: the link in the address (with the query's options over it),
/// else the script kept from the last visit, else the default scenario. A link that cannot
/// be opened gives the default scenario and the reason.
fn initial_state(embed: bool) -> (SharedState, Option<Msg>) {
    let location = web_sys::window().map(|w| w.location());
    let hash = location
        .as_ref()
        .and_then(|l| l.hash().ok())
        .unwrap_or_default();
    let query = location
        .as_ref()
        .and_then(|l| l.search().ok())
        .unwrap_or_default();
    let (mut state, notice) = match share::decode(&hash) {
        Ok(Some(state)) => (state, None),
        Ok(None) => {
            let kept = if embed { None } else { load(SCRIPT_KEY) };
            (
                SharedState::new(kept.unwrap_or_else(|| crate::DEFAULT_SCENARIO.to_string())),
                None,
            )
        }
        Err(e) => (
            SharedState::new(crate::DEFAULT_SCENARIO),
            Some(link_error_msg(&e)),
        ),
    };
    for problem in share::apply_query(&mut state, &query) {
        web_sys::console::log_1(&format!("Stridescope: embed option ignored: {problem}").into());
    }
    (state, notice)
}

/// Why a link could not be opened, as a catalog message.
fn link_error_msg(e: &share::LinkError) -> Msg {
    use share::LinkError as E;
    match e {
        E::TooLong { chars } => Msg::new("link-too-long")
            .arg("chars", *chars)
            .arg("max", share::MAX_HASH_CHARS),
        E::NotALink => Msg::new("link-not-a-link"),
        E::FutureVersion { version } => Msg::new("link-future")
            .arg("version", *version)
            .arg("max", share::LINK_VERSION),
        E::UnknownVersion { version } => Msg::new("link-unknown-version").arg("version", *version),
        E::BadEncoding => Msg::new("link-bad-encoding"),
        E::Truncated { reason } => Msg::new("link-truncated").arg("reason", reason),
        E::Oversized => Msg::new("link-oversized").arg("max", share::MAX_STATE_BYTES),
        E::BadState { reason } => Msg::new("link-bad-state").arg("reason", reason),
        E::ScriptTooLong { bytes } => Msg::new("link-script-too-long")
            .arg("bytes", *bytes)
            .arg("max", share::MAX_SCRIPT_BYTES),
    }
}

/// A click on a storage or view cell pins it (its highlight stays, and goes into links); a
/// click on the pinned cell unpins it.
fn pin_clicked_cell(state: AppState, lesson: Option<lesson::LessonCtx>, ev: &web_sys::MouseEvent) {
    let Some(cell) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|t| t.closest("[data-key]").ok().flatten())
    else {
        return;
    };
    let Some((storage, offset)) = cell
        .get_attribute("data-key")
        .and_then(|k| {
            k.split_once(':')
                .map(|(s, o)| (s.to_string(), o.parse::<i64>()))
        })
        .and_then(|(s, o)| o.ok().map(|o| (s, o)))
    else {
        return;
    };
    // An open `cells` question takes clicks on its storage's cells.
    let storage_cell = cell.get_attribute("data-testid").as_deref() == Some("storage-cell");
    if let (true, Some(ctx)) = (storage_cell, lesson) {
        if lesson::cell_clicked(ctx, &storage, offset) {
            return;
        }
    }
    let view = cell
        .closest("[data-testid=view]")
        .ok()
        .flatten()
        .and_then(|v| v.get_attribute("data-name"))
        .zip(cell.get_attribute("data-index").map(|i| {
            i.split(',')
                .filter_map(|x| x.trim().parse::<i64>().ok())
                .collect::<Vec<_>>()
        }));
    let Some(storage) = crate::core::tensor::StorageId::parse(&storage) else {
        return;
    };
    let clicked = Hover {
        storage,
        offset,
        view,
    };
    state.pinned.update(|p| {
        let same = p
            .as_ref()
            .is_some_and(|q| q.storage == clicked.storage && q.offset == clicked.offset);
        *p = if same { None } else { Some(clicked) };
    });
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
            return t("steps-empty");
        }
        let i = state.step.get().min(n - 1);
        let line = state
            .trace
            .with(|t| t.steps.get(i).map(|s| s.line).unwrap_or(0));
        tf(
            "step-label",
            &[
                ("n", (i + 1).into()),
                ("count", n.into()),
                ("line", line.into()),
            ],
        )
    };
    view! {
        <nav class="steps-bar" aria-label=t("steps-nav")>
            <div class="buttons">
                <button data-testid="step-first" aria-label=t("step-first") title=t("step-first") on:click=move |_| go(0)>"«"</button>
                <button data-testid="step-prev" title=t("step-prev-title") on:click=move |_| go(state.step.get_untracked().saturating_sub(1))>{t("step-prev")}</button>
                <button data-testid="step-next" title=t("step-next-title") on:click=move |_| go(state.step.get_untracked() + 1)>{t("step-next")}</button>
                <button data-testid="step-last" aria-label=t("step-last") title=t("step-last") on:click=move |_| go(usize::MAX)>"»"</button>
            </div>
            <input
                type="range"
                class="timeline"
                data-testid="timeline"
                aria-label=t("timeline")
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
