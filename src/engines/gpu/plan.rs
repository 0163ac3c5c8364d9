//! Host-side layout planning for the kernels: which order to walk the elements in, and
//! which dims collapse into one.
//!
//! Every kernel walks one iteration space (a shape) and reads or writes several strided
//! views of it (the destination first). Planning drops size-1 dims, reorders the dims by
//! the destination's strides (when the destination does not overlap itself, the order of
//! the writes cannot matter) and merges neighbouring dims that stay contiguous in every
//! view, as ONNX Runtime Web squeezes a channels_last transpose to 2-D.

use crate::core::tensor::Tensor;

/// Most dims a kernel's uniform block describes; longer plans are split on the host.
pub const MAX_KERNEL_RANK: usize = 8;

/// A strided view of the iteration space: storage offset and strides, in elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedView {
    pub offset: u64,
    pub strides: Vec<u64>,
}

/// One iteration space and the views walked over it (`views[0]` is the destination).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IterPlan {
    pub shape: Vec<u64>,
    pub views: Vec<PlannedView>,
}

/// Why a view cannot go to a kernel as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanIssue {
    /// Negative strides or offsets (never produced by PyTorch views).
    Negative,
}

impl IterPlan {
    /// Number of elements.
    pub fn numel(&self) -> u64 {
        self.shape.iter().product()
    }

    /// Plans the walk of `shape` over `views` (`views[0]` is the destination, the others are
    /// read). With `reorder`, dims are sorted by the destination's strides, outermost
    /// first. Returns `Ok(None)` for an empty iteration space.
    pub fn new(
        shape: &[i64],
        views: &[(&[i64], i64)],
        reorder: bool,
    ) -> Result<Option<IterPlan>, PlanIssue> {
        if shape.contains(&0) {
            return Ok(None);
        }
        let mut dims: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] != 1).collect();
        for (strides, offset) in views {
            if *offset < 0 || dims.iter().any(|&d| strides[d] < 0) {
                return Err(PlanIssue::Negative);
            }
        }
        if reorder && !views.is_empty() {
            // Outermost first: descending destination stride, then descending source strides.
            crate::core::tensor::stable_sort::sort_by(&mut dims, |&a, &b| {
                let key = |d: usize| -> Vec<i64> { views.iter().map(|(s, _)| s[d]).collect() };
                key(b).cmp(&key(a))
            });
        }
        let mut plan = IterPlan {
            shape: dims.iter().map(|&d| shape[d] as u64).collect(),
            views: views
                .iter()
                .map(|(strides, offset)| PlannedView {
                    offset: *offset as u64,
                    strides: dims.iter().map(|&d| strides[d] as u64).collect(),
                })
                .collect(),
        };
        plan.collapse();
        if plan.shape.is_empty() {
            plan.shape.push(1);
            for v in &mut plan.views {
                v.strides.push(0);
            }
        }
        Ok(Some(plan))
    }

    /// Merges dim `d` into dim `d + 1` wherever every view has `stride[d] == stride[d+1] *
    /// shape[d+1]`.
    fn collapse(&mut self) {
        let mut d = 0;
        while d + 1 < self.shape.len() {
            let inner = self.shape[d + 1];
            let mergeable = self
                .views
                .iter()
                .all(|v| v.strides[d] == v.strides[d + 1] * inner);
            if mergeable {
                self.shape[d + 1] *= self.shape[d];
                self.shape.remove(d);
                for v in &mut self.views {
                    v.strides.remove(d);
                }
            } else {
                d += 1;
            }
        }
    }

    /// Drops the dims where the destination's stride is 0 (a fill writes the same value
    /// there), keeping the plan at least 1-D.
    pub fn drop_destination_broadcast(&mut self) {
        let keep: Vec<usize> = (0..self.shape.len())
            .filter(|&d| self.views[0].strides[d] != 0 || self.shape[d] == 1)
            .collect();
        if keep.len() == self.shape.len() {
            return;
        }
        self.shape = keep.iter().map(|&d| self.shape[d]).collect();
        for v in &mut self.views {
            v.strides = keep.iter().map(|&d| v.strides[d]).collect();
        }
        if self.shape.is_empty() {
            self.shape.push(1);
            for v in &mut self.views {
                v.strides.push(0);
            }
        }
        self.collapse();
    }

    /// True when view `v` walks its elements as one contiguous run (strides row-major).
    pub fn is_dense(&self, v: usize) -> bool {
        let mut expected = 1u64;
        for d in (0..self.shape.len()).rev() {
            if self.shape[d] != 1 && self.views[v].strides[d] != expected {
                return false;
            }
            expected *= self.shape[d];
        }
        true
    }

    /// Splits the plan into pieces of at most `MAX_KERNEL_RANK` dims: the outer dims are
    /// walked on the host, each piece with its own offsets.
    pub fn split_for_kernel(&self) -> Vec<IterPlan> {
        let rank = self.shape.len();
        if rank <= MAX_KERNEL_RANK {
            return vec![self.clone()];
        }
        let outer = rank - MAX_KERNEL_RANK;
        let count: u64 = self.shape[..outer].iter().product();
        let mut pieces = Vec::with_capacity(count as usize);
        for flat in 0..count {
            let mut rest = flat;
            let mut offsets: Vec<u64> = self.views.iter().map(|v| v.offset).collect();
            for d in (0..outer).rev() {
                let i = rest % self.shape[d];
                rest /= self.shape[d];
                for (o, v) in offsets.iter_mut().zip(&self.views) {
                    *o += i * v.strides[d];
                }
            }
            pieces.push(IterPlan {
                shape: self.shape[outer..].to_vec(),
                views: self
                    .views
                    .iter()
                    .zip(offsets)
                    .map(|(v, offset)| PlannedView {
                        offset,
                        strides: v.strides[outer..].to_vec(),
                    })
                    .collect(),
            });
        }
        pieces
    }
}

