//! The notebook output or the error of the current step, what the statement made, and the
//! drawing of why a `view` failed.

use leptos::prelude::*;

use crate::app::AppState;
use crate::tensor::layout::ViewExplanation;
use crate::ui_model::dims_text;

/// The notebook output, or the error, of the current step.
#[component]
pub fn OutputPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <div class="panel output-panel" aria-live="polite">
            {move || match state.with_current(|s| {
                (s.line, s.column, s.source.clone(), s.output.clone(), s.error.clone(), s.explain.clone(), s.created.clone())
            }) {
                None => view! { <p class="muted">"Nothing to show yet."</p> }.into_any(),
                Some((line, column, source, output, error, explain, created)) => {
                    view! {
                        <div class="stmt">
                            <span class="prompt">{format!("[{line}]")}</span>
                            <code>{source}</code>
                        </div>
                        {output.map(|o| view! { <pre class="output" data-testid="output">{o}</pre> })}
                        {error.map(|e| {
                            let col = column.map(|c| format!(" (col {c})")).unwrap_or_default();
                            view! {
                                <pre class="error" data-testid="error" role="alert">{format!("{e}{col}")}</pre>
                            }
                        })}
                        {explain.map(|x| view! { <ViewExplain explanation=x/> })}
                        <Created created=created/>
                    }
                    .into_any()
                }
            }}
        </div>
    }
}

/// What the statement made: views and copies, with bytes allocated.
#[component]
fn Created(created: Vec<crate::trace::Creation>) -> impl IntoView {
    let items = created
        .iter()
        .map(|c| {
            let what = match c.kind.as_str() {
                "view" => format!(
                    "a view of {} (no copy)",
                    if c.of.is_empty() {
                        c.storage.clone()
                    } else {
                        c.of.join(", ")
                    }
                ),
                "copy" => format!(
                    "a copy into new storage {} (from {})",
                    c.storage,
                    c.of.join(", ")
                ),
                _ => format!("new storage {}", c.storage),
            };
            let class = format!("made {}", c.kind);
            view! { <li class=class><b>{c.name.clone()}</b>" = "{c.op.clone()}": "{what}</li> }
        })
        .collect_view();
    view! { <ul class="created">{items}</ul> }
}

/// Why `view` failed: the old dims grouped into contiguous subspaces, and the new dims that
/// would have to span two of them.
#[component]
fn ViewExplain(explanation: ViewExplanation) -> impl IntoView {
    let x = explanation;
    let subspaces = x
        .subspaces
        .iter()
        .enumerate()
        .map(|(k, dims)| {
            let boxes = dims
                .iter()
                .map(|&d| {
                    view! {
                        <span class="dimbox">{format!("dim {d}")}<small>{format!("size {} · stride {}", x.shape[d], x.strides[d])}</small></span>
                    }
                })
                .collect_view();
            view! { <span class="subspace" title=format!("contiguous subspace {k}")>{boxes}</span> }
        })
        .collect_view();
    let targets = x
        .target
        .iter()
        .enumerate()
        .map(|(t, &size)| {
            let bad = x.spanning.contains(&t);
            let class = if bad { "dimbox spans" } else { "dimbox" };
            view! { <span class=class>{format!("new dim {t}")}<small>{format!("size {size}")}{if bad { " · spans two subspaces" } else { "" }}</small></span> }
        })
        .collect_view();
    view! {
        <figure class="explain" data-testid="view-explain">
            <figcaption>
                "Why view fails: the old layout is made of contiguous subspaces (boxes). "
                "A new dim may merge or split dims only within one subspace; the red ones would have to cross a boundary. reshape copies instead."
            </figcaption>
            <div class="row"><span class="label">{format!("old {}", dims_text(&x.shape))}</span>{subspaces}</div>
            <div class="row"><span class="label">{format!("new {}", dims_text(&x.target))}</span>{targets}</div>
        </figure>
    }
}
