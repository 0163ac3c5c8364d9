//! Layout math: where each element of a strided view lives, and PyTorch's rules about it
//! (contiguity, `view` compatibility, broadcasting, output-stride inference).
//!
//! Everything here is pure arithmetic on shapes and strides, in elements.

/// Shape, strides (in elements) and storage offset of a strided view.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Layout {
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub offset: i64,
}

/// PyTorch's two dense memory formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryFormat {
    Contiguous,
    ChannelsLast,
    Preserve,
}

impl MemoryFormat {
    /// `repr(torch.channels_last)`.
    pub fn torch_repr(self) -> &'static str {
        match self {
            MemoryFormat::Contiguous => "torch.contiguous_format",
            MemoryFormat::ChannelsLast => "torch.channels_last",
            MemoryFormat::Preserve => "torch.preserve_format",
        }
    }
}

impl Layout {
    /// A fresh row-major layout of `shape` at offset 0.
    pub fn contiguous(shape: &[i64]) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    /// A fresh layout in `format` (channels_last needs rank 4; otherwise row-major).
    pub fn with_format(shape: &[i64], format: MemoryFormat) -> Layout {
        match format {
            MemoryFormat::ChannelsLast if shape.len() == 4 => Layout {
                shape: shape.to_vec(),
                strides: channels_last_strides(shape),
                offset: 0,
            },
            _ => Layout::contiguous(shape),
        }
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn numel(&self) -> i64 {
        numel_of(&self.shape)
    }

    /// `is_contiguous()`: row-major, ignoring size-1 dims; every empty tensor is contiguous.
    pub fn is_contiguous(&self) -> bool {
        if self.numel() == 0 {
            return true;
        }
        let mut expected: i64 = 1;
        for d in (0..self.ndim()).rev() {
            if self.shape[d] != 1 {
                if self.strides[d] != expected {
                    return false;
                }
                expected = expected.saturating_mul(self.shape[d]);
            }
        }
        true
    }

    /// `is_contiguous(memory_format=torch.channels_last)`: rank 4, dims ordered C, W, H, N from
    /// the innermost, ignoring size-1 dims.
    pub fn is_channels_last_contiguous(&self) -> bool {
        if self.ndim() != 4 {
            return false;
        }
        let mut expected: i64 = 1;
        for d in [1, 3, 2, 0] {
            if self.shape[d] != 1 {
                if self.strides[d] != expected {
                    return false;
                }
                expected = expected.saturating_mul(self.shape[d]);
            }
        }
        true
    }

    /// `is_contiguous(memory_format)`.
    pub fn is_contiguous_as(&self, format: MemoryFormat) -> bool {
        match format {
            MemoryFormat::ChannelsLast => self.is_channels_last_contiguous(),
            _ => self.is_contiguous(),
        }
    }

    /// `is_non_overlapping_and_dense()`: some permutation of the dims is row-major.
    pub fn is_non_overlapping_and_dense(&self) -> bool {
        if self.is_contiguous() || self.is_channels_last_contiguous() {
            return true;
        }
        let n = self.ndim();
        if n == 1 {
            return self.shape[0] < 2 || self.strides[0] == 1;
        }
        let mut perm: Vec<usize> = (0..n).collect();
        // Sort by stride, size 0 and 1 dims last (a stable sort of PyTorch's comparator).
        crate::core::tensor::stable_sort::sort_by(&mut perm, |&a, &b| {
            let a_small = self.shape[a] < 2;
            let b_small = self.shape[b] < 2;
            match (a_small, b_small) {
                (true, true) => std::cmp::Ordering::Equal,
                (true, false) => std::cmp::Ordering::Greater,
                (false, true) => std::cmp::Ordering::Less,
                (false, false) => self.strides[a].cmp(&self.strides[b]),
            }
        });
        let mut required: i64 = 1;
        for &d in &perm {
            if self.shape[d] < 2 {
                return true;
            }
            if self.strides[d] != required {
                return false;
            }
            required = required.saturating_mul(self.shape[d]);
        }
        true
    }

    /// `suggest_memory_format()`: channels_last when the strides look like it.
    pub fn suggest_memory_format(&self) -> MemoryFormat {
        if self.strides_like_channels_last() {
            MemoryFormat::ChannelsLast
        } else {
            MemoryFormat::Contiguous
        }
    }

    /// c10's `is_channels_last_strides_2d`: the heuristic behind `suggest_memory_format`.
    pub fn strides_like_channels_last(&self) -> bool {
        if self.ndim() != 4 {
            return false;
        }
        let mut min: i64 = 0;
        // Special case: C is 1 and the strides are ambiguous; the rule below decides.
        if self.strides[1] == 0 {
            return false;
        }
        for d in [1usize, 3, 2, 0] {
            if self.shape[d] == 0 {
                return false;
            }
            if self.strides[d] < min {
                return false;
            }
            // Fallback to NCHW for ambiguous N11W-like layouts (`[N, 1, 1, W]`).
            if d == 0 && min == self.strides[1] {
                return false;
            }
            min = self.strides[d];
            if self.shape[d] > 1 {
                min = min.saturating_mul(self.shape[d]);
            }
        }
        true
    }

    /// Storage element index of the element at logical `index`.
    pub fn element_offset(&self, index: &[i64]) -> i64 {
        self.offset
            + index
                .iter()
                .zip(&self.strides)
                .map(|(i, s)| i * s)
                .sum::<i64>()
    }

    /// The lowest and one-past-highest storage element this view reaches, or None when empty.
    pub fn extent(&self) -> Option<(i64, i64)> {
        if self.numel() == 0 {
            return None;
        }
        let mut lo = self.offset;
        let mut hi = self.offset;
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            let reach = (n - 1).saturating_mul(s);
            if reach < 0 {
                lo = lo.saturating_add(reach);
            } else {
                hi = hi.saturating_add(reach);
            }
        }
        Some((lo, hi + 1))
    }

