//! How a view or a storage is laid out as a 2-D grid of cells, and where each cell lives
//! in the storage.
//!
//! * A view of rank >= 2: `rows` = the product of the leading dims, `cols` = the last dim;
//!   the row index unravels (row-major) into the leading dims. Slices of dim `n - 2` start
//!   every [`Grid::slice_rows`] rows (a separator line is drawn there).
//! * A view of rank 0 or 1, and a storage strip: the elements wrap into lines of
//!   [`Grid::cols`] cells (cell `(r, c)` is element `r * cols + c`, present when below
//!   [`Grid::wrap_len`]).
//! * An image (see [`crate::present::render::image_layout`]): one cell per pixel, images stacked vertically,
//!   the three channels at `offset + k * channel_stride`.
//!
//! A cell's storage element is `offset + Σ index·stride` (i64), with no special case for
//! stride 0, negative strides or overlapping views.

use crate::core::tensor::DType;
use crate::present::render::{ImageLayout, RenderError};

/// A strided view as the renderer reads it: shape, strides and offset in elements of the
/// storage, and the dtype.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewSpec {
    /// The view's shape.
    pub shape: Vec<i64>,
    /// Strides in elements.
    pub stride: Vec<i64>,
    /// Storage offset in elements.
    pub offset: i64,
    /// The element type.
    pub dtype: DType,
}

impl ViewSpec {
    /// A view (shape and strides must have the same length).
    pub fn new(shape: &[i64], stride: &[i64], offset: i64, dtype: DType) -> ViewSpec {
        ViewSpec {
            shape: shape.to_vec(),
            stride: stride.to_vec(),
            offset,
            dtype,
        }
    }

    /// The whole storage of `n` elements as a 1-D view.
    pub fn storage(n: usize, dtype: DType) -> ViewSpec {
        ViewSpec::new(&[n as i64], &[1], 0, dtype)
    }

    /// The number of elements (0 when a dim is 0 or negative).
    pub fn numel(&self) -> usize {
        self.shape
            .iter()
            .try_fold(1usize, |acc, &n| acc.checked_mul(usize::try_from(n).ok()?))
            .unwrap_or(0)
    }

    /// What is drawn of a complex view: its real part, a view of the float halves (strides
    /// and offset doubled). Other dtypes are returned unchanged.
    pub fn real_part(&self) -> ViewSpec {
        if !self.dtype.is_complex() {
            return self.clone();
        }
        ViewSpec {
            shape: self.shape.clone(),
            stride: self.stride.iter().map(|s| s.saturating_mul(2)).collect(),
            offset: self.offset.saturating_mul(2),
            dtype: self.dtype.real_part(),
        }
    }
}

/// The strip width chosen for `n` wrapped elements: the power of two nearest `sqrt(n)`,
/// between 16 and 4096 (never more than `n`, at least 1).
pub fn default_strip_width(n: usize) -> usize {
    if n <= 16 {
        return n.max(1);
    }
    let root = (n as f64).sqrt();
    let p = root.log2().round().clamp(4.0, 12.0) as u32;
    (1usize << p).min(n)
}

/// What a grid's cells show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridKind {
    /// A view of rank >= 2 (rows: leading dims, columns: last dim).
    Matrix,
    /// A 0-d or 1-D view, or a storage strip, wrapped into lines.
    Wrapped,
    /// An RGB image: one cell per pixel, three channel elements each.
    Image,
}

/// A view or storage laid out as a grid of cells (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// What the cells show.
    pub kind: GridKind,
    /// Rows of cells.
    pub rows: usize,
    /// Columns of cells.
    pub cols: usize,
    /// The dims a row index unravels into (outermost first); empty for wrapped grids.
    pub row_shape: Vec<usize>,
    /// The strides of `row_shape`'s dims.
    pub row_stride: Vec<i64>,
    /// The stride of one column (of one element, for wrapped grids).
    pub col_stride: i64,
    /// Wrapped grids: the number of elements (cells past it are empty).
    pub wrap_len: Option<usize>,
    /// The storage offset of cell (0, 0).
    pub offset: i64,
    /// Rows per slice of dim `n - 2` for rank >= 3 (a separator every `slice_rows` rows),
    /// 0 when there is no separator.
    pub slice_rows: usize,
    /// Images: the stride between the R, G and B elements of a pixel.
    pub channel_stride: i64,
    /// The view's rank (for [`Grid::cell_index`]); images keep their channel dim.
    pub rank: usize,
    /// Images: the position of the channel dim in the index.
    pub channel_dim: usize,
    /// The element type of the storage.
    pub dtype: DType,
}

