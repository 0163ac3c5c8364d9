//! The panels that draw a step: output and error (with the drawing of a failed `view`),
//! memory, storages as strips of cells, and every tensor variable as its logical grid.

use std::collections::{HashMap, HashSet};

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{AppState, Hover};
use crate::tensor::layout::ViewExplanation;
use crate::trace::{Step, StorageRecord, TensorRecord, TraceScalar};
use crate::ui_model::{
    attr_list, axis_names, bytes_text, dims_text, drawn_texts, grid_fingerprint, grid_plan,
    is_virtual_strip, is_virtual_view, offset_formula, storage_slots, stride_walk,
    tensor_cells_html, tile_range, value_text, view_key, widest, widest_after, Lit, StorageCells,
    VirtualGrid, MAX_DRAWN, TILE_COLS, TILE_LINES,
};

/// Okabe-Ito: a colour-blind-safe palette, one colour per view.
use crate::ui_model::{view_colour as colour, PALETTE};

/// The cell under the pointer: its `data-key` (`s0:5`) and, for view cells, view and index.
fn hover_from_event(ev: &web_sys::Event) -> Option<Hover> {
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
        storage: storage.to_string(),
        offset,
        view,
    })
}

/// Sets the hovered cell from a pointer event anywhere in a panel (event delegation: one
/// handler per panel, none per cell).
fn hover_handler(state: AppState) -> impl Fn(leptos::ev::MouseEvent) + Copy {
    move |ev: leptos::ev::MouseEvent| {
        let h = hover_from_event(&ev);
        if h.is_some() && h != state.hover.get_untracked() {
            state.hover.set(h);
        }
    }
}

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
                    .map(|c| match c.kind.as_str() {
                        "view" => format!("{}: 0 B", c.op),
                        _ => String::new(),
                    })
                    .filter(|s| !s.is_empty())
                    .collect();
                let this_step = if step.allocated_bytes > 0 {
                    let op = step.created.iter().find(|c| c.kind != "view").map(|c| c.op.clone()).unwrap_or_else(|| "this step".into());
                    format!("{op}: +{}", bytes_text(step.allocated_bytes))
                } else if let Some(first) = ops.first() {
                    first.clone()
                } else {
                    "this step: 0 B".to_string()
                };
                view! {
                    <div class="mem-line">
                        <span class="mem-total" data-testid="memory-total">{format!("{} live in {} storage{}", bytes_text(step.live_bytes), step.storages.len(), if step.storages.len() == 1 { "" } else { "s" })}</span>
                        <span class="mem-step" data-testid="memory-step">{this_step}</span>
                    </div>
                }
            })}
        </div>
    }
}

/// Every live storage as a strip of cells.
#[component]
pub fn StoragePanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let structure = Memo::new(move |_| {
        state.with_current(|s| {
            let storages: Vec<(String, usize, String)> = s
                .storages
                .iter()
                .map(|x| (x.id.clone(), x.nbytes, x.dtype.clone()))
                .collect();
            let views: Vec<String> = s.tensors.iter().map(view_key).collect();
            (storages, views)
        })
    });
    let shown: StoredValue<HashMap<String, Vec<String>>> = StoredValue::new(HashMap::new());
    Effect::new(move |_| {
        state.with_current(|step| patch_storages(step, shown));
    });
    let on_over = hover_handler(state);
    view! {
        <div class="panel storage-panel" on:mouseover=on_over on:mouseleave=move |_| state.hover.set(None)>
            <div class="panel-head"><h2>"Storages"</h2><span class="hint">"flat memory; marks show which views reach each cell"</span></div>
            {move || {
                // Redrawn when storages or the views reaching them change; values and write
                // marks are patched in place (see `patch_storages`).
                let _ = structure.get();
                let picked = state.picked.get();
                let Some(step) = state.current_untracked() else { return ().into_any() };
                let hover_view = state.hover.get_untracked().and_then(|h| h.view);
                shown.update_value(|m| {
                    m.clear();
                    // Virtualized strips redraw their own tiles (see `Virtual`).
                    for s in step.storages.iter().filter(|s| !strip_is_virtual(s)) {
                        m.insert(s.id.clone(), storage_texts(s));
                    }
                });
                step.storages
                    .iter()
                    .map(|s| storage_strip(state, &step, s, picked.as_ref(), hover_view.as_ref()))
                    .collect_view()
                    .into_any()
            }}
        </div>
    }
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
fn patch_storages(step: &Step, shown: StoredValue<HashMap<String, Vec<String>>>) {
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
            css_name(&s.id)
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
                m.insert(s.id.clone(), texts.clone());
            });
        }
        let written: HashSet<i64> = step
            .writes
            .iter()
            .filter(|w| w.storage == s.id)
            .flat_map(|w| w.offsets.iter().copied())
            .collect();
        mark_written(&document, &scope, &s.id, &written);
    }
}

