//! The readout of the hovered (else pinned) cell, for canvases and cells alike.

use leptos::prelude::*;

use crate::core::trace::Step;
use crate::present::cells::attr_list;
use crate::shells::web::i18n::{t as tr, tf};
use crate::shells::web::{AppState, Hover};

/// The readout of the hovered (else pinned) cell: index, offset, formula and value. One for
/// the page, `data-view` (the view; empty for a storage element), `data-index` (`i,j,...`)
/// and `data-offset`.
#[component]
pub fn CellReadout() -> impl IntoView {
    let state = expect_context::<AppState>();
    let text = move || {
        let h = state.hover.get().or_else(|| state.pinned.get())?;
        state.with_current(|step| readout_text(step, &h)).flatten()
    };
    let attrs = move || {
        let h = state.hover.get().or_else(|| state.pinned.get());
        match h {
            Some(h) => {
                let (view, index) = h.view.map(|(n, i)| (n, attr_list(&i))).unwrap_or_default();
                (view, index, h.offset.to_string(), h.storage.to_string())
            }
            None => Default::default(),
        }
    };
    view! {
        <p class="cell-readout" data-testid="cell-readout" aria-live="polite"
            data-view=move || attrs().0 data-index=move || attrs().1
            data-offset=move || attrs().2 data-storage=move || attrs().3>{text}</p>
    }
}

/// The readout's words for `h` in `step`.
fn readout_text(step: &Step, h: &Hover) -> Option<String> {
    let value = |v: Option<String>| v.unwrap_or_else(|| tr("readout-not-recorded"));
    match &h.view {
        Some((name, index)) => {
            let t = step.tensors.iter().find(|t| &t.name == name)?;
            let at = crate::present::cells::flat_position(&t.shape, index);
            let v = t
                .values
                .as_ref()
                .and_then(|vals| vals.get(at))
                .map(crate::present::cells::value_text);
            Some(tf(
                "readout",
                &[
                    ("name", name.into()),
                    ("index", attr_list(index).replace(',', ", ").into()),
                    ("value", value(v).into()),
                    (
                        "formula",
                        crate::present::cells::offset_formula(t, index).into(),
                    ),
                ],
            ))
        }
        None => {
            let s = step.storages.iter().find(|s| s.id == h.storage)?;
            let v = s
                .values
                .as_ref()
                .and_then(|vals| vals.get(usize::try_from(h.offset).ok()?))
                .map(crate::present::cells::value_text);
            Some(tf(
                "readout-storage",
                &[
                    ("id", (&s.id).into()),
                    ("offset", h.offset.into()),
                    ("value", value(v).into()),
                ],
            ))
        }
    }
}