    /// Storage element indices in logical row-major order.
    pub fn offsets(&self) -> OffsetIter {
        OffsetIter::new(self)
    }

    /// Wraps a possibly negative `dim` into `0..ndim`, with PyTorch's error text.
    pub fn wrap_dim(&self, dim: i64) -> Result<usize, String> {
        wrap_dim(dim, self.ndim())
    }
}

/// Wraps `dim` for a tensor of rank `ndim` (a 0-d tensor accepts -1 and 0).
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize, String> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        return Err(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {})",
            -n,
            n - 1,
            dim
        ));
    }
    Ok(if dim < 0 {
        (dim + n) as usize
    } else {
        dim as usize
    })
}

/// The product of `shape`, saturating at `i64::MAX` (0 whenever a dim is 0).
pub fn numel_of(shape: &[i64]) -> i64 {
    if shape.contains(&0) {
        return 0;
    }
    shape.iter().fold(1i64, |acc, &n| acc.saturating_mul(n))
}

/// Row-major strides of `shape` (size 0 and 1 dims treated as 1 when multiplying).
pub fn contiguous_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![0; shape.len()];
    let mut next: i64 = 1;
    for d in (0..shape.len()).rev() {
        strides[d] = next;
        next = next.saturating_mul(shape[d].max(1));
    }
    strides
}

/// Channels-last strides of a rank-4 `shape` (`N, C, H, W` laid out as `N, H, W, C`).
/// Unlike contiguous strides, c10's `get_channels_last_strides_2d` multiplies the raw sizes,
/// so a 0-size dim zeroes the strides outside it.
pub fn channels_last_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![0; 4];
    let mut next: i64 = 1;
    for d in [1usize, 3, 2, 0] {
        strides[d] = next;
        next = next.saturating_mul(shape[d]);
    }
    strides
}

