//! The buffers PyTorch 2.15's `torch/_tensor_str.py` allocates while it prints a tensor
//! (`print(t)`, `str(t)`, a bare `t` in a notebook): they raise the step's peak, never its
//! live bytes.
//!
//! A tensor of more than 1000 elements is first cut to its edge items (`get_summarized_data`:
//! a `cat` of the first and last three of each row, the rows `stack`ed). Then `_Formatter`
//! looks at the floating values: `isfinite(v) & v.ne(0)` (an `abs`, wrapped numbers and
//! their casts, bool masks), `masked_select` (the mask summed as int64 first), the selected
//! values' `abs` as float64 with its `min` and `max`, a `ceil` and `!=` per value until one is
//! not an integer, and `max / min > 1000.0 or max > 1e8 or min < 1e-4`, whose last evaluated
//! 0-d bool tensor the formatter keeps (`sci_mode`). `reshape(-1)` copies a layout that no
//! flat view can see. Integer and bool tensors allocate only that copy. A complex tensor is
//! two formatters, its real and imaginary halves. Measured with `torch.profiler` against
//! this model event by event: float16/bfloat16/float32/float64, 0-d, transposed, zeros,
//! nan/inf, sci mode, summarized 1-, 2- and 3-D, complex.

use crate::core::tensor::layout::compute_view_strides;
use crate::core::tensor::{DType, Tensor};
use crate::interp::Evaluator;

/// `torch._tensor_str.PRINT_OPTS.threshold`: more elements than this are summarized.
const THRESHOLD: i64 = 1000;
/// `PRINT_OPTS.edgeitems`: the items kept at each end of a summarized dimension.
const EDGE_ITEMS: i64 = 3;
/// A wrapped Python number (a 0-d float64 or int64 tensor) and `min`/`max`'s float64 results.
const WRAPPED: i64 = 8;

impl Evaluator {
    /// Notes the buffers printing `t` allocates (see the module's doc).
    /// A notebook's display of a bare expression is not counted: it runs after the step.
    pub(crate) fn note_tensor_str_buffers(&mut self, t: &Tensor) {
        if t.numel() <= 0 || self.torch.device.meta_op || self.accounting.displaying {
            return;
        }
        let parts: Vec<Tensor> = if t.dtype.is_complex() {
            vec![t.complex_part(0), t.complex_part(1)]
        } else {
            vec![t.clone()]
        };
        let summarize = t.numel() > THRESHOLD;
        let mut events = Vec::new();
        let mut kept = 0;
        for part in &parts {
            let item = part.dtype.item_size() as i64;
            let (cut, shape) = if summarize {
                summarized_events(part.shape(), item)
            } else {
                (Vec::new(), part.shape().to_vec())
            };
            let cut_bytes: i64 = cut.iter().sum();
            events.extend(cut);
            let values = if part.dtype.is_floating() {
                self.formatted_values(part, summarize)
            } else {
                Vec::new()
            };
            let viewable = summarize
                || compute_view_strides(part.shape(), &part.layout.strides, &[part.numel()])
                    .is_some();
            let formatter = FormatterInput {
                numel: shape.iter().product(),
                item,
                dtype: part.dtype,
                viewable,
                values: &values,
            };
            kept += formatter.events(&mut events);
            if cut_bytes > 0 {
                events.push(-cut_bytes);
            }
        }
        events.push(-kept);
        self.note_kernel_events(&events);
    }

    /// The values `_Formatter` sees, row-major: all of them, or the summarized edge items.
    fn formatted_values(&mut self, t: &Tensor, summarize: bool) -> Vec<f64> {
        let read = self.element_reader(t);
        let shape = t.shape();
        let kept: Vec<Vec<i64>> = shape
            .iter()
            .map(|&n| {
                if summarize {
                    edge_indices(n)
                } else {
                    (0..n).collect()
                }
            })
            .collect();
        if kept.iter().any(Vec::is_empty) {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut index = vec![0usize; shape.len()];
        'walk: loop {
            let mut flat = 0i64;
            for (d, &i) in index.iter().enumerate() {
                flat = flat * shape[d] + kept[d][i];
            }
            out.push(read(flat as usize).to_f64());
            for d in (0..index.len()).rev() {
                index[d] += 1;
                if index[d] < kept[d].len() {
                    continue 'walk;
                }
                index[d] = 0;
            }
            break;
        }
        out
    }
}

/// The indices `get_summarized_data` keeps of a dimension of `n`.
fn edge_indices(n: i64) -> Vec<i64> {
    if n > 2 * EDGE_ITEMS {
        (0..EDGE_ITEMS).chain(n - EDGE_ITEMS..n).collect()
    } else {
        (0..n).collect()
    }
}

/// `get_summarized_data`'s allocations for a tensor of `shape` (their sum is the bytes of
/// the result it returns) and the result's shape.
fn summarized_events(shape: &[i64], item: i64) -> (Vec<i64>, Vec<i64>) {
    let summarized: Vec<i64> = shape
        .iter()
        .map(|&n| edge_indices(n).len() as i64)
        .collect();
    let mut events = Vec::new();
    let owned = summarize_into(shape, item, &mut events);
    debug_assert_eq!(events.iter().sum::<i64>(), owned);
    (events, summarized)
}

