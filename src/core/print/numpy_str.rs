//! NumPy's array printing (`numpy/_core/arrayprint.py`, NumPy 2 defaults): `repr` as
//! `array([0.5, 1. , 2. ], dtype=float32)`, `str` as `[0.5 1.  2. ]`, with the same float
//! modes (positional or scientific, unique digits up to 8), padding, summarization and line
//! wrapping at 75 columns.

use crate::core::tensor::{DType, Scalar};

/// NumPy's name of a dtype (`float32`, `int64`, `bool`).
pub fn numpy_dtype_name(dtype: DType) -> &'static str {
    // NumPy spells every dtype PyTorch shares with it as the trace does (it has no bfloat16:
    // PyTorch refuses to share one).
    dtype.name()
}

const LINE_WIDTH: usize = 75;
const THRESHOLD: usize = 1000;
const EDGE_ITEMS: usize = 3;
const PRECISION: usize = 8;

/// How every element of one array is formatted.
enum Format {
    Bool,
    Int { width: usize },
    Float(FloatFormat),
}

struct FloatFormat {
    dtype: DType,
    scientific: bool,
    pad_left: usize,
    pad_right: usize,
    /// Scientific: digits after the point (zero-padded); positional: unused.
    precision: usize,
    exp_digits: usize,
}

/// The shortest digits that round-trip in the value's own dtype.
fn shortest(x: f64, dtype: DType) -> String {
    match dtype {
        DType::Float16 => {
            // The fewest digits that read back as the same half-precision value.
            let target = half::f16::from_f64(x);
            (0..12)
                .map(|p| format!("{x:.p$e}"))
                .find(|s| {
                    s.parse::<f64>()
                        .is_ok_and(|y| half::f16::from_f64(y) == target)
                })
                .unwrap_or_else(|| format!("{x:e}"))
        }
        DType::Float32 | DType::BFloat16 => half_even_tie(format!("{:e}", x as f32), x),
        _ => format!("{x:e}"),
    }
}

