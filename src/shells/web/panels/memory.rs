//! Bytes per storage, total live bytes and what this step allocated.

use leptos::prelude::*;

use crate::present::cells::bytes_text;
use crate::shells::web::i18n::{t, tf};
use crate::shells::web::AppState;

/// Bytes per storage, total live bytes and what this step allocated.
#[component]
pub fn MemoryPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <div class="panel memory-panel" data-testid="memory">
            {move || state.with_current(|step| {
                let ops: Vec<String> = step
                    .created
                    .iter()
                    .map(|c| match c.kind {
                        crate::core::trace::CreationKind::View => tf("mem-view", &[("op", (&c.op).into())]),
                        _ => String::new(),
                    })
                    .filter(|s| !s.is_empty())
                    .collect();
                let this_step = if step.allocated_bytes > 0 {
                    let op = step.created.iter().find(|c| c.kind != crate::core::trace::CreationKind::View).map(|c| c.op.clone()).unwrap_or_else(|| t("mem-this-step"));
                    tf("mem-allocated", &[("op", op.into()), ("bytes", bytes_text(step.allocated_bytes).into())])
                } else if let Some(first) = ops.first() {
                    first.clone()
                } else {
                    t("mem-nothing")
                };
                view! {
                    <div class="mem-line">
                        <span class="mem-total" data-testid="memory-total">{tf("mem-live", &[("bytes", bytes_text(step.live_bytes).into()), ("count", step.storages.len().into())])}</span>
                        <span class="mem-step" data-testid="memory-step">{this_step}</span>
                    </div>
                }
            })}
        </div>
    }
}