/// One level of `get_summarized_data`: the bytes of the tensor it returns if it allocated
/// one (0 for a view of its input).
fn summarize_into(shape: &[i64], item: i64, events: &mut Vec<i64>) -> i64 {
    match shape.len() {
        0 => 0,
        1 if shape[0] > 2 * EDGE_ITEMS => {
            events.push(2 * EDGE_ITEMS * item);
            2 * EDGE_ITEMS * item
        }
        1 => 0,
        _ => {
            let rows = edge_indices(shape[0]).len() as i64;
            let children: Vec<i64> = (0..rows)
                .map(|_| summarize_into(&shape[1..], item, events))
                .collect();
            let row_numel: i64 = shape[1..]
                .iter()
                .map(|&n| edge_indices(n).len() as i64)
                .product();
            let stacked = rows * row_numel * item;
            events.push(stacked);
            events.extend(children.iter().filter(|&&b| b > 0).map(|b| -b));
            stacked
        }
    }
}

/// What `_Formatter.__init__` is given.
struct FormatterInput<'a> {
    numel: i64,
    item: i64,
    dtype: DType,
    /// Whether `reshape(-1)` is a view (else it copies).
    viewable: bool,
    values: &'a [f64],
}

impl FormatterInput<'_> {
    /// Appends `_Formatter.__init__`'s allocations and frees; returns the bytes it still
    /// holds when it returns (its `sci_mode` bool tensor).
    fn events(&self, ev: &mut Vec<i64>) -> i64 {
        let (n, s) = (self.numel, self.item);
        let copy = if self.viewable { 0 } else { n * s };
        if copy > 0 {
            ev.push(copy);
        }
        if !self.dtype.is_floating() {
            if copy > 0 {
                ev.push(-copy);
            }
            return 0;
        }
        let double = self.dtype == DType::Float64;
        // isfinite: abs, `!= inf` (a wrapped float64 number, cast unless float64), `self ==
        // self`, their product; then `ne(0)` (a wrapped int64, always cast) and `&`.
        ev.push(n * s);
        ev.push(WRAPPED);
        if !double {
            ev.push(s);
        }
        ev.extend([n, -WRAPPED]);
        if !double {
            ev.push(-s);
        }
        ev.extend([n, n, -n, -n, -n * s]);
        ev.extend([WRAPPED, s, n, -WRAPPED, -s]);
        ev.extend([n, -n, -n]);
        // masked_select: the mask's sum (as int64), then the selected values.
        let selected: Vec<f64> = self
            .values
            .iter()
            .copied()
            .filter(|v| v.is_finite() && *v != 0.0)
            .collect();
        let k = selected.len() as i64;
        ev.extend([WRAPPED, 8 * n, -8 * n, -WRAPPED, k * s, -n]);
        if k == 0 {
            ev.push(-k * s);
            if copy > 0 {
                ev.push(-copy);
            }
            return 0;
        }
        // abs, as float64; its min and max.
        if double {
            ev.push(k * 8);
        } else {
            ev.extend([k * s, k * 8, -k * s]);
        }
        ev.extend([WRAPPED, WRAPPED]);
        for x in &selected {
            ev.extend([s, 1, -s, -1]);
            if *x != x.ceil() {
                break;
            }
        }
        let min = selected.iter().fold(f64::INFINITY, |m, v| m.min(v.abs()));
        let max = selected.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let tests = [max / min > 1000.0, max > 1.0e8, min < 1.0e-4];
        for (i, &holds) in tests.iter().enumerate() {
            if i == 0 {
                ev.push(WRAPPED); // max / min
            }
            ev.extend([WRAPPED, 1, -WRAPPED]);
            if i == 0 {
                ev.push(-WRAPPED);
            }
            if holds || i + 1 == tests.len() {
                break;
            }
            ev.push(-1);
        }
        ev.extend([-k * s, -k * 8, -WRAPPED, -WRAPPED]);
        if copy > 0 {
            ev.push(-copy);
        }
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peak(events: &[i64]) -> i64 {
        let mut held = 0;
        let mut most = 0;
        for e in events {
            held += e;
            most = most.max(held);
        }
        most
    }

    #[test]
    fn a_small_float_tensor_peaks_as_measured() {
        // print(torch.tensor([1.5, 2.25])): peak 65 - 8 (the tensor itself) = 57.
        let values = [1.5, 2.25];
        let f = FormatterInput {
            numel: 2,
            item: 4,
            dtype: DType::Float32,
            viewable: true,
            values: &values,
        };
        let mut ev = Vec::new();
        let kept = f.events(&mut ev);
        assert_eq!((peak(&ev), ev.iter().sum::<i64>()), (57, kept));
    }

    #[test]
    fn summarizing_stacks_the_edge_rows() {
        // A (100, 100) float32: six 6-element cats, their stack of 36, the cats freed.
        let (events, shape) = summarized_events(&[100, 100], 4);
        assert_eq!(shape, vec![6, 6]);
        assert_eq!(
            events,
            vec![24, 24, 24, 24, 24, 24, 144, -24, -24, -24, -24, -24, -24]
        );
        // A (2, 600): both rows kept.
        let (events, _) = summarized_events(&[2, 600], 4);
        assert_eq!(events, vec![24, 24, 48, -24, -24]);
    }
}