/// Dragon4 breaks a tie between two shortest spellings toward the even last digit; Rust's
/// shortest float text rounds it up. `text` is Rust's spelling of the f32 `x`.
fn half_even_tie(text: String, x: f64) -> String {
    let (mant, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let Some(last) = mant.chars().last().and_then(|c| c.to_digit(10)) else {
        return text;
    };
    if last % 2 == 0 || !mant.contains('.') {
        return text;
    }
    let lower = format!("{}{}e{exp}", &mant[..mant.len() - 1], last - 1);
    let (Ok(up), Ok(down)) = (text.parse::<f64>(), lower.parse::<f64>()) else {
        return text;
    };
    let x = x.abs().copysign(up);
    if (down as f32) == (x as f32) && (up + down) / 2.0 == x {
        lower
    } else {
        text
    }
}

/// Splits Rust's `1.234e5` into digits ("1234") and the decimal exponent (5).
fn digits_and_exp(x: f64, dtype: DType) -> (String, i32) {
    let s = shortest(x.abs(), dtype);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    (mant.replace('.', ""), exp)
}

/// `dragon4_positional(x, precision=8, unique=True, fractional=True, trim='.')` without the
/// sign: integer part and fraction digits.
fn positional(x: f64, dtype: DType) -> (String, String) {
    let (digits, exp) = digits_and_exp(x, dtype);
    if x == 0.0 {
        return ("0".into(), String::new());
    }
    // Digit i (0-based) has weight 10^(exp - i).
    let frac_len = (digits.len() as i32 - 1 - exp).max(0) as usize;
    if frac_len > PRECISION {
        // Too many digits: round to PRECISION fractional digits (then trim zeros).
        let text = format!("{:.*}", PRECISION, x.abs());
        let (i, f) = text.split_once('.').unwrap_or((&text, ""));
        return (i.to_string(), f.trim_end_matches('0').to_string());
    }
    let mut int_part = String::new();
    let mut frac = String::new();
    if exp < 0 {
        int_part.push('0');
        frac.push_str(&"0".repeat((-exp - 1) as usize));
        frac.push_str(&digits);
    } else {
        let e = exp as usize;
        if digits.len() > e + 1 {
            int_part.push_str(&digits[..=e]);
            frac.push_str(&digits[e + 1..]);
        } else {
            int_part.push_str(&digits);
            int_part.push_str(&"0".repeat(e + 1 - digits.len()));
        }
    }
    (int_part, frac.trim_end_matches('0').to_string())
}

/// `dragon4_scientific` without the sign: mantissa digits after the point (unique) and the
/// exponent.
fn scientific(x: f64, dtype: DType) -> (String, String, i32) {
    let (digits, exp) = digits_and_exp(x, dtype);
    if x == 0.0 {
        return ("0".into(), String::new(), 0);
    }
    let mut frac: String = digits.chars().skip(1).collect();
    if frac.len() > PRECISION {
        let text = format!("{:.*e}", PRECISION, x.abs());
        let (m, _) = text.split_once('e').unwrap_or((&text, ""));
        frac = m
            .split_once('.')
            .map(|(_, f)| f.to_string())
            .unwrap_or_default();
    }
    let frac = frac.trim_end_matches('0').to_string();
    (digits[..1].to_string(), frac, exp)
}

impl FloatFormat {
    fn new(values: &[f64], dtype: DType) -> FloatFormat {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let nonzero: Vec<f64> = finite
            .iter()
            .map(|v| v.abs())
            .filter(|v| *v != 0.0)
            .collect();
        let use_scientific = if nonzero.is_empty() {
            false
        } else {
            let max = nonzero.iter().copied().fold(0.0, f64::max);
            let min = nonzero.iter().copied().fold(f64::INFINITY, f64::min);
            // NumPy 2.3+: the cutoff follows the dtype's precision (`finfo.precision`).
            let cutoff = match dtype {
                DType::Float16 => 1e3,
                DType::Float32 | DType::BFloat16 => 1e6,
                _ => 1e8,
            };
            max >= cutoff || min < 0.0001 || max / min > 1000.0
        };
        let negative = |v: &f64| v.is_sign_negative();
        let mut f = FloatFormat {
            dtype,
            scientific: use_scientific,
            pad_left: 0,
            pad_right: 0,
            precision: 0,
            exp_digits: 2,
        };
        if use_scientific {
            let parts: Vec<(String, String, i32)> =
                finite.iter().map(|&v| scientific(v, dtype)).collect();
            f.precision = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
            f.exp_digits = parts
                .iter()
                .map(|p| p.2.unsigned_abs().to_string().len().max(2))
                .max()
                .unwrap_or(2);
            f.pad_left = finite
                .iter()
                .map(|v| 1 + usize::from(negative(v)))
                .max()
                .unwrap_or(1);
            f.pad_right = f.exp_digits + 2 + f.precision;
        } else {
            for &v in &finite {
                let (i, fr) = positional(v, dtype);
                f.pad_left = f.pad_left.max(i.len() + usize::from(negative(&v)));
                f.pad_right = f.pad_right.max(fr.len());
            }
        }
        if finite.len() != values.len() {
            let neg_inf = values.iter().any(|v| v.is_infinite() && *v < 0.0);
            let offset = f.pad_right + 1;
            f.pad_left = f
                .pad_left
                .max(3usize.saturating_sub(offset))
                .max((3 + usize::from(neg_inf)).saturating_sub(offset));
        }
        f
    }

    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let text = if x.is_nan() {
                "nan"
            } else if x < 0.0 {
                "-inf"
            } else {
                "inf"
            };
            let width = self.pad_left + self.pad_right + 1;
            return format!("{text:>width$}");
        }
        let sign = if x.is_sign_negative() { "-" } else { "" };
        if self.scientific {
            let (mut lead, mut frac, mut exp) = scientific(x, self.dtype);
            if frac.len() < self.precision {
                // Dragon4's `min_digits`: the extra digits are the value's own, not zeros.
                let text = format!("{:.*e}", self.precision, x.abs());
                let (m, e) = text.split_once('e').unwrap_or((&text, "0"));
                let (l, f) = m.split_once('.').unwrap_or((m, ""));
                lead = l.to_string();
                frac = f.to_string();
                exp = e.parse().unwrap_or(exp);
            }
            let frac = format!("{frac:0<width$}", width = self.precision);
            let exp_sign = if exp < 0 { '-' } else { '+' };
            let exp = format!("{:0>w$}", exp.unsigned_abs(), w = self.exp_digits);
            let head = format!("{sign}{lead}");
            format!("{head:>pl$}.{frac}e{exp_sign}{exp}", pl = self.pad_left)
        } else {
            let (int_part, frac) = positional(x, self.dtype);
            let head = format!("{sign}{int_part}");
            format!(
                "{head:>pl$}.{frac:<pr$}",
                pl = self.pad_left,
                pr = self.pad_right
            )
        }
    }
}

