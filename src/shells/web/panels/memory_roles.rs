//! What a storage is, in the storage list: its category (parameter, gradient, optimizer state,
//! saved for backward, ...), what holds it (`lin1.weight`), and a badge for each autograd node
//! and slot that keeps it alive for backward (`ReluBackward0 · result`). Hovering or focusing
//! a badge lights up the views of that storage and the storage itself.

use std::cell::RefCell;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::tensor::StorageId;
use crate::present::memory_changes::{category_msg, storage_label};
use crate::shells::web::i18n::{t, tf};
use crate::shells::web::panels::memory::memory_prefs;
use crate::shells::web::AppState;

/// How many holders a storage's role line names (all of them in its tooltip).
const HELD_SHOWN: usize = 3;

thread_local! {
    /// The elements lit by a hovered badge now.
    static LIT: RefCell<Vec<web_sys::Element>> = const { RefCell::new(Vec::new()) };
}

/// Sets `data-saved-lit` on the views and the strip of `storage` (and on nothing else).
pub(super) fn light_storage(storage: Option<StorageId>) {
    LIT.with(|lit| {
        let mut lit = lit.borrow_mut();
        for el in lit.drain(..) {
            let _ = el.remove_attribute("data-saved-lit");
        }
        let Some(id) = storage else { return };
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let selector = format!(
            "[data-testid=view][data-storage=\"{id}\"], [data-testid=storage][data-storage=\"{id}\"]"
        );
        if let Ok(found) = document.query_selector_all(&selector) {
            for i in 0..found.length() {
                if let Some(el) = found
                    .item(i)
                    .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
                {
                    let _ = el.set_attribute("data-saved-lit", "true");
                    lit.push(el);
                }
            }
        }
    });
}

/// The role line of a storage at the current step (nothing when the step has no memory
/// record or the record does not list it).
#[component]
pub fn StorageRoleLine(storage: StorageId) -> impl IntoView {
    let state = expect_context::<AppState>();
    let prefs = memory_prefs();
    move || {
        let label =
            state.with_current(|s| s.memory.as_ref().and_then(|m| storage_label(m, storage)))??;
        let category = label.category.map(|c| {
            let class = format!("role-chip band-{}", c.name().replace('_', "-"));
            view! { <span class=class data-testid="storage-role" data-category=c.name()>{t(category_msg(c))}</span> }
        });
        let held = (!label.held_by.is_empty()).then(|| {
            let all = label.held_by.join(", ");
            let mut names = label.held_by.iter().take(HELD_SHOWN).cloned().collect::<Vec<_>>().join(", ");
            if label.held_by.len() > HELD_SHOWN {
                names.push_str(", …");
            }
            view! { <span class="held-by" title=all>{tf("memrole-held", &[("names", names.into())])}</span> }
        });
        let badges = label
            .saved
            .into_iter()
            .map(|by| {
                let title = tf("memrole-badge-title", &[("node", by.node.as_str().into()), ("slot", by.slot.as_str().into())]);
                let text = tf("memrole-badge", &[("node", by.node.as_str().into()), ("slot", by.slot.as_str().into())]);
                let on = move || prefs.lit.set(Some(storage));
                let off = move || prefs.lit.set(None);
                view! {
                    <span class="saved-by" data-testid="saved-by" data-node=by.node.clone() data-slot=by.slot.clone()
                        data-storage=storage.to_string() tabindex="0" role="note" title=title.clone() aria-label=title
                        on:mouseenter=move |_| on() on:mouseleave=move |_| off()
                        on:focus=move |_| on() on:blur=move |_| off()>
                        {text}
                    </span>
                }
            })
            .collect_view();
        Some(view! {
            <p class="storage-role">{category}{held}{badges}</p>
        })
    }
}