fn storage_strip(
    state: AppState,
    step: &Step,
    storage: &StorageRecord,
    picked: Option<&(String, usize)>,
    hover_view: Option<&(String, Vec<i64>)>,
) -> impl IntoView {
    // Which views reach each element.
    let reach = crate::ui_model::storage_reach(step, &storage.id);
    let written = crate::ui_model::storage_written(step, &storage.id);
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
                jump_caption = Some(format!(
                    "{name} · dim {dim}: each step jumps {s} element{} = {} bytes",
                    if s == 1 { "" } else { "s" },
                    s * t.element_size as i64
                ));
            }
        }
    }
    let dtype = storage.dtype.clone();
    let count = storage.values.as_ref().map(|v| v.len()).unwrap_or(0);
    let item = storage.nbytes.checked_div(count).unwrap_or(0);
    let owner = storage
        .owner
        .clone()
        .map(|o| format!(" · created for {o}"))
        .unwrap_or_default();
    let header = format!(
        "{} · {} · {} · {} elements{}",
        storage.id,
        dtype,
        bytes_text(storage.nbytes),
        count,
        owner
    );
    let names: Vec<String> = step.tensors.iter().map(|t| t.name.clone()).collect();
    let cells = match &storage.values {
        None => view! { <p class="muted">{format!("{} elements: too many to draw", storage.nbytes / item.max(1))}</p> }.into_any(),
        Some(values) if is_virtual_strip(values.len()) => {
            let strip = Strip { id: storage.id.clone(), values: values.clone(), reach, names, written, jumps, slots: storage_slots(values.len()) };
            let v = Virtual::new(Drawing::Strip(strip), widest(values), 16);
            let sizer = v.sizer_html();
            let v = StoredValue::new_local(v);
            let node = NodeRef::<leptos::html::Div>::new();
            drive(state, v, node);
            view! {
                <div class="strip vbox" role="list" tabindex="0" node_ref=node
                    aria-label=format!("{} elements of {}, drawn as they scroll into view", values.len(), storage.id)
                    on:scroll=move |_| { v.try_update_value(|v| v.sync(state)); }
                    inner_html=sizer></div>
            }
            .into_any()
        }
        Some(values) => {
            let html = StorageCells { id: &storage.id, values, reach: &reach, names: &names, colours: &PALETTE, written: &written, jumps: &jumps }.html();
            view! { <div class="strip" role="list" inner_html=html></div> }.into_any()
        }
    };
    view! {
        <section class="storage" data-testid="storage" data-storage=storage.id.clone() data-dtype=dtype data-nbytes=storage.nbytes>
            <h3>{header}</h3>
            {cells}
            {jump_caption.map(|c| view! { <p class="jump-caption">{c}</p> })}
        </section>
    }
}

/// Every tensor variable as its logical grid.
#[component]
pub fn ViewsPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let structure = Memo::new(move |_| {
        state.with_current(|s| s.tensors.iter().map(view_key).collect::<Vec<_>>())
    });
    let shown: StoredValue<HashMap<String, Vec<String>>> = StoredValue::new(HashMap::new());
    Effect::new(move |_| {
        state.with_current(|step| patch_views(step, shown));
    });
    let on_over = hover_handler(state);
    view! {
        <div class="panel views-panel" on:mouseover=on_over on:mouseleave=move |_| state.hover.set(None)>
            <div class="panel-head"><h2>"Tensors"</h2><span class="hint">"hover a cell to see where it lives, click (or Enter) to pin it; pick a dim to see its stride"</span></div>
            <p class="formula" data-testid="formula" aria-live="polite">
                {move || {
                    // The hovered cell, else the pinned one.
                    let h = state.hover.get().or_else(|| state.pinned.get())?;
                    let (name, index) = h.view?;
                    state.with_current(|step| {
                        let t = step.tensors.iter().find(|t| t.name == name)?;
                        Some(format!("{name}[{}]: {}", attr_list(&index).replace(',', ", "), offset_formula(t, &index)))
                    })?
                }}
            </p>
            {move || {
                // Redrawn only when the set of views or their layouts change; cell texts and
                // write marks of the same views are patched in place (see `patch_views`).
                let _ = structure.get();
                let picked = state.picked.get();
                let Some(step) = state.current_untracked() else { return ().into_any() };
                shown.update_value(|m| {
                    m.clear();
                    // Virtualized grids redraw their own tiles (see `Virtual`).
                    for t in step.tensors.iter().filter(|t| !is_virtual_view(t)) {
                        m.insert(view_key(t), drawn_texts(t));
                    }
                });
                step.tensors
                    .iter()
                    .enumerate()
                    .map(|(i, t)| tensor_view(state, &step, i, t, picked.as_ref()))
                    .collect_view()
                    .into_any()
            }}
        </div>
    }
}