impl Format {
    fn new(dtype: DType, values: &[Scalar]) -> Format {
        if dtype == DType::Bool {
            return Format::Bool;
        }
        if dtype.is_floating() {
            let floats: Vec<f64> = values.iter().map(|v| v.to_f64()).collect();
            return Format::Float(FloatFormat::new(&floats, dtype));
        }
        let width = values
            .iter()
            .map(|v| v.to_wrapped_int().to_string().len())
            .max()
            .unwrap_or(1);
        Format::Int { width }
    }

    fn format(&self, v: Scalar) -> String {
        match self {
            Format::Bool => if v.to_bool() { " True" } else { "False" }.to_string(),
            Format::Int { width } => format!("{:>w$}", v.to_wrapped_int(), w = *width),
            Format::Float(f) => f.format(v.to_f64()),
        }
    }
}

/// Formats a whole array: `values` are its elements in row-major order.
fn format_array(
    dtype: DType,
    shape: &[usize],
    values: &[Scalar],
    separator: &str,
    prefix: &str,
    line_width: usize,
) -> String {
    let total: usize = shape.iter().product();
    let summarize = total > THRESHOLD;
    // The formatter sees only the elements that are printed.
    let shown: Vec<Scalar> = if summarize {
        shown_indices(shape)
            .into_iter()
            .filter_map(|i| values.get(i).copied())
            .collect()
    } else {
        values.to_vec()
    };
    let format = Format::new(dtype, &shown);
    if shape.is_empty() {
        // A 0-d array prints its bool without the aligning space.
        return values
            .first()
            .map(|v| format.format(*v).trim_start().to_string())
            .unwrap_or_default();
    }
    let hanging = format!(" {}", " ".repeat(prefix.len()));
    let strides: Vec<usize> = (0..shape.len())
        .map(|d| shape[d + 1..].iter().product())
        .collect();
    let ctx = Ctx {
        shape,
        strides: &strides,
        values,
        format: &format,
        separator,
        summarize,
    };
    ctx.recurse(0, 0, &hanging, line_width)
}

struct Ctx<'a> {
    shape: &'a [usize],
    strides: &'a [usize],
    values: &'a [Scalar],
    format: &'a Format,
    separator: &'a str,
    summarize: bool,
}

impl Ctx<'_> {
    /// NumPy's `_formatArray` recurser: the text of the sub-array at `axis` starting at flat
    /// element `base`.
    fn recurse(&self, axis: usize, base: usize, hanging: &str, width: usize) -> String {
        if axis == self.shape.len() {
            return self
                .values
                .get(base)
                .map(|v| self.format.format(*v))
                .unwrap_or_default();
        }
        let n = self.shape[axis];
        let next_hanging = format!("{hanging} ");
        let next_width = width.saturating_sub(1);
        let (leading, trailing) = if self.summarize && n > 2 * EDGE_ITEMS {
            (EDGE_ITEMS, EDGE_ITEMS)
        } else {
            (n, 0)
        };
        let items: Vec<Option<usize>> = (0..leading)
            .map(Some)
            .chain((trailing > 0).then_some(None))
            .chain((n - trailing..n).filter(|_| trailing > 0).map(Some))
            .collect();
        let axes_left = self.shape.len() - axis;
        if axes_left == 1 {
            let elem_width = width.saturating_sub(self.separator.trim_end().len().max(1));
            let mut s = String::new();
            let mut line = hanging.to_string();
            for (k, item) in items.iter().enumerate() {
                let word = match item {
                    Some(i) => self.recurse(
                        axis + 1,
                        base + i * self.strides[axis],
                        &next_hanging,
                        next_width,
                    ),
                    None => "...".to_string(),
                };
                extend_line(&mut s, &mut line, &word, elem_width, hanging);
                if k + 1 < items.len() {
                    line.push_str(self.separator);
                }
            }
            s.push_str(&line);
            return format!("[{}]", &s[hanging.len().min(s.len())..]);
        }
        let line_sep = format!(
            "{}{}",
            self.separator.trim_end(),
            "\n".repeat(axes_left - 1)
        );
        let mut s = String::new();
        for (k, item) in items.iter().enumerate() {
            let nested = match item {
                Some(i) => self.recurse(
                    axis + 1,
                    base + i * self.strides[axis],
                    &next_hanging,
                    next_width,
                ),
                None => "...".to_string(),
            };
            s.push_str(hanging);
            s.push_str(&nested);
            if k + 1 < items.len() {
                s.push_str(&line_sep);
            }
        }
        format!("[{}]", &s[hanging.len().min(s.len())..])
    }
}

