//! The NumPy math students write beside PyTorch (a softmax by hand: `np.exp(z) /
//! np.exp(z).sum()`, `-y * np.log(p)`): the unary ufuncs `exp`, `log`, `sqrt`, `abs` and
//! `negative` (and `-a`), and the reductions `sum`, `mean`, `max`, `min` as functions and
//! methods, with NumPy's dtypes and summation order.
//!
//! NumPy sums a float line that is contiguous in memory by pairwise summation (blocks of 8
//! accumulators, halves above 128 elements, `pairwise_sum` in NumPy's `loops_utils.h`), added
//! to the identity 0; a line along another axis is added in order. Results are new arrays in
//! C order; a reduction to no dims gives a NumPy scalar.

use crate::core::tensor::layout::Layout;
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::numpy::{cast, new_ndarray};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The unary ufuncs of this file, by their `np.` names.
pub(super) const UNARY: &[&str] = &["exp", "log", "sqrt", "abs", "absolute", "negative"];

/// The reductions of this file, by their `np.` names (and `ndarray` methods).
pub(super) const REDUCTIONS: &[&str] = &["sum", "mean", "max", "min", "amax", "amin"];

/// NumPy's block size of pairwise summation.
const PW_BLOCKSIZE: usize = 128;

/// NumPy's `pairwise_sum` of `a`, in `f` (float64 or float32 arithmetic).
fn pairwise_sum(a: &[f64], round: fn(f64) -> f64) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res = round(res + x);
        }
        res
    } else if n <= PW_BLOCKSIZE {
        let mut r = [0.0; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for j in 0..8 {
                r[j] = round(r[j] + a[i + j]);
            }
            i += 8;
        }
        let add = |x: f64, y: f64| round(x + y);
        let mut res = add(
            add(add(r[0], r[1]), add(r[2], r[3])),
            add(add(r[4], r[5]), add(r[6], r[7])),
        );
        while i < n {
            res = round(res + a[i]);
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        round(pairwise_sum(&a[..n2], round) + pairwise_sum(&a[n2..], round))
    }
}

/// Rounds a double to float32 and back (float32 arithmetic, one operation at a time).
fn to_f32(x: f64) -> f64 {
    f64::from(x as f32)
}

/// Leaves a double as it is.
fn as_f64(x: f64) -> f64 {
    x
}

impl Evaluator {
    /// The array (or NumPy scalar) a ufunc's operand is, and whether it was a scalar.
    fn ufunc_operand(&mut self, v: &Value) -> R<(Tensor, bool)> {
        let scalar = !matches!(
            v,
            Value::NdArray(_) | Value::List(_) | Value::Tuple(_) | Value::Tensor(_)
        );
        let t = match v {
            Value::Tensor(x) => x.borrow().tensor.clone(),
            other => self.as_ndarray_tensor(other)?,
        };
        Ok((t, scalar))
    }

    /// `np.exp(a)`, `np.log(a)`, `np.sqrt(a)`, `np.abs(a)`, `np.negative(a)`, `-a`.
    pub(super) fn numpy_unary(&mut self, name: &str, v: &Value) -> R<Value> {
        let (t, scalar) = self.ufunc_operand(v)?;
        let negate = name == "negative";
        let abs = matches!(name, "abs" | "absolute");
        if negate && t.dtype == DType::Bool {
            return Err(ScriptError::Type("The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the `logical_not` function instead.".into()));
        }
        // exp, log and sqrt compute integers (and bools) in float64; float16 in float32.
        let dtype = if negate || abs || t.dtype.is_floating() {
            t.dtype
        } else {
            DType::Float64
        };
        let values = self.engine.values(&t);
        let f32_math = matches!(dtype, DType::Float32 | DType::Float16 | DType::BFloat16);
        let out: Vec<Scalar> = values
            .iter()
            .map(|&s| {
                if negate || abs {
                    return match s {
                        Scalar::Int(i) if negate => Scalar::Int(i.wrapping_neg()),
                        Scalar::Int(i) => Scalar::Int(i.wrapping_abs()),
                        Scalar::Float(f) if negate => Scalar::Float(-f),
                        Scalar::Float(f) => Scalar::Float(f.abs()),
                        Scalar::Bool(b) => Scalar::Bool(b),
                    };
                }
                let x = s.to_f64();
                let y = if f32_math {
                    let x = x as f32;
                    f64::from(match name {
                        "exp" => x.exp(),
                        "log" => x.ln(),
                        _ => x.sqrt(),
                    })
                } else {
                    match name {
                        "exp" => x.exp(),
                        "log" => x.ln(),
                        _ => x.sqrt(),
                    }
                };
                cast(Scalar::Float(y), dtype)
            })
            .collect();
        if scalar {
            let v = out.first().copied().unwrap_or(Scalar::Float(0.0));
            return Ok(Value::NpScalar(dtype, v));
        }
        let shape = t.shape().to_vec();
        let out = self.tensor_from_values(&shape, dtype, &out, name)?;
        Ok(new_ndarray(out, name))
    }

