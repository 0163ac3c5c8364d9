//! Cell grids as markup: the DOM cells of views and storage strips (built as HTML strings for
//! speed; every text escaped), and the words they say.

use crate::core::tensor::StorageId;
use crate::core::trace::{TensorRecord, TraceScalar};
use crate::present::cells::{
    attr_list, cell_index, flat_position, grid_plan, storage_offset_of, value_text, Tick, MAX_DRAWN,
};

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
    // A meta tensor has no values: its cells are drawn empty.
    let meta = t.values.is_none() && t.device.as_deref() == Some("meta");
    let Some(values) = t.values.as_deref().or(meta.then_some(&[][..])) else {
        let count = crate::core::tensor::layout::numel_of(&t.shape).to_string();
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
pub(super) const GAP_CELL: &str = "<span class=\"cell gap\" aria-hidden=\"true\">…</span>";

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
pub(super) struct ViewCells<'a> {
    t: &'a TensorRecord,
    values: &'a [TraceScalar],
    written: &'a std::collections::HashSet<i64>,
    /// The elements of this view's storage marked now.
    lit: Lit,
    name: String,
    storage: String,
}

impl<'a> ViewCells<'a> {
    pub(super) fn new(
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
            storage: t.storage.to_string(),
        }
    }

    /// The cell at logical `index`; `column` is its 1-based column in a virtualized grid.
    pub(super) fn push(&self, html: &mut String, index: &[i64], column: Option<usize>) {
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
    pub id: StorageId,
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
        let id = self.id.to_string();
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
        self.push(&mut html, &self.id.to_string(), Some(i), lit);
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
        let id = self.id.to_string();
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
    use super::*;
    use crate::core::tensor::Scalar;
    use crate::core::tensor::StorageId;
    use std::collections::{HashMap, HashSet};

    #[test]
    fn markup_escapes_every_name() {
        let t = TensorRecord {
            name: "<img onerror=x>".into(),
            storage: StorageId(0),
            shape: vec![2],
            stride: vec![1],
            values: Some(vec![TraceScalar(Scalar::Int(1)), TraceScalar(Scalar::Int(2))].into()),
            ..Default::default()
        };
        let html = tensor_cells_html(&t, &HashSet::new());
        assert!(!html.contains("<img"));
        assert!(html.contains("data-view=\"&lt;img onerror=x&gt;\""));
        assert!(html.contains("data-key=\"s0:1\""));
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
            id: StorageId(0),
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
