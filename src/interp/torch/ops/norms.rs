//! Norms: `torch.norm`/`Tensor.norm` (PyTorch's Python wrapper over the two below),
//! `torch.linalg.vector_norm` and `torch.linalg.norm` (registered as `linalg_vector_norm` and
//! `linalg_norm`, and `torch.linalg.matrix_norm` as `linalg_matrix_norm`, reached through the
//! `torch.linalg` module), with the matrix norms `'fro'`,
//! `'nuc'`, `1`, `-1`, `2`, `-2`, `inf`, `-inf`.
//!
//! Computed in the evaluator from `engine.values()` in double precision and rounded once to
//! the result dtype (the engine has no norm kernels).

use crate::core::tensor::layout::wrap_dim;
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::ops::reduce::{groups, out_shape};
use crate::interp::torch::ops::stats::dims_mask;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["norm"],
        schemas: &["Tensor self, Any? p=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None"],
        forms: Forms::Both,
        rule: norm,
        grad: Grad::named("LinalgVectorNormBackward0", &crate::interp::torch::autograd::formulas_reduce::VECTOR_NORM),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["linalg_vector_norm"],
        schemas: &["Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None"],
        forms: Forms::Function,
        rule: linalg_vector_norm,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_reduce::VECTOR_NORM),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["linalg_norm"],
        schemas: &[
            "Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None",
            "Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None",
        ],
        forms: Forms::Function,
        rule: linalg_norm,
        grad: Grad::node("LinalgVectorNormBackward0"),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["linalg_matrix_norm"],
        schemas: &[
            "Tensor self, str ord='fro', int[] dim=None, bool keepdim=False, *, ScalarType? dtype=None",
            "Tensor self, Scalar ord, int[] dim=None, bool keepdim=False, *, ScalarType? dtype=None",
        ],
        forms: Forms::Function,
        rule: linalg_matrix_norm,
        ..OpDef::PLAIN
    },
];

/// A matrix norm's order.
#[derive(Clone, Copy, PartialEq)]
enum MatrixOrd {
    Fro,
    Nuc,
    Num(f64),
}

/// The order named by a value: a number, `'fro'` or `'nuc'`.
fn matrix_ord(ev: &Evaluator, v: &Value) -> R<MatrixOrd> {
    match v {
        Value::Str(s) if s == "fro" => Ok(MatrixOrd::Fro),
        Value::Str(s) if s == "nuc" => Ok(MatrixOrd::Nuc),
        Value::Str(s) => Err(ScriptError::Runtime(format!(
            "linalg.matrix_norm: Order {s} not supported."
        ))),
        other => ev
            .scalar_of(other)
            .map(|s| MatrixOrd::Num(s.to_f64()))
            .ok_or_else(|| {
                ScriptError::Type(format!(
                    "norm(): argument 'p' must be Number, not {}",
                    other.type_name()
                ))
            }),
    }
}

/// `torch.norm(input, p='fro', dim=None, keepdim=False, dtype=None)`: numbers are vector
/// norms; `'fro'` over at most two dims is the 2-norm; else a matrix norm.
fn norm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dims = ev.arg_ints(call, "dim")?;
    let keepdim = call.flag("keepdim", false);
    let dtype = call.dtype("dtype");
    // `p=None` (given) is the vector 2-norm; left out, `'fro'`.
    let given_none = call
        .args
        .names
        .iter()
        .position(|n| n == "p")
        .is_some_and(|i| matches!(call.args.values.get(i), Some(Some(Value::None))));
    let p = match call.value("p") {
        None if given_none => MatrixOrd::Num(2.0),
        None => MatrixOrd::Fro,
        Some(v) => matrix_ord(ev, v)?,
    };
    let out = match p {
        MatrixOrd::Num(p) => vector_norm(ev, &t, p, dims.as_deref(), keepdim, dtype)?,
        MatrixOrd::Fro if dims.as_ref().is_none_or(|d| d.len() <= 2) => {
            vector_norm(ev, &t, 2.0, dims.as_deref(), keepdim, dtype)?
        }
        _ => {
            let dims = dims.unwrap_or_else(|| (0..t.ndim() as i64).collect());
            matrix_norm(ev, &t, p, &dims, keepdim, dtype)?
        }
    };
    Ok(Value::tensor(out, "norm", None))
}