/// Brings the drawn views up to date with `step` without redrawing them: changed cell texts
/// and the write marks.
fn patch_views(step: &Step, shown: StoredValue<HashMap<String, Vec<String>>>) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    for t in &step.tensors {
        let key = view_key(t);
        let old = shown.with_value(|m| m.get(&key).cloned());
        let Some(old) = old else { continue };
        let texts = drawn_texts(t);
        if old != texts {
            let selector = format!(
                "[data-testid=view][data-name=\"{}\"] [data-testid=view-cell]",
                css_name(&t.name)
            );
            let Ok(cells) = document.query_selector_all(&selector) else {
                continue;
            };
            for (i, text) in texts.iter().enumerate() {
                if old.get(i) != Some(text) {
                    if let Some(cell) = cells
                        .item(i as u32)
                        .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
                    {
                        cell.set_text_content(Some(text));
                        let index = cell
                            .get_attribute("data-index")
                            .unwrap_or_default()
                            .replace(',', ", ");
                        let at = cell.get_attribute("data-offset").unwrap_or_default();
                        let _ = cell.set_attribute(
                            "aria-label",
                            &format!("{}[{index}] = {text}, {} element {at}", t.name, t.storage),
                        );
                    }
                }
            }
            shown.update_value(|m| {
                m.insert(key.clone(), texts.clone());
            });
        }
        let written: HashSet<i64> = step
            .writes
            .iter()
            .filter(|w| w.storage == t.storage)
            .flat_map(|w| w.offsets.iter().copied())
            .collect();
        mark_written(
            &document,
            &format!("[data-testid=view][data-name=\"{}\"]", css_name(&t.name)),
            &t.storage,
            &written,
        );
    }
}

