//! The step's memory changes as a memory tracker prints them, exact and with reasons
//! (`+ 7 × Parameter (512, 512, 3, 3) float32 66.06 MB`, `− … freed by backward()`), from
//! [`crate::present::memory_changes::change_lines`].

use leptos::prelude::*;

use crate::present::memory_changes::change_lines;
use crate::shells::web::i18n::{t, tf, tm};
use crate::shells::web::panels::memory::memory_prefs;
use crate::shells::web::AppState;

/// The current step's changes since the step before.
#[component]
pub fn MemoryChanges() -> impl IntoView {
    let state = expect_context::<AppState>();
    let prefs = memory_prefs();
    let lines = move || {
        let i = state.step.get();
        let cuda = prefs.cuda.get();
        state.trace.with(|tr| {
            let memory = tr.steps.get(i)?.memory.as_ref()?;
            let before = i
                .checked_sub(1)
                .and_then(|b| tr.steps.get(b))
                .and_then(|s| s.memory.as_ref());
            Some(change_lines(memory, before, cuda))
        })
    };
    view! {
        <section class="memchanges" aria-label=move || tf("memchanges-label", &[("n", (state.step.get() + 1).into())])>
            <h3>{t("memchanges-title")}</h3>
            {move || {
                let lines = lines().unwrap_or_default();
                if lines.is_empty() {
                    return view! { <p class="muted" data-testid="memory-changes-none">{t("memchanges-none")}</p> }.into_any();
                }
                view! {
                    <ul class="memchange-list" data-testid="memory-changes">
                        {lines.into_iter().map(|l| {
                            let minus = l.sign == '-';
                            let category = l.category.map(|c| c.name()).unwrap_or("other");
                            view! {
                                <li class="memchange" class:minus=minus data-testid="memory-change"
                                    data-sign=l.sign.to_string() data-bytes=l.bytes.to_string()
                                    data-category=category data-count=l.count.to_string()>
                                    <span class="sign">{if minus { "\u{2212}" } else { "+" }}</span>
                                    <span class=format!("swatch band-{}", category.replace('_', "-")) aria-hidden="true"></span>
                                    <span class="what">
                                        {(l.count > 1).then(|| view! { <span class="count">{format!("{} × ", l.count)}</span> })}
                                        <code>{tm(&l.what)}</code>
                                    </span>
                                    <span class="bytes">{move || prefs.bytes(l.bytes)}</span>
                                    {l.why.as_ref().map(|w| view! { <span class="why">{tm(w)}</span> })}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }
                .into_any()
            }}
        </section>
    }
}
