//! The memory timeline: live bytes over the run's steps, stacked by category, each step's peak
//! above it, the run's highest peak marked with its line. Drawn from
//! [`crate::present::memory_timeline`]: the bands and peaks are one SVG path each and the
//! marks one transparent `<rect>` per step, all made as markup once per trace (and choice of
//! figures); the selected step, the hovered step and the tooltip are a few overlay elements
//! moved as the step or the pointer changes, so hovering never redraws the drawing.
//!
//! The drawing is a slider: ←/→ step, PageUp/PageDown ten steps, Home/End; a click (on a
//! mark, or anywhere over a step) goes to that step.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::trace::MemoryCategory;
use crate::present::memory_changes::{band, category_msg};
use crate::present::memory_timeline::{Hit, Timeline, HEIGHT};
use crate::present::memory_units::axis_ticks;
use crate::shells::web::i18n::{t, tf};
use crate::shells::web::panels::memory::memory_prefs;
use crate::shells::web::AppState;

/// How many names a band's tooltip lists.
const TIP_NAMES: usize = 8;

/// The class of a category's band (`band-parameter`, ...).
fn band_class(c: MemoryCategory) -> String {
    format!("band-{}", c.name().replace('_', "-"))
}

/// The drawing's markup: bands, peak area and line (`top` bytes at the top).
fn drawing_markup(timeline: &Timeline, top: u64, marks: &str) -> String {
    let n = timeline.points.len().max(1);
    let mut svg = format!(
        "<svg class=\"memtl-svg\" viewBox=\"0 0 {n} {HEIGHT}\" preserveAspectRatio=\"none\" aria-hidden=\"true\" focusable=\"false\">"
    );
    for (cat, d) in timeline.band_paths(top) {
        svg.push_str(&format!(
            "<path class=\"band {}\" d=\"{d}\"></path>",
            band_class(cat)
        ));
    }
    let peak = timeline.peak_path(top);
    if !peak.is_empty() {
        svg.push_str(&format!("<path class=\"peak-area\" d=\"{peak}\"></path>"));
        svg.push_str(&format!(
            "<path class=\"peak-line\" d=\"{}\" vector-effect=\"non-scaling-stroke\"></path>",
            timeline.peak_line_path(top)
        ));
    }
    svg.push_str("<g class=\"marks\">");
    svg.push_str(marks);
    svg.push_str("</g></svg>");
    svg
}

/// The fraction of the element's box at the pointer (x from the left, y from the top).
fn fractions(ev: &web_sys::MouseEvent, el: &web_sys::Element) -> Option<(f64, f64)> {
    let r = el.get_bounding_client_rect();
    if r.width() <= 0.0 || r.height() <= 0.0 {
        return None;
    }
    Some((
        (ev.client_x() as f64 - r.left()) / r.width(),
        (ev.client_y() as f64 - r.top()) / r.height(),
    ))
}

/// A percentage for a `left`/`width`/`bottom` style.
fn pct(v: f64) -> String {
    format!("{:.4}%", (v * 100.0).clamp(0.0, 100.0))
}