/// Sets the `written` class on exactly the cells of `scope` whose storage element was written
/// (nothing to do when the set is the one applied last: the DOM already shows it).
fn mark_written(document: &web_sys::Document, scope: &str, storage: &str, written: &HashSet<i64>) {
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
        let selector = format!("{scope} [data-key=\"{}:{at}\"]", css_name(storage));
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
fn css_name(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// Moves the inspected cell of one view with the keyboard (the same state as hovering).
#[derive(Clone)]
struct KeyboardCursor {
    record: TensorRecord,
}

impl KeyboardCursor {
    /// Moves the inspected cell and returns its index.
    fn move_by(&self, state: AppState, dr: i64, dc: i64) -> Option<Vec<i64>> {
        let t = &self.record;
        let rank = t.shape.len();
        if t.shape.contains(&0) {
            return None;
        }
        let mut index = match state.hover.get_untracked().and_then(|h| h.view) {
            Some((name, index)) if name == t.name && index.len() == rank => index,
            _ => vec![0; rank],
        };
        if rank >= 1 {
            let last = rank - 1;
            index[last] = (index[last] + dc).clamp(0, t.shape[last] - 1);
        }
        if rank >= 2 {
            let row = rank - 2;
            index[row] = (index[row] + dr).clamp(0, t.shape[row] - 1);
        }
        let offset = crate::ui_model::storage_offset_of(t, &index);
        state.hover.set(Some(Hover {
            storage: t.storage.clone(),
            offset,
            view: Some((t.name.clone(), index.clone())),
        }));
        Some(index)
    }
}

fn tensor_view(
    state: AppState,
    step: &Step,
    vi: usize,
    t: &TensorRecord,
    picked: Option<&(String, usize)>,
) -> impl IntoView {
    let owner = step
        .storages
        .iter()
        .find(|s| s.id == t.storage)
        .and_then(|s| s.owner.clone());
    let owns = owner.as_deref() == Some(t.name.as_str());
    let cursor = KeyboardCursor {
        record: TensorRecord {
            values: None,
            ..t.clone()
        },
    };
    let keyboard = StoredValue::new(cursor);
    let relation = if owns {
        format!("owns {}", t.storage)
    } else {
        format!("view of {}", t.storage)
    };
    let written: HashSet<i64> = step
        .writes
        .iter()
        .filter(|w| w.storage == t.storage)
        .flat_map(|w| w.offsets.iter().copied())
        .collect();
    let names = axis_names(t.shape.len());
    let dims = (0..t.shape.len())
        .map(|d| {
            let name = t.name.clone();
            let active = picked == Some(&(t.name.clone(), d));
            let label = format!("{} {} · stride {}", names[d], t.shape[d], t.stride[d]);
            view! {
                <button class="dimchip" class:active=active data-testid="dim-chip" data-dim=d
                    aria-pressed=active.to_string()
                    on:click=move |_| {
                        let key = (name.clone(), d);
                        state.picked.update(|p| *p = if p.as_ref() == Some(&key) { None } else { Some(key) });
                    }>{label}</button>
            }
        })
        .collect_view();
    let plan = grid_plan(&t.shape);
    let rank = t.shape.len();
    let badges = view! {
        {t.contiguous.then(|| view! { <span class="badge ok">"contiguous"</span> })}
        {t.channels_last.then(|| view! { <span class="badge cl">"channels_last"</span> })}
        {(!t.contiguous && !t.channels_last).then(|| view! { <span class="badge warn">"not contiguous"</span> })}
    };
    let axes = if rank >= 2 {
        format!("rows: {} · columns: {}", plan.row_axis, plan.col_axis)
    } else {
        String::new()
    };
    let label = format!(
        "cells of {}: arrow keys move between cells, the formula above tells where each lives",
        t.name
    );
    let virtual_grid = is_virtual_view(t).then(|| {
        let grid = VirtualGrid::of(&t.shape);
        let chars = widest(t.values.as_deref().unwrap_or(&[]));
        let per_line = grid.cols.len();
        let drawing = Drawing::Grid {
            key: view_key(t),
            record: t.clone(),
            grid,
            written: written.clone(),
        };
        StoredValue::new_local(Virtual::new(drawing, chars, per_line))
    });
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if matches!(ev.key().as_str(), "Enter" | " ") {
            // Pin (or unpin) the cell the keyboard is on, as a click does.
            ev.prevent_default();
            if let Some(h) = state.hover.get_untracked() {
                state.pinned.update(|p| {
                    let same = p
                        .as_ref()
                        .is_some_and(|q| q.storage == h.storage && q.offset == h.offset);
                    *p = if same { None } else { Some(h) };
                });
            }
            return;
        }
        let (dr, dc) = match ev.key().as_str() {
            "ArrowLeft" => (0, -1),
            "ArrowRight" => (0, 1),
            "ArrowUp" => (-1, 0),
            "ArrowDown" => (1, 0),
            _ => return,
        };
        ev.prevent_default();
        ev.stop_propagation();
        let index = keyboard.with_value(|k| k.move_by(state, dr, dc));
        if let (Some(v), Some(index)) = (virtual_grid, index) {
            v.try_update_value(|v| v.reveal(state, &index));
        }
    };
    let on_focus = move |_| {
        let index = keyboard.with_value(|k| k.move_by(state, 0, 0));
        if let (Some(v), Some(index)) = (virtual_grid, index) {
            v.try_update_value(|v| v.reveal(state, &index));
        }
    };
    let cells = match virtual_grid {
        Some(v) => {
            let node = NodeRef::<leptos::html::Div>::new();
            drive(state, v, node);
            let (sizer, lines, cols) = v.with_value(|v| (v.sizer_html(), v.lines(), v.per_line));
            view! {
                <div class="minis vbox" tabindex="0" role="grid" data-testid="view-grid" aria-label=label
                    aria-rowcount=lines aria-colcount=cols node_ref=node
                    on:focus=on_focus on:keydown=on_key
                    on:scroll=move |_| { v.try_update_value(|v| v.sync(state)); }
                    inner_html=sizer></div>
            }
            .into_any()
        }
        None => {
            let body = tensor_cells_html(t, &written);
            view! {
                <div class="minis" tabindex="0" role="group" data-testid="view-grid" aria-label=label
                    on:focus=on_focus on:keydown=on_key inner_html=body></div>
            }
            .into_any()
        }
    };
    view! {
        <article class="tensor" data-testid="view" data-name=t.name.clone() data-shape=attr_list(&t.shape)
            data-stride=attr_list(&t.stride) data-offset=t.storage_offset data-storage=t.storage.clone()
            data-contiguous=t.contiguous.to_string() style=format!("--view:{}", colour(vi))>
            <header>
                <h3><span class="swatch"></span>{t.name.clone()}</h3>
                <span class="meta mono">{format!("shape {} · stride {} · offset {} · {}", dims_text(&t.shape), dims_text(&t.stride), t.storage_offset, t.dtype)}</span>
                <span class="relation">{relation}</span>
                {badges}
            </header>
            <div class="dims">{dims}</div>
            {(!axes.is_empty()).then(|| view! { <p class="axes">{axes}</p> })}
            {cells}
        </article>
    }
}

/// How far beyond its visible part a virtualized drawing keeps tiles drawn, as a share of
/// the box's height (lines) and width (columns): a scroll shorter than that shows cells
/// already in the DOM.
const OVERSCAN: f64 = 0.25;

/// The hidden cell in a virtualized drawing's sizer that gives the columns' width.
const PROBE: &str = "<span class=\"cell vprobe\" aria-hidden=\"true\"></span>";

/// A virtualized storage strip: what its cells show.
struct Strip {
    id: String,
    values: Vec<TraceScalar>,
    reach: HashMap<i64, Vec<usize>>,
    names: Vec<String>,
    written: HashSet<i64>,
    jumps: HashMap<i64, usize>,
    slots: Vec<Option<usize>>,
}

/// What a virtualized drawing draws: a tensor's grid or a storage's strip.
enum Drawing {
    Grid {
        /// `view_key` of the record: which tensor of each step this grid draws.
        key: String,
        record: TensorRecord,
        grid: VirtualGrid,
        written: HashSet<i64>,
    },
    Strip(Strip),
}

/// A big grid or strip drawn in a scroll box: a sizer as large as the whole drawing (lines
/// and columns of fixed size, `--lh` and `--cw` in CSS) holds only the tiles of
/// `TILE_LINES` × `TILE_COLS` cells near the visible part. Scrolling adds the tiles coming
/// into view and drops the far ones, in the scroll event (before the frame is painted); a
/// new step redraws the tiles in place. Small drawings never come here: all their cells are
/// in the DOM.
struct Virtual {
    drawing: Drawing,
    /// Characters of the widest recorded value: the columns' width.
    chars: usize,
    /// Cells per line: a grid's columns, or as many strip cells as fit the box's width.
    per_line: usize,
    /// Measured sizes of a line and a column, in CSS pixels (0 until measured).
    line_px: f64,
    col_px: f64,
    tiles: HashMap<(usize, usize), web_sys::Element>,
    /// The scroll box, once mounted.
    boxed: Option<web_sys::HtmlElement>,
}

impl Virtual {
    fn new(drawing: Drawing, chars: usize, per_line: usize) -> Self {
        Virtual {
            drawing,
            chars,
            per_line: per_line.max(1),
            line_px: 0.0,
            col_px: 0.0,
            tiles: HashMap::new(),
            boxed: None,
        }
    }

    fn lines(&self) -> usize {
        match &self.drawing {
            Drawing::Grid { grid, .. } => grid.lines.len(),
            Drawing::Strip(s) => s.slots.len().div_ceil(self.per_line),
        }
    }

    /// The storage whose elements the cells show.
    fn storage(&self) -> &str {
        match &self.drawing {
            Drawing::Grid { record, .. } => &record.storage,
            Drawing::Strip(s) => &s.id,
        }
    }

    fn sizer_style(&self) -> String {
        format!(
            "--chars:{};width:calc(var(--cw) * {});height:calc(var(--lh) * {})",
            self.chars,
            self.per_line,
            self.lines()
        )
    }

    /// The box's content before any tile: the sizer and a hidden cell to measure.
    fn sizer_html(&self) -> String {
        format!(
            "<div class=\"vsizer\" role=\"presentation\" style=\"{}\">{PROBE}</div>",
            self.sizer_style()
        )
    }

    fn sizer(&self) -> Option<web_sys::HtmlElement> {
        self.boxed
            .as_ref()?
            .first_element_child()?
            .dyn_into::<web_sys::HtmlElement>()
            .ok()
    }

    /// Reads what the drawing needs from the layout (reads only: one forced layout at most,
    /// shared by every drawing read before the next write).
    fn read(&self) -> Option<Metrics> {
        let (b, sizer) = (self.boxed.as_ref()?, self.sizer()?);
        let probe = sizer
            .first_element_child()
            .and_then(|p| p.dyn_into::<web_sys::HtmlElement>().ok());
        Some(Metrics {
            lines: self.lines(),
            sizer_height: sizer.offset_height() as f64,
            sizer_width: sizer.offset_width() as f64,
            probe_width: probe.map(|p| p.offset_width() as f64).unwrap_or(0.0),
            width: b.client_width() as f64,
            height: b.client_height() as f64,
            top: b.scroll_top() as f64,
            left: b.scroll_left() as f64,
        })
    }

    /// Takes a line's and a column's size from `m` (a strip also takes as many cells a line
    /// as fit the box, dropping its tiles when that changes) and draws the tiles in view
    /// (writes only).
    fn lay_out(&mut self, m: &Metrics, state: AppState) {
        if let Drawing::Strip(_) = self.drawing {
            if m.probe_width > 0.0 {
                // One pixel of slack: offsetWidth is rounded.
                let fit = (m.width / (m.probe_width + 1.0)).floor().max(1.0) as usize;
                if fit != self.per_line {
                    self.per_line = fit;
                    self.clear();
                    if let Some(sizer) = self.sizer() {
                        let _ = sizer.set_attribute("style", &self.sizer_style());
                    }
                }
            }
        }
        self.line_px = m.sizer_height / m.lines.max(1) as f64;
        self.col_px = match self.drawing {
            Drawing::Grid { .. } => m.sizer_width / self.per_line as f64,
            Drawing::Strip(_) => m.probe_width,
        };
        self.fill(m, state);
    }

    /// Brings the sizer up to date (the columns' width), then reads and lays out.
    fn relayout(&mut self, state: AppState) {
        if let Some(sizer) = self.sizer() {
            let _ = sizer.set_attribute("style", &self.sizer_style());
        }
        if let Some(m) = self.read() {
            self.lay_out(&m, state);
        }
    }

    /// What the tiles show, when drawings can share them: a grid's fingerprint (layout,
    /// values, writes) and its columns. Strips are redrawn (their marks follow every view).
    fn fingerprint(&self) -> Option<String> {
        match &self.drawing {
            Drawing::Grid {
                key,
                record,
                written,
                ..
            } => {
                let values = record.values.as_deref().unwrap_or(&[]);
                let hash = grid_fingerprint(key, values, written);
                Some(format!("{hash:x}|{}|{}", self.per_line, self.chars))
            }
            Drawing::Strip(_) => None,
        }
    }

    /// Records on the sizer what its tiles show.
    fn stamp(&self) {
        if let Some(sizer) = self.sizer() {
            let _ = sizer.set_attribute("data-drawn", &self.fingerprint().unwrap_or_default());
        }
    }

    /// On mounting: a redraw of the panel keeps the boxes of the drawings it replaces (same
    /// markup, patched in place). Tiles that show exactly this drawing are kept (a view that
    /// did not change when another appeared); otherwise the sizer starts empty.
    fn adopt_or_reset(&mut self) {
        let Some(sizer) = self.sizer() else { return };
        let mine = self.fingerprint();
        let same = mine.is_some() && sizer.get_attribute("data-drawn") == mine;
        if !same {
            sizer.set_inner_html(PROBE);
            let _ = sizer.set_attribute("style", &self.sizer_style());
            self.stamp();
            return;
        }
        let mut tile = sizer.first_element_child();
        while let Some(el) = tile {
            tile = el.next_element_sibling();
            let at = el.get_attribute("data-at").and_then(|a| {
                let (line, col) = a.split_once(',')?;
                Some((line.parse::<usize>().ok()?, col.parse::<usize>().ok()?))
            });
            if let Some((line, col)) = at {
                self.tiles.insert((line / TILE_LINES, col / TILE_COLS), el);
            }
        }
    }

    fn clear(&mut self) {
        for (_, tile) in self.tiles.drain() {
            tile.remove();
        }
    }

    /// The elements of this drawing's storage marked now: the highlighted one (hovered, else
    /// pinned) and the pinned one.
    fn lit(&self, state: AppState) -> Lit {
        let ours = |h: Option<Hover>| h.filter(|h| h.storage == self.storage()).map(|h| h.offset);
        let pinned = state.pinned.get_untracked();
        let highlighted = state.hover.get_untracked().or_else(|| pinned.clone());
        Lit {
            highlighted: ours(highlighted),
            pinned: ours(pinned),
        }
    }

    /// Draws the tiles near the visible part of the box (as `m` read it) and drops the
    /// others (writes only).
    fn fill(&mut self, m: &Metrics, state: AppState) {
        let Some(sizer) = self.sizer() else { return };
        let rows = tile_range(
            m.top,
            m.height,
            m.height * OVERSCAN,
            self.line_px,
            self.lines(),
            TILE_LINES,
        );
        let cols = match self.drawing {
            Drawing::Grid { .. } => tile_range(
                m.left,
                m.width,
                m.width * OVERSCAN,
                self.col_px,
                self.per_line,
                TILE_COLS,
            ),
            Drawing::Strip(_) => 0..1,
        };
        self.tiles.retain(|(r, c), tile| {
            let keep = rows.contains(r) && cols.contains(c);
            if !keep {
                tile.remove();
            }
            keep
        });
        let lit = self.lit(state);
        let mut html = String::new();
        let mut added = Vec::new();
        for r in rows {
            for c in cols.clone() {
                if !self.tiles.contains_key(&(r, c)) {
                    html.push_str(&self.tile_html(r, c, lit));
                    added.push((r, c));
                }
            }
        }
        if added.is_empty() || sizer.insert_adjacent_html("beforeend", &html).is_err() {
            return;
        }
        // The new tiles are the sizer's last children, in order.
        let mut tile = sizer.last_element_child();
        for key in added.into_iter().rev() {
            let Some(el) = tile else { break };
            tile = el.previous_element_sibling();
            self.tiles.insert(key, el);
        }
    }

    /// Draws the tiles in view after a scroll (the sizes are known).
    fn sync(&mut self, state: AppState) {
        if let Some(m) = self.read() {
            self.fill(&m, state);
        }
    }

    fn tile_html(&self, r: usize, c: usize, lit: Lit) -> String {
        let lines = r * TILE_LINES..((r + 1) * TILE_LINES).min(self.lines());
        match &self.drawing {
            Drawing::Grid {
                record,
                grid,
                written,
                ..
            } => grid.tile_html(
                record,
                lines,
                c * TILE_COLS..(c + 1) * TILE_COLS,
                written,
                lit,
            ),
            Drawing::Strip(s) => StorageCells {
                id: &s.id,
                values: &s.values,
                reach: &s.reach,
                names: &s.names,
                colours: &PALETTE,
                written: &s.written,
                jumps: &s.jumps,
            }
            .tile_html(&s.slots, self.per_line, lines, lit),
        }
    }

    /// Takes this step's values and writes; returns what was drawn before when they differ.
    fn refresh(&mut self, step: &Step) -> Option<Drawn> {
        let (values, written, now, chars) = match &mut self.drawing {
            Drawing::Grid {
                key,
                record,
                written,
                ..
            } => {
                let t = step.tensors.iter().find(|t| view_key(t) == *key)?;
                let now = written_in(step, &t.storage);
                if t.values == record.values && now == *written {
                    return None;
                }
                let before = std::mem::replace(&mut record.values, t.values.clone());
                let before = before.unwrap_or_default();
                let after = record.values.as_deref().unwrap_or(&[]);
                let chars = widest_after(self.chars, &before, after);
                (before, written, now, chars)
            }
            Drawing::Strip(s) => {
                let storage = step.storages.iter().find(|x| x.id == s.id)?;
                let now = written_in(step, &s.id);
                let values = storage.values.as_ref()?;
                if *values == s.values && now == s.written {
                    return None;
                }
                let before = std::mem::replace(&mut s.values, values.clone());
                let chars = widest_after(self.chars, &before, &s.values);
                (before, &mut s.written, now, chars)
            }
        };
        let written = std::mem::replace(written, now);
        let wider = chars != self.chars;
        self.chars = chars;
        Some(Drawn {
            values,
            written,
            wider,
        })
    }

    /// The cells of a tile whose value or write mark differ from `before`: their line and
    /// column, and the markup they have now.
    fn tile_changes(
        &self,
        (r, c): (usize, usize),
        before: &Drawn,
        lit: Lit,
    ) -> Vec<(usize, usize, String)> {
        let lines = r * TILE_LINES..((r + 1) * TILE_LINES).min(self.lines());
        let changed = |i: usize, at: i64, values: &[TraceScalar], written: &HashSet<i64>| {
            values.get(i) != before.values.get(i)
                || written.contains(&at) != before.written.contains(&at)
        };
        match &self.drawing {
            Drawing::Grid {
                record,
                grid,
                written,
                ..
            } => {
                let values = record.values.as_deref().unwrap_or(&[]);
                grid.tile_cells(lines, c * TILE_COLS..(c + 1) * TILE_COLS)
                    .into_iter()
                    .filter_map(|(line, col, index)| {
                        let i = crate::ui_model::flat_position(&record.shape, &index);
                        let at = crate::ui_model::storage_offset_of(record, &index);
                        changed(i, at, values, written).then(|| {
                            let html = grid.cell_html(record, &index, col, written, lit);
                            (line, col, html)
                        })
                    })
                    .collect()
            }
            Drawing::Strip(s) => {
                let cells = StorageCells {
                    id: &s.id,
                    values: &s.values,
                    reach: &s.reach,
                    names: &s.names,
                    colours: &PALETTE,
                    written: &s.written,
                    jumps: &s.jumps,
                };
                let mut out = Vec::new();
                for line in lines {
                    let from = (line * self.per_line).min(s.slots.len());
                    let to = (from + self.per_line).min(s.slots.len());
                    for (k, slot) in s.slots[from..to].iter().enumerate() {
                        if let Some(i) = *slot {
                            if changed(i, i as i64, &s.values, &s.written) {
                                out.push((line, k, cells.cell_html(i, lit)));
                            }
                        }
                    }
                }
                out
            }
        }
    }

    /// After a step: redraws the drawn cells whose value or write mark changed (the others
    /// stay, so their write flashes run on), a whole tile when many of its cells did, and
    /// measures again if the columns got wider or narrower.
    fn update(&mut self, state: AppState, before: &Drawn) {
        /// Changed cells beyond which a tile is redrawn whole.
        const PATCH_MAX: usize = 16;
        let lit = self.lit(state);
        let keys: Vec<(usize, usize)> = self.tiles.keys().copied().collect();
        for key in keys {
            let changes = self.tile_changes(key, before, lit);
            if changes.is_empty() {
                continue;
            }
            let Some(tile) = self.tiles.get(&key).cloned() else {
                continue;
            };
            if changes.len() <= PATCH_MAX {
                let (line0, col0) = match self.drawing {
                    Drawing::Grid { .. } => (key.0 * TILE_LINES, key.1 * TILE_COLS),
                    Drawing::Strip(_) => (key.0 * TILE_LINES, 0),
                };
                for (line, col, html) in changes {
                    if let Some(cell) =
                        nth_child(&tile, line - line0).and_then(|row| nth_child(&row, col - col0))
                    {
                        cell.set_outer_html(&html);
                    }
                }
                continue;
            }
            let html = self.tile_html(key.0, key.1, lit);
            if tile.insert_adjacent_html("afterend", &html).is_ok() {
                if let Some(new) = tile.next_element_sibling() {
                    self.tiles.insert(key, new);
                }
            }
            tile.remove();
        }
        if before.wider {
            // Narrower or wider columns: other tiles may be in view now.
            self.relayout(state);
        }
    }

    /// Scrolls the box to show the cell at `index` (a grid's), and draws it.
    fn reveal(&mut self, state: AppState, index: &[i64]) {
        let Drawing::Grid { grid, .. } = &self.drawing else {
            return;
        };
        let Some((line, col)) = grid.locate(index) else {
            return;
        };
        let Some(b) = self.boxed.clone() else { return };
        if self.line_px <= 0.0 {
            self.relayout(state);
        }
        let scroll_to = |at: usize, size: f64, scroll: i32, extent: i32| {
            let (start, end) = (at as f64 * size, (at + 1) as f64 * size);
            if start < scroll as f64 {
                Some(start.floor() as i32)
            } else if end > (scroll + extent) as f64 {
                Some((end - extent as f64).ceil() as i32)
            } else {
                None
            }
        };
        if let Some(top) = scroll_to(line, self.line_px, b.scroll_top(), b.client_height()) {
            b.set_scroll_top(top);
        }
        if let Some(left) = scroll_to(col, self.col_px, b.scroll_left(), b.client_width()) {
            b.set_scroll_left(left);
        }
        self.sync(state);
    }

    /// Removes `attr` from the drawn cells not of element `key` (the app's highlight effect
    /// sets it on the matching cells; cells drawn while scrolling come marked).
    fn unmark(&self, attr: &str, key: Option<&str>) {
        let Some(b) = &self.boxed else { return };
        let Ok(marked) = b.query_selector_all(&format!("[{attr}]")) else {
            return;
        };
        for i in 0..marked.length() {
            if let Some(el) = marked
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            {
                if el.get_attribute("data-key").as_deref() != key {
                    let _ = el.remove_attribute(attr);
                }
            }
        }
    }
}

/// The `n`th child element of `el`.
fn nth_child(el: &web_sys::Element, n: usize) -> Option<web_sys::Element> {
    let mut child = el.first_element_child();
    for _ in 0..n {
        child = child?.next_element_sibling();
    }
    child
}

/// What a virtualized drawing showed before a step changed it.
struct Drawn {
    values: Vec<TraceScalar>,
    written: HashSet<i64>,
    /// Whether the widest value's width changed.
    wider: bool,
}

/// The storage elements of `storage` that `step` wrote.
fn written_in(step: &Step, storage: &str) -> HashSet<i64> {
    step.writes
        .iter()
        .filter(|w| w.storage == storage)
        .flat_map(|w| w.offsets.iter().copied())
        .collect()
}

/// What a virtualized drawing reads from the layout: its sizer (for `lines` lines), its
/// probe cell and its box.
struct Metrics {
    lines: usize,
    sizer_height: f64,
    sizer_width: f64,
    probe_width: f64,
    width: f64,
    height: f64,
    top: f64,
    left: f64,
}

/// A virtualized drawing, as effects and handlers hold it.
type Handle = StoredValue<Virtual, LocalStorage>;

thread_local! {
    /// Drawings to lay out (just mounted, or the window resized; `true`: drop their tiles
    /// first). They are laid out together after the effects of this change: every read,
    /// then every write, so that the layout is forced once, not once per drawing.
    static PENDING: std::cell::RefCell<Vec<(Handle, AppState, bool)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Lays `v` out with the others pending, in a task queued after the effects already queued
/// (still before the browser renders).
fn lay_out_soon(v: Handle, state: AppState, redraw: bool) {
    let first = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        p.push((v, state, redraw));
        p.len() == 1
    });
    if first {
        leptos::task::spawn_local(async { lay_out_pending() });
    }
}

