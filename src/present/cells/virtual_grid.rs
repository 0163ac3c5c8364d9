//! Large grids drawn virtualized: which tiles of a view or storage strip are drawn, their
//! markup, and the fingerprints that tell when a grid must be redrawn.

use crate::core::tensor::Scalar;
use crate::core::trace::{TensorRecord, TraceScalar};
use crate::present::cells::markup::{escape_html, storage_slots, Lit, ViewCells, GAP_CELL};
use crate::present::cells::{attr_list, cell_index, flat_position, grid_plan, value_text, Tick};

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
    crate::core::tensor::stable_sort::sort(&mut written);
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
    use crate::core::tensor::StorageId;
    use crate::present::cells::markup::StorageCells;
    use crate::present::cells::MAX_DRAWN;
    use std::collections::{HashMap, HashSet};

    fn arange(shape: &[i64]) -> TensorRecord {
        let n: i64 = shape.iter().product();
        let mut stride = vec![1i64; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            stride[d] = stride[d + 1] * shape[d + 1];
        }
        TensorRecord {
            name: "a".into(),
            storage: StorageId(0),
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
            id: StorageId(3),
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