/// A dim of size 1 never moves the offset: its stride is dropped (so that as_strided's
/// huge strides on size-1 dims cannot overflow anything).
fn effective(n: i64, s: i64) -> i64 {
    if n <= 1 {
        0
    } else {
        s
    }
}

impl Grid {
    /// The heatmap grid of a view (complex views draw their real part).
    pub fn for_view(spec: &ViewSpec) -> Result<Grid, RenderError> {
        let spec = spec.real_part();
        if spec.shape.len() != spec.stride.len() {
            return Err(RenderError::RankMismatch {
                shape: spec.shape.len(),
                stride: spec.stride.len(),
            });
        }
        if spec.shape.len() > crate::present::render::MAX_RANK {
            return Err(RenderError::RankTooLarge(spec.shape.len()));
        }
        let numel = spec.numel();
        let rank = spec.shape.len();
        if rank <= 1 {
            let (len, stride) = match rank {
                0 => (1, 0),
                _ => (numel, effective(spec.shape[0], spec.stride[0])),
            };
            let cols = default_strip_width(len);
            return Ok(Grid {
                kind: GridKind::Wrapped,
                rows: len.div_ceil(cols.max(1)),
                cols,
                row_shape: Vec::new(),
                row_stride: Vec::new(),
                col_stride: stride,
                wrap_len: Some(len),
                offset: spec.offset,
                slice_rows: 0,
                channel_stride: 0,
                rank,
                channel_dim: 0,
                dtype: spec.dtype,
            });
        }
        let lead = &spec.shape[..rank - 1];
        let row_shape: Vec<usize> = lead.iter().map(|&n| n.max(0) as usize).collect();
        let rows = if numel == 0 {
            0
        } else {
            row_shape.iter().product()
        };
        Ok(Grid {
            kind: GridKind::Matrix,
            rows,
            cols: if numel == 0 {
                0
            } else {
                spec.shape[rank - 1] as usize
            },
            row_stride: lead
                .iter()
                .zip(&spec.stride)
                .map(|(&n, &s)| effective(n, s))
                .collect(),
            row_shape,
            col_stride: effective(spec.shape[rank - 1], spec.stride[rank - 1]),
            wrap_len: None,
            offset: spec.offset,
            slice_rows: if rank >= 3 {
                spec.shape[rank - 2].max(0) as usize
            } else {
                0
            },
            channel_stride: 0,
            rank,
            channel_dim: 0,
            dtype: spec.dtype,
        })
    }

    /// The strip of a whole storage of `n` elements, wrapped into lines of `width` cells
    /// (`default_strip_width(n)` when None; an image's strip reads best at its width `W`,
    /// or `3 W` for channels_last). Complex storages draw the real halves.
    pub fn for_storage(n: usize, dtype: DType, width: Option<usize>) -> Grid {
        let (n, dtype, step) = if dtype.is_complex() {
            (n.saturating_mul(2), dtype.real_part(), 2)
        } else {
            (n, dtype, 1)
        };
        let cells = n.div_ceil(step);
        let cols = width.unwrap_or_else(|| default_strip_width(cells)).max(1);
        Grid {
            kind: GridKind::Wrapped,
            rows: cells.div_ceil(cols),
            cols,
            row_shape: Vec::new(),
            row_stride: Vec::new(),
            col_stride: step as i64,
            wrap_len: Some(cells),
            offset: 0,
            slice_rows: 0,
            channel_stride: 0,
            rank: 1,
            channel_dim: 0,
            dtype,
        }
    }

