//! What the views draw, computed from a trace: grid plans for tensors of any rank, the offset
//! formula, value text, summaries of large tensors. Pure and native-testable; the Leptos
//! components in `app/` only turn these into DOM.

use crate::tensor::Scalar;
use crate::trace::{TensorRecord, TraceScalar};

/// The views' colours (Okabe–Ito, colour-blind safe), by the tensor's position in the step:
/// the page and the exported diagrams use the same ones.
pub const PALETTE: [&str; 8] = [
    "#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442", "#999999",
];

/// The colour of the `i`-th tensor of a step.
pub fn view_colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// For each element of `storage`, the tensors of `step` (by position) that reach it. Views
/// of more than four times [`MAX_DRAWN`] elements are left out (their marks would cost more
/// than they show).
pub fn storage_reach(
    step: &crate::trace::Step,
    storage: &str,
) -> std::collections::HashMap<i64, Vec<usize>> {
    let mut reach: std::collections::HashMap<i64, Vec<usize>> = std::collections::HashMap::new();
    for (vi, t) in step.tensors.iter().enumerate() {
        if t.storage != storage {
            continue;
        }
        let n = crate::tensor::layout::numel_of(&t.shape);
        if n > (MAX_DRAWN * 4) as i64 {
            continue;
        }
        let layout = crate::tensor::Layout {
            shape: t.shape.clone(),
            strides: t.stride.clone(),
            offset: t.storage_offset,
        };
        for at in layout.offsets() {
            let e = reach.entry(at).or_default();
            if !e.contains(&vi) {
                e.push(vi);
            }
        }
    }
    reach
}

/// The elements of `storage` that `step` wrote.
pub fn storage_written(step: &crate::trace::Step, storage: &str) -> std::collections::HashSet<i64> {
    step.writes
        .iter()
        .filter(|w| w.storage == storage)
        .flat_map(|w| w.offsets.iter().copied())
        .collect()
}

/// Tensors and storages with more elements than this are drawn summarized (edge items only).
pub const MAX_DRAWN: usize = 4096;

/// Edge items kept per dimension when summarizing (as PyTorch prints).
pub const EDGE: i64 = 3;

/// One index along a drawn axis: a real index, or the `…` gap of a summarized axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tick {
    At(i64),
    Gap,
}

/// The indices drawn along an axis of `size` (all, or the edges around a gap).
pub fn ticks(size: i64, summarize: bool) -> Vec<Tick> {
    if summarize && size > 2 * EDGE {
        (0..EDGE)
            .map(Tick::At)
            .chain(std::iter::once(Tick::Gap))
            .chain((size - EDGE..size).map(Tick::At))
            .collect()
    } else {
        (0..size).map(Tick::At).collect()
    }
}

/// One small multiple: a 2-D grid of a tensor, at a fixed index of its leading dims.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// The fixed leading indices (empty for rank <= 2), or None for a summarized gap panel.
    pub lead: Option<Vec<i64>>,
    /// Caption, e.g. `n=0, c=1`.
    pub title: String,
}

/// How a tensor of some shape is drawn: small multiples of 2-D grids.
#[derive(Clone, Debug, PartialEq)]
pub struct GridPlan {
    pub panels: Vec<Panel>,
    pub rows: Vec<Tick>,
    pub cols: Vec<Tick>,
    /// Axis names of the row and column dims (`H`, `W`, `dim 1`, ...).
    pub row_axis: String,
    pub col_axis: String,
    pub summarized: bool,
}

/// Axis names: `N, C, H, W` for rank 4, `dim k` otherwise.
pub fn axis_names(rank: usize) -> Vec<String> {
    if rank == 4 {
        ["N", "C", "H", "W"].iter().map(|s| s.to_string()).collect()
    } else {
        (0..rank).map(|d| format!("dim {d}")).collect()
    }
}

