//! Big grids and storage strips, drawn in scroll boxes that hold only the tiles near their
//! visible part (see [`Virtual`]).

use crate::core::tensor::StorageId;
use std::collections::{HashMap, HashSet};

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::core::trace::{Step, TensorRecord, TraceScalar};
use crate::present::cells::{
    grid_fingerprint, tile_range, view_key, widest_after, Lit, StorageCells, VirtualGrid, PALETTE,
    TILE_COLS, TILE_LINES,
};
use crate::shells::web::{AppState, Hover};

/// How far beyond its visible part a virtualized drawing keeps tiles drawn, as a share of
/// the box's height (lines) and width (columns): a scroll shorter than that shows cells
/// already in the DOM.
const OVERSCAN: f64 = 0.25;

/// The hidden cell in a virtualized drawing's sizer that gives the columns' width.
const PROBE: &str = "<span class=\"cell vprobe\" aria-hidden=\"true\"></span>";

/// A virtualized storage strip: what its cells show.
pub(super) struct Strip {
    pub(super) id: StorageId,
    pub(super) values: Vec<TraceScalar>,
    pub(super) reach: HashMap<i64, Vec<usize>>,
    pub(super) names: Vec<String>,
    pub(super) written: HashSet<i64>,
    pub(super) jumps: HashMap<i64, usize>,
    pub(super) slots: Vec<Option<usize>>,
}

/// What a virtualized drawing draws: a tensor's grid or a storage's strip.
pub(super) enum Drawing {
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
pub(super) struct Virtual {
    pub(super) drawing: Drawing,
    /// Characters of the widest recorded value: the columns' width.
    pub(super) chars: usize,
    /// Cells per line: a grid's columns, or as many strip cells as fit the box's width.
    pub(super) per_line: usize,
    /// Measured sizes of a line and a column, in CSS pixels (0 until measured).
    pub(super) line_px: f64,
    pub(super) col_px: f64,
    pub(super) tiles: HashMap<(usize, usize), web_sys::Element>,
    /// The scroll box, once mounted.
    pub(super) boxed: Option<web_sys::HtmlElement>,
}

impl Virtual {
    pub(super) fn new(drawing: Drawing, chars: usize, per_line: usize) -> Self {
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

    pub(super) fn lines(&self) -> usize {
        match &self.drawing {
            Drawing::Grid { grid, .. } => grid.lines.len(),
            Drawing::Strip(s) => s.slots.len().div_ceil(self.per_line),
        }
    }

    /// The storage whose elements the cells show.
    fn storage(&self) -> StorageId {
        match &self.drawing {
            Drawing::Grid { record, .. } => record.storage,
            Drawing::Strip(s) => s.id,
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
    pub(super) fn sizer_html(&self) -> String {
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
    pub(super) fn sync(&mut self, state: AppState) {
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
                id: s.id,
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
                let now = written_in(step, t.storage);
                if t.values == record.values && now == *written {
                    return None;
                }
                let before = std::mem::replace(&mut record.values, t.values.clone());
                let before = before.map(|v| v.to_vec()).unwrap_or_default();
                let after = record.values.as_deref().unwrap_or(&[]);
                let chars = widest_after(self.chars, &before, after);
                (before, written, now, chars)
            }
            Drawing::Strip(s) => {
                let storage = step.storages.iter().find(|x| x.id == s.id)?;
                let now = written_in(step, s.id);
                let values = storage.values.as_ref()?;
                if values[..] == s.values[..] && now == s.written {
                    return None;
                }
                let before = std::mem::replace(&mut s.values, values.to_vec());
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
                        let i = crate::present::cells::flat_position(&record.shape, &index);
                        let at = crate::present::cells::storage_offset_of(record, &index);
                        changed(i, at, values, written).then(|| {
                            let html = grid.cell_html(record, &index, col, written, lit);
                            (line, col, html)
                        })
                    })
                    .collect()
            }
            Drawing::Strip(s) => {
                let cells = StorageCells {
                    id: s.id,
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
    pub(super) fn reveal(&mut self, state: AppState, index: &[i64]) {
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
fn written_in(step: &Step, storage: StorageId) -> HashSet<i64> {
    step.writes
        .iter()
        .filter(|w| w.storage == storage)
        .flat_map(|w| w.offsets())
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
pub(super) type Handle = StoredValue<Virtual, LocalStorage>;

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
pub(super) fn drive(state: AppState, v: Handle, node: NodeRef<leptos::html::Div>) {
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