/// `torch.linalg.vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None)`.
fn linalg_vector_norm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let ord = ev.arg_float(call, "ord", 2.0)?;
    let dims = ev.arg_ints(call, "dim")?;
    let out = vector_norm(
        ev,
        &t,
        ord,
        dims.as_deref(),
        call.flag("keepdim", false),
        call.dtype("dtype"),
    )?;
    Ok(Value::tensor(out, "linalg_vector_norm", None))
}

/// `torch.linalg.matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None)`.
fn linalg_matrix_norm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dims = ev.arg_ints(call, "dim")?.unwrap_or_else(|| vec![-2, -1]);
    let ord = match call.value("ord") {
        None => MatrixOrd::Fro,
        Some(v) => matrix_ord(ev, v)?,
    };
    let out = matrix_norm(
        ev,
        &t,
        ord,
        &dims,
        call.flag("keepdim", false),
        call.dtype("dtype"),
    )?;
    Ok(Value::tensor(out, "linalg_matrix_norm", None))
}

/// `torch.linalg.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None)`: a matrix norm
/// when `ord` is given and the dims are two (or `A` is a matrix), else a vector norm.
fn linalg_norm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dims = ev.arg_ints(call, "dim")?;
    let keepdim = call.flag("keepdim", false);
    let dtype = call.dtype("dtype");
    let ord = match call.value("ord") {
        None => None,
        Some(v) => Some(matrix_ord(ev, v)?),
    };
    let is_str = matches!(ord, Some(MatrixOrd::Fro | MatrixOrd::Nuc));
    match &dims {
        Some(d) if d.len() != 1 && d.len() != 2 => {
            return Err(ScriptError::Runtime(format!(
                "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [{}]",
                d.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
            )))
        }
        None if ord.is_some() && t.ndim() != 1 && t.ndim() != 2 => {
            return Err(ScriptError::Runtime(format!(
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {}D.",
                t.ndim()
            )))
        }
        _ => {}
    }
    let matrix = match (&dims, ord) {
        (_, None) => false,
        (Some(d), _) => d.len() == 2 || is_str,
        (None, _) => t.ndim() == 2 || is_str,
    };
    let out = match ord {
        Some(ord) if matrix => {
            let dims = dims.unwrap_or_else(|| vec![0, 1]);
            matrix_norm(ev, &t, ord, &dims, keepdim, dtype)?
        }
        Some(MatrixOrd::Num(p)) => vector_norm(ev, &t, p, dims.as_deref(), keepdim, dtype)?,
        _ => vector_norm(ev, &t, 2.0, dims.as_deref(), keepdim, dtype)?,
    };
    Ok(Value::tensor(out, "linalg_norm", None))
}

