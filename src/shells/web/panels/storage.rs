//! Every live storage as a strip of cells, patched in place between steps.

use std::collections::{HashMap, HashSet};

use leptos::prelude::*;

use crate::core::tensor::{DType, StorageId};
use crate::core::trace::{Step, StorageRecord};
use crate::present::cells::{
    bytes_text, is_virtual_strip, storage_slots, stride_walk, value_text, view_key, widest,
    StorageCells, MAX_DRAWN, PALETTE,
};
use crate::shells::web::i18n::{t, tf};
use crate::shells::web::panels::canvas_source::element_count;
use crate::shells::web::panels::canvas_view::{
    canvas_drawing, is_large, storage_pref_key, to_pixels_button, CanvasPrefs, Drawn,
};
use crate::shells::web::panels::memory_roles::StorageRoleLine;
use crate::shells::web::panels::virtualized::{drive, Drawing, Strip, Virtual};
use crate::shells::web::panels::{css_name, hover_handler, mark_written};
use crate::shells::web::AppState;

/// Every live storage as a strip of cells.
#[component]
pub fn StoragePanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let structure = Memo::new(move |_| {
        state.with_current(|s| {
            let storages: Vec<(StorageId, usize, DType)> = s
                .storages
                .iter()
                .map(|x| (x.id, x.nbytes, x.dtype))
                .collect();
            let views: Vec<String> = s.tensors.iter().map(view_key).collect();
            (storages, views)
        })
    });
    let shown: StoredValue<HashMap<StorageId, Vec<String>>> = StoredValue::new(HashMap::new());
    Effect::new(move |_| {
        state.with_current(|step| patch_storages(step, shown));
    });
    let on_over = hover_handler(state);
    view! {
        <div class="panel storage-panel" on:mouseover=on_over on:mouseleave=move |_| state.hover.set(None)>
            <div class="panel-head"><h2>{t("storages-title")}</h2><span class="hint">{t("storages-hint")}</span></div>
            {move || {
                // Redrawn when storages or the views reaching them change; values and write
                // marks are patched in place (see `patch_storages`).
                let _ = structure.get();
                let picked = state.picked.get();
                let prefs = expect_context::<CanvasPrefs>();
                let as_cells = prefs.as_cells.get();
                let Some(step) = state.current_untracked() else { return ().into_any() };
                let hover_view = state.hover.get_untracked().and_then(|h| h.view);
                shown.update_value(|m| {
                    m.clear();
                    // Virtualized strips redraw their own tiles (see `Virtual`).
                    for s in step.storages.iter().filter(|s| !strip_is_virtual(s)) {
                        m.insert(s.id, storage_texts(s));
                    }
                });
                step.storages
                    .iter()
                    .map(|s| {
                        let canvas = is_large_storage(s).then(|| !as_cells.contains(&storage_pref_key(s.id)));
                        storage_strip(state, &step, s, picked.as_ref(), hover_view.as_ref(), canvas)
                    })
                    .collect_view()
                    .into_any()
            }}
        </div>
    }
}

/// Whether a storage has more elements than the DOM draws well (it goes on a canvas).
fn is_large_storage(s: &StorageRecord) -> bool {
    is_large(element_count(s))
}

fn strip_is_virtual(s: &StorageRecord) -> bool {
    s.values.as_ref().is_some_and(|v| is_virtual_strip(v.len()))
}

/// The texts of a storage's drawn cells, in order.
fn storage_texts(s: &StorageRecord) -> Vec<String> {
    let Some(values) = &s.values else {
        return Vec::new();
    };
    let n = values.len();
    if n > MAX_DRAWN {
        values[..MAX_DRAWN / 2]
            .iter()
            .chain(&values[n - MAX_DRAWN / 2..])
            .map(value_text)
            .collect()
    } else {
        values.iter().map(value_text).collect()
    }
}

/// Brings the drawn storage strips up to date with `step`: changed values and write marks.
fn patch_storages(step: &Step, shown: StoredValue<HashMap<StorageId, Vec<String>>>) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    for s in &step.storages {
        let Some(old) = shown.with_value(|m| m.get(&s.id).cloned()) else {
            continue;
        };
        let texts = storage_texts(s);
        let scope = format!(
            "[data-testid=storage][data-storage=\"{}\"]",
            css_name(&s.id.to_string())
        );
        if old != texts {
            if let Ok(cells) =
                document.query_selector_all(&format!("{scope} [data-testid=storage-cell] .val"))
            {
                for (i, text) in texts.iter().enumerate() {
                    if old.get(i) != Some(text) {
                        if let Some(val) = cells.item(i as u32) {
                            val.set_text_content(Some(text));
                            let cell = val.parent_element();
                            if let (Some(cell), Some(before)) = (cell, old.get(i)) {
                                let label = cell.get_attribute("aria-label").unwrap_or_default();
                                let _ = cell.set_attribute(
                                    "aria-label",
                                    &label.replacen(
                                        &format!(": {before}"),
                                        &format!(": {text}"),
                                        1,
                                    ),
                                );
                            }
                        }
                    }
                }
            }
            shown.update_value(|m| {
                m.insert(s.id, texts.clone());
            });
        }
        let written: HashSet<i64> = step
            .writes
            .iter()
            .filter(|w| w.storage == s.id)
            .flat_map(|w| w.offsets())
            .collect();
        mark_written(&document, &scope, s.id, &written);
    }
}