/// ATen's `computeStride`: the strides that let `new_shape` view the same elements as the
/// old layout, or None when some dimension spans two contiguous subspaces.
pub fn compute_view_strides(
    old_shape: &[i64],
    old_strides: &[i64],
    new_shape: &[i64],
) -> Option<Vec<i64>> {
    if old_shape.is_empty() {
        return Some(vec![1; new_shape.len()]);
    }
    let numel: i64 = numel_of(old_shape);
    if numel == 0 && old_shape == new_shape {
        return Some(old_strides.to_vec());
    }
    let mut new_strides = vec![0i64; new_shape.len()];
    if numel == 0 {
        for d in (0..new_shape.len()).rev() {
            new_strides[d] = if d + 1 == new_shape.len() {
                1
            } else {
                new_shape[d + 1].max(1).saturating_mul(new_strides[d + 1])
            };
        }
        return Some(new_strides);
    }
    let mut view_d = new_shape.len() as i64 - 1;
    let mut chunk_base_stride = *old_strides.last()?;
    let mut tensor_numel = 1i64;
    let mut view_numel = 1i64;
    for tensor_d in (0..old_shape.len()).rev() {
        tensor_numel = tensor_numel.saturating_mul(old_shape[tensor_d]);
        let chunk_ends = tensor_d == 0
            || (old_shape[tensor_d - 1] != 1
                && old_strides[tensor_d - 1] != tensor_numel.wrapping_mul(chunk_base_stride));
        if chunk_ends {
            while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel.wrapping_mul(chunk_base_stride);
                view_numel = view_numel.saturating_mul(new_shape[view_d as usize]);
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_strides)
}

/// ATen's `infer_size`: resolves one `-1` in a requested shape for `numel` elements.
pub fn infer_view_shape(requested: &[i64], numel: i64) -> Result<Vec<i64>, String> {
    let mut new_size = 1i64;
    let mut infer_dim = None;
    for (d, &n) in requested.iter().enumerate() {
        if n == -1 {
            if infer_dim.is_some() {
                return Err("only one dimension can be inferred".into());
            }
            infer_dim = Some(d);
        } else if n >= 0 {
            new_size = new_size.saturating_mul(n);
        } else {
            return Err(format!("invalid shape dimension {n}"));
        }
    }
    let mut shape = requested.to_vec();
    if numel == new_size || (infer_dim.is_some() && new_size > 0 && numel % new_size == 0) {
        if let Some(d) = infer_dim {
            if new_size == 0 {
                return Err(format!(
                    "cannot reshape tensor of 0 elements into shape {} because the unspecified dimension size -1 can be any value and is ambiguous",
                    list_str(requested)
                ));
            }
            shape[d] = numel / new_size;
        }
        return Ok(shape);
    }
    Err(format!(
        "shape '{}' is invalid for input of size {}",
        list_str(requested),
        numel
    ))
}

/// `[2, 3]`: how ATen prints an int list in messages.
pub fn list_str(values: &[i64]) -> String {
    let parts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// ATen's `infer_size` for broadcasting two shapes, with its error text.
pub fn broadcast_shapes(a: &[i64], b: &[i64]) -> Result<Vec<i64>, String> {
    let ndim = a.len().max(b.len());
    let mut out = vec![0; ndim];
    for i in (0..ndim).rev() {
        let offset = ndim - 1 - i;
        let size_a = if offset < a.len() {
            a[a.len() - 1 - offset]
        } else {
            1
        };
        let size_b = if offset < b.len() {
            b[b.len() - 1 - offset]
        } else {
            1
        };
        if size_a != size_b && size_a != 1 && size_b != 1 {
            return Err(format!(
                "The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at non-singleton dimension {i}"
            ));
        }
        out[i] = if size_a == 1 { size_b } else { size_a };
    }
    Ok(out)
}

/// ATen's `infer_dense_strides`: dense strides that keep the dim order of `strides`
/// (used by `clone` and `to` on views that are not dense).
pub fn infer_dense_strides(shape: &[i64], strides: &[i64]) -> Vec<i64> {
    let n = shape.len();
    // perm[0] is the innermost dim.
    let mut perm: Vec<usize> = (0..n).rev().collect();
    let should_swap = |d0: usize, d1: usize| -> i32 {
        let (s0, s1) = (strides[d0], strides[d1]);
        if s0 == 0 || s1 == 0 {
            return 0;
        }
        if s0 < s1 {
            return -1;
        }
        if s0 > s1 {
            return 1;
        }
        if shape[d0] > shape[d1] {
            return 1;
        }
        0
    };
    for i in 1..n {
        let mut dim1 = i;
        for j in 1..=i {
            let dim0 = i - j;
            let c = should_swap(perm[dim0], perm[dim1]);
            if c > 0 {
                perm.swap(dim0, dim1);
                dim1 = dim0;
            } else if c < 0 {
                break;
            }
        }
    }
    let mut out = vec![0; n];
    let mut current: i64 = 1;
    for &d in &perm {
        out[d] = current;
        if shape[d] > 1 {
            current = current.saturating_mul(shape[d]);
        }
    }
    out
}

/// One operand of an elementwise op, for TensorIterator's output-layout rule.
pub struct OperandLayout<'a> {
    pub shape: &'a [i64],
    pub strides: &'a [i64],
    pub item_size: i64,
}

/// An operand's strides in bytes once broadcast to `shape` (0 on broadcast dims), as
/// TensorIterator's `compute_strides` records them.
pub fn broadcast_byte_strides(shape: &[i64], op: &OperandLayout<'_>) -> Vec<i64> {
    let n = shape.len();
    let offset = n - op.shape.len().min(n);
    let mut s = vec![0; n];
    for (i, (&size, &stride)) in op.shape.iter().zip(op.strides).enumerate() {
        if offset + i >= n {
            break;
        }
        s[offset + i] = if size == 1 && shape[offset + i] != 1 {
            0
        } else {
            stride * op.item_size
        };
    }
    s
}

/// TensorIterator's `reorder_dimensions`: the order in which it walks the dims, fastest
/// first. Dims are sorted by the operands' byte strides (the first operand that tells them
/// apart decides; broadcast dims never do; equal strides put the smaller dim first).
pub fn iteration_order(shape: &[i64], op_strides: &[Vec<i64>]) -> Vec<usize> {
    let n = shape.len();
    let should_swap = |d0: usize, d1: usize| -> i32 {
        for s in op_strides {
            let (s0, s1) = (s[d0], s[d1]);
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s0 < s1 {
                return -1;
            }
            if s0 > s1 {
                return 1;
            }
            if shape[d0] > shape[d1] {
                return 1;
            }
        }
        0
    };
    let mut perm: Vec<usize> = (0..n).rev().collect();
    for i in 1..n {
        let mut dim1 = i;
        for dim0 in (0..i).rev() {
            let c = should_swap(perm[dim0], perm[dim1]);
            if c > 0 {
                perm.swap(dim0, dim1);
                dim1 = dim0;
            } else if c < 0 {
                break;
            }
        }
    }
    perm
}

/// TensorIterator's rule for the layout of a freshly allocated elementwise output:
/// the fast paths (all contiguous, all channels_last, all the same dense strides), else the
/// dim order sorted by the inputs' strides (`reorder_dimensions` + `compatible_stride`).
pub fn elementwise_output_strides(shape: &[i64], inputs: &[OperandLayout<'_>]) -> Vec<i64> {
    let n = shape.len();
    let all_same_shape = inputs.iter().all(|op| op.shape == shape);
    if all_same_shape && !inputs.is_empty() {
        let layouts: Vec<Layout> = inputs
            .iter()
            .map(|op| Layout {
                shape: op.shape.to_vec(),
                strides: op.strides.to_vec(),
                offset: 0,
            })
            .collect();
        if layouts.iter().all(Layout::is_contiguous) {
            return contiguous_strides(shape);
        }
        if layouts.iter().all(Layout::is_channels_last_contiguous) {
            return channels_last_strides(shape);
        }
        if layouts.iter().all(Layout::is_non_overlapping_and_dense)
            && layouts.iter().all(|l| l.strides == layouts[0].strides)
        {
            return layouts[0].strides.clone();
        }
    }
    if n <= 1 {
        return contiguous_strides(shape);
    }
    // Byte strides of each operand broadcast to `shape` (0 for broadcast dims).
    let op_strides: Vec<Vec<i64>> = inputs
        .iter()
        .map(|op| broadcast_byte_strides(shape, op))
        .collect();
    let perm = iteration_order(shape, &op_strides);
    if perm.iter().enumerate().all(|(i, &d)| d == n - 1 - i) {
        // The row-major order: TensorIterator allocates a plain contiguous tensor.
        return contiguous_strides(shape);
    }
    let mut out = vec![0; n];
    let mut next: i64 = 1;
    for &d in &perm {
        out[d] = next;
        next = next.saturating_mul(shape[d]);
    }
    out
}

/// Iterates the storage element indices of a view in logical row-major order, updating the
/// offset incrementally (no division per element).
pub struct OffsetIter {
    shape: Vec<i64>,
    strides: Vec<i64>,
    index: Vec<i64>,
    current: i64,
    remaining: i64,
}

impl OffsetIter {
    fn new(layout: &Layout) -> OffsetIter {
        OffsetIter {
            shape: layout.shape.clone(),
            strides: layout.strides.clone(),
            index: vec![0; layout.ndim()],
            current: layout.offset,
            remaining: layout.numel(),
        }
    }
}

impl Iterator for OffsetIter {
    type Item = i64;

    fn next(&mut self) -> Option<i64> {
        if self.remaining <= 0 {
            return None;
        }
        self.remaining -= 1;
        let value = self.current;
        for d in (0..self.shape.len()).rev() {
            self.index[d] += 1;
            self.current = self.current.wrapping_add(self.strides[d]);
            if self.index[d] < self.shape[d] {
                break;
            }
            self.current = self
                .current
                .wrapping_sub(self.strides[d].wrapping_mul(self.shape[d]));
            self.index[d] = 0;
        }
        Some(value)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.remaining.max(0) as usize;
        (n, Some(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_rule_matches_aten() {
        // A transposed 5x3 cannot be flattened without a copy.
        assert_eq!(compute_view_strides(&[3, 5], &[1, 3], &[15]), None);
        assert_eq!(
            compute_view_strides(&[2, 3, 4], &[12, 4, 1], &[6, 4]),
            Some(vec![4, 1])
        );
        assert_eq!(
            compute_view_strides(&[5, 1], &[1, 1], &[1, 5, 1]),
            Some(vec![5, 1, 1])
        );
        assert_eq!(compute_view_strides(&[], &[], &[1, 1]), Some(vec![1, 1]));
    }

    #[test]
    fn elementwise_output_keeps_transposed_order() {
        let op = OperandLayout {
            shape: &[3, 5],
            strides: &[1, 3],
            item_size: 8,
        };
        let scalar = OperandLayout {
            shape: &[],
            strides: &[],
            item_size: 8,
        };
        assert_eq!(
            elementwise_output_strides(&[3, 5], &[op, scalar]),
            vec![1, 3]
        );
    }

    #[test]
    fn offsets_walk_row_major() {
        let l = Layout {
            shape: vec![2, 3],
            strides: vec![1, 2],
            offset: 1,
        };
        assert_eq!(l.offsets().collect::<Vec<_>>(), vec![1, 3, 5, 2, 4, 6]);
        assert_eq!(l.extent(), Some((1, 7)));
    }

    #[test]
    fn dense_strides_keep_permutation() {
        assert_eq!(infer_dense_strides(&[2, 3, 4], &[1, 8, 2]), vec![1, 8, 2]);
        assert_eq!(infer_dense_strides(&[3, 5], &[2, 10]), vec![1, 3]);
    }
}

/// Why `view(target)` is impossible for a layout: the old dims grouped into the contiguous
/// subspaces `view` may regroup, and the target dims that would have to span two of them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ViewExplanation {
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub target: Vec<i64>,
    /// Old dims, grouped into contiguous subspaces, in dim order.
    pub subspaces: Vec<Vec<usize>>,
    /// Target dims that span two subspaces.
    pub spanning: Vec<usize>,
}

/// Explains a failed `view` (None when the view is possible or a tensor is empty).
pub fn explain_view(shape: &[i64], strides: &[i64], target: &[i64]) -> Option<ViewExplanation> {
    if shape.is_empty()
        || numel_of(shape) == 0
        || compute_view_strides(shape, strides, target).is_some()
    {
        return None;
    }
    // Subspaces, found from the innermost dim as `computeStride` does.
    let mut subspaces: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let mut base = *strides.last()?;
    let mut chunk_numel: i64 = 1;
    for d in (0..shape.len()).rev() {
        current.insert(0, d);
        chunk_numel = chunk_numel.saturating_mul(shape[d]);
        let ends =
            d == 0 || (shape[d - 1] != 1 && strides[d - 1] != chunk_numel.wrapping_mul(base));
        if ends {
            subspaces.insert(0, std::mem::take(&mut current));
            if d > 0 {
                base = strides[d - 1];
                chunk_numel = 1;
            }
        }
    }
    // Walk the target dims from the innermost, matching them against subspace sizes.
    let sizes: Vec<i64> = subspaces
        .iter()
        .map(|s| s.iter().map(|&d| shape[d]).product())
        .collect();
    let mut spanning = Vec::new();
    let mut chunk = sizes.len();
    let mut need: i64 = 1;
    let mut have: i64 = 1;
    for t in (0..target.len()).rev() {
        if have == need {
            if chunk == 0 {
                break;
            }
            chunk -= 1;
            need = sizes[chunk];
            have = 1;
        }
        have = have.saturating_mul(target[t]);
        while have > need && chunk > 0 {
            // This target dim crosses into the next subspace.
            if !spanning.contains(&t) {
                spanning.insert(0, t);
            }
            chunk -= 1;
            need = need.saturating_mul(sizes[chunk]);
        }
        if have != need && have > need && !spanning.contains(&t) {
            spanning.insert(0, t);
        }
    }
    Some(ViewExplanation {
        shape: shape.to_vec(),
        strides: strides.to_vec(),
        target: target.to_vec(),
        subspaces,
        spanning,
    })
}

#[cfg(test)]
mod explain_tests {
    use super::*;

    #[test]
    fn flattening_a_transpose_spans_both_subspaces() {
        let e = explain_view(&[3, 5], &[1, 3], &[15]).expect("explanation");
        assert_eq!(e.subspaces, vec![vec![0], vec![1]]);
        assert_eq!(e.spanning, vec![0]);
        assert_eq!(explain_view(&[2, 3], &[3, 1], &[6]), None);
    }

    #[test]
    fn only_the_dims_that_cross_are_marked() {
        // [2, 3, 4] with dims 1 and 2 swapped: (2) and (3),(4) are separate subspaces... merging
        // the last two target dims across them fails.
        let e = explain_view(&[2, 4, 3], &[12, 1, 4], &[2, 12]).expect("explanation");
        assert_eq!(e.subspaces, vec![vec![0], vec![1], vec![2]]);
        assert_eq!(e.spanning, vec![1]);
    }
}