/// True when no two elements of `t` share a storage element (a sufficient test: sorted by
/// stride, each stride passes the reach of all smaller ones).
pub fn is_non_overlapping(t: &Tensor) -> bool {
    let mut dims: Vec<(i64, i64)> = t
        .layout
        .shape
        .iter()
        .zip(&t.layout.strides)
        .filter(|(&n, _)| n > 1)
        .map(|(&n, &s)| (s.abs(), n))
        .collect();
    crate::core::tensor::stable_sort::sort(&mut dims);
    let mut reach = 0i64;
    for (stride, n) in dims {
        if stride <= reach {
            return false;
        }
        reach = reach.saturating_add(stride.saturating_mul(n - 1));
    }
    true
}

/// True when the bytes two views reach are disjoint (then no element of one is written
/// before it is read through the other).
pub fn disjoint_extents(a: &Tensor, b: &Tensor) -> bool {
    let bytes = |t: &Tensor| {
        t.layout.extent().map(|(lo, hi)| {
            let item = t.dtype.item_size() as i64;
            (lo * item, hi * item)
        })
    };
    match (bytes(a), bytes(b)) {
        (Some((alo, ahi)), Some((blo, bhi))) => ahi <= blo || bhi <= alo,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nchw_to_nhwc_collapses_to_a_batched_transpose() {
        // dst: NHWC-dense strides of shape [8, 64, 128, 256]; src: NCHW contiguous.
        let shape = [8i64, 64, 128, 256];
        let dst = [64 * 128 * 256, 1, 256 * 64, 64];
        let src = [64 * 128 * 256, 128 * 256, 256, 1];
        let plan = IterPlan::new(&shape, &[(&dst, 0), (&src, 0)], true)
            .unwrap()
            .unwrap();
        assert_eq!(plan.shape, vec![8, 128 * 256, 64]);
        assert_eq!(plan.views[1].strides, vec![64 * 128 * 256, 1, 128 * 256]);
        assert!(plan.is_dense(0));
    }

    #[test]
    fn contiguous_copy_is_one_run() {
        let plan = IterPlan::new(&[3, 4], &[(&[4, 1], 2), (&[4, 1], 0)], true)
            .unwrap()
            .unwrap();
        assert_eq!(plan.shape, vec![12]);
        assert!(plan.is_dense(0) && plan.is_dense(1));
    }

    #[test]
    fn long_plans_split_on_the_host() {
        let shape = vec![2i64; 10];
        let strides: Vec<i64> = (0..10).map(|d| 1i64 << (2 * d)).collect();
        let plan = IterPlan::new(&shape, &[(&strides, 0)], false)
            .unwrap()
            .unwrap();
        let pieces = plan.split_for_kernel();
        assert_eq!(pieces.len(), 4);
        assert!(pieces.iter().all(|p| p.shape.len() == MAX_KERNEL_RANK));
    }
}