fn storage_strip(
    state: AppState,
    step: &Step,
    storage: &StorageRecord,
    picked: Option<&(String, usize)>,
    hover_view: Option<&(String, Vec<i64>)>,
    canvas: Option<bool>,
) -> impl IntoView {
    let on_canvas = canvas == Some(true);
    // Which views reach each element (not drawn on a canvas).
    let reach = if on_canvas {
        HashMap::new()
    } else {
        crate::present::cells::storage_reach(step, storage.id)
    };
    let written = crate::present::cells::storage_written(step, storage.id);
    // Stride jumps of the picked dim.
    let mut jumps: HashMap<i64, usize> = HashMap::new();
    let mut jump_caption = None;
    if let Some((name, dim)) = picked {
        if let Some(t) = step
            .tensors
            .iter()
            .find(|t| &t.name == name && t.storage == storage.id)
        {
            let from = match hover_view {
                Some((v, idx)) if v == name && idx.len() == t.shape.len() => idx.clone(),
                _ => vec![0; t.shape.len()],
            };
            for (k, at) in stride_walk(t, *dim, &from).into_iter().enumerate() {
                jumps.entry(at).or_insert(k);
            }
            if let Some(&s) = t.stride.get(*dim) {
                jump_caption = Some(tf(
                    "jump-caption",
                    &[
                        ("name", name.into()),
                        ("dim", (*dim).into()),
                        ("stride", s.into()),
                        ("bytes", (s * t.element_size as i64).into()),
                    ],
                ));
            }
        }
    }
    let dtype = storage.dtype;
    // Elements of the storage's dtype, recorded or not.
    let count = element_count(storage);
    let mut args = vec![
        ("id", (&storage.id).into()),
        ("dtype", dtype.into()),
        ("bytes", bytes_text(storage.nbytes).into()),
        ("count", count.into()),
    ];
    let header = match &storage.owner {
        Some(owner) => {
            args.push(("owner", owner.into()));
            tf("storage-header-owned", &args)
        }
        None => tf("storage-header", &args),
    };
    let names: Vec<String> = step.tensors.iter().map(|t| t.name.clone()).collect();
    let cells = match &storage.values {
        _ if on_canvas => {
            let mut walk: Vec<(i64, usize)> = jumps.iter().map(|(&at, &k)| (at, k)).collect();
            crate::core::tensor::stable_sort::sort_by_key(&mut walk, |&(_, k)| k);
            canvas_drawing(
                state,
                step,
                Drawn::Storage(storage),
                storage_pref_key(storage.id),
                storage.id.to_string(),
                walk.into_iter().map(|(at, _)| at).collect(),
            )
        }
        None => view! { <p class="muted">{tf("storage-too-many", &[("count", count.into())])}</p> }
            .into_any(),
        Some(values) if is_virtual_strip(values.len()) => {
            let strip = Strip {
                id: storage.id,
                values: values.to_vec(),
                reach,
                names,
                written,
                jumps,
                slots: storage_slots(values.len()),
            };
            let v = Virtual::new(Drawing::Strip(strip), widest(values), 16);
            let sizer = v.sizer_html();
            let v = StoredValue::new_local(v);
            let node = NodeRef::<leptos::html::Div>::new();
            drive(state, v, node);
            view! {
                <div class="strip vbox" role="list" tabindex="0" node_ref=node
                    aria-label=tf("storage-virtual", &[("count", values.len().into()), ("id", (&storage.id).into())])
                    on:scroll=move |_| { v.try_update_value(|v| v.sync(state)); }
                    inner_html=sizer></div>
            }
            .into_any()
        }
        Some(values) => {
            let html = StorageCells {
                id: storage.id,
                values,
                reach: &reach,
                names: &names,
                colours: &PALETTE,
                written: &written,
                jumps: &jumps,
            }
            .html();
            view! { <div class="strip" role="list" inner_html=html></div> }.into_any()
        }
    };
    view! {
        <section class="storage" data-testid="storage" data-storage=storage.id.to_string() data-dtype=dtype.name() data-nbytes=storage.nbytes
            data-uninitialized=storage.uninitialized.then_some("true")>
            <h3>{header}</h3>
            <StorageRoleLine storage=storage.id/>
            {storage.uninitialized.then(|| view! { <p class="uninitialized">{t("storage-uninitialized")}</p> })}
            {(canvas == Some(false)).then(|| to_pixels_button(storage_pref_key(storage.id)))}
            {cells}
            {jump_caption.map(|c| view! { <p class="jump-caption">{c}</p> })}
        </section>
    }
}
