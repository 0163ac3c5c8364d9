//! `repr(tensor)` exactly as PyTorch 2.x prints it (`torch/_tensor_str.py`, default print
//! options: precision 4, threshold 1000, edgeitems 3, linewidth 80, automatic sci mode).

use crate::core::print::pyfmt;
use crate::core::tensor::{DType, Scalar};

/// Digits after the point (`PRINT_OPTS.precision`).
const PRECISION: usize = 4;
/// More elements than this are summarized with `...` (`PRINT_OPTS.threshold`).
const THRESHOLD: usize = 1000;
/// Items kept at each end of a summarized dimension (`PRINT_OPTS.edgeitems`).
const EDGEITEMS: usize = 3;
/// Target line width (`PRINT_OPTS.linewidth`).
const LINEWIDTH: usize = 80;

/// One element, already in the form its dtype prints in.
#[derive(Clone, Copy, Debug)]
enum Elem {
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A complex element: real and imaginary parts.
    Complex(f64, f64),
}

impl Elem {
    /// Reads a `Scalar` as an element of `dtype` (lenient about the variant given).
    fn of(dtype: DType, value: Scalar) -> Elem {
        if dtype == DType::Bool {
            Elem::Bool(value.to_bool())
        } else if dtype.is_floating() {
            Elem::Float(value.to_f64())
        } else {
            Elem::Int(value.to_wrapped_int())
        }
    }

    /// Python's `str()` of the element (`True`, `-3`); floats go through the formatter.
    fn plain(self) -> String {
        match self {
            Elem::Bool(true) => "True".to_string(),
            Elem::Bool(false) => "False".to_string(),
            Elem::Int(i) => i.to_string(),
            Elem::Float(f) => py_float_repr(f),
            Elem::Complex(re, im) => format!("{}+{}j", py_float_repr(re), py_float_repr(im)),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Elem::Bool(b) => f64::from(u8::from(b)),
            Elem::Int(i) => i as f64,
            Elem::Float(f) | Elem::Complex(f, _) => f,
        }
    }
}

/// The flat, row-major data with its shape, read without ever panicking: elements past the
/// end of `values` read as zero.
struct View<'a> {
    dtype: DType,
    shape: &'a [usize],
    strides: Vec<usize>,
    element: &'a dyn Fn(usize) -> Scalar,
}

impl View<'_> {
    fn get(&self, index: usize) -> Elem {
        if self.dtype.is_complex() {
            // Complex values come as real, imaginary in turn.
            let part = |k: usize| (self.element)(index.saturating_mul(2).saturating_add(k));
            return Elem::Complex(part(0).to_f64(), part(1).to_f64());
        }
        Elem::of(self.dtype, (self.element)(index))
    }

    /// The indices along a dimension of size `n` that are shown: all of them, or the
    /// edge items with `None` marking the `...` when summarizing.
    fn shown(n: usize, summarize: bool) -> Vec<Option<usize>> {
        if summarize && n > 2 * EDGEITEMS {
            (0..EDGEITEMS)
                .map(Some)
                .chain(std::iter::once(None))
                .chain((n - EDGEITEMS..n).map(Some))
                .collect()
        } else {
            (0..n).map(Some).collect()
        }
    }

    /// `get_summarized_data` (or the whole tensor), flattened: the values the formatter sees.
    fn collect(&self, offset: usize, dim: usize, summarize: bool, out: &mut Vec<Elem>) {
        if dim >= self.shape.len() {
            out.push(self.get(offset));
            return;
        }
        let stride = self.strides[dim];
        for i in Self::shown(self.shape[dim], summarize)
            .into_iter()
            .flatten()
        {
            let at = offset.saturating_add(i.saturating_mul(stride));
            self.collect(at, dim + 1, summarize, out);
        }
    }

    /// `_tensor_str_with_formatter` for the sub-tensor at `offset` spanning dims `dim..`.
    fn render(
        &self,
        offset: usize,
        dim: usize,
        indent: usize,
        summarize: bool,
        fmt: &Formatters,
    ) -> String {
        let rank = self.shape.len() - dim.min(self.shape.len());
        if rank == 0 {
            return fmt.format(self.get(offset));
        }
        let stride = self.strides[dim];
        let shown = Self::shown(self.shape[dim], summarize);
        let at = |i: usize| offset.saturating_add(i.saturating_mul(stride));
        if rank == 1 {
            return self.vector(&shown, &at, indent, fmt);
        }
        let slices: Vec<String> = shown
            .iter()
            .map(|slot| match slot {
                Some(i) => self.render(at(*i), dim + 1, indent + 1, summarize, fmt),
                None => "...".to_string(),
            })
            .collect();
        let sep = format!(",{}{}", "\n".repeat(rank - 1), " ".repeat(indent + 1));
        format!("[{}]", slices.join(&sep))
    }

    /// `_vector_str`: one dimension, wrapped to the line width.
    fn vector(
        &self,
        shown: &[Option<usize>],
        at: &dyn Fn(usize) -> usize,
        indent: usize,
        fmt: &Formatters,
    ) -> String {
        let element_length = fmt.element_length() as i64;
        let room = LINEWIDTH as i64 - indent as i64;
        let per_line = room.div_euclid(element_length).max(1) as usize;
        let data: Vec<String> = shown
            .iter()
            .map(|slot| match slot {
                Some(i) => fmt.format(self.get(at(*i))),
                None => " ...".to_string(),
            })
            .collect();
        let lines: Vec<String> = data.chunks(per_line).map(|line| line.join(", ")).collect();
        let sep = format!(",\n{}", " ".repeat(indent + 1));
        format!("[{}]", lines.join(&sep))
    }
}

