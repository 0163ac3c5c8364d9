//! The min/max/mean pyramid that keeps a lone outlier visible where cells are smaller than
//! a pixel. Built once when the data change; a frame reads one node per pixel.
//!
//! Level `L >= 1` has one node per `2^L × 2^L` block of cells: node `(r, c)` combines the
//! nodes `(2r, 2c)`, `(2r, 2c+1)`, `(2r+1, 2c)`, `(2r+1, 2c+1)` of level `L - 1` (level 0
//! being the cells), in that order, skipping those outside the grid and those without a
//! finite value: `min` and `max` of the children's, and `mean` = the sum of the children's
//! means (added in order) times [`RECIPROCALS`]`[k]` for `k` children (an unweighted mean
//! of means). A node without any finite value is NaN. The GPU kernel (`minmax.wgsl`)
//! computes the same bits. A pixel at level `L` (blocks at least as wide as the pixel:
//! `PixelMap::level` picks blocks at least twice as wide) combines the nodes of the at most 2 × 2 blocks its footprint overlaps, the same way, and
//! shows the extreme farther from the mean ([`display_value`]): every cell lies in some
//! pixel's footprint, so a lone outlier always shows. Non-finite cells do not count: below one pixel per cell they are
//! hidden by their block's finite values.

use crate::present::render::colour::{classify, Class, ValueRange};

/// `1 / k` for `k` children, as f32.
pub const RECIPROCALS: [f32; 5] = [0.0, 1.0, 0.5, 1.0 / 3.0, 0.25];

/// One level of the pyramid.
#[derive(Clone, Debug, PartialEq)]
pub struct PyramidLevel {
    /// Rows of nodes: `ceil(rows / 2^L)`.
    pub rows: usize,
    /// Columns of nodes.
    pub cols: usize,
    /// `[min, max, mean]` per node, row-major.
    pub nodes: Vec<[f32; 3]>,
}

/// Levels 1 and up, until one node covers the grid (see the module documentation).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Pyramid {
    /// `levels[0]` is level 1.
    pub levels: Vec<PyramidLevel>,
}

/// The node of a leaf or a block without any finite value.
const EMPTY: [f32; 3] = [f32::NAN; 3];

/// Combines up to four children in order (see the module documentation).
pub fn combine(children: &[[f32; 3]]) -> [f32; 3] {
    let mut k = 0usize;
    let mut lo = 0.0f32;
    let mut hi = 0.0f32;
    let mut sum = 0.0f32;
    for child in children {
        if classify(child[0]) != Class::Finite {
            continue;
        }
        if k == 0 {
            lo = child[0];
            hi = child[1];
            sum = child[2];
        } else {
            if child[0] < lo {
                lo = child[0];
            }
            if child[1] > hi {
                hi = child[1];
            }
            sum += child[2];
        }
        k += 1;
    }
    if k == 0 {
        return EMPTY;
    }
    [lo, hi, sum * RECIPROCALS[k]]
}

/// What a pixel showing a node draws: the extreme farther from the mean, NaN for a node
/// without finite values. `max - mean >= mean - min` is evaluated as
/// `max/2 + min/2 >= mean` (the maximum on a tie): the halves are exact, so a GPU that
/// fuses a multiply into an add computes the same bits.
pub fn display_value(node: [f32; 3]) -> f32 {
    let [lo, hi, mean] = node;
    if classify(lo) != Class::Finite {
        return f32::NAN;
    }
    if hi * 0.5 + lo * 0.5 >= mean {
        hi
    } else {
        lo
    }
}

impl Pyramid {
    /// Builds the pyramid of a `rows` × `cols` grid whose cell values `cell(r, c)` gives
    /// (None for an empty cell).
    pub fn build(rows: usize, cols: usize, cell: impl Fn(usize, usize) -> Option<f32>) -> Pyramid {
        let mut levels: Vec<PyramidLevel> = Vec::new();
        if rows == 0 || cols == 0 {
            return Pyramid { levels };
        }
        loop {
            let (prows, pcols) = levels.last().map_or((rows, cols), |l| (l.rows, l.cols));
            let (nrows, ncols) = (prows.div_ceil(2), pcols.div_ceil(2));
            let mut nodes = Vec::with_capacity(nrows * ncols);
            let child = |r: usize, c: usize| -> Option<[f32; 3]> {
                if r >= prows || c >= pcols {
                    return None;
                }
                Some(match levels.last() {
                    Some(l) => l.nodes[r * l.cols + c],
                    None => match cell(r, c) {
                        Some(v) if classify(v) == Class::Finite => [v, v, v],
                        _ => EMPTY,
                    },
                })
            };
            for r in 0..nrows {
                for c in 0..ncols {
                    let children: Vec<[f32; 3]> = [
                        (2 * r, 2 * c),
                        (2 * r, 2 * c + 1),
                        (2 * r + 1, 2 * c),
                        (2 * r + 1, 2 * c + 1),
                    ]
                    .iter()
                    .filter_map(|&(r, c)| child(r, c))
                    .collect();
                    nodes.push(combine(&children));
                }
            }
            levels.push(PyramidLevel {
                rows: nrows,
                cols: ncols,
                nodes,
            });
            if nrows == 1 && ncols == 1 {
                return Pyramid { levels };
            }
        }
    }

    /// What a pixel whose footprint covers cells `rows` × `cols` (inclusive ranges) shows
    /// at level `level` (1 and up; clamped to the top): the nodes of the (at most 2 × 2)
    /// blocks it overlaps, combined in row-major order, then [`display_value`].
    pub fn footprint_value(&self, level: u32, rows: (usize, usize), cols: (usize, usize)) -> f32 {
        let l = (level.max(1) as usize).min(self.levels.len());
        let Some(lv) = l.checked_sub(1).and_then(|i| self.levels.get(i)) else {
            return f32::NAN;
        };
        let mut nodes = Vec::with_capacity(4);
        for r in (rows.0 >> l)..=(rows.1 >> l).min(lv.rows - 1) {
            for c in (cols.0 >> l)..=(cols.1 >> l).min(lv.cols - 1) {
                nodes.push(lv.nodes[r * lv.cols + c]);
            }
        }
        display_value(combine(&nodes))
    }

    /// The range of the grid's finite values (the top node's min and max).
    pub fn range(&self) -> ValueRange {
        match self.levels.last().map(|l| l.nodes[0]) {
            Some([lo, hi, _]) if classify(lo) == Class::Finite => ValueRange { lo, hi },
            _ => ValueRange { lo: 0.0, hi: 0.0 },
        }
    }

    /// Nodes in all levels.
    pub fn node_count(&self) -> usize {
        self.levels.iter().map(|l| l.nodes.len()).sum()
    }
}
