//! What the views draw, computed from a trace: grid plans for tensors of any rank, the offset
//! formula, value text, summaries of large tensors. Pure and native-testable; the Leptos
//! components in `app/` only turn these into DOM.

use crate::tensor::Scalar;
use crate::trace::{TensorRecord, TraceScalar};

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

/// The cells of a tensor's grid as markup (every text escaped): panels of rows of cells, with
/// the `data-` attributes of the DOM contract. Built as one string because a step can show
/// tens of thousands of cells.
pub fn tensor_cells_html(t: &TensorRecord, written: &std::collections::HashSet<i64>) -> String {
    use std::fmt::Write;
    let Some(values) = &t.values else {
        return format!(
            "<p class=\"muted\">{} elements: too many to record</p>",
            crate::tensor::layout::numel_of(&t.shape)
        );
    };
    let plan = grid_plan(&t.shape);
    let rank = t.shape.len();
    let name = escape_html(&t.name);
    let storage = escape_html(&t.storage);
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
            html.push_str("<div class=\"gridrow\" role=\"row\">");
            for c in &plan.cols {
                let (Tick::At(r), Tick::At(c)) = (r, c) else {
                    html.push_str("<span class=\"cell gap\" aria-hidden=\"true\">…</span>");
                    continue;
                };
                let index = cell_index(rank, lead, *r, *c);
                let at = storage_offset_of(t, &index);
                let value = values
                    .get(flat_position(&t.shape, &index))
                    .map(value_text)
                    .unwrap_or_default();
                let idx = attr_list(&index);
                let class = if written.contains(&at) {
                    "cell written"
                } else {
                    "cell"
                };
                let _ = write!(
                    html,
                    "<span class=\"{class}\" role=\"gridcell\" data-testid=\"view-cell\" data-view=\"{name}\" data-index=\"{idx}\" data-offset=\"{at}\" data-key=\"{storage}:{at}\" aria-label=\"{name}[{}] = {value}, {storage} element {at}\">{value}</span>",
                    idx.replace(',', ", ")
                );
            }
            html.push_str("</div>");
        }
        html.push_str("</div></div>");
    }
    html
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
    /// The markup of the strip.
    pub fn html(&self) -> String {
        use std::fmt::Write;
        let id = escape_html(self.id);
        let n = self.values.len();
        let shown: Vec<Option<usize>> = if n > MAX_DRAWN {
            (0..MAX_DRAWN / 2)
                .map(Some)
                .chain(std::iter::once(None))
                .chain((n - MAX_DRAWN / 2..n).map(Some))
                .collect()
        } else {
            (0..n).map(Some).collect()
        };
        let mut html = String::with_capacity(shown.len() * 220);
        for slot in shown {
            let Some(i) = slot else {
                html.push_str("<span class=\"cell gap\" aria-hidden=\"true\">…</span>");
                continue;
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
            let reached = if who.is_empty() {
                ", no view reaches it".to_string()
            } else {
                format!(", reached by {}", who.join(", "))
            };
            let _ = write!(
                html,
                "<span class=\"{class}\" role=\"listitem\" data-testid=\"storage-cell\" data-offset=\"{at}\" data-key=\"{id}:{at}\" aria-label=\"{id} element {at}: {value}{reached}\" title=\"{}\"><small class=\"off\">{at}</small><span class=\"val\">{value}</span><span class=\"marks\">",
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
        html
    }
}

#[cfg(test)]
mod html_tests {
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