/// The memory timeline of the run.
#[component]
pub fn MemoryTimeline() -> impl IntoView {
    let state = expect_context::<AppState>();
    let prefs = memory_prefs();
    let timeline = Memo::new(move |_| {
        let cuda = prefs.cuda.get();
        state.trace.with(|t| Timeline::new(&t.steps, cuda))
    });
    // The marks carry the trace's figures: made once per trace.
    let marks = Memo::new(move |_| state.trace.with(|t| Timeline::marks_markup(&t.steps)));
    let ticks = Memo::new(move |_| {
        let units = prefs.units.get();
        timeline.with(|t| axis_ticks(t.peak_bytes(), units, 4))
    });
    let top = move || ticks.with(|t| t.last().copied().unwrap_or(0));
    let count = move || timeline.with(|t| t.points.len());
    // The contract's figures are the trace's (CPU) ones, as the marks' are.
    let cpu_peak = Memo::new(move |_| {
        state.trace.with(|t| {
            let tl = Timeline::new(&t.steps, false);
            tl.peak_step().map(|s| (s, tl.points[s].peak))
        })
    });
    let hover: RwSignal<Option<Hit>> = RwSignal::new(None);
    let plot = NodeRef::<leptos::html::Div>::new();

    let go = move |to: usize| {
        let n = state.trace.with_untracked(|t| t.steps.len());
        if n > 0 {
            state.step.set(to.min(n - 1));
        }
    };
    let hit_at = move |ev: &web_sys::MouseEvent| -> Option<Hit> {
        let el = plot.get_untracked()?;
        let (x, y) = fractions(ev, &el)?;
        let top = ticks.with_untracked(|t| t.last().copied().unwrap_or(0));
        timeline.with_untracked(|t| t.hit(x, y, top))
    };
    let on_move = move |ev: leptos::ev::PointerEvent| {
        let h = hit_at(&ev);
        if h != hover.get_untracked() {
            hover.set(h);
        }
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let marked = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|el| el.get_attribute("data-step"))
            .and_then(|s| s.parse::<usize>().ok());
        if let Some(step) = marked.or_else(|| hit_at(&ev).map(Hit::step)) {
            go(step);
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let n = count();
        let now = state.step.get_untracked();
        let to = match ev.key().as_str() {
            "ArrowRight" | "ArrowUp" => now + 1,
            "ArrowLeft" | "ArrowDown" => now.saturating_sub(1),
            "PageUp" => now + 10,
            "PageDown" => now.saturating_sub(10),
            "Home" => 0,
            "End" => n.saturating_sub(1),
            _ => return,
        };
        ev.prevent_default();
        // The page's own ←/→ would step a second time.
        ev.stop_propagation();
        go(to);
    };

    let drawing = move || {
        let top = top();
        marks.with(|m| timeline.with(|t| drawing_markup(t, top, m)))
    };
    let axis = move || {
        let top = top();
        ticks
            .get()
            .into_iter()
            .map(|b| {
                let at = if top == 0 { 0.0 } else { b as f64 / top as f64 };
                view! { <span class="tick" style:bottom=pct(at)>{prefs.bytes(b)}</span> }
            })
            .collect_view()
    };
    let grid = move || {
        let top = top();
        ticks
            .get()
            .into_iter()
            .map(|b| {
                let at = if top == 0 { 0.0 } else { b as f64 / top as f64 };
                view! { <span class="grid" style:bottom=pct(at)></span> }
            })
            .collect_view()
    };
    // The selected step's column.
    let cursor = move || {
        let n = count().max(1) as f64;
        let i = state.step.get() as f64;
        (pct(i / n), pct(1.0 / n))
    };
    let peak_dot = move || {
        let top = top();
        timeline.with(|t| {
            let s = t.peak_step()?;
            let n = t.points.len().max(1) as f64;
            let at = if top == 0 {
                0.0
            } else {
                t.points[s].peak as f64 / top as f64
            };
            Some((pct((s as f64 + 0.5) / n), pct(at)))
        })
    };
    let script_line = move |line: usize| {
        state.script.with_untracked(|s| {
            s.lines()
                .nth(line.saturating_sub(1))
                .unwrap_or("")
                .trim()
                .to_string()
        })
    };
    let peak_button = move || {
        let (s, bytes, line) = timeline.with(|t| {
            let s = t.peak_step()?;
            Some((s, t.points[s].peak, t.points[s].peak_line))
        })?;
        let source = script_line(line);
        Some(view! {
            <button type="button" class="memtl-peak" data-testid="memory-peak" data-step=s
                title=tf("memtl-peak-title", &[("line", line.into()), ("source", source.as_str().into())])
                on:click=move |_| go(s)>
                <span class="peak-figure">{tf("memtl-peak", &[("bytes", prefs.bytes(bytes).into()), ("line", line.into())])}</span>
                <code class="peak-source">{source.clone()}</code>
            </button>
        })
    };
    let tooltip = move || {
        let h = hover.get()?;
        let s = h.step();
        let n = count().max(1) as f64;
        let cuda = prefs.cuda.get();
        let text: Vec<String> = state.trace.with(|tr| {
            let step = tr.steps.get(s)?;
            let p = timeline.with(|t| t.points.get(s).cloned())?;
            Some(match h {
                Hit::Band(_, cat) => {
                    let b = step
                        .memory
                        .as_ref()
                        .map(|m| band(m, cat, cuda))
                        .unwrap_or_default();
                    let mut lines = vec![tf(
                        "memtl-band",
                        &[
                            ("category", t(category_msg(cat)).into()),
                            ("n", (s + 1).into()),
                            ("bytes", prefs.bytes(b.bytes).into()),
                        ],
                    )];
                    for (name, bytes) in b.tensors.iter().take(TIP_NAMES) {
                        lines.push(format!("{name} · {}", prefs.bytes(*bytes)));
                    }
                    if b.tensors.len() > TIP_NAMES {
                        lines.push(tf(
                            "memtl-band-more",
                            &[("count", (b.tensors.len() - TIP_NAMES).into())],
                        ));
                    }
                    lines
                }
                Hit::Peak(_) => vec![tf(
                    "memtl-peak-hover",
                    &[
                        ("n", (s + 1).into()),
                        ("peak", prefs.bytes(p.peak).into()),
                        ("live", prefs.bytes(p.live).into()),
                    ],
                )],
                Hit::Above(_) => vec![tf(
                    "memtl-above",
                    &[("n", (s + 1).into()), ("line", step.line.into())],
                )],
            })
        })?;
        let x = (s as f64 + 0.5) / n;
        let side = if x > 0.5 { "left" } else { "right" };
        Some(view! {
            <div class="memtl-tip" data-testid="memory-tip" data-side=side style:left=pct(x)>
                {text.into_iter().enumerate().map(|(i, l)| view! { <div class:tip-head=i == 0>{l}</div> }).collect_view()}
            </div>
            <div class="memtl-hover" style:left=pct(s as f64 / n) style:width=pct(1.0 / n)></div>
        })
    };
    let valuetext = move || {
        let s = state.step.get();
        timeline.with(|tl| {
            tl.points
                .get(s)
                .map(|p| {
                    tf(
                        "memtl-valuetext",
                        &[
                            ("n", (s + 1).into()),
                            ("count", tl.points.len().into()),
                            ("live", prefs.bytes(p.live).into()),
                            ("peak", prefs.bytes(p.peak).into()),
                        ],
                    )
                })
                .unwrap_or_default()
        })
    };
    let legend = move || {
        timeline.with(|tl| {
            MemoryCategory::ALL
                .iter()
                .enumerate()
                .filter(|(k, _)| tl.points.iter().any(|p| p.bands[*k] > 0))
                .map(|(_, &c)| view! { <li><span class=format!("swatch {}", band_class(c))></span>{t(category_msg(c))}</li> })
                .collect_view()
        })
    };
    view! {
        <section class="memtl" data-testid="memory-timeline"
            data-peak-bytes=move || cpu_peak.get().map(|p| p.1).unwrap_or(0).to_string()
            data-peak-step=move || cpu_peak.get().map(|p| p.0.to_string()).unwrap_or_default()
            data-cuda=move || prefs.cuda.get().to_string()
            aria-label=t("memtl-title")>
            <div class="memtl-head">
                <h3>{t("memtl-title")}</h3>
                {peak_button}
            </div>
            <p class="hint">{t("memtl-hint")}</p>
            <div class="memtl-body">
                <div class="memtl-axis" aria-hidden="true">{axis}</div>
                <div class="memtl-plot" node_ref=plot role="slider" tabindex="0"
                    aria-label=t("memtl-slider")
                    aria-valuemin="1"
                    aria-valuemax=move || count().to_string()
                    aria-valuenow=move || (state.step.get() + 1).to_string()
                    aria-valuetext=valuetext
                    on:pointermove=on_move
                    on:pointerleave=move |_| hover.set(None)
                    on:click=on_click
                    on:keydown=on_key>
                    {grid}
                    <div class="memtl-drawing" inner_html=drawing></div>
                    <div class="memtl-cursor" style:left=move || cursor().0 style:width=move || cursor().1></div>
                    {move || peak_dot().map(|(x, y)| view! { <div class="memtl-peak-dot" style:left=x style:bottom=y></div> })}
                    {tooltip}
                </div>
            </div>
            <ul class="memtl-legend" aria-label=t("memtl-legend")>{legend}</ul>
        </section>
    }
}