    /// The RGB grid of an image-shaped view (`image` from [`crate::present::render::image_layout`] of the
    /// same view; `offset` is the view's storage offset).
    pub fn for_image(image: &ImageLayout, offset: i64, dtype: DType) -> Grid {
        Grid {
            kind: GridKind::Image,
            rows: image.n * image.h,
            cols: image.w,
            row_shape: vec![image.n, image.h],
            row_stride: vec![
                effective(image.n as i64, image.stride_n),
                effective(image.h as i64, image.stride_h),
            ],
            col_stride: effective(image.w as i64, image.stride_w),
            wrap_len: None,
            offset,
            slice_rows: if image.batched { image.h } else { 0 },
            channel_stride: image.stride_c,
            rank: image.rank,
            channel_dim: image.channel_dim,
            dtype,
        }
    }

    /// The number of cells that show an element.
    pub fn cell_count(&self) -> usize {
        self.wrap_len.unwrap_or(self.rows * self.cols)
    }

    /// True when cell `(row, col)` shows an element.
    pub fn has_cell(&self, row: usize, col: usize) -> bool {
        row < self.rows
            && col < self.cols
            && self.wrap_len.is_none_or(|len| row * self.cols + col < len)
    }

    /// The storage element of cell `(row, col)` (for images: of its first channel), or
    /// None when the cell is empty.
    pub fn cell_offset(&self, row: usize, col: usize) -> Option<i64> {
        if !self.has_cell(row, col) {
            return None;
        }
        if self.wrap_len.is_some() {
            let e = (row * self.cols + col) as i64;
            return Some(self.offset + e * self.col_stride);
        }
        let mut rest = row;
        let mut at = self.offset + col as i64 * self.col_stride;
        for (&n, &s) in self.row_shape.iter().zip(&self.row_stride).rev() {
            at += (rest % n.max(1)) as i64 * s;
            rest /= n.max(1);
        }
        Some(at)
    }

    /// The storage elements a cell reads: one, or the three channels of an image pixel.
    pub fn cell_offsets(&self, row: usize, col: usize) -> Vec<i64> {
        match self.cell_offset(row, col) {
            None => Vec::new(),
            Some(o) if self.kind == GridKind::Image => {
                (0..3).map(|k| o + k * self.channel_stride).collect()
            }
            Some(o) => vec![o],
        }
    }

    /// The view index of cell `(row, col)` (`i, j, ...`; images: channel 0's), or None
    /// when the cell is empty. A storage strip's index is the element.
    pub fn cell_index(&self, row: usize, col: usize) -> Option<Vec<usize>> {
        if !self.has_cell(row, col) {
            return None;
        }
        if self.wrap_len.is_some() {
            return Some(if self.rank == 0 {
                Vec::new()
            } else {
                vec![row * self.cols + col]
            });
        }
        let mut lead = Vec::with_capacity(self.row_shape.len());
        let mut rest = row;
        for &n in self.row_shape.iter().rev() {
            lead.push(rest % n.max(1));
            rest /= n.max(1);
        }
        lead.reverse();
        if self.kind == GridKind::Image {
            // Rows are [N, H]: the index is [n, c, h, w], [c, h, w] or [h, w, c].
            let mut index = if self.rank == 4 {
                vec![lead[0], lead[1], col]
            } else {
                vec![lead[1], col]
            };
            index.insert(self.channel_dim.min(index.len()), 0);
            return Some(index);
        }
        lead.push(col);
        Some(lead)
    }

    /// The cell showing view index `index` (the inverse of [`Grid::cell_index`]; images
    /// ignore the channel).
    pub fn cell_of_index(&self, index: &[usize]) -> Option<(usize, usize)> {
        if self.wrap_len.is_some() {
            let e = if self.rank == 0 { 0 } else { *index.first()? };
            let cell = (e / self.cols.max(1), e % self.cols.max(1));
            return self.has_cell(cell.0, cell.1).then_some(cell);
        }
        let (lead, col): (Vec<usize>, usize) = if self.kind == GridKind::Image {
            let spatial: Vec<usize> = index
                .iter()
                .enumerate()
                .filter(|&(d, _)| d != self.channel_dim)
                .map(|(_, &i)| i)
                .collect();
            match spatial.as_slice() {
                [n, h, w] => (vec![*n, *h], *w),
                [h, w] => (vec![0, *h], *w),
                _ => return None,
            }
        } else {
            let (&col, lead) = index.split_last()?;
            (lead.to_vec(), col)
        };
        if lead.len() != self.row_shape.len() {
            return None;
        }
        let mut row = 0usize;
        for (&i, &n) in lead.iter().zip(&self.row_shape) {
            if i >= n {
                return None;
            }
            row = row * n + i;
        }
        self.has_cell(row, col).then_some((row, col))
    }