/// The drawing plan of a tensor of `shape`.
pub fn grid_plan(shape: &[i64]) -> GridPlan {
    let numel = crate::tensor::layout::numel_of(shape);
    let summarize = numel > MAX_DRAWN as i64;
    let rank = shape.len();
    let names = axis_names(rank);
    let (rows, cols, row_axis, col_axis) = match rank {
        0 => (
            vec![Tick::At(0)],
            vec![Tick::At(0)],
            String::new(),
            String::new(),
        ),
        1 => (
            vec![Tick::At(0)],
            ticks(shape[0], summarize),
            String::new(),
            names[0].clone(),
        ),
        _ => (
            ticks(shape[rank - 2], summarize),
            ticks(shape[rank - 1], summarize),
            names[rank - 2].clone(),
            names[rank - 1].clone(),
        ),
    };
    let mut panels = Vec::new();
    if rank <= 2 {
        panels.push(Panel {
            lead: Some(vec![]),
            title: String::new(),
        });
    } else {
        let lead_shape = &shape[..rank - 2];
        let mut leads: Vec<Option<Vec<i64>>> = vec![Some(vec![])];
        for &size in lead_shape {
            let mut next = Vec::new();
            for prefix in &leads {
                for t in ticks(size, summarize) {
                    match (prefix, t) {
                        (Some(p), Tick::At(i)) => {
                            let mut v = p.clone();
                            v.push(i);
                            next.push(Some(v));
                        }
                        (Some(_), Tick::Gap) => next.push(None),
                        (None, _) => {}
                    }
                }
                if prefix.is_none() {
                    next.push(None);
                }
            }
            next.dedup_by(|a, b| a.is_none() && b.is_none());
            leads = next;
        }
        for lead in leads {
            let title = match &lead {
                Some(l) => l
                    .iter()
                    .zip(&names)
                    .map(|(i, n)| {
                        if rank == 4 {
                            format!("{}={i}", n.to_lowercase())
                        } else {
                            format!("[{i}]")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(if rank == 4 { ", " } else { "" }),
                None => "…".to_string(),
            };
            panels.push(Panel { lead, title });
        }
    }
    GridPlan {
        panels,
        rows,
        cols,
        row_axis,
        col_axis,
        summarized: summarize,
    }
}

/// The full logical index of a cell of a panel.
pub fn cell_index(rank: usize, lead: &[i64], row: i64, col: i64) -> Vec<i64> {
    match rank {
        0 => vec![],
        1 => vec![col],
        _ => {
            let mut v = lead.to_vec();
            v.push(row);
            v.push(col);
            v
        }
    }
}

/// Row-major position of a logical index in a tensor of `shape`.
pub fn flat_position(shape: &[i64], index: &[i64]) -> usize {
    let mut flat: i64 = 0;
    for (&i, &n) in index.iter().zip(shape) {
        flat = flat.saturating_mul(n).saturating_add(i);
    }
    flat.max(0) as usize
}

/// Storage element index of a logical index.
pub fn storage_offset_of(t: &TensorRecord, index: &[i64]) -> i64 {
    index
        .iter()
        .zip(&t.stride)
        .fold(t.storage_offset, |acc, (i, s)| {
            acc.wrapping_add(i.wrapping_mul(*s))
        })
}

/// `offset = 1 + 0·1 + 0·12 + 0·8 = 1`.
pub fn offset_formula(t: &TensorRecord, index: &[i64]) -> String {
    let mut parts = vec![t.storage_offset.to_string()];
    parts.extend(index.iter().zip(&t.stride).map(|(i, s)| format!("{i}·{s}")));
    format!(
        "offset = {} = {}",
        parts.join(" + "),
        storage_offset_of(t, index)
    )
}

/// A value as a cell shows it: integers plainly, floats compactly, bools as True/False.
pub fn value_text(v: &TraceScalar) -> String {
    match v.0 {
        Scalar::Bool(b) => if b { "True" } else { "False" }.to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(f) => float_text(f),
    }
}

fn float_text(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == f.trunc() && f.abs() < 1e6 {
        return format!("{f:.0}.");
    }
    let a = f.abs();
    if (1e-3..1e5).contains(&a) {
        let s = format!("{f:.4}");
        let s = s.trim_end_matches('0');
        s.to_string()
    } else {
        format!("{f:.2e}")
    }
}

/// `Step 3 of 9 · line 4`: how the page (and the exported diagram) names step `index`
/// (0-based) of `count`.
pub fn step_label(index: usize, count: usize, line: usize) -> String {
    format!("Step {} of {count} · line {line}", index + 1)
}

/// The steps as the page (and `stridescope svg`) walks them, as Python Tutor does: a compound
/// statement (`for`, `if`, `while`) is preceded by each statement its blocks executed (its
/// `substeps`, with the state after each), then shown itself with everything it printed and
/// the state after the block. An `import` that worked is not a step of the page: it changes
/// nothing a drawing shows (the trace keeps it, as PyTorch's recordings do).
///
/// NumPy arrays sharing a storage are drawn as more views of it: they join the step's tensors
/// with their byte strides in `ndarray_strides`.
pub fn flatten_substeps(mut trace: crate::trace::Trace) -> crate::trace::Trace {
    let mut steps = Vec::with_capacity(trace.steps.len());
    for mut step in std::mem::take(&mut trace.steps) {
        let quiet_import = step.error.is_none()
            && step.output.is_none()
            && (step.source.starts_with("import ") || step.source.starts_with("from "));
        if quiet_import {
            continue;
        }
        for mut inner in std::mem::take(&mut step.substeps) {
            arrays_as_views(&mut inner);
            steps.push(inner);
        }
        arrays_as_views(&mut step);
        steps.push(step);
    }
    trace.steps = steps;
    trace
}

/// Appends a step's NumPy arrays to its tensors (see [`flatten_substeps`]).
fn arrays_as_views(step: &mut crate::trace::Step) {
    for a in std::mem::take(&mut step.arrays) {
        let storage_nbytes = step
            .storages
            .iter()
            .find(|s| s.id == a.storage)
            .map(|s| s.nbytes)
            .unwrap_or(0);
        let layout = crate::tensor::Layout {
            shape: a.shape.clone(),
            strides: a.element_strides.clone(),
            offset: a.storage_offset,
        };
        step.tensors.push(crate::trace::TensorRecord {
            contiguous: layout.is_contiguous(),
            channels_last: false,
            name: a.name,
            dtype: a.dtype,
            shape: a.shape,
            stride: a.element_strides,
            storage_offset: a.storage_offset,
            storage: a.storage,
            storage_nbytes,
            element_size: a.itemsize,
            values: a.values,
            ndarray_strides: Some(a.strides),
        });
    }
}

/// `120 B`, `1.5 KiB`.
pub fn bytes_text(n: usize) -> String {
    crate::eval::human_bytes(n as u64)
}

/// `[3, 5]`.
pub fn dims_text(v: &[i64]) -> String {
    let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("({})", parts.join(", "))
}

/// `0,1,0`: how indices and shapes are written in `data-` attributes.
pub fn attr_list(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The storage elements reached by walking `dim` of a view from logical index `from`
/// (the stride jumps drawn on the storage strip).
pub fn stride_walk(t: &TensorRecord, dim: usize, from: &[i64]) -> Vec<i64> {
    let Some(&size) = t.shape.get(dim) else {
        return vec![];
    };
    let mut index = from.to_vec();
    (0..size.min(MAX_DRAWN as i64))
        .map(|i| {
            if let Some(slot) = index.get_mut(dim) {
                *slot = i;
            }
            storage_offset_of(t, &index)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(shape: &[i64], stride: &[i64], offset: i64) -> TensorRecord {
        TensorRecord {
            shape: shape.to_vec(),
            stride: stride.to_vec(),
            storage_offset: offset,
            ..Default::default()
        }
    }

    #[test]
    fn offset_formula_spells_out_the_sum() {
        let t = record(&[2, 2, 2], &[1, 12, 8], 1);
        assert_eq!(
            offset_formula(&t, &[0, 0, 0]),
            "offset = 1 + 0·1 + 0·12 + 0·8 = 1"
        );
        assert_eq!(
            offset_formula(&t, &[1, 1, 1]),
            "offset = 1 + 1·1 + 1·12 + 1·8 = 22"
        );
    }

    #[test]
    fn four_d_tensors_are_small_multiples_with_nchw_labels() {
        let plan = grid_plan(&[2, 3, 4, 5]);
        assert_eq!(plan.panels.len(), 6);
        assert_eq!(plan.panels[4].title, "n=1, c=1");
        assert_eq!((plan.row_axis.as_str(), plan.col_axis.as_str()), ("H", "W"));
        assert_eq!(plan.rows.len(), 4);
    }

    #[test]
    fn large_tensors_are_summarized_to_their_edges() {
        let plan = grid_plan(&[100, 100]);
        assert!(plan.summarized);
        assert_eq!(
            plan.rows,
            vec![
                Tick::At(0),
                Tick::At(1),
                Tick::At(2),
                Tick::Gap,
                Tick::At(97),
                Tick::At(98),
                Tick::At(99)
            ]
        );
        let plan = grid_plan(&[50, 10, 10]);
        assert_eq!(plan.panels.len(), 7);
        assert_eq!(plan.panels[3].lead, None);
    }

    #[test]
    fn values_read_like_pytorch() {
        assert_eq!(value_text(&TraceScalar(Scalar::Float(3.0))), "3.");
        assert_eq!(value_text(&TraceScalar(Scalar::Float(0.25))), "0.25");
        assert_eq!(value_text(&TraceScalar(Scalar::Bool(true))), "True");
        assert_eq!(value_text(&TraceScalar(Scalar::Int(-7))), "-7");
    }

    #[test]
    fn stride_walk_follows_one_dim() {
        let t = record(&[3, 5], &[1, 3], 0);
        assert_eq!(stride_walk(&t, 1, &[1, 0]), vec![1, 4, 7, 10, 13]);
    }
}

/// Escapes text for HTML (text and attribute values).
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The words inside cell markup (aria-labels), as templates: `%name%`, `%index%`,
/// `%value%`, `%storage%`, `%at%`, `%names%` and `%count%` are filled in. The page sets them
/// in its language ([`set_cell_words`]); English by default (and for tests and exports).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellWords {
    /// A view cell: `a[0, 1] = 5, s0 element 1`.
    pub view_cell: String,
    /// A storage cell that no view reaches.
    pub storage_cell: String,
    /// A storage cell reached by views `{names}`.
    pub storage_cell_reached: String,
    /// A tensor too large to record.
    pub too_many: String,
}

impl Default for CellWords {
    fn default() -> Self {
        CellWords {
            view_cell: "%name%[%index%] = %value%, %storage% element %at%".into(),
            storage_cell: "%storage% element %at%: %value%, no view reaches it".into(),
            storage_cell_reached: "%storage% element %at%: %value%, reached by %names%".into(),
            too_many: "%count% elements: too many to record".into(),
        }
    }
}

thread_local! {
    static CELL_WORDS: std::cell::RefCell<CellWords> = std::cell::RefCell::new(CellWords::default());
}

/// Sets the words of the cell markup drawn from now on.
pub fn set_cell_words(words: CellWords) {
    CELL_WORDS.with(|w| *w.borrow_mut() = words);
}

/// Fills `template` (escaped here) with `vars` (already escaped).
fn fill(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = escape_html(template);
    for (k, v) in vars {
        out = out.replace(&format!("%{k}%"), v);
    }
    out
}

fn with_words<R>(f: impl FnOnce(&CellWords) -> R) -> R {
    CELL_WORDS.with(|w| f(&w.borrow()))
}

/// The cells of a tensor's grid as markup (every text escaped): panels of rows of cells, with
/// the `data-` attributes of the DOM contract. Built as one string because a step can show
/// tens of thousands of cells.
pub fn tensor_cells_html(t: &TensorRecord, written: &std::collections::HashSet<i64>) -> String {
    use std::fmt::Write;
    let Some(values) = &t.values else {
        let count = crate::tensor::layout::numel_of(&t.shape).to_string();
        let text = with_words(|w| fill(&w.too_many, &[("count", &count)]));
        return format!("<p class=\"muted\">{text}</p>");
    };
    let plan = grid_plan(&t.shape);
    let rank = t.shape.len();
    let cells = ViewCells::new(t, values, written, Lit::default());
    let mut html = String::with_capacity(values.len().min(MAX_DRAWN) * 160);
    for panel in &plan.panels {
        let Some(lead) = &panel.lead else {
            html.push_str("<div class=\"mini gap\">…</div>");
            continue;
        };
        html.push_str("<div class=\"mini\">");
        if !panel.title.is_empty() {
            let _ = write!(
                html,
                "<div class=\"mini-title\">{}</div>",
                escape_html(&panel.title)
            );
        }
        html.push_str("<div class=\"grid\" role=\"grid\">");
        for r in &plan.rows {
            // A summarized gap between rows holds no cell: not a row for assistive tech.
            html.push_str(match r {
                Tick::At(_) => "<div class=\"gridrow\" role=\"row\">",
                Tick::Gap => "<div class=\"gridrow\" role=\"presentation\" aria-hidden=\"true\">",
            });
            for c in &plan.cols {
                let (Tick::At(r), Tick::At(c)) = (r, c) else {
                    html.push_str(GAP_CELL);
                    continue;
                };
                cells.push(&mut html, &cell_index(rank, lead, *r, *c), None);
            }
            html.push_str("</div>");
        }
        html.push_str("</div></div>");
    }
    html
}

/// The `…` cell of a summarized axis.
const GAP_CELL: &str = "<span class=\"cell gap\" aria-hidden=\"true\">…</span>";

/// The elements of one storage marked now, for cells drawn while they are: the highlighted
/// one (hovered, else pinned) and the pinned one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lit {
    pub highlighted: Option<i64>,
    pub pinned: Option<i64>,
}

impl Lit {
    /// ` data-highlighted="true"` and ` data-pinned="true"`, as they apply to element `at`.
    fn attrs(&self) -> impl Fn(i64) -> &'static str + '_ {
        move |at| match (self.highlighted == Some(at), self.pinned == Some(at)) {
            (true, true) => " data-highlighted=\"true\" data-pinned=\"true\"",
            (true, false) => " data-highlighted=\"true\"",
            (false, true) => " data-pinned=\"true\"",
            (false, false) => "",
        }
    }
}

/// Writes the view cells of one tensor (the same markup for full and virtualized grids).
struct ViewCells<'a> {
    t: &'a TensorRecord,
    values: &'a [TraceScalar],
    written: &'a std::collections::HashSet<i64>,
    /// The elements of this view's storage marked now.
    lit: Lit,
    name: String,
    storage: String,
}

impl<'a> ViewCells<'a> {
    fn new(
        t: &'a TensorRecord,
        values: &'a [TraceScalar],
        written: &'a std::collections::HashSet<i64>,
        lit: Lit,
    ) -> Self {
        ViewCells {
            t,
            values,
            written,
            lit,
            name: escape_html(&t.name),
            storage: escape_html(&t.storage),
        }
    }

    /// The cell at logical `index`; `column` is its 1-based column in a virtualized grid.
    fn push(&self, html: &mut String, index: &[i64], column: Option<usize>) {
        use std::fmt::Write;
        let (name, storage) = (&self.name, &self.storage);
        let at = storage_offset_of(self.t, index);
        let value = self
            .values
            .get(flat_position(&self.t.shape, index))
            .map(value_text)
            .unwrap_or_default();
        let idx = attr_list(index);
        let class = if self.written.contains(&at) {
            "cell written"
        } else {
            "cell"
        };
        let _ = write!(
            html,
            "<span class=\"{class}\" role=\"gridcell\" data-testid=\"view-cell\" data-view=\"{name}\" data-index=\"{idx}\" data-offset=\"{at}\" data-key=\"{storage}:{at}\""
        );
        if let Some(column) = column {
            let _ = write!(html, " aria-colindex=\"{column}\"");
        }
        html.push_str(self.lit.attrs()(at));
        let index = idx.replace(',', ", ");
        let at_text = at.to_string();
        let label = with_words(|w| {
            fill(
                &w.view_cell,
                &[
                    ("name", name.as_str()),
                    ("index", &index),
                    ("value", &value),
                    ("storage", storage.as_str()),
                    ("at", &at_text),
                ],
            )
        });
        let _ = write!(html, " aria-label=\"{label}\">{value}</span>");
    }
}

/// One storage's cells as markup (every text escaped): offset label, value, a mark per view
/// that reaches the cell (`colours[view]`), the write flash and the stride-jump number.
pub struct StorageCells<'a> {
    pub id: &'a str,
    pub values: &'a [TraceScalar],
    /// For each element, the views (indices into `names`) that reach it.
    pub reach: &'a std::collections::HashMap<i64, Vec<usize>>,
    pub names: &'a [String],
    pub colours: &'a [&'a str],
    pub written: &'a std::collections::HashSet<i64>,
    pub jumps: &'a std::collections::HashMap<i64, usize>,
}

impl StorageCells<'_> {
    /// The drawn cells in order: every element, or the edges around a gap (`None`) when the
    /// storage has more than [`MAX_DRAWN`] elements.
    pub fn slots(&self) -> Vec<Option<usize>> {
        storage_slots(self.values.len())
    }

    /// The markup of the strip.
    pub fn html(&self) -> String {
        let slots = self.slots();
        let id = escape_html(self.id);
        let mut html = String::with_capacity(slots.len() * 220);
        for &slot in &slots {
            self.push(&mut html, &id, slot, Lit::default());
        }
        html
    }

    /// One cell (`None`: the gap); `lit`: the elements marked now.
    fn push(&self, html: &mut String, id: &str, slot: Option<usize>, lit: Lit) {
        use std::fmt::Write;
        let Some(i) = slot else {
            html.push_str(GAP_CELL);
            return;
        };
        let at = i as i64;
        let marks = self.reach.get(&at).map(Vec::as_slice).unwrap_or(&[]);
        let mut class = String::from("cell");
        if marks.is_empty() {
            class.push_str(" unreached");
        }
        if self.written.contains(&at) {
            class.push_str(" written");
        }
        let jump = self.jumps.get(&at);
        if jump.is_some() {
            class.push_str(" jump");
        }
        let who: Vec<String> = marks
            .iter()
            .filter_map(|&v| self.names.get(v))
            .map(|s| escape_html(s))
            .collect();
        let value = value_text(&self.values[i]);
        let at_text = at.to_string();
        let names = who.join(", ");
        let label = with_words(|w| {
            let template = if who.is_empty() {
                &w.storage_cell
            } else {
                &w.storage_cell_reached
            };
            fill(
                template,
                &[
                    ("storage", id),
                    ("at", &at_text),
                    ("value", &value),
                    ("names", &names),
                ],
            )
        });
        let highlighted = lit.attrs()(at);
        let _ = write!(
            html,
            "<span class=\"{class}\" role=\"listitem\" data-testid=\"storage-cell\" data-offset=\"{at}\" data-key=\"{id}:{at}\"{highlighted} aria-label=\"{label}\" title=\"{}\"><small class=\"off\">{at}</small><span class=\"val\">{value}</span><span class=\"marks\">",
            who.join(", ")
        );
        // One bar, striped with the colour of every view that reaches the cell.
        if !marks.is_empty() {
            let share = 100.0 / marks.len() as f64;
            let stops: Vec<String> = marks
                .iter()
                .enumerate()
                .map(|(k, &v)| {
                    let colour = self
                        .colours
                        .get(v % self.colours.len().max(1))
                        .copied()
                        .unwrap_or("#999");
                    format!(
                        "{} {:.1}% {:.1}%",
                        escape_html(colour),
                        k as f64 * share,
                        (k + 1) as f64 * share
                    )
                })
                .collect();
            let _ = write!(
                html,
                "<i style=\"background:linear-gradient(90deg,{})\"></i>",
                stops.join(",")
            );
        }
        html.push_str("</span>");
        if let Some(k) = jump {
            let _ = write!(html, "<b class=\"jumpno\">{k}</b>");
        }
        html.push_str("</span>");
    }

    /// The markup of the cell of element `i` (as in [`Self::tile_html`]).
    pub fn cell_html(&self, i: usize, lit: Lit) -> String {
        let mut html = String::with_capacity(320);
        self.push(&mut html, &escape_html(self.id), Some(i), lit);
        html
    }

    /// The markup of one tile of a virtualized strip: `lines` of `per_line` slots each,
    /// placed at its first line.
    pub fn tile_html(
        &self,
        slots: &[Option<usize>],
        per_line: usize,
        lines: std::ops::Range<usize>,
        lit: Lit,
    ) -> String {
        use std::fmt::Write;
        let id = escape_html(self.id);
        let per_line = per_line.max(1);
        let mut html = String::with_capacity(lines.len() * per_line * 240);
        let _ = write!(
            html,
            "<div class=\"vtile\" role=\"presentation\" style=\"top:calc(var(--lh) * {})\">",
            lines.start
        );
        for line in lines {
            html.push_str("<div class=\"vline\" role=\"presentation\">");
            let from = (line * per_line).min(slots.len());
            let to = (from + per_line).min(slots.len());
            for &slot in &slots[from..to] {
                self.push(&mut html, &id, slot, lit);
            }
            html.push_str("</div>");
        }
        html.push_str("</div>");
        html
    }
}

