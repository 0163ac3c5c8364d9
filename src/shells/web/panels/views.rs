//! Every tensor variable as its logical grid, with its layout, its dims and the keyboard
//! cursor that inspects its cells.

use std::collections::{HashMap, HashSet};

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::trace::{Step, TensorRecord};
use crate::present::cells::{
    attr_list, axis_names, dims_text, drawn_texts, grid_plan, is_virtual_view, offset_formula,
    tensor_cells_html, view_colour as colour, view_key, widest, VirtualGrid,
};
use crate::shells::web::i18n::{t as tr, tf};
use crate::shells::web::panels::canvas_view::{
    canvas_drawing, is_large, to_pixels_button, view_pref_key, CanvasPrefs, CellReadout, Drawn,
};
use crate::shells::web::panels::virtualized::{drive, Drawing, Virtual};
use crate::shells::web::panels::{css_name, hover_handler, mark_written};
use crate::shells::web::{AppState, Hover};

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
    // In a lesson: the views an open question asks about.
    let lesson = use_context::<crate::shells::web::lesson::LessonCtx>();
    let concealed = move || lesson.map(|l| l.concealed.get()).unwrap_or_default();
    view! {
        <div class="panel views-panel" on:mouseover=on_over on:mouseleave=move |_| state.hover.set(None)>
            <div class="panel-head"><h2>{tr("views-title")}</h2><span class="hint">{tr("views-hint")}</span></div>
            <p class="formula" data-testid="formula" aria-live="polite">
                {move || {
                    // The hovered cell, else the pinned one.
                    let h = state.hover.get().or_else(|| state.pinned.get())?;
                    let (name, index) = h.view?;
                    // A concealed view's formula would tell its strides.
                    if concealed().contains(&name) {
                        return None;
                    }
                    state.with_current(|step| {
                        let t = step.tensors.iter().find(|t| t.name == name)?;
                        Some(tf("formula", &[
                            ("name", (&name).into()),
                            ("index", attr_list(&index).replace(',', ", ").into()),
                            ("formula", offset_formula(t, &index).into()),
                        ]))
                    })?
                }}
            </p>
            <CellReadout/>
            {move || {
                // Redrawn only when the set of views or their layouts change; cell texts and
                // write marks of the same views are patched in place (see `patch_views`).
                let _ = structure.get();
                let picked = state.picked.get();
                let prefs = expect_context::<CanvasPrefs>();
                prefs.as_cells.track();
                prefs.heatmap.track();
                let hidden = concealed();
                let Some(step) = state.current_untracked() else { return ().into_any() };
                shown.update_value(|m| {
                    m.clear();
                    // Virtualized grids redraw their own tiles (see `Virtual`).
                    for t in step.tensors.iter().filter(|t| !is_virtual_view(t)) {
                        m.insert(view_key(t), drawn_texts(t));
                    }
                });
                let as_cells = prefs.as_cells.get_untracked();
                step.tensors
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let mode = match (is_large_view(t), hidden.contains(&t.name)) {
                            (_, true) => GridMode::Concealed,
                            (false, _) => GridMode::Cells,
                            (true, _) if as_cells.contains(&view_pref_key(&t.name)) => GridMode::LargeCells,
                            (true, _) => GridMode::Canvas,
                        };
                        tensor_view(state, &step, i, t, picked.as_ref(), mode)
                    })
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
                            &tf(
                                "view-cell",
                                &[
                                    ("name", (&t.name).into()),
                                    ("index", index.into()),
                                    ("value", text.into()),
                                    ("storage", (&t.storage).into()),
                                    ("offset", at.into()),
                                ],
                            ),
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
            .flat_map(|w| w.offsets())
            .collect();
        mark_written(
            &document,
            &format!("[data-testid=view][data-name=\"{}\"]", css_name(&t.name)),
            t.storage,
            &written,
        );
    }
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
        let offset = crate::present::cells::storage_offset_of(t, &index);
        state.hover.set(Some(Hover {
            storage: t.storage,
            offset,
            view: Some((t.name.clone(), index.clone())),
        }));
        Some(index)
    }
}

/// Whether a view has more cells than the DOM draws well (it goes on a canvas).
fn is_large_view(t: &TensorRecord) -> bool {
    is_large(crate::core::tensor::layout::numel_of(&t.shape).max(0) as usize)
}