    /// The strides of the grid's dims (outermost first, the column last) with their sizes:
    /// the pieces `offset + Σ index·stride` is made of.
    fn dims(&self) -> Vec<(usize, i64)> {
        if let Some(len) = self.wrap_len {
            return vec![(len, self.col_stride)];
        }
        let mut dims: Vec<(usize, i64)> = self
            .row_shape
            .iter()
            .copied()
            .zip(self.row_stride.iter().copied())
            .collect();
        dims.push((self.cols, self.col_stride));
        dims
    }

    /// Up to `cap` cells (in row-major order) that read storage element `target` (images:
    /// any of a pixel's channels): every alias of one element, found by bounding the
    /// remaining dims' reach instead of visiting every cell.
    pub fn cells_at_offset(&self, target: i64, cap: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        if self.rows == 0 || self.cols == 0 || cap == 0 {
            return out;
        }
        let dims = self.dims();
        let channels: Vec<i64> = if self.kind == GridKind::Image {
            vec![0, self.channel_stride, 2 * self.channel_stride]
        } else {
            vec![0]
        };
        let mut found: Vec<Vec<usize>> = Vec::new();
        for ch in channels {
            let mut index = vec![0usize; dims.len()];
            search(
                &dims,
                0,
                target - self.offset - ch,
                &mut index,
                &mut found,
                cap,
            );
        }
        let mut cells: Vec<(usize, usize)> = found
            .iter()
            .filter_map(|index| self.index_to_cell(index))
            .collect();
        crate::core::tensor::stable_sort::sort(&mut cells);
        cells.dedup();
        cells.truncate(cap);
        out.extend(cells);
        out
    }

    /// A multi-index over [`Grid::dims`] as a cell.
    fn index_to_cell(&self, index: &[usize]) -> Option<(usize, usize)> {
        if self.wrap_len.is_some() {
            let e = index[0];
            return Some((e / self.cols, e % self.cols));
        }
        let (&col, lead) = index.split_last()?;
        let row = lead
            .iter()
            .zip(&self.row_shape)
            .fold(0usize, |acc, (&i, &n)| acc * n + i);
        Some((row, col))
    }
}

/// The lowest and highest sum `Σ i_k·s_k` dims `dims` reach.
fn reach(dims: &[(usize, i64)]) -> (i64, i64) {
    dims.iter().fold((0, 0), |(lo, hi), &(n, s)| {
        let r = (n as i64 - 1) * s;
        (lo + r.min(0), hi + r.max(0))
    })
}

/// Depth-first search for the indices whose `Σ i_k·s_k` over `dims[k..]` is `target`,
/// visiting only the values of `i_k` that leave a reachable remainder.
fn search(
    dims: &[(usize, i64)],
    k: usize,
    target: i64,
    index: &mut Vec<usize>,
    found: &mut Vec<Vec<usize>>,
    cap: usize,
) {
    if found.len() >= cap {
        return;
    }
    if k == dims.len() {
        if target == 0 {
            found.push(index.clone());
        }
        return;
    }
    let (n, s) = dims[k];
    let (lo, hi) = reach(&dims[k + 1..]);
    // i·s must lie in [target - hi, target - lo].
    let (first, last) = if s == 0 {
        if target - hi > 0 || target - lo < 0 {
            return;
        }
        (0, n as i64 - 1)
    } else if s > 0 {
        (
            (target - hi).div_euclid(s) + i64::from((target - hi).rem_euclid(s) != 0),
            (target - lo).div_euclid(s),
        )
    } else {
        let p = -s;
        (
            (lo - target).div_euclid(p) + i64::from((lo - target).rem_euclid(p) != 0),
            (hi - target).div_euclid(p),
        )
    };
    let first = first.max(0);
    let last = last.min(n as i64 - 1);
    for i in first..=last {
        index[k] = i as usize;
        search(dims, k + 1, target - i * s, index, found, cap);
        if found.len() >= cap {
            return;
        }
    }
}
