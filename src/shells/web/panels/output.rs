//! The notebook output or the error of the current step, what the statement made, and the
//! drawing of why a `view` failed.

use leptos::prelude::*;

use crate::core::tensor::layout::ViewExplanation;
use crate::present::cells::dims_text;
use crate::shells::web::i18n::{t, tf};
use crate::shells::web::AppState;

/// The notebook output, or the error, of the current step.
#[component]
pub fn OutputPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <div class="panel output-panel" aria-live="polite">
            {move || match state.with_current(|s| {
                (s.line, s.column, s.source.clone(), s.output.clone(), s.full_error(), s.explain.clone(), s.created.clone(), s.warnings.clone(), s.error_line, s.caught_by)
            }) {
                None => view! { <p class="muted">{t("output-empty")}</p> }.into_any(),
                Some((line, column, source, output, error, explain, created, warnings, error_line, caught_by)) => {
                    view! {
                        <div class="stmt">
                            <span class="prompt">{format!("[{line}]")}</span>
                            <code>{source}</code>
                        </div>
                        {warnings.into_iter().map(|w| view! { <pre class="warning" data-testid="warning">{w}</pre> }).collect_view()}
                        {output.map(|o| view! { <pre class="output" data-testid="output">{o}</pre> })}
                        {error.clone().filter(|_| caught_by.is_some()).map(|e| {
                            let caught = tf("error-caught", &[("line", caught_by.unwrap_or(0).into())]);
                            view! {
                                <pre class="error caught" data-testid="caught-error">{e}</pre>
                                <p class="caught-note">{caught}</p>
                            }
                        })}
                        {error.filter(|_| caught_by.is_none()).map(|e| {
                            // PyTorch's text as PyTorch prints it; the column is ours.
                            let text = match (column, error_line) {
                                (Some(c), _) => tf("error-column", &[("error", e.into()), ("column", c.into())]),
                                (None, Some(l)) => tf("error-line", &[("error", e.into()), ("line", l.into())]),
                                (None, None) => e,
                            };
                            view! {
                                <pre class="error" data-testid="error" role="alert">{text}</pre>
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
fn Created(created: Vec<crate::core::trace::Creation>) -> impl IntoView {
    use crate::core::trace::CreationKind;
    let items = created
        .iter()
        .map(|c| {
            let what = match c.kind {
                CreationKind::View => tf(
                    "created-view",
                    &[(
                        "of",
                        if c.of.is_empty() {
                            c.storage.to_string()
                        } else {
                            c.of.join(", ")
                        }
                        .into(),
                    )],
                ),
                CreationKind::Copy => tf(
                    "created-copy",
                    &[
                        ("storage", (&c.storage).into()),
                        ("of", c.of.join(", ").into()),
                    ],
                ),
                CreationKind::New => tf("created-new", &[("storage", (&c.storage).into())]),
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
                        <span class="dimbox">{tf("explain-dim", &[("dim", d.into())])}<small>{tf("explain-dim-detail", &[("size", x.shape[d].into()), ("stride", x.strides[d].into())])}</small></span>
                    }
                })
                .collect_view();
            view! { <span class="subspace" title=tf("explain-subspace", &[("k", k.into())])>{boxes}</span> }
        })
        .collect_view();
    let targets = x
        .target
        .iter()
        .enumerate()
        .map(|(t, &size)| {
            let bad = x.spanning.contains(&t);
            let class = if bad { "dimbox spans" } else { "dimbox" };
            let detail = tf(if bad { "explain-new-spans" } else { "explain-new-size" }, &[("size", size.into())]);
            view! { <span class=class>{tf("explain-new-dim", &[("dim", t.into())])}<small>{detail}</small></span> }
        })
        .collect_view();
    view! {
        <figure class="explain" data-testid="view-explain">
            <figcaption>{t("explain-caption")}</figcaption>
            <div class="row"><span class="label">{tf("explain-old", &[("shape", dims_text(&x.shape).into())])}</span>{subspaces}</div>
            <div class="row"><span class="label">{tf("explain-new", &[("shape", dims_text(&x.target).into())])}</span>{targets}</div>
        </figure>
    }
}