/// The drawn cells of a storage of `n` elements: all, or the edges around a gap (`None`).
pub fn storage_slots(n: usize) -> Vec<Option<usize>> {
    if n > MAX_DRAWN {
        (0..MAX_DRAWN / 2)
            .map(Some)
            .chain(std::iter::once(None))
            .chain((n - MAX_DRAWN / 2..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    }
}

#[cfg(test)]
mod html_tests {

    #[test]
    fn a_loop_is_walked_statement_by_statement() {
        let trace = crate::eval::trace_script(
            "a = torch.zeros(2)\nfor i in range(2):\n    a[i] = i + 1\nb = a",
        );
        assert_eq!(trace.steps.len(), 3);
        let flat = flatten_substeps(trace);
        let lines: Vec<usize> = flat.steps.iter().map(|s| s.line).collect();
        assert_eq!(lines, vec![1, 3, 3, 2, 4]);
        assert_eq!(
            flat.steps[1].writes.len(),
            1,
            "each iteration's write is its own step"
        );
        let imported = flatten_substeps(crate::eval::trace_script(
            "import torch\na = torch.zeros(2)",
        ));
        assert_eq!(
            imported.steps.len(),
            1,
            "a working import is no step of the page"
        );
    }

    use super::*;
    use std::collections::{HashMap, HashSet};

    #[test]
    fn markup_escapes_every_name() {
        let t = TensorRecord {
            name: "<img onerror=x>".into(),
            storage: "s0\"".into(),
            shape: vec![2],
            stride: vec![1],
            values: Some(vec![
                TraceScalar(Scalar::Int(1)),
                TraceScalar(Scalar::Int(2)),
            ]),
            ..Default::default()
        };
        let html = tensor_cells_html(&t, &HashSet::new());
        assert!(!html.contains("<img"));
        assert!(html.contains("data-view=\"&lt;img onerror=x&gt;\""));
        assert!(html.contains("data-key=\"s0&quot;:1\""));
        assert_eq!(html.matches("data-testid=\"view-cell\"").count(), 2);
    }

    #[test]
    fn storage_cells_mark_reach_writes_and_jumps() {
        let values = vec![TraceScalar(Scalar::Int(5)); 3];
        let reach = HashMap::from([(1, vec![0, 1])]);
        let names = vec!["a".to_string(), "b".to_string()];
        let written = HashSet::from([2]);
        let jumps = HashMap::from([(1, 0)]);
        let cells = StorageCells {
            id: "s0",
            values: &values,
            reach: &reach,
            names: &names,
            colours: &["#111", "#222"],
            written: &written,
            jumps: &jumps,
        };
        let html = cells.html();
        assert_eq!(html.matches("data-testid=\"storage-cell\"").count(), 3);
        assert!(html.contains("class=\"cell jump\""));
        assert!(html.contains("class=\"cell unreached written\""));
        assert!(html.contains("reached by a, b"));
    }
}

/// A stable identity for a tensor's drawing: name, layout, storage and dtype. While it stays
/// the same from one step to the next, only cell texts and write marks change.
pub fn view_key(t: &TensorRecord) -> String {
    format!(
        "{}|{}|{}|{}|{}|{}",
        t.name,
        attr_list(&t.shape),
        attr_list(&t.stride),
        t.storage_offset,
        t.storage,
        t.dtype
    )
}

/// The texts of a tensor's drawn cells, in drawing order (as `tensor_cells_html` draws them).
pub fn drawn_texts(t: &TensorRecord) -> Vec<String> {
    let Some(values) = &t.values else {
        return Vec::new();
    };
    let plan = grid_plan(&t.shape);
    let rank = t.shape.len();
    let mut out = Vec::new();
    for panel in &plan.panels {
        let Some(lead) = &panel.lead else { continue };
        for r in &plan.rows {
            for c in &plan.cols {
                if let (Tick::At(r), Tick::At(c)) = (r, c) {
                    let index = cell_index(rank, lead, *r, *c);
                    out.push(
                        values
                            .get(flat_position(&t.shape, &index))
                            .map(value_text)
                            .unwrap_or_default(),
                    );
                }
            }
        }
    }
    out
}

/// Drawn cells beyond which a view's grid or a storage's strip is virtualized: drawn in a
/// scroll box of fixed-size lines and columns, with only the tiles near its visible part in
/// the DOM. Smaller drawings keep every cell in the DOM.
pub const VIRTUAL_MIN: usize = 1024;
/// Lines per tile of a virtualized drawing.
pub const TILE_LINES: usize = 4;
/// Columns per tile of a virtualized grid (a strip's tiles are whole lines).
pub const TILE_COLS: usize = 8;

/// The tiles along one axis of a virtualized drawing that cover the pixels
/// `[scroll - margin, scroll + extent + margin)`, for `count` units (lines or columns) of
/// `unit` pixels, `tile` units to a tile. Before anything is measured (`unit` not positive)
/// it is the first tile.
pub fn tile_range(
    scroll: f64,
    extent: f64,
    margin: f64,
    unit: f64,
    count: usize,
    tile: usize,
) -> std::ops::Range<usize> {
    let tile = tile.max(1);
    let tiles = count.div_ceil(tile);
    let finite = scroll.is_finite() && extent.is_finite() && margin.is_finite();
    if unit.is_nan() || unit <= 0.0 || !finite {
        return 0..tiles.min(1);
    }
    let span = unit * tile as f64;
    let lo = ((scroll - margin).max(0.0) / span).floor() as usize;
    let hi = ((scroll + extent.max(0.0) + margin).max(0.0) / span).ceil() as usize;
    let lo = lo.min(tiles.saturating_sub(1));
    let hi = hi.clamp(lo + 1, tiles.max(lo + 1)).min(tiles);
    lo..hi
}

/// The width in characters of the widest of `values` as cells show them (the columns of a
/// virtualized drawing).
pub fn widest(values: &[TraceScalar]) -> usize {
    values
        .iter()
        .map(|v| value_text(v).chars().count())
        .max()
        .unwrap_or(0)
}

/// [`widest`] of `after`, knowing that `chars` is the widest of `before`: only the values
/// that differ are formatted, and all of `after` only when the widest may have narrowed.
pub fn widest_after(chars: usize, before: &[TraceScalar], after: &[TraceScalar]) -> usize {
    if before.len() != after.len() {
        return widest(after);
    }
    let width = |v: &TraceScalar| value_text(v).chars().count();
    let mut wider = chars;
    for (b, a) in before.iter().zip(after) {
        if b == a {
            continue;
        }
        let w = width(a);
        if width(b) == chars && w < chars {
            return widest(after);
        }
        wider = wider.max(w);
    }
    wider
}

/// One line of a virtualized grid: a small multiple's caption, a summarized gap between
/// small multiples, or a row of cells.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    Title(String),
    Gap,
    Row { lead: Vec<i64>, row: Tick },
}

/// A tensor's grid as a virtualized drawing: its small multiples stacked into one list of
/// lines, every line the same columns.
#[derive(Clone, Debug, PartialEq)]
pub struct VirtualGrid {
    pub lines: Vec<Line>,
    pub cols: Vec<Tick>,
    rank: usize,
    /// A 1-D tensor drawn whole wraps: (cells per line, its length). Line `r`, column `c` is
    /// then index `r * per_line + c`.
    wrap: Option<(i64, i64)>,
}

/// Cells per line of a wrapped 1-D virtualized drawing.
pub const WRAP_1D: i64 = 16;

impl VirtualGrid {
    /// The lines and columns of the grid of a tensor of `shape` (as [`grid_plan`] plans it).
    pub fn of(shape: &[i64]) -> Self {
        let plan = grid_plan(shape);
        if let [n] = *shape {
            if !plan.summarized && n > WRAP_1D {
                // One line per WRAP_1D elements, as the storage strip wraps.
                return VirtualGrid {
                    lines: (0..(n + WRAP_1D - 1) / WRAP_1D)
                        .map(|r| Line::Row {
                            lead: Vec::new(),
                            row: Tick::At(r),
                        })
                        .collect(),
                    cols: (0..WRAP_1D).map(Tick::At).collect(),
                    rank: 1,
                    wrap: Some((WRAP_1D, n)),
                };
            }
        }
        let mut lines = Vec::new();
        for panel in &plan.panels {
            let Some(lead) = &panel.lead else {
                lines.push(Line::Gap);
                continue;
            };
            if !panel.title.is_empty() {
                lines.push(Line::Title(panel.title.clone()));
            }
            lines.extend(plan.rows.iter().map(|&row| Line::Row {
                lead: lead.clone(),
                row,
            }));
        }
        VirtualGrid {
            lines,
            cols: plan.cols,
            rank: shape.len(),
            wrap: None,
        }
    }

    /// The logical index drawn at row `r`, column `c` of a line of `lead` (None: past the end
    /// of a wrapped 1-D tensor's last line).
    fn index_at(&self, lead: &[i64], r: i64, c: i64) -> Option<Vec<i64>> {
        match self.wrap {
            Some((per_line, n)) => {
                let i = r * per_line + c;
                (i < n).then(|| vec![i])
            }
            None => Some(cell_index(self.rank, lead, r, c)),
        }
    }

    /// The cells drawn (gap cells included).
    pub fn cell_count(&self) -> usize {
        let rows = self
            .lines
            .iter()
            .filter(|l| matches!(l, Line::Row { .. }))
            .count();
        rows.saturating_mul(self.cols.len())
    }

    /// The line and column where the cell at logical `index` is drawn (None: summarized away).
    pub fn locate(&self, index: &[i64]) -> Option<(usize, usize)> {
        if index.len() != self.rank || self.rank == 0 {
            return None;
        }
        if let Some((per_line, n)) = self.wrap {
            let i = index[0];
            return (0..n)
                .contains(&i)
                .then(|| ((i / per_line) as usize, (i % per_line) as usize));
        }
        let (lead, row, col) = match self.rank {
            1 => (&index[..0], Tick::At(0), index[0]),
            r => (&index[..r - 2], Tick::At(index[r - 2]), index[r - 1]),
        };
        let line = self.lines.iter().position(|l| match l {
            Line::Row { lead: l, row: r } => l.as_slice() == lead && *r == row,
            _ => false,
        })?;
        let col = self.cols.iter().position(|&c| c == Tick::At(col))?;
        Some((line, col))
    }

    /// The cells in `lines` × `cols`: line, column and logical index (gap cells have none).
    pub fn tile_cells(
        &self,
        lines: std::ops::Range<usize>,
        cols: std::ops::Range<usize>,
    ) -> Vec<(usize, usize, Vec<i64>)> {
        let lines = lines.start.min(self.lines.len())..lines.end.min(self.lines.len());
        let cols = cols.start.min(self.cols.len())..cols.end.min(self.cols.len());
        let mut out = Vec::new();
        for line in lines {
            if let Line::Row {
                lead,
                row: Tick::At(r),
            } = &self.lines[line]
            {
                for col in cols.clone() {
                    if let Tick::At(c) = self.cols[col] {
                        if let Some(index) = self.index_at(lead, *r, c) {
                            out.push((line, col, index));
                        }
                    }
                }
            }
        }
        out
    }

    /// The markup of the cell at `index`, drawn in column `col` (as in [`Self::tile_html`]).
    pub fn cell_html(
        &self,
        t: &TensorRecord,
        index: &[i64],
        col: usize,
        written: &std::collections::HashSet<i64>,
        lit: Lit,
    ) -> String {
        let values = t.values.as_deref().unwrap_or(&[]);
        let mut html = String::with_capacity(240);
        ViewCells::new(t, values, written, lit).push(&mut html, index, Some(col + 1));
        html
    }

    /// The markup of one tile: `lines` × `cols` of the grid of `t`, placed at its first line
    /// and column. `lit`: the elements of `t`'s storage marked now.
    pub fn tile_html(
        &self,
        t: &TensorRecord,
        lines: std::ops::Range<usize>,
        cols: std::ops::Range<usize>,
        written: &std::collections::HashSet<i64>,
        lit: Lit,
    ) -> String {
        use std::fmt::Write;
        let values = t.values.as_deref().unwrap_or(&[]);
        let cells = ViewCells::new(t, values, written, lit);
        let lines = lines.start.min(self.lines.len())..lines.end.min(self.lines.len());
        let cols = cols.start.min(self.cols.len())..cols.end.min(self.cols.len());
        let first_col = cols.start == 0;
        let mut html = String::with_capacity(lines.len() * cols.len() * 200);
        let _ = write!(
            html,
            "<div class=\"vtile\" role=\"presentation\" data-at=\"{0},{1}\" style=\"top:calc(var(--lh) * {0});left:calc(var(--cw) * {1})\">",
            lines.start, cols.start
        );
        for line in lines {
            match &self.lines[line] {
                Line::Title(title) => {
                    let text = if first_col {
                        escape_html(title)
                    } else {
                        String::new()
                    };
                    let _ = write!(
                        html,
                        "<div class=\"vtitle\" aria-hidden=\"true\">{text}</div>"
                    );
                }
                Line::Gap => {
                    let text = if first_col { "…" } else { "" };
                    let _ = write!(
                        html,
                        "<div class=\"vgap\" aria-hidden=\"true\">{text}</div>"
                    );
                }
                Line::Row { lead, row } => {
                    let _ = match row {
                        Tick::At(_) => write!(
                            html,
                            "<div class=\"gridrow\" role=\"row\" aria-rowindex=\"{}\">",
                            line + 1
                        ),
                        // A summarized gap between rows holds no cell.
                        Tick::Gap => write!(
                            html,
                            "<div class=\"gridrow\" role=\"presentation\" aria-hidden=\"true\">"
                        ),
                    };
                    for c in cols.clone() {
                        match (row, self.cols[c]) {
                            (Tick::At(r), Tick::At(col)) => {
                                // Past a wrapped 1-D tensor's end: the line just stops.
                                if let Some(index) = self.index_at(lead, *r, col) {
                                    cells.push(&mut html, &index, Some(c + 1));
                                }
                            }
                            _ => html.push_str(GAP_CELL),
                        }
                    }
                    html.push_str("</div>");
                }
            }
        }
        html.push_str("</div>");
        html
    }
}

/// A fingerprint of what a virtualized grid shows: its layout (`view_key`), its values and
/// the elements written. Equal fingerprints draw equal tiles.
pub fn grid_fingerprint(
    key: &str,
    values: &[TraceScalar],
    written: &std::collections::HashSet<i64>,
) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    for v in values {
        match v.0 {
            Scalar::Bool(b) => (0u8, b as u64).hash(&mut h),
            Scalar::Int(i) => (1u8, i as u64).hash(&mut h),
            Scalar::Float(f) => (2u8, f.to_bits()).hash(&mut h),
        }
    }
    let mut written: Vec<i64> = written.iter().copied().collect();
    crate::tensor::stable_sort::sort(&mut written);
    written.hash(&mut h);
    h.finish()
}