    /// `-a` of an array or a NumPy scalar.
    pub(crate) fn numpy_negative(&mut self, v: &Value) -> R<Value> {
        self.numpy_unary("negative", v)
    }

    /// `np.sum(a, axis=None, keepdims=False)` and the other reductions, and the methods
    /// `a.sum(axis)`, ...
    pub(super) fn numpy_reduce(
        &mut self,
        name: &str,
        a: &Value,
        axis: Option<&Value>,
        keepdims: bool,
    ) -> R<Value> {
        let (t, _) = self.ufunc_operand(a)?;
        let ndim = t.ndim();
        let axis = match axis {
            None | Some(Value::None) => None,
            Some(v) => {
                let k = match v {
                    Value::Int(k) => *k,
                    Value::NpScalar(d, s) if d.is_integral() => s.to_wrapped_int(),
                    other => {
                        return Err(ScriptError::Type(format!(
                            "'{}' object cannot be interpreted as an integer",
                            other.type_name()
                        )))
                    }
                };
                let nd = ndim as i64;
                if k < -nd || k >= nd {
                    return Err(ScriptError::Value(format!(
                        "axis {k} is out of bounds for array of dimension {ndim}"
                    )));
                }
                Some(if k < 0 { k + nd } else { k } as usize)
            }
        };
        let name = match name {
            "amax" => "max",
            "amin" => "min",
            other => other,
        };
        let is_extreme = matches!(name, "max" | "min");
        if is_extreme && t.numel() == 0 {
            return Err(ScriptError::Value(format!(
                "zero-size array to reduction operation {}imum which has no identity",
                name
            )));
        }
        // The dtype NumPy reduces in: sums of bools and signed integers are int64, means of
        // integers float64. (NumPy sums uint8 in uint64, a dtype neither library here has:
        // the values are the same in int64.)
        let dtype = match (name, t.dtype) {
            ("max" | "min", d) => d,
            ("mean", d) if d.is_floating() => d,
            ("mean", _) => DType::Float64,
            (_, DType::Bool) => DType::Int64,
            (_, d) if d.is_integral() => DType::Int64,
            (_, d) => d,
        };
        let round = if matches!(dtype, DType::Float32 | DType::Float16 | DType::BFloat16) {
            to_f32
        } else {
            as_f64
        };
        let values = self.engine.values(&t);
        let shape = t.shape().to_vec();
        // Lines to reduce: all elements (in memory order) or one line per output element.
        let (out_shape, lines): (Vec<i64>, Vec<Vec<Scalar>>) = match axis {
            None => (Vec::new(), vec![memory_order(&t, &values)]),
            Some(k) => {
                let n = shape[k].max(0) as usize;
                let inner: usize = shape[k + 1..].iter().map(|&d| d.max(0) as usize).product();
                let outer: usize = shape[..k].iter().map(|&d| d.max(0) as usize).product();
                let mut lines = Vec::with_capacity(outer * inner);
                for o in 0..outer {
                    for i in 0..inner {
                        lines.push(
                            (0..n)
                                .map(|j| values[(o * n + j) * inner + i])
                                .collect::<Vec<_>>(),
                        );
                    }
                }
                let mut out_shape = shape.clone();
                out_shape.remove(k);
                (out_shape, lines)
            }
        };
        // A line contiguous in memory is summed pairwise; one along an outer axis in order.
        let pairwise = match axis {
            None => true,
            Some(k) => {
                let s = t.strides()[k].abs();
                (0..ndim).all(|d| d == k || shape[d] <= 1 || t.strides()[d].abs() >= s)
            }
        };
        let reduced: Vec<Scalar> = lines
            .iter()
            .map(|line| reduce_line(name, line, dtype, round, pairwise))
            .collect();
        let mut out_shape = out_shape;
        if keepdims {
            out_shape = match axis {
                None => vec![1; ndim],
                Some(k) => {
                    let mut s = shape.clone();
                    s[k] = 1;
                    s
                }
            };
        }
        if out_shape.is_empty() && !keepdims {
            let v = reduced.first().copied().unwrap_or(Scalar::Int(0));
            return Ok(Value::NpScalar(dtype, v));
        }
        let out = self.tensor_from_values(&out_shape, dtype, &reduced, name)?;
        Ok(new_ndarray(out, name))
    }
}