fn lay_out_pending() {
    let pending = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
    for &(v, _, redraw) in &pending {
        if redraw {
            v.try_update_value(|v| {
                v.clear();
                if let Some(sizer) = v.sizer() {
                    let _ = sizer.set_attribute("style", &v.sizer_style());
                }
            });
        }
    }
    let metrics: Vec<Option<Metrics>> = pending
        .iter()
        .map(|(v, _, _)| v.try_with_value(|v| v.read()).flatten())
        .collect();
    for ((v, state, _), m) in pending.into_iter().zip(metrics) {
        if let Some(m) = m {
            v.try_update_value(|v| v.lay_out(&m, state));
        }
    }
}

/// Runs a virtualized drawing once its box is mounted: first tiles, redraws on each step
/// that changes its values or writes, highlights kept right while hovering, and a new
/// layout when the window is resized (a strip's cells per line, the rem size).
fn drive(state: AppState, v: Handle, node: NodeRef<leptos::html::Div>) {
    Effect::new(move |_| {
        let before = state
            .with_current(|step| v.try_update_value(|v| v.refresh(step)))
            .flatten()
            .flatten();
        let mounted = v.try_update_value(|v| {
            if v.boxed.is_none() {
                v.boxed = node
                    .get_untracked()
                    .map(|b| b.unchecked_into::<web_sys::HtmlElement>());
                v.adopt_or_reset();
                return true;
            }
            if let Some(before) = before {
                v.update(state, &before);
                v.stamp();
            }
            false
        });
        if mounted == Some(true) {
            lay_out_soon(v, state, false);
        }
    });
    Effect::new(move |_| {
        let key = |h: Option<Hover>| h.map(|h| format!("{}:{}", h.storage, h.offset));
        let pinned = state.pinned.get();
        let highlighted = key(state.hover.get().or_else(|| pinned.clone()));
        let pinned = key(pinned);
        v.with_value(|v| {
            v.unmark("data-highlighted", highlighted.as_deref());
            v.unmark("data-pinned", pinned.as_deref());
        });
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| lay_out_soon(v, state, true));
    on_cleanup(move || resize.remove());
}
