//! The script editor: a textarea with line numbers, the current step's line marked and every
//! failing line flagged with its error.

use leptos::html;
use leptos::prelude::*;

use crate::shells::web::i18n::{t, tf, tm};
use crate::shells::web::{run_now, AppState};

/// The editor with its gutter and the list of errors by line.
#[component]
pub fn Editor() -> impl IntoView {
    let state = expect_context::<AppState>();
    let gutter = NodeRef::<html::Div>::new();
    let line_count = move || state.script.with(|s| s.split('\n').count().max(1));
    let current_line = move || {
        let i = state.step.get();
        state.trace.with(|t| t.steps.get(i).map(|s| s.line))
    };
    let error_lines = move || {
        state.trace.with(|t| {
            t.steps
                .iter()
                .enumerate()
                // An exception a `try` caught is not the script's error.
                .filter(|(_, s)| s.caught_by.is_none())
                .filter_map(|(i, s)| s.error.as_ref().map(|e| (i, s.line, s.column, e.clone())))
                .collect::<Vec<_>>()
        })
    };
    let gutter_lines = move || {
        let current = current_line();
        let errors: Vec<usize> = error_lines().into_iter().map(|(_, l, _, _)| l).collect();
        // Beyond what the browser runs, line numbers would only cost time.
        (1..=line_count().min(crate::shells::web::MAX_SCRIPT_LINES * 2))
            .map(|n| {
                let mut class = String::from("ln");
                if Some(n) == current {
                    class.push_str(" current");
                }
                if errors.contains(&n) {
                    class.push_str(" has-error");
                }
                view! { <div class=class>{n}</div> }
            })
            .collect_view()
    };
    let on_scroll = move |ev: leptos::ev::Event| {
        let top = event_target::<web_sys::HtmlTextAreaElement>(&ev).scroll_top();
        if let Some(g) = gutter.get() {
            g.set_scroll_top(top);
        }
    };
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
            ev.prevent_default();
            run_now(state);
        }
    };
    view! {
        <div class="panel editor-panel">
            <div class="panel-head">
                <h2>{t("editor-title")}</h2>
                <span class="hint" data-testid="editor-hint">
                    {move || if state.read_only.get() {
                        t("editor-hint-readonly")
                    } else {
                        t("editor-hint")
                    }}
                </span>
            </div>
            <div
                class="editor"
                on:dragover=crate::shells::web::images::on_dragover
                on:drop=move |ev| crate::shells::web::images::on_drop(state, ev)
            >
                <div class="gutter" node_ref=gutter aria-hidden="true">{gutter_lines}</div>
                <textarea
                    data-testid="editor"
                    aria-label=t("editor-label")
                    spellcheck="false"
                    autocomplete="off"
                    autocapitalize="off"
                    wrap="off"
                    readonly=move || state.read_only.get()
                    aria-readonly=move || if state.read_only.get() { "true" } else { "false" }
                    prop:value=move || state.script.get()
                    on:input=move |ev| state.script.set(event_target_value(&ev))
                    on:scroll=on_scroll
                    on:keydown=on_keydown
                ></textarea>
            </div>
            {(!state.embed).then(|| view! { <crate::shells::web::images::ImageBar/> })}
            <Show when=move || state.notice.get().is_some()>
                <p class="notice" role="alert" data-testid="notice">{move || state.notice.get().map(|m| tm(&m)).unwrap_or_default()}</p>
            </Show>
            <ul class="error-list" aria-label=t("errors-by-line")>
                {move || {
                    error_lines()
                        .into_iter()
                        .map(|(i, line, col, err)| {
                            let at = match col {
                                Some(c) => tf("error-at-column", &[("line", line.into()), ("column", c.into())]),
                                None => tf("error-at-line", &[("line", line.into())]),
                            };
                            view! {
                                <li>
                                    <button class="link" data-testid="error-line" data-line=line on:click=move |_| state.step.set(i)>
                                        <span class="at">{at}</span>
                                        <span class="msg">{err}</span>
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
        </div>
    }
}