/// `torch._tensor_str._Formatter`: decides integer mode, scientific mode and the column
/// width from the (summarized) values.
struct Formatter {
    floating: bool,
    int_mode: bool,
    sci_mode: bool,
    max_width: usize,
}

impl Formatter {
    fn new(floating: bool, values: &[Elem]) -> Formatter {
        let mut f = Formatter {
            floating,
            int_mode: true,
            sci_mode: false,
            max_width: 1,
        };
        if !floating {
            f.max_width = values.iter().map(|v| v.plain().len()).fold(1, usize::max);
            return f;
        }
        let nonzero_finite: Vec<f64> = values
            .iter()
            .map(|v| v.as_f64())
            .filter(|v| v.is_finite() && *v != 0.0)
            .collect();
        if nonzero_finite.is_empty() {
            return f;
        }
        let abs = nonzero_finite.iter().map(|v| v.abs());
        let min = abs.clone().fold(f64::INFINITY, f64::min);
        let max = abs.fold(0.0, f64::max);
        f.int_mode = nonzero_finite.iter().all(|v| *v == v.ceil());
        let width = |s: String| s.len();
        if f.int_mode {
            if max / min > 1000.0 || max > 1.0e8 {
                f.sci_mode = true;
                f.max_width = nonzero_finite
                    .iter()
                    .map(|v| width(pyfmt::sci(*v, PRECISION)))
                    .fold(f.max_width, usize::max);
            } else {
                f.max_width = nonzero_finite
                    .iter()
                    .map(|v| width(pyfmt::fixed(*v, 0)) + 1)
                    .fold(f.max_width, usize::max);
            }
        } else if max / min > 1000.0 || max > 1.0e8 || min < 1.0e-4 {
            f.sci_mode = true;
            f.max_width = nonzero_finite
                .iter()
                .map(|v| width(pyfmt::sci(*v, PRECISION)))
                .fold(f.max_width, usize::max);
        } else {
            f.max_width = nonzero_finite
                .iter()
                .map(|v| width(pyfmt::fixed(*v, PRECISION)))
                .fold(f.max_width, usize::max);
        }
        f
    }

    /// `_Formatter.format`: the element's text, right-aligned to the column width.
    fn format(&self, value: Elem) -> String {
        let text = if self.floating {
            let v = value.as_f64();
            if self.sci_mode {
                pyfmt::sci(v, PRECISION)
            } else if self.int_mode {
                let mut s = pyfmt::fixed(v, 0);
                if v.is_finite() {
                    s.push('.');
                }
                s
            } else {
                pyfmt::fixed(v, PRECISION)
            }
        } else {
            value.plain()
        };
        let pad = self.max_width.saturating_sub(text.len());
        format!("{}{}", " ".repeat(pad), text)
    }
}

/// The formatter of a tensor's elements: one, or for complex tensors one for the real parts
/// and one for the imaginary parts (`_tensor_str`'s `real_formatter`/`imag_formatter`).
struct Formatters {
    first: Formatter,
    imag: Option<Formatter>,
}

impl Formatters {
    fn new(dtype: DType, seen: &[Elem]) -> Formatters {
        if !dtype.is_complex() {
            return Formatters {
                first: Formatter::new(dtype.is_floating(), seen),
                imag: None,
            };
        }
        let part = |k: usize| -> Vec<Elem> {
            seen.iter()
                .map(|e| match e {
                    Elem::Complex(re, im) => Elem::Float(if k == 0 { *re } else { *im }),
                    other => Elem::Float(other.as_f64()),
                })
                .collect()
        };
        Formatters {
            first: Formatter::new(true, &part(0)),
            imag: Some(Formatter::new(true, &part(1))),
        }
    }

