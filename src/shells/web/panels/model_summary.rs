//! The model summary table (the trace's [`crate::core::trace::ModelSummary`]): per module
//! call, its parameters and their bytes, its output's shape and bytes, what its ops saved for
//! backward and the peak while it ran; the run's totals below. Not shown when the script
//! called no module.

use leptos::prelude::*;

use crate::present::cells::dims_text;
use crate::present::memory_units::count_text;
use crate::shells::web::i18n::{t, tf};
use crate::shells::web::panels::memory::memory_prefs;
use crate::shells::web::AppState;

/// The model summary of the run.
#[component]
pub fn ModelSummary() -> impl IntoView {
    let state = expect_context::<AppState>();
    let prefs = memory_prefs();
    let summary = Memo::new(move |_| {
        state
            .trace
            .with(|t| t.summary.clone().filter(|s| !s.rows.is_empty()))
    });
    // A row's line: the first step of the page at that line.
    let go_to_line = move |line: usize| {
        let at = state
            .trace
            .with_untracked(|t| t.steps.iter().position(|s| s.line == line));
        if let Some(i) = at {
            state.step.set(i);
        }
    };
    move || {
        let s = summary.get()?;
        let b = move |n: u64| prefs.bytes(n);
        let rows = s
            .rows
            .iter()
            .map(|r| {
                let line = r.line;
                let indent = format!("{}rem", r.depth as f64 * 0.8);
                view! {
                    <tr data-testid="model-summary" data-layer=r.layer.clone()
                        data-param-bytes=r.param_bytes.to_string() data-output-bytes=r.output_bytes.to_string()
                        data-saved-bytes=r.saved_bytes.to_string() data-peak-bytes=r.peak_bytes.to_string()>
                        <th scope="row" style:padding-left=indent>
                            <button type="button" class="link" title=tf("summary-go", &[("line", line.into())])
                                on:click=move |_| go_to_line(line)>
                                <code>{if r.layer.is_empty() { r.kind.clone() } else { r.layer.clone() }}</code>
                            </button>
                            <span class="kind">{format!(" ({})", r.kind)}</span>
                        </th>
                        <td class="num">{count_text(r.params)}</td>
                        <td class="num">{let n = r.param_bytes; move || b(n)}</td>
                        <td><code>{dims_text(&r.output_shape)}</code></td>
                        <td class="num">{let n = r.output_bytes; move || b(n)}</td>
                        <td class="num">{let n = r.saved_bytes; move || b(n)}</td>
                        <td class="num">{let n = r.peak_bytes; move || b(n)}</td>
                    </tr>
                }
            })
            .collect_view();
        let totals = [
            ("summary-total-params", s.parameter_bytes),
            ("summary-total-grads", s.gradient_bytes),
            ("summary-total-optim", s.optimizer_state_bytes),
            ("summary-total-acts", s.activation_bytes),
            ("summary-total-peak", s.peak_bytes),
        ]
        .into_iter()
        .map(|(id, n)| view! { <li data-testid="model-summary-total" data-bytes=n.to_string()>{move || tf(id, &[("bytes", b(n).into())])}</li> })
        .collect_view();
        Some(view! {
            <section class="model-summary" aria-labelledby="model-summary-title">
                <h3 id="model-summary-title">{t("summary-title")}</h3>
                <p class="hint">{t("summary-hint")}</p>
                <div class="table-scroll" tabindex="0" role="region" aria-label=t("summary-caption")>
                    <table>
                        <caption class="visually-hidden">{t("summary-caption")}</caption>
                        <thead><tr>
                            <th scope="col">{t("summary-layer")}</th>
                            <th scope="col" class="num">{t("summary-params")}</th>
                            <th scope="col" class="num">{t("summary-param-bytes")}</th>
                            <th scope="col">{t("summary-output")}</th>
                            <th scope="col" class="num">{t("summary-output-bytes")}</th>
                            <th scope="col" class="num">{t("summary-saved")}</th>
                            <th scope="col" class="num">{t("summary-peak")}</th>
                        </tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
                <h4 class="totals-title">{t("summary-totals")}</h4>
                <ul class="summary-totals">{totals}</ul>
            </section>
        })
    }
}
