//! The panels that draw a step: output and error (with the drawing of a failed `view`,
//! `output.rs`), memory (`memory.rs`), storages as strips of cells (`storage.rs`), every
//! tensor variable as its logical grid (`views.rs`), the virtualized drawings that big
//! strips and grids scroll through (`virtualized.rs`), and the canvases that draw large ones
//! (`canvas_view.rs`, from `canvas_source.rs`, painted by `gpu_painter.rs` with WebGPU or by
//! `canvas2d.rs`; `readout.rs` says what the pointer is on). The memory panel draws the run's
//! memory timeline (`memory_timeline.rs`), the step's changes (`memory_changes.rs`) and the
//! model summary (`model_summary.rs`); `memory_roles.rs` labels storages with their roles.
//! Hover and pinning are delegated here.

mod canvas2d;
mod canvas_source;
mod canvas_view;
mod gpu_painter;
pub(super) mod memory;
mod memory_changes;
mod memory_roles;
mod memory_timeline;
mod model_summary;
mod output;
mod painter;
mod readout;
mod storage;
mod views;
mod virtualized;

use crate::core::tensor::StorageId;
use std::collections::{HashMap, HashSet};

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::shells::web::{AppState, Hover};

pub(crate) use canvas_view::canvas_picture;
pub use canvas_view::CanvasPrefs;
pub use memory::{provide_memory_prefs, MemoryPanel};
pub use output::OutputPanel;
pub use storage::StoragePanel;
pub use views::ViewsPanel;

/// The cell under the pointer: its `data-key` (`s0:5`) and, for view cells, view and index.
pub(super) fn hover_from_event(ev: &web_sys::Event) -> Option<Hover> {
    let target = ev.target()?.dyn_into::<web_sys::Element>().ok()?;
    let cell = target.closest("[data-key]").ok()??;
    let key = cell.get_attribute("data-key")?;
    let (storage, offset) = key.split_once(':')?;
    let offset = offset.parse().ok()?;
    let view = match (
        cell.get_attribute("data-view"),
        cell.get_attribute("data-index"),
    ) {
        (Some(v), Some(i)) => {
            let index = if i.is_empty() {
                vec![]
            } else {
                i.split(',').filter_map(|x| x.parse().ok()).collect()
            };
            Some((v, index))
        }
        _ => None,
    };
    Some(Hover {
        storage: StorageId::parse(storage)?,
        offset,
        view,
    })
}

/// Sets the hovered cell from a pointer event anywhere in a panel (event delegation: one
/// handler per panel, none per cell).
pub(super) fn hover_handler(state: AppState) -> impl Fn(leptos::ev::MouseEvent) + Copy {
    move |ev: leptos::ev::MouseEvent| {
        let h = hover_from_event(&ev);
        if h.is_some() && h != state.hover.get_untracked() {
            state.hover.set(h);
        }
    }
}

/// Sets the `written` class on exactly the cells of `scope` whose storage element was written
/// (nothing to do when the set is the one applied last: the DOM already shows it).
pub(super) fn mark_written(
    document: &web_sys::Document,
    scope: &str,
    storage: StorageId,
    written: &HashSet<i64>,
) {
    thread_local! {
        static APPLIED: std::cell::RefCell<HashMap<String, HashSet<i64>>> = std::cell::RefCell::new(HashMap::new());
    }
    let unchanged = APPLIED.with(|a| a.borrow().get(scope) == Some(written));
    if unchanged {
        return;
    }
    APPLIED.with(|a| {
        a.borrow_mut().insert(scope.to_string(), written.clone());
    });
    if let Ok(old) = document.query_selector_all(&format!("{scope} .cell.written")) {
        for i in 0..old.length() {
            if let Some(el) = old
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                let _ = el.class_list().remove_1("written");
            }
        }
    }
    for at in written.iter().take(4096) {
        let selector = format!(
            "{scope} [data-key=\"{}:{at}\"]",
            css_name(&storage.to_string())
        );
        if let Ok(cells) = document.query_selector_all(&selector) {
            for i in 0..cells.length() {
                if let Some(el) = cells
                    .item(i)
                    .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
                {
                    let _ = el.class_list().add_1("written");
                }
            }
        }
    }
}

/// Names and ids are identifiers; anything else is dropped from selectors.
pub(super) fn css_name(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}