    /// `_vector_str`'s `element_length`: the width plus `, ` (and the imaginary width plus
    /// `j` for complex elements).
    fn element_length(&self) -> usize {
        self.first.max_width + 2 + self.imag.as_ref().map_or(0, |f| f.max_width + 1)
    }

    /// `_val_formatter` / `_scalar_str`: `1.+2.j`, `3.-1.j`.
    fn format(&self, value: Elem) -> String {
        match (value, &self.imag) {
            (Elem::Complex(re, im), Some(imag)) => {
                let real_str = self.first.format(Elem::Float(re));
                let imag_str = format!("{}j", imag.format(Elem::Float(im)));
                let imag_str = imag_str.trim_start();
                if imag_str.starts_with('+') || imag_str.starts_with('-') {
                    format!("{real_str}{imag_str}")
                } else {
                    format!("{real_str}+{imag_str}")
                }
            }
            (other, _) => self.first.format(other),
        }
    }
}

/// `_add_suffixes`: appends `, suffix` items, moving one to its own line when the current
/// last line would pass the line width.
fn add_suffixes(tensor_str: String, suffixes: &[String], indent: usize) -> String {
    let mut out = tensor_str;
    // Python: len(s) - s.rfind("\n") + 1, with rfind giving -1 when there is no newline.
    let mut last_line_len = match out.rfind('\n') {
        Some(p) => out.len() - p + 1,
        None => out.len() + 2,
    };
    for suffix in suffixes {
        if last_line_len + suffix.len() + 2 > LINEWIDTH {
            out.push_str(",\n");
            out.push_str(&" ".repeat(indent));
            out.push_str(suffix);
            last_line_len = indent + suffix.len();
        } else {
            out.push_str(", ");
            out.push_str(suffix);
            last_line_len += suffix.len() + 2;
        }
    }
    out.push(')');
    out
}

/// Python's `str(tuple)` of a shape: `(0, 3)`, `(0,)`, `()`.
fn shape_tuple(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// `repr(t)` for a CPU tensor without grad: `tensor([[1, 2],\n        [3, 4]], dtype=torch.int32)`.
///
/// `values` are the elements in logical row-major order (`len == product of shape`); floats
/// are given as the exact value the element holds (an f16 element's value converted to f64).
/// An empty `shape` is a 0-d tensor. Missing values read as zero, so no input panics.
pub fn format_tensor(dtype: DType, shape: &[usize], values: &[Scalar]) -> String {
    format_tensor_with(dtype, shape, &|i| {
        values.get(i).copied().unwrap_or(Scalar::Int(0))
    })
}

/// [`format_tensor`] reading elements on demand by row-major index: a summarized printout of a
/// huge tensor reads only the edge items it shows.
pub fn format_tensor_with(
    dtype: DType,
    shape: &[usize],
    element: &dyn Fn(usize) -> Scalar,
) -> String {
    format_tensor_suffixed(dtype, shape, element, &[])
}

/// [`format_tensor_with`], with more suffixes after the dtype (`requires_grad=True`).
pub fn format_tensor_suffixed(
    dtype: DType,
    shape: &[usize],
    element: &dyn Fn(usize) -> Scalar,
    extra: &[&str],
) -> String {
    format_tensor_leading(dtype, shape, element, &[], extra)
}

/// [`format_tensor_suffixed`] with suffixes that go before the size and dtype ones
/// (`device='cuda:0'`, as `_tensor_str.py` puts the device first).
pub fn format_tensor_leading(
    dtype: DType,
    shape: &[usize],
    element: &dyn Fn(usize) -> Scalar,
    lead: &[&str],
    extra: &[&str],
) -> String {
    const PREFIX: &str = "tensor(";
    let indent = PREFIX.len();
    let numel = if shape.contains(&0) {
        0
    } else {
        shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .unwrap_or(usize::MAX)
    };
    let mut suffixes: Vec<String> = lead.iter().map(|s| s.to_string()).collect();
    let body = if numel == 0 {
        // Shape shown unless it is (0,); dtype shown unless it is the default float dtype.
        if shape.len() != 1 {
            suffixes.push(format!("size={}", shape_tuple(shape)));
        }
        if dtype != DType::Float32 {
            suffixes.push(format!("dtype={}", dtype.torch_repr()));
        }
        "[]".to_string()
    } else {
        // The default float dtype, its complex counterpart, int64 and bool print no dtype.
        if !matches!(
            dtype,
            DType::Float32 | DType::Complex64 | DType::Int64 | DType::Bool
        ) {
            suffixes.push(format!("dtype={}", dtype.torch_repr()));
        }
        tensor_body(dtype, shape, element, numel, indent)
    };
    suffixes.extend(extra.iter().map(|s| s.to_string()));
    add_suffixes(format!("{PREFIX}{body}"), &suffixes, indent)
}

/// `_tensor_str` for a non-empty tensor.
fn tensor_body(
    dtype: DType,
    shape: &[usize],
    element: &dyn Fn(usize) -> Scalar,
    numel: usize,
    indent: usize,
) -> String {
    let mut strides = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1].saturating_mul(shape[d + 1]);
    }
    let view = View {
        dtype,
        shape,
        strides,
        element,
    };
    let summarize = numel > THRESHOLD;
    let mut seen = Vec::new();
    view.collect(0, 0, summarize, &mut seen);
    let formatter = Formatters::new(dtype, &seen);
    view.render(0, 0, indent, summarize, &formatter)
}