/// Whether a tensor's grid is drawn virtualized (it has recorded values and more than
/// [`VIRTUAL_MIN`] cells to draw).
pub fn is_virtual_view(t: &TensorRecord) -> bool {
    t.values.is_some() && VirtualGrid::of(&t.shape).cell_count() > VIRTUAL_MIN
}

/// Whether a storage of `n` recorded elements is drawn as a virtualized strip.
pub fn is_virtual_strip(n: usize) -> bool {
    storage_slots(n).len() > VIRTUAL_MIN
}

#[cfg(test)]
mod virtual_tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    fn arange(shape: &[i64]) -> TensorRecord {
        let n: i64 = shape.iter().product();
        let mut stride = vec![1i64; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            stride[d] = stride[d + 1] * shape[d + 1];
        }
        TensorRecord {
            name: "a".into(),
            storage: "s0".into(),
            shape: shape.to_vec(),
            stride,
            values: Some((0..n).map(|i| TraceScalar(Scalar::Int(i))).collect()),
            ..Default::default()
        }
    }

    #[test]
    fn fingerprints_tell_drawings_apart() {
        let t = arange(&[64, 64]);
        let values = t.values.clone().unwrap_or_default();
        let none = HashSet::new();
        let same = grid_fingerprint("a|64,64", &values, &none);
        assert_eq!(
            same,
            grid_fingerprint("a|64,64", &values.clone(), &HashSet::new())
        );
        assert_ne!(same, grid_fingerprint("b|64,64", &values, &none));
        assert_ne!(
            same,
            grid_fingerprint("a|64,64", &values, &HashSet::from([3]))
        );
        let mut other = values.clone();
        other[7] = TraceScalar(Scalar::Float(7.0));
        assert_ne!(same, grid_fingerprint("a|64,64", &other, &none));
    }

    #[test]
    fn widths_follow_changed_values() {
        let ints = |v: &[i64]| -> Vec<TraceScalar> {
            v.iter().map(|&i| TraceScalar(Scalar::Int(i))).collect()
        };
        let before = ints(&[1, 22, 333]);
        assert_eq!(widest(&before), 3);
        assert_eq!(widest(&[]), 0);
        // Wider, unchanged, narrower: always the widest of the new values.
        assert_eq!(widest_after(3, &before, &ints(&[1, -4444, 333])), 5);
        assert_eq!(widest_after(3, &before, &ints(&[7, 22, 333])), 3);
        assert_eq!(widest_after(3, &before, &ints(&[1, 22, 3])), 2);
        assert_eq!(widest_after(3, &before, &ints(&[1, 22])), 2);
    }

    #[test]
    fn tile_range_covers_the_visible_pixels_and_the_margin() {
        // 64 lines of 30 px, 8 to a tile (240 px): a box of 300 px scrolled to 500 px shows
        // lines 16..27, tiles 2 and 3; a margin of 150 px reaches back into tile 1 (350 px)
        // but not forward into tile 4 (it starts at 960 px, past 950 px).
        assert_eq!(tile_range(500.0, 300.0, 0.0, 30.0, 64, 8), 2..4);
        assert_eq!(tile_range(500.0, 300.0, 150.0, 30.0, 64, 8), 1..4);
        // Clamped at both ends.
        assert_eq!(tile_range(0.0, 300.0, 150.0, 30.0, 64, 8), 0..2);
        assert_eq!(tile_range(1e9, 300.0, 150.0, 30.0, 64, 8), 7..8);
        // Not measured yet, or nothing laid out: the first tile.
        assert_eq!(tile_range(0.0, 0.0, 0.0, 0.0, 64, 8), 0..1);
        assert_eq!(tile_range(f64::NAN, 300.0, 0.0, 30.0, 64, 8), 0..1);
        assert_eq!(tile_range(0.0, 0.0, 0.0, 30.0, 64, 8), 0..1);
        assert_eq!(tile_range(0.0, 300.0, 0.0, 30.0, 0, 8), 0..0);
    }

    #[test]
    fn small_multiples_stack_into_lines() {
        let grid = VirtualGrid::of(&[2, 3, 4, 5]);
        // Six panels, each a caption and four rows.
        assert_eq!(grid.lines.len(), 6 * 5);
        assert_eq!(grid.lines[5], Line::Title("n=0, c=1".into()));
        assert_eq!(
            grid.lines[7],
            Line::Row {
                lead: vec![0, 1],
                row: Tick::At(1)
            }
        );
        assert_eq!(grid.cell_count(), 120);
        assert_eq!(grid.locate(&[0, 1, 1, 3]), Some((7, 3)));
        // Lines 4..7 are n=0, c=0's last row, n=0, c=1's caption and first row.
        assert_eq!(
            grid.tile_cells(4..7, 3..5),
            vec![
                (4, 3, vec![0, 0, 3, 3]),
                (4, 4, vec![0, 0, 3, 4]),
                (6, 3, vec![0, 1, 0, 3]),
                (6, 4, vec![0, 1, 0, 4])
            ]
        );
        assert_eq!(grid.locate(&[0, 1, 1]), None);
        // A 1-D tensor wraps into lines of WRAP_1D.
        let grid = VirtualGrid::of(&[4090]);
        assert_eq!((grid.lines.len(), grid.cols.len()), (256, 16));
        assert_eq!(grid.locate(&[4089]), Some((255, 9)));
        assert_eq!(grid.locate(&[4090]), None);
        assert_eq!(
            grid.tile_cells(255..256, 8..16),
            vec![(255, 8, vec![4088]), (255, 9, vec![4089])]
        );
        // Summarized: the gaps are lines and columns too; summarized cells are nowhere.
        let grid = VirtualGrid::of(&[50, 10, 10]);
        assert!(grid.lines.contains(&Line::Gap));
        assert_eq!(grid.locate(&[20, 0, 0]), None);
        assert_eq!(grid.locate(&[49, 9, 9]), Some((grid.lines.len() - 1, 6)));
    }

    #[test]
    fn big_grids_and_strips_are_virtual_small_ones_are_not() {
        assert!(is_virtual_view(&arange(&[64, 64])));
        assert!(is_virtual_view(&arange(&[4096])));
        assert!(!is_virtual_view(&arange(&[32, 32])));
        assert!(!is_virtual_view(&arange(&[3, 5])));
        assert!(!is_virtual_view(&TensorRecord {
            values: None,
            ..arange(&[64, 64])
        }));
        assert!(is_virtual_strip(4096) && is_virtual_strip(1 << 20));
        assert!(!is_virtual_strip(1024) && !is_virtual_strip(15));
    }

    #[test]
    fn a_tile_draws_its_cells_with_the_dom_contract() {
        let t = arange(&[64, 64]);
        let grid = VirtualGrid::of(&t.shape);
        let written = HashSet::from([8 * 64 + 17]);
        let lit = Lit {
            highlighted: Some(9 * 64 + 20),
            pinned: Some(9 * 64 + 21),
        };
        let html = grid.tile_html(&t, 8..16, 16..32, &written, lit);
        assert!(html.starts_with(
            "<div class=\"vtile\" role=\"presentation\" data-at=\"8,16\" style=\"top:calc(var(--lh) * 8);left:calc(var(--cw) * 16)\">"
        ));
        assert_eq!(html.matches("data-testid=\"view-cell\"").count(), 128);
        assert_eq!(html.matches("role=\"row\"").count(), 8);
        assert!(html.contains("data-index=\"8,16\" data-offset=\"528\" data-key=\"s0:528\" aria-colindex=\"17\" aria-label=\"a[8, 16] = 528, s0 element 528\">528</span>"));
        assert!(html.contains("<span class=\"cell written\" role=\"gridcell\" data-testid=\"view-cell\" data-view=\"a\" data-index=\"8,17\""));
        assert_eq!(html.matches("data-highlighted=\"true\"").count(), 1);
        assert!(html.contains("data-key=\"s0:596\" aria-colindex=\"21\" data-highlighted=\"true\""));
        // One cell alone is drawn as in its tile.
        assert!(html.contains("data-key=\"s0:597\" aria-colindex=\"22\" data-pinned=\"true\""));
        assert_eq!(html.matches("data-pinned").count(), 1);
        let cell = grid.cell_html(&t, &[9, 20], 20, &written, lit);
        assert!(html.contains(&cell), "{cell}");
        // Captions only in the first column of tiles.
        let t = arange(&[4, 4, 16, 16]);
        let grid = VirtualGrid::of(&t.shape);
        let first = grid.tile_html(&t, 0..8, 0..16, &HashSet::new(), Lit::default());
        let second = grid.tile_html(&t, 0..8, 16..32, &HashSet::new(), Lit::default());
        assert!(first.contains("<div class=\"vtitle\" aria-hidden=\"true\">n=0, c=0</div>"));
        assert!(second.contains("<div class=\"vtitle\" aria-hidden=\"true\"></div>"));
        assert_eq!(first.matches("data-testid=\"view-cell\"").count(), 7 * 16);
    }

    #[test]
    fn a_strip_tile_draws_whole_lines() {
        let values: Vec<TraceScalar> = (0..5000).map(|i| TraceScalar(Scalar::Int(i))).collect();
        let reach = HashMap::new();
        let cells = StorageCells {
            id: "s3",
            values: &values,
            reach: &reach,
            names: &[],
            colours: &[],
            written: &HashSet::new(),
            jumps: &HashMap::new(),
        };
        let slots = cells.slots();
        assert_eq!(slots.len(), MAX_DRAWN + 1);
        // 20 cells a line: line 102 holds slots 2040..2060, the gap among them.
        let lit = Lit {
            highlighted: Some(2001),
            pinned: Some(2001),
        };
        let html = cells.tile_html(&slots, 20, 100..104, lit);
        assert!(html.starts_with(
            "<div class=\"vtile\" role=\"presentation\" style=\"top:calc(var(--lh) * 100)\">"
        ));
        assert_eq!(html.matches("class=\"vline\"").count(), 4);
        assert_eq!(html.matches("data-testid=\"storage-cell\"").count(), 79);
        assert!(html.contains("data-offset=\"2000\""));
        assert!(html.contains("data-offset=\"2952\""));
        assert!(
            html.contains("data-key=\"s3:2001\" data-highlighted=\"true\" data-pinned=\"true\"")
        );
        assert_eq!(html.matches("data-highlighted").count(), 1);
        assert!(html.contains(&cells.cell_html(2001, lit)));
        assert!(html.contains(&cells.cell_html(2960, Lit::default())));
        // The last line is short.
        let html = cells.tile_html(&slots, 20, 200..208, Lit::default());
        assert_eq!(html.matches("class=\"vline\"").count(), 8);
        assert_eq!(html.matches("data-testid=\"storage-cell\"").count(), 97);
    }
}