/// NumPy's `_extendLine`: wraps before `word` when the line would pass `width`.
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, hanging: &str) {
    let needs_wrap = line.len() + word.len() > width && line.len() > hanging.len();
    if needs_wrap {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = hanging.to_string();
    }
    line.push_str(word);
}

/// Flat indices of the elements a summarized print shows.
fn shown_indices(shape: &[usize]) -> Vec<usize> {
    let mut out = vec![0usize];
    let mut stride = 1;
    for &n in shape.iter().rev() {
        let keep: Vec<usize> = if n > 2 * EDGE_ITEMS {
            (0..EDGE_ITEMS).chain(n - EDGE_ITEMS..n).collect()
        } else {
            (0..n).collect()
        };
        out = keep
            .iter()
            .flat_map(|k| out.iter().map(move |o| o + k * stride))
            .collect();
        stride *= n;
    }
    out
}

/// Whether `repr` leaves the dtype out (NumPy's default dtypes).
fn dtype_is_implied(dtype: DType) -> bool {
    matches!(dtype, DType::Float64 | DType::Int64 | DType::Bool)
}

/// `repr(array)`: `array([1., 2.], dtype=float32)` (NumPy's `_array_repr_implementation`:
/// the suffix `)` or `,` narrows the line by one).
pub fn numpy_repr(dtype: DType, shape: &[usize], values: &[Scalar]) -> String {
    let total: usize = shape.iter().product();
    let lst = if total == 0 {
        "[]".to_string()
    } else {
        format_array(dtype, shape, values, ", ", "array(", LINE_WIDTH - 1)
    };
    // NumPy 2.2+: the shape is given when it cannot be read from the text.
    let mut extras = Vec::new();
    if (total == 0 && shape != [0]) || total > THRESHOLD {
        let dims: Vec<String> = shape.iter().map(|n| n.to_string()).collect();
        extras.push(if dims.len() == 1 {
            format!("shape=({},)", dims[0])
        } else {
            format!("shape=({})", dims.join(", "))
        });
    }
    if !dtype_is_implied(dtype) || total == 0 {
        extras.push(format!("dtype={}", numpy_dtype_name(dtype)));
    }
    if extras.is_empty() {
        return format!("array({lst})");
    }
    let head = format!("array({lst},");
    let extra = format!("{})", extras.join(", "));
    let last_line_len = head.rsplit('\n').next().unwrap_or(&head).len();
    if last_line_len + extra.len() + 1 > LINE_WIDTH {
        format!("{head}\n      {extra}")
    } else {
        format!("{head} {extra}")
    }
}

/// `str(array)`: `[1. 2.]`.
pub fn numpy_str(dtype: DType, shape: &[usize], values: &[Scalar]) -> String {
    let total: usize = shape.iter().product();
    if shape.is_empty() {
        return values
            .first()
            .map(|v| numpy_scalar_str(dtype, *v))
            .unwrap_or_default();
    }
    if total == 0 {
        return format!("{}{}", "[".repeat(shape.len()), "]".repeat(shape.len()));
    }
    format_array(dtype, shape, values, " ", "", LINE_WIDTH)
}

/// `str` of a NumPy scalar (`1.5`, `3`, `True`).
pub fn numpy_scalar_str(dtype: DType, v: Scalar) -> String {
    match dtype {
        DType::Bool => if v.to_bool() { "True" } else { "False" }.to_string(),
        d if d.is_floating() => {
            let x = v.to_f64();
            match d {
                DType::Float32 | DType::Float16 | DType::BFloat16 => {
                    let s = format!("{}", x as f32);
                    python_like_float(&s, x)
                }
                _ => crate::core::print::pyfmt::repr(x),
            }
        }
        _ => v.to_wrapped_int().to_string(),
    }
}