/// A number as ATen's messages print a `Scalar` (`3`, `-1`, `2.5`, `inf`).
fn scalar_text(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// The norm of one group of numbers.
fn group_norm(xs: &[f64], ord: f64) -> f64 {
    let abs = xs.iter().map(|x| x.abs());
    if ord == 0.0 {
        xs.iter().filter(|x| **x != 0.0).count() as f64
    } else if ord == f64::INFINITY {
        abs.fold(0.0, |a: f64, b| if b.is_nan() || b > a { b } else { a })
    } else if ord == f64::NEG_INFINITY {
        abs.fold(
            f64::INFINITY,
            |a: f64, b| {
                if b.is_nan() || b < a {
                    b
                } else {
                    a
                }
            },
        )
    } else if ord == 1.0 {
        abs.fold(0.0, |a, b| a + b)
    } else if ord == 2.0 {
        abs.map(|x| x * x).fold(0.0, |a: f64, b| a + b).sqrt()
    } else {
        abs.map(|x| x.powf(ord))
            .fold(0.0, |a: f64, b| a + b)
            .powf(1.0 / ord)
    }
}

/// Checks a norm's input is floating point, and the `dtype=` it computes in.
fn norm_dtype(t: &Tensor, dtype: Option<DType>, what: &str) -> R<DType> {
    if !t.dtype.is_floating() {
        return Err(ScriptError::NotImplemented(format!(
            "{what}: Expected a floating point or complex tensor as input. Got {}",
            t.dtype.scalar_type_name()
        )));
    }
    match dtype {
        Some(d) if !d.is_floating() => Err(ScriptError::Runtime(format!(
            "{what}: dtype should be floating point or complex, but got {}",
            d.scalar_type_name()
        ))),
        Some(d) if d != t.dtype && narrows(t.dtype, d) => Err(ScriptError::Runtime(format!(
            "{what}: the dtype of the input ({}) should be convertible without narrowing to the specified dtype ({})",
            t.dtype.scalar_type_name(),
            d.scalar_type_name()
        ))),
        Some(d) => Ok(d),
        None => Ok(t.dtype),
    }
}

/// Whether converting floating `from` to floating `to` loses range or precision (their
/// promotion is not `to`).
fn narrows(from: DType, to: DType) -> bool {
    let rank = |d: DType| match d {
        DType::Float64 => 3,
        DType::Float32 => 2,
        _ => 1,
    };
    rank(to) < rank(from) || (rank(to) == 1 && from != to)
}

/// The vector `ord`-norm of `t` over `dims` (all when `None` or empty).
fn vector_norm(
    ev: &mut Evaluator,
    t: &Tensor,
    ord: f64,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<DType>,
) -> R<Tensor> {
    let what = "linalg.vector_norm";
    let dtype = norm_dtype(t, dtype, what)?;
    let reduce = dims_mask(t, dims)?;
    let given = dims.is_some_and(|d| !d.is_empty());
    if given && (ord < 0.0 || ord.is_infinite()) {
        if let Some(w) = (0..t.ndim()).find(|&w| reduce[w] && t.shape()[w] == 0) {
            return Err(ScriptError::Runtime(format!(
                "{what} cannot compute the {} norm on the dimension {w}because this dimension is empty and the operation does not have an identity",
                scalar_text(ord)
            )));
        }
    }
    let empty = t.numel() == 0
        && (reduce.iter().zip(t.shape()).any(|(&r, &n)| r && n == 0) || t.ndim() == 0);
    if !given && empty && (ord < 0.0 || ord.is_infinite()) {
        return Err(ScriptError::Runtime(format!(
            "{what} cannot compute the {} norm on an empty tensor because the operation does not have an identity",
            scalar_text(ord)
        )));
    }
    let g = groups(ev, t, &reduce, what)?;
    let values: Vec<Scalar> = g
        .groups
        .iter()
        .map(|group| {
            let xs: Vec<f64> = group
                .iter()
                .map(|(_, v)| dtype.round(*v).to_f64())
                .collect();
            dtype.round(Scalar::Float(group_norm(&xs, ord)))
        })
        .collect();
    let shape = out_shape(&g.kept, &reduce, keepdim);
    ev.tensor_from_values(&shape, dtype, &values, what)
}

/// The singular values of a `rows` x `cols` matrix (row-major), by one-sided Jacobi.
fn singular_values(a: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    // Work on the columns of the taller orientation.
    let (n, mut cols_of): (usize, Vec<Vec<f64>>) = if rows >= cols {
        (
            cols,
            (0..cols)
                .map(|j| (0..rows).map(|i| a[i * cols + j]).collect())
                .collect(),
        )
    } else {
        (
            rows,
            (0..rows)
                .map(|i| a[i * cols..(i + 1) * cols].to_vec())
                .collect(),
        )
    };
    for _sweep in 0..60 {
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let (left, right) = cols_of.split_at_mut(q);
                let (cp, cq) = (&mut left[p], &mut right[0]);
                let (mut alpha, mut beta, mut gamma) = (0.0, 0.0, 0.0);
                for (x, y) in cp.iter().zip(cq.iter()) {
                    alpha += x * x;
                    beta += y * y;
                    gamma += x * y;
                }
                if gamma.abs() <= 1e-15 * (alpha * beta).sqrt() || gamma == 0.0 {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let tan = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let tan = if zeta == 0.0 { 1.0 } else { tan };
                let cos = 1.0 / (1.0 + tan * tan).sqrt();
                let sin = cos * tan;
                for (x, y) in cp.iter_mut().zip(cq.iter_mut()) {
                    let (a, b) = (*x, *y);
                    *x = cos * a - sin * b;
                    *y = sin * a + cos * b;
                }
            }
        }
        if !rotated {
            break;
        }
    }
    cols_of
        .iter()
        .map(|c| c.iter().map(|x| x * x).fold(0.0, |a: f64, b| a + b).sqrt())
        .collect()
}

