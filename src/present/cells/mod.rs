//! What the views draw, computed from a trace: grid plans for tensors of any rank, the offset
//! formula, value text, summaries of large tensors. Pure and native-testable; the Leptos
//! components in `app/` only turn these into DOM.

use crate::core::tensor::Scalar;
use crate::core::trace::{TensorRecord, TraceScalar};

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
    step: &crate::core::trace::Step,
    storage: crate::core::tensor::StorageId,
) -> std::collections::HashMap<i64, Vec<usize>> {
    let mut reach: std::collections::HashMap<i64, Vec<usize>> = std::collections::HashMap::new();
    for (vi, t) in step.tensors.iter().enumerate() {
        if t.storage != storage {
            continue;
        }
        let n = crate::core::tensor::layout::numel_of(&t.shape);
        if n > (MAX_DRAWN * 4) as i64 {
            continue;
        }
        let layout = crate::core::tensor::Layout {
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
pub fn storage_written(
    step: &crate::core::trace::Step,
    storage: crate::core::tensor::StorageId,
) -> std::collections::HashSet<i64> {
    step.writes
        .iter()
        .filter(|w| w.storage == storage)
        .flat_map(|w| w.offsets())
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
    let numel = crate::core::tensor::layout::numel_of(shape);
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
                            format!("{}={i}", n.to_ascii_lowercase())
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
pub fn flatten_substeps(mut trace: crate::core::trace::Trace) -> crate::core::trace::Trace {
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
fn arrays_as_views(step: &mut crate::core::trace::Step) {
    for a in std::mem::take(&mut step.arrays) {
        let storage_nbytes = step
            .storages
            .iter()
            .find(|s| s.id == a.storage)
            .map(|s| s.nbytes)
            .unwrap_or(0);
        let layout = crate::core::tensor::Layout {
            shape: a.shape.clone(),
            strides: a.element_strides.clone(),
            offset: a.storage_offset,
        };
        step.tensors.push(crate::core::trace::TensorRecord {
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
            ..Default::default()
        });
    }
}

/// `120 B`, `1.5 KiB`.
pub fn bytes_text(n: usize) -> String {
    crate::core::print::human_bytes(n as u64)
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

mod markup;
mod virtual_grid;
pub use markup::*;
pub use virtual_grid::*;