/// Python's `repr(float)`: shortest round-trip, `1.0`, `0.1`, `1e+16`, `1.5e-05`, `inf`,
/// `nan`, `-0.0`.
pub fn py_float_repr(x: f64) -> String {
    pyfmt::repr(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Vec<Scalar> {
        v.iter().map(|&i| Scalar::Int(i)).collect()
    }

    fn floats(v: &[f64]) -> Vec<Scalar> {
        v.iter().map(|&f| Scalar::Float(f)).collect()
    }

    #[test]
    fn brief_examples() {
        let cases: Vec<(DType, Vec<usize>, Vec<Scalar>, &str)> = vec![
            (
                DType::Int64,
                vec![3, 5],
                ints(&[4, 0, 1, 0, 0, 1, 8, 2, 5, 0, 6, 8, 1, 7, 7]),
                "tensor([[4, 0, 1, 0, 0],\n        [1, 8, 2, 5, 0],\n        [6, 8, 1, 7, 7]])",
            ),
            (
                DType::Int64,
                vec![2, 3],
                ints(&[77, 1, 6, 0, 8, 8]),
                "tensor([[77,  1,  6],\n        [ 0,  8,  8]])",
            ),
            (
                DType::Float32,
                vec![3, 1],
                floats(&[0.0, 7.0, 14.0]),
                "tensor([[ 0.],\n        [ 7.],\n        [14.]])",
            ),
            (
                DType::Int64,
                vec![20],
                ints(&(0..20).collect::<Vec<_>>()),
                "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n        18, 19])",
            ),
            (
                DType::UInt8,
                vec![2, 2, 1],
                ints(&[2, 5, 3, 5]),
                "tensor([[[2],\n         [5]],\n\n        [[3],\n         [5]]], dtype=torch.uint8)",
            ),
            (
                DType::Float32,
                vec![2, 1, 2, 2],
                floats(&[0.0, 2.0, 4.0, 6.0, 48.0, 50.0, 52.0, 54.0]),
                "tensor([[[[ 0.,  2.],\n          [ 4.,  6.]]],\n\n\n        [[[48., 50.],\n          [52., 54.]]]])",
            ),
            (DType::Int64, vec![], ints(&[8]), "tensor(8)"),
            (DType::Int64, vec![1, 1], ints(&[7]), "tensor([[7]])"),
            (DType::Float32, vec![2], floats(&[0.5, 1.25]), "tensor([0.5000, 1.2500])"),
            (
                DType::Float32,
                vec![2],
                floats(&[1e-5, 1.0]),
                "tensor([1.0000e-05, 1.0000e+00])",
            ),
            // Real PyTorch pads "True" to the width of "False".
            (
                DType::Bool,
                vec![2],
                vec![Scalar::Bool(true), Scalar::Bool(false)],
                "tensor([ True, False])",
            ),
            (DType::Int32, vec![0], vec![], "tensor([], dtype=torch.int32)"),
            (
                DType::BFloat16,
                vec![3],
                floats(&[3.0, 5.0, 9.0]),
                "tensor([3., 5., 9.], dtype=torch.bfloat16)",
            ),
            (DType::Float32, vec![], floats(&[2.5]), "tensor(2.5000)"),
        ];
        for (dtype, shape, values, want) in cases {
            assert_eq!(format_tensor(dtype, &shape, &values), want, "{shape:?}");
        }
    }

    #[test]
    fn empty_tensors() {
        assert_eq!(format_tensor(DType::Float32, &[0], &[]), "tensor([])");
        assert_eq!(
            format_tensor(DType::Float32, &[0, 3], &[]),
            "tensor([], size=(0, 3))"
        );
        assert_eq!(
            format_tensor(DType::Int64, &[2, 0], &[]),
            "tensor([], size=(2, 0), dtype=torch.int64)"
        );
        assert_eq!(
            format_tensor(DType::Bool, &[0], &[]),
            "tensor([], dtype=torch.bool)"
        );
    }

    #[test]
    fn special_floats() {
        let t = |v: &[f64]| format_tensor(DType::Float32, &[v.len()], &floats(v));
        assert_eq!(t(&[1.0, f64::INFINITY]), "tensor([1., inf])");
        assert_eq!(t(&[f64::NAN, -f64::INFINITY]), "tensor([nan, -inf])");
        assert_eq!(t(&[0.0, 0.0]), "tensor([0., 0.])");
        assert_eq!(t(&[-0.0, 1.5]), "tensor([-0.0000, 1.5000])");
        assert_eq!(t(&[1.5, f64::NAN]), "tensor([1.5000,    nan])");
        assert_eq!(t(&[1e9, 1.0]), "tensor([1.0000e+09, 1.0000e+00])");
        assert_eq!(t(&[0.03125]), "tensor([0.0312])");
        assert_eq!(t(&[1e-5, f64::NAN]), "tensor([1.0000e-05,        nan])");
        assert_eq!(
            format_tensor(DType::Float64, &[], &floats(&[f64::MAX])),
            "tensor(1.7977e+308, dtype=torch.float64)"
        );
    }

    #[test]
    fn summarized() {
        let v: Vec<Scalar> = ints(&(0..2000).collect::<Vec<_>>());
        assert_eq!(
            format_tensor(DType::Int64, &[2000], &v),
            "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
        );
        let m = format_tensor(DType::Int64, &[40, 50], &v);
        assert_eq!(
            m,
            "tensor([[   0,    1,    2,  ...,   47,   48,   49],\n        \
             [  50,   51,   52,  ...,   97,   98,   99],\n        \
             [ 100,  101,  102,  ...,  147,  148,  149],\n        \
             ...,\n        \
             [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n        \
             [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n        \
             [1950, 1951, 1952,  ..., 1997, 1998, 1999]])"
        );
    }

    #[test]
    fn suffix_wraps() {
        let v = floats(&(0..13).map(|i| i as f64 + 0.5).collect::<Vec<_>>());
        let s = format_tensor(DType::Float64, &[13], &v);
        assert_eq!(
            s,
            "tensor([ 0.5000,  1.5000,  2.5000,  3.5000,  4.5000,  5.5000,  6.5000,  7.5000,\n         \
             8.5000,  9.5000, 10.5000, 11.5000, 12.5000], dtype=torch.float64)"
        );
        let v = floats(&(0..8).map(|i| i as f64 + 0.5).collect::<Vec<_>>());
        let s = format_tensor(DType::Float64, &[8], &v);
        assert_eq!(
            s,
            "tensor([0.5000, 1.5000, 2.5000, 3.5000, 4.5000, 5.5000, 6.5000, 7.5000],\n       \
             dtype=torch.float64)"
        );
    }

    #[test]
    fn complex_values_print_as_torch_does() {
        // Values are real, imaginary in turn.
        assert_eq!(
            format_tensor(DType::Complex64, &[2], &floats(&[1.0, 2.0, 3.0, -1.0])),
            "tensor([1.+2.j, 3.-1.j])"
        );
        assert_eq!(
            format_tensor(DType::Complex64, &[2], &floats(&[1e-5, 1.0, 2.0, 0.0])),
            "tensor([1.0000e-05+1.j, 2.0000e+00+0.j])"
        );
        assert_eq!(
            format_tensor(DType::Complex128, &[2], &floats(&[1.0, 0.0, -2.0, 0.0])),
            "tensor([ 1.+0.j, -2.+0.j], dtype=torch.complex128)"
        );
        assert_eq!(
            format_tensor(DType::Complex64, &[0], &[]),
            "tensor([], dtype=torch.complex64)"
        );
    }

    #[test]
    fn never_panics() {
        let _ = format_tensor(DType::Float16, &[usize::MAX, 3], &[]);
        let _ = format_tensor(DType::Int8, &[5, 5], &[Scalar::Float(f64::NAN)]);
        let _ = format_tensor(DType::Bool, &[], &[]);
        let deep = vec![1usize; 100];
        let s = format_tensor(DType::Float32, &deep, &floats(&[1.0]));
        assert!(s.ends_with(&format!("1.{})", "]".repeat(100))));
    }
}