/// The matrix norm of one `rows` x `cols` matrix (row-major).
fn matrix_value(a: &[f64], rows: usize, cols: usize, ord: MatrixOrd) -> f64 {
    let pick = |v: Vec<f64>, largest: bool| {
        v.into_iter()
            .fold(if largest { 0.0 } else { f64::INFINITY }, |acc, x| {
                if x.is_nan() || (largest && x > acc) || (!largest && x < acc) {
                    x
                } else {
                    acc
                }
            })
    };
    match ord {
        MatrixOrd::Fro => a.iter().map(|x| x * x).fold(0.0, |a: f64, b| a + b).sqrt(),
        MatrixOrd::Nuc => singular_values(a, rows, cols)
            .iter()
            .fold(0.0, |a, b| a + b),
        MatrixOrd::Num(p) if p.abs() == 2.0 => pick(singular_values(a, rows, cols), p > 0.0),
        MatrixOrd::Num(p) if p.abs() == 1.0 => {
            let sums = (0..cols)
                .map(|j| {
                    (0..rows)
                        .map(|i| a[i * cols + j].abs())
                        .fold(0.0, |s, x| s + x)
                })
                .collect();
            pick(sums, p > 0.0)
        }
        MatrixOrd::Num(p) => {
            let sums = (0..rows)
                .map(|i| {
                    a[i * cols..(i + 1) * cols]
                        .iter()
                        .fold(0.0, |s, x| s + x.abs())
                })
                .collect();
            pick(sums, p > 0.0)
        }
    }
}

/// The matrix norm of `t` over the two `dims` (the first indexes rows).
fn matrix_norm(
    ev: &mut Evaluator,
    t: &Tensor,
    ord: MatrixOrd,
    dims: &[i64],
    keepdim: bool,
    dtype: Option<DType>,
) -> R<Tensor> {
    let what = "linalg.matrix_norm";
    if t.ndim() < 2 {
        return Err(ScriptError::Runtime(format!(
            "{what}: The input tensor A must have at least 2 dimensions."
        )));
    }
    if let MatrixOrd::Num(p) = ord {
        if ![1.0, -1.0, 2.0, -2.0, f64::INFINITY, f64::NEG_INFINITY].contains(&p) {
            return Err(ScriptError::Runtime(format!(
                "{what}: Order {} not supported.",
                scalar_text(p)
            )));
        }
    }
    let dtype = norm_dtype(t, dtype, what)?;
    let [d0, d1] = dims else {
        return Err(ScriptError::Runtime(format!(
            "{what}: dim must be a 2-tuple. Got {}",
            dims.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        )));
    };
    let (r, c) = (
        wrap_dim(*d0, t.ndim()).map_err(ScriptError::Index)?,
        wrap_dim(*d1, t.ndim()).map_err(ScriptError::Index)?,
    );
    if r == c {
        return Err(ScriptError::Runtime(format!(
            "{what}: dims must be different. Got ({d0}, {d1})"
        )));
    }
    let reduce = dims_mask(t, Some(&[*d0, *d1]))?;
    let (rows, cols) = (t.shape()[r].max(0) as usize, t.shape()[c].max(0) as usize);
    let g = groups(ev, t, &reduce, what)?;
    let values: Vec<Scalar> = g
        .groups
        .iter()
        .map(|group| {
            // A group runs over (lower dim, higher dim) in row-major order.
            let xs: Vec<f64> = group
                .iter()
                .map(|(_, v)| dtype.round(*v).to_f64())
                .collect();
            let a: Vec<f64> = if r < c {
                xs
            } else {
                (0..rows)
                    .flat_map(|i| (0..cols).map(move |j| (i, j)))
                    .map(|(i, j)| xs.get(j * rows + i).copied().unwrap_or(0.0))
                    .collect()
            };
            dtype.round(Scalar::Float(matrix_value(&a, rows, cols, ord)))
        })
        .collect();
    let shape = out_shape(&g.kept, &reduce, keepdim);
    ev.tensor_from_values(&shape, dtype, &values, what)
}