/// Rust's shortest float text in Python's spelling (`1.0`, `1e-05`, `inf`).
fn python_like_float(rust: &str, x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        // Python switches to exponent notation here.
        let sci = format!("{:e}", x as f32);
        let (m, e) = sci.split_once('e').unwrap_or((&sci, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    if rust.contains('.') {
        rust.to_string()
    } else {
        format!("{rust}.0")
    }
}

/// `repr` of a NumPy scalar (NumPy 2: `np.float32(1.5)`, `np.int64(3)`, `np.True_`).
pub fn numpy_scalar_repr(dtype: DType, v: Scalar) -> String {
    match dtype {
        DType::Bool => if v.to_bool() { "np.True_" } else { "np.False_" }.to_string(),
        d => format!("np.{}({})", numpy_dtype_name(d), numpy_scalar_str(d, v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(v: &[f64]) -> Vec<Scalar> {
        v.iter().map(|&x| Scalar::Float(x)).collect()
    }

    #[test]
    fn matches_numpy() {
        assert_eq!(
            numpy_repr(DType::Float64, &[3], &floats(&[0.5, 1.0, 2.0])),
            "array([0.5, 1. , 2. ])"
        );
        assert_eq!(
            numpy_str(DType::Float64, &[3], &floats(&[0.5, 1.0, 2.0])),
            "[0.5 1.  2. ]"
        );
        assert_eq!(
            numpy_repr(DType::Float32, &[3], &floats(&[1.0, 2.0, 3.0])),
            "array([1., 2., 3.], dtype=float32)"
        );
        let ints: Vec<Scalar> = (0..6).map(Scalar::Int).collect();
        assert_eq!(
            numpy_repr(DType::Int64, &[2, 3], &ints),
            "array([[0, 1, 2],\n       [3, 4, 5]])"
        );
        assert_eq!(
            numpy_str(DType::Int64, &[2, 3], &ints),
            "[[0 1 2]\n [3 4 5]]"
        );
        let bools = vec![Scalar::Bool(true), Scalar::Bool(false)];
        assert_eq!(
            numpy_repr(DType::Bool, &[2], &bools),
            "array([ True, False])"
        );
        assert_eq!(
            numpy_repr(DType::Float64, &[2], &floats(&[1e-5, 1.0])),
            "array([1.e-05, 1.e+00])"
        );
        assert_eq!(
            numpy_repr(DType::Float64, &[3], &floats(&[0.1, 0.25, 100.125])),
            "array([1.00000e-01, 2.50000e-01, 1.00125e+02])"
        );
        assert_eq!(
            numpy_repr(DType::Float64, &[2], &floats(&[-1.5, 2.0])),
            "array([-1.5,  2. ])"
        );
        let r: Vec<f64> = (0..30).map(f64::from).collect();
        assert_eq!(
            numpy_repr(DType::Float64, &[30], &floats(&r)),
            "array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n       26., 27., 28., 29.])"
        );
        assert_eq!(
            numpy_str(DType::Float64, &[30], &floats(&r)),
            "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]"
        );
        assert_eq!(
            numpy_repr(DType::Float32, &[0], &[]),
            "array([], dtype=float32)"
        );
        assert_eq!(
            numpy_repr(DType::Float64, &[], &floats(&[3.0])),
            "array(3.)"
        );
        assert_eq!(numpy_str(DType::Float64, &[], &floats(&[3.0])), "3.0");
        assert_eq!(
            numpy_repr(
                DType::Float64,
                &[3],
                &floats(&[f64::NAN, 1.0, f64::INFINITY])
            ),
            "array([nan,  1., inf])"
        );
        let zeros = floats(&[0.0; 8]);
        assert_eq!(
            numpy_repr(DType::Float64, &[2, 2, 2], &zeros),
            "array([[[0., 0.],\n        [0., 0.]],\n\n       [[0., 0.],\n        [0., 0.]]])"
        );
        // Shortest half-precision digits; the float32 cutoff for scientific is 1e6.
        assert_eq!(
            numpy_repr(DType::Float16, &[2], &floats(&[98.5, -75.8125])),
            "array([ 98.5, -75.8], dtype=float16)"
        );
        assert_eq!(
            numpy_repr(DType::Float32, &[2], &floats(&[1e6, 1.0])),
            "array([1.e+06, 1.e+00], dtype=float32)"
        );
        // Extra scientific digits are the value's own; ties go to the even digit.
        assert_eq!(
            numpy_str(DType::Float32, &[2], &floats(&[736022592.0, 3123167.25])),
            "[7.3602259e+08 3.1231672e+06]"
        );
        let big: Vec<Scalar> = (0..2000).map(Scalar::Int).collect();
        assert_eq!(
            numpy_repr(DType::Int64, &[2000], &big),
            "array([   0,    1,    2, ..., 1997, 1998, 1999], shape=(2000,))"
        );
        assert_eq!(
            numpy_repr(DType::Float64, &[0, 3], &[]),
            "array([], shape=(0, 3), dtype=float64)"
        );
        assert_eq!(
            numpy_repr(DType::Int64, &[0], &[]),
            "array([], dtype=int64)"
        );
        assert_eq!(
            numpy_scalar_repr(DType::Int64, Scalar::Int(0)),
            "np.int64(0)"
        );
        assert_eq!(
            numpy_scalar_repr(DType::Float32, Scalar::Float(1.5)),
            "np.float32(1.5)"
        );
    }
}