/// The elements of `t` in the order NumPy's iterator visits a full reduction: memory order
/// (dims by decreasing stride), which is C order for a C-contiguous array.
fn memory_order(t: &Tensor, values: &[Scalar]) -> Vec<Scalar> {
    let ndim = t.ndim();
    let mut dims: Vec<usize> = (0..ndim).collect();
    dims.sort_by_key(|&d| std::cmp::Reverse(t.strides()[d].abs()));
    if dims.iter().copied().eq(0..ndim) {
        return values.to_vec();
    }
    let shape = t.shape();
    let c_strides = crate::core::tensor::layout::contiguous_strides(shape);
    let view = Layout {
        shape: dims.iter().map(|&d| shape[d]).collect(),
        strides: dims.iter().map(|&d| c_strides[d]).collect(),
        offset: 0,
    };
    let mut out = Vec::with_capacity(values.len());
    let mut at = vec![0i64; ndim];
    for _ in 0..values.len() {
        let k: i64 = at.iter().zip(&view.strides).map(|(i, s)| i * s).sum();
        out.push(values[k as usize]);
        for d in (0..ndim).rev() {
            at[d] += 1;
            if at[d] < view.shape[d] {
                break;
            }
            at[d] = 0;
        }
    }
    out
}

/// One line reduced as NumPy does.
fn reduce_line(
    name: &str,
    line: &[Scalar],
    dtype: DType,
    round: fn(f64) -> f64,
    pairwise: bool,
) -> Scalar {
    match name {
        "max" | "min" => {
            let pick_max = name == "max";
            let mut best = line[0];
            for &v in &line[1..] {
                let (a, b) = (best.to_f64(), v.to_f64());
                if a.is_nan() {
                    break;
                }
                if b.is_nan() || (pick_max && b > a) || (!pick_max && b < a) {
                    best = v;
                }
            }
            cast(best, dtype)
        }
        _ if !dtype.is_floating() => {
            let total = line
                .iter()
                .fold(0i64, |acc, v| acc.wrapping_add(v.to_wrapped_int()));
            cast(Scalar::Int(total), dtype)
        }
        _ => {
            let xs: Vec<f64> = line.iter().map(|v| round(v.to_f64())).collect();
            let total = if pairwise {
                round(0.0 + pairwise_sum(&xs, round))
            } else {
                xs.iter().fold(0.0, |acc, &x| round(acc + x))
            };
            let total = if name == "mean" {
                round(total / xs.len() as f64)
            } else {
                total
            };
            Scalar::Float(total)
        }
    }
}