/// How a view's cells are drawn.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GridMode {
    /// Every cell in the DOM (virtualized when many).
    Cells,
    /// As cells, without the labels a lesson's question conceals.
    Concealed,
    /// A large view the reader chose to see as cells.
    LargeCells,
    /// A large view on a canvas.
    Canvas,
}

fn tensor_view(
    state: AppState,
    step: &Step,
    vi: usize,
    t: &TensorRecord,
    picked: Option<&(String, usize)>,
    mode: GridMode,
) -> impl IntoView {
    let concealed = mode == GridMode::Concealed;
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
        tf("relation-owns", &[("storage", (&t.storage).into())])
    } else {
        tf("relation-view", &[("storage", (&t.storage).into())])
    };
    let written: HashSet<i64> = step
        .writes
        .iter()
        .filter(|w| w.storage == t.storage)
        .flat_map(|w| w.offsets())
        .collect();
    let names = axis_names(t.shape.len());
    let dims = (0..t.shape.len())
        .map(|d| {
            let name = t.name.clone();
            let active = picked == Some(&(t.name.clone(), d));
            let label = tf(
                "dim-chip",
                &[
                    ("axis", (&names[d]).into()),
                    ("size", t.shape[d].into()),
                    ("stride", t.stride[d].into()),
                ],
            );
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
        {(t.contiguous && !concealed).then(|| view! { <span class="badge ok">{tr("badge-contiguous")}</span> })}
        {(t.channels_last && !concealed).then(|| view! { <span class="badge cl">{tr("badge-channels-last")}</span> })}
        {(!t.contiguous && !t.channels_last && !concealed).then(|| view! { <span class="badge warn">{tr("badge-not-contiguous")}</span> })}
    };
    let axes = if rank >= 2 {
        tf(
            "axes",
            &[
                ("rows", (&plan.row_axis).into()),
                ("cols", (&plan.col_axis).into()),
            ],
        )
    } else {
        String::new()
    };
    let label = tf("grid-label", &[("name", (&t.name).into())]);
    let virtual_grid = (is_virtual_view(t) && mode != GridMode::Canvas).then(|| {
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
        _ if mode == GridMode::Canvas => canvas_drawing(
            state,
            step,
            Drawn::View(t),
            view_pref_key(&t.name),
            t.name.clone(),
            Vec::new(),
        ),
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
            data-stride=attr_list(&t.stride) data-offset=t.storage_offset data-storage=t.storage.to_string()
            data-contiguous=t.contiguous.to_string() data-concealed=concealed.then_some("true") style=format!("--view:{}", colour(vi))>
            <header>
                <h3><span class="swatch"></span>{t.name.clone()}</h3>
                {if concealed {
                    view! { <span class="meta concealed">{tr("lesson-concealed")}</span> }.into_any()
                } else {
                    view! { <span class="meta mono">{tf("view-meta", &[
                        ("shape", dims_text(&t.shape).into()),
                        ("stride", dims_text(&t.stride).into()),
                        ("offset", t.storage_offset.into()),
                        ("dtype", (&t.dtype).into()),
                    ])}</span> }.into_any()
                }}
                {t.ndarray_strides.as_ref().map(|b| view! {
                    <span class="meta mono ndarray">{tf("view-ndarray", &[("strides", dims_text(b).into())])}</span>
                })}
                <span class="relation">{relation}</span>
                {t.requires_grad.then(|| view! {
                    <span class="meta mono autograd" data-testid="requires-grad" title=tr("view-requires-grad-title")>{tr("view-requires-grad")}</span>
                })}
                {t.grad_fn.as_ref().map(|node| view! {
                    <span class="meta mono autograd" data-testid="grad-fn" data-node=node.clone() title=tr("view-grad-fn-title")>{tf("view-grad-fn", &[("node", node.into())])}</span>
                })}
                {badges}
            </header>
            {(!concealed).then(|| view! { <div class="dims">{dims}</div> })}
            {(!axes.is_empty() && mode != GridMode::Canvas).then(|| view! { <p class="axes">{axes}</p> })}
            {(mode == GridMode::LargeCells).then(|| to_pixels_button(view_pref_key(&t.name)))}
            {cells}
        </article>
    }
}
