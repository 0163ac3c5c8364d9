//! Reductions: `sum`, `mean`, `amax`, `amin` (the engine's reduce kernels), and `max`/`min`
//! (whole tensor, along a dim with `torch.return_types.max(values, indices)`, or elementwise
//! against another tensor), `maximum`/`minimum`, `argmax`/`argmin`, `all`/`any`, `prod`,
//! `std`/`var`, `torch.equal` and `torch.allclose`.
//!
//! The engine has reduce kernels only for sum, mean, amax and amin. The others need an
//! index or a data-dependent order, so they are computed in the evaluator from
//! `engine.values()` and written into a fresh storage with `tensor_from_values` (the CPU
//! engine's path, for that reason).

use crate::core::tensor::layout::{broadcast_shapes, numel_of, wrap_dim};
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::engines::ReduceOp;
use crate::interp::torch::autograd::{formulas, nodes, Grad};
use crate::interp::torch::ops::{broadcast_view, ElementwiseInput, ResultType};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use std::cmp::Ordering;

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["sum"],
        schemas: &[
            "Tensor self, *, ScalarType? dtype=None",
            "Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None",
        ],
        forms: Forms::Both,
        rule: engine_reduce,
        grad: Grad::by(nodes::reduction, Some(&formulas::SUM)),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["mean"],
        schemas: &[
            "Tensor self, *, ScalarType? dtype=None",
            "Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None",
        ],
        forms: Forms::Both,
        rule: engine_reduce,
        grad: Grad::by(nodes::reduction, Some(&formulas::MEAN)),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["amax", "amin"],
        schemas: &["Tensor self, int[1] dim=[], bool keepdim=False"],
        forms: Forms::Both,
        rule: engine_reduce,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_reduce::AMAX),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["max", "min"],
        schemas: &[
            "Tensor self",
            "Tensor self, int dim, bool keepdim=False",
            "Tensor self, Tensor other",
        ],
        forms: Forms::Both,
        rule: max_min,
        grad: Grad::by(
            nodes::max_min,
            Some(&crate::interp::torch::autograd::formulas_reduce::MAX_MIN),
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["maximum", "minimum", "fmax", "fmin"],
        schemas: &["Tensor self, Tensor other"],
        forms: Forms::Both,
        rule: max_min,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_reduce::MAXIMUM),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["argmax", "argmin"],
        schemas: &["Tensor self, int? dim=None, bool keepdim=False"],
        forms: Forms::Both,
        rule: argmax,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["all", "any"],
        schemas: &[
            "Tensor self",
            "Tensor self, int dim, bool keepdim=False",
            "Tensor self, int[]? dim=None, bool keepdim=False",
        ],
        forms: Forms::Both,
        rule: all_any,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["prod"],
        schemas: &[
            "Tensor self, *, ScalarType? dtype=None",
            "Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None",
        ],
        forms: Forms::Both,
        rule: prod,
        grad: Grad::by(
            nodes::reduction,
            Some(&crate::interp::torch::autograd::formulas_reduce::PROD),
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["std", "var"],
        schemas: &[
            "Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False",
            "Tensor self, bool unbiased=True",
            "Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False",
        ],
        forms: Forms::Both,
        rule: std_var,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_reduce::VAR_STD),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["equal"],
        schemas: &["Tensor self, Tensor other"],
        forms: Forms::Both,
        rule: equal,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["allclose"],
        schemas: &[
            "Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False",
        ],
        forms: Forms::Both,
        rule: allclose,
        ..OpDef::PLAIN
    },
];

/// `sum`, `mean`, `amax`, `amin` on the engine's reduce kernels.
fn engine_reduce(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let op = match call.name.as_str() {
        "sum" => ReduceOp::Sum,
        "mean" => ReduceOp::Mean,
        "amax" => ReduceOp::Amax,
        _ => ReduceOp::Amin,
    };
    let dims = match (op, ev.arg_ints(call, "dim")?) {
        (ReduceOp::Amax | ReduceOp::Amin, None) => Some(vec![]),
        (_, d) => d,
    };
    let keepdim = call.flag("keepdim", false);
    let out = ev.reduce(op, &t, dims.as_deref(), keepdim, call.dtype("dtype"))?;
    if op == ReduceOp::Mean {
        // ATen's mean sums into the output, then divides it in place by the count: a
        // wrapped int64 and its cast to the output's dtype live while it does.
        ev.note_transient(8 + out.dtype.item_size() as u64);
        ev.end_transient();
    }
    Ok(Value::tensor(out, &call.name, None))
}

/// Python's order of two numbers (NaN compares as neither).
pub(super) fn compare(a: Scalar, b: Scalar) -> Option<Ordering> {
    match (a, b) {
        (Scalar::Float(_), _) | (_, Scalar::Float(_)) => a.to_f64().partial_cmp(&b.to_f64()),
        _ => Some(a.to_wrapped_int().cmp(&b.to_wrapped_int())),
    }
}

pub(super) fn is_nan(s: Scalar) -> bool {
    matches!(s, Scalar::Float(f) if f.is_nan())
}

/// The elements of `t` grouped by output position when `reduce` dims are reduced: each
/// group lists (row-major index in `t`, value), in row-major order, so the position within a
/// group is the index along a single reduced dim (or the flat index when all are reduced).
pub(super) struct Groups {
    pub(super) groups: Vec<Vec<(usize, Scalar)>>,
    /// The output shape with reduced dims kept as 1.
    pub(super) kept: Vec<i64>,
}

pub(super) fn groups(ev: &mut Evaluator, t: &Tensor, reduce: &[bool], what: &str) -> R<Groups> {
    ev.check_work(t.numel(), what)?;
    let shape = t.shape();
    let kept: Vec<i64> = shape
        .iter()
        .zip(reduce)
        .map(|(&n, &r)| if r { 1 } else { n })
        .collect();
    let out_n = numel_of(&kept).max(0) as usize;
    let mut groups = vec![Vec::new(); out_n];
    let values = ev.engine.values(t);
    let mut index = vec![0i64; shape.len()];
    for (flat, v) in values.into_iter().enumerate() {
        let mut out = 0i64;
        for d in 0..shape.len() {
            out = out * kept[d] + if reduce[d] { 0 } else { index[d] };
        }
        if let Some(g) = groups.get_mut(out as usize) {
            g.push((flat, v));
        }
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(Groups { groups, kept })
}

/// `torch.return_types.{name}(values=..., indices=...)` of a reduction over the `reduce`
/// dims of `t`: in each group, `pick` chooses one element (its position in the group and its
/// value); values keep `t`'s dtype, indices are int64.
pub(super) fn values_and_indices(
    ev: &mut Evaluator,
    t: &Tensor,
    reduce: &[bool],
    keepdim: bool,
    name: &str,
    pick: impl Fn(&[(usize, Scalar)]) -> (usize, Scalar),
) -> R<Value> {
    let g = groups(ev, t, reduce, name)?;
    let (mut values, mut indices) = (Vec::new(), Vec::new());
    for group in &g.groups {
        let (k, v) = pick(group);
        values.push(v);
        indices.push(Scalar::Int(k as i64));
    }
    let shape = out_shape(&g.kept, reduce, keepdim);
    let v = ev.tensor_from_values(&shape, t.dtype, &values, name)?;
    let i = ev.tensor_from_values(&shape, DType::Int64, &indices, name)?;
    Ok(Value::NamedTuple(
        format!("torch.return_types.{name}"),
        vec![
            ("values".into(), Value::tensor(v, name, None)),
            ("indices".into(), Value::tensor(i, name, None)),
        ],
    ))
}

/// The output shape: `kept`, or without the reduced dims.
pub(super) fn out_shape(kept: &[i64], reduce: &[bool], keepdim: bool) -> Vec<i64> {
    kept.iter()
        .zip(reduce)
        .filter(|(_, &r)| keepdim || !r)
        .map(|(&n, _)| n)
        .collect()
}

/// The reduce mask of one dim, or of every dim.
pub(super) fn mask(t: &Tensor, dim: Option<i64>) -> R<Vec<bool>> {
    let n = t.ndim();
    match dim {
        None => Ok(vec![true; n]),
        Some(d) => {
            let w = wrap_dim(d, n).map_err(ScriptError::Index)?;
            Ok((0..n).map(|i| n > 0 && i == w).collect())
        }
    }
}

/// The position of the largest (or smallest) value in a group: the first one, or the first
/// NaN (which wins, as in PyTorch).
fn extreme(group: &[(usize, Scalar)], largest: bool) -> (usize, Scalar) {
    let mut best = 0;
    for (k, &(_, v)) in group.iter().enumerate() {
        let b = group[best].1;
        if is_nan(b) {
            break;
        }
        if is_nan(v) {
            best = k;
            break;
        }
        let better = match compare(v, b) {
            Some(Ordering::Greater) => largest,
            Some(Ordering::Less) => !largest,
            _ => false,
        };
        if better {
            best = k;
        }
    }
    (best, group.get(best).map(|g| g.1).unwrap_or(Scalar::Int(0)))
}

/// `max()`/`min()`, `max(dim)` (values and indices), `max(other)`, `maximum(other)`.
fn max_min(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let largest = matches!(call.name.as_str(), "max" | "maximum" | "fmax");
    let base = if largest { "max" } else { "min" };
    if let Some(other) = call.tensor("other") {
        let mut rt = ResultType::default();
        rt.add(&ElementwiseInput::Tensor(t.clone()));
        rt.add(&ElementwiseInput::Tensor(other.clone()));
        let out = elementwise_extreme(ev, &t, &other, largest, &call.name, rt.result())?;
        return Ok(Value::tensor(out, &call.name, None));
    }
    let Some(dim) = ev.arg_opt_int(call, "dim")? else {
        if t.numel() == 0 {
            return Err(ScriptError::Runtime(format!(
                "{base}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )));
        }
        let op = if largest {
            ReduceOp::Amax
        } else {
            ReduceOp::Amin
        };
        let out = ev.reduce(op, &t, Some(&[]), false, None)?;
        return Ok(Value::tensor(out, base, None));
    };
    let keepdim = call.flag("keepdim", false);
    let reduce = mask(&t, Some(dim))?;
    if t.numel() == 0 && t.ndim() > 0 {
        let w = wrap_dim(dim, t.ndim()).map_err(ScriptError::Index)?;
        if t.shape()[w] == 0 {
            return Err(ScriptError::Index(format!(
                "{base}(): Expected reduction dim {dim} to have non-zero size."
            )));
        }
    }
    values_and_indices(ev, &t, &reduce, keepdim, base, |group| {
        extreme(group, largest)
    })
}

/// `max(a, b)`/`maximum(a, b)`: elementwise, broadcast, in `dtype`; NaN wins (`fmax`/`fmin`:
/// the number wins).
pub(super) fn elementwise_extreme(
    ev: &mut Evaluator,
    a: &Tensor,
    b: &Tensor,
    largest: bool,
    name: &str,
    dtype: DType,
) -> R<Tensor> {
    let shape = broadcast_shapes(a.shape(), b.shape()).map_err(ScriptError::Runtime)?;
    ev.check_work(numel_of(&shape), name)?;
    let x = ev.engine.values(&broadcast_view(a, &shape));
    let y = ev.engine.values(&broadcast_view(b, &shape));
    let ignore_nan = name.starts_with('f');
    let values: Vec<Scalar> = x
        .into_iter()
        .zip(y)
        .map(|(p, q)| {
            let (p, q) = (dtype.round(p), dtype.round(q));
            if is_nan(p) || is_nan(q) {
                return match (ignore_nan, is_nan(p)) {
                    (true, true) => q,
                    (true, false) => p,
                    (false, true) => p,
                    (false, false) => q,
                };
            }
            let pick_p = match compare(p, q) {
                Some(Ordering::Greater) => largest,
                Some(Ordering::Less) => !largest,
                _ => true,
            };
            if pick_p {
                p
            } else {
                q
            }
        })
        .collect();
    ev.tensor_from_values(&shape, dtype, &values, name)
}

/// `argmax`/`argmin`: the index along `dim`, or into the flattened tensor.
fn argmax(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let largest = call.name == "argmax";
    let dim = ev.arg_opt_int(call, "dim")?;
    let keepdim = call.flag("keepdim", false);
    if t.numel() == 0 {
        match dim {
            None => {
                return Err(ScriptError::Index(format!(
                    "{}(): Expected reduction dim to be specified for input.numel() == 0.",
                    call.name
                )))
            }
            Some(d) => {
                let w = wrap_dim(d, t.ndim().max(1)).map_err(ScriptError::Index)?;
                if t.shape().get(w) == Some(&0) {
                    return Err(ScriptError::Index(format!(
                        "{}(): Expected reduction dim {d} to have non-zero size.",
                        call.name
                    )));
                }
            }
        }
    }
    let reduce = mask(&t, dim)?;
    let g = groups(ev, &t, &reduce, &call.name)?;
    let indices: Vec<Scalar> = g
        .groups
        .iter()
        .map(|group| Scalar::Int(extreme(group, largest).0 as i64))
        .collect();
    let shape = out_shape(&g.kept, &reduce, keepdim);
    let out = ev.tensor_from_values(&shape, DType::Int64, &indices, &call.name)?;
    Ok(Value::tensor(out, &call.name, None))
}

/// The reduce mask of an `int[]? dim` (every dim when not given).
fn mask_of_dims(ev: &mut Evaluator, call: &OpCall, t: &Tensor) -> R<Vec<bool>> {
    let n = t.ndim();
    let Some(dims) = ev.arg_ints(call, "dim")? else {
        return Ok(vec![true; n]);
    };
    let mut reduce = vec![false; n];
    for d in dims {
        let w = wrap_dim(d, n).map_err(ScriptError::Index)?;
        if n > 0 {
            if reduce[w] {
                return Err(ScriptError::Runtime(format!(
                    "dim {w} appears multiple times in the list of dims"
                )));
            }
            reduce[w] = true;
        }
    }
    Ok(reduce)
}

/// `all`/`any`: bool results (`uint8` for a `uint8` input, as PyTorch keeps it).
fn all_any(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let is_all = call.name == "all";
    let reduce = mask_of_dims(ev, call, &t)?;
    let keepdim = call.flag("keepdim", false);
    let g = groups(ev, &t, &reduce, &call.name)?;
    let dtype = if t.dtype == DType::UInt8 {
        DType::UInt8
    } else {
        DType::Bool
    };
    let values: Vec<Scalar> = g
        .groups
        .iter()
        .map(|group| {
            let truth = |s: &Scalar| s.to_f64() != 0.0;
            let r = if is_all {
                group.iter().all(|(_, v)| truth(v))
            } else {
                group.iter().any(|(_, v)| truth(v))
            };
            dtype.round(Scalar::Bool(r))
        })
        .collect();
    let shape = out_shape(&g.kept, &reduce, keepdim);
    let out = ev.tensor_from_values(&shape, dtype, &values, &call.name)?;
    Ok(Value::tensor(out, &call.name, None))
}

/// `prod`: integers (and bools) multiply into `int64`, wrapping.
fn prod(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_opt_int(call, "dim")?;
    let keepdim = call.flag("keepdim", false);
    let dtype = call.dtype("dtype").unwrap_or(if t.dtype.is_floating() {
        t.dtype
    } else {
        DType::Int64
    });
    let reduce = mask(&t, dim)?;
    let g = groups(ev, &t, &reduce, "prod")?;
    let values: Vec<Scalar> = g
        .groups
        .iter()
        .map(|group| {
            if dtype.is_floating() {
                let p = group.iter().fold(1.0, |acc, (_, v)| acc * v.to_f64());
                dtype.round(Scalar::Float(p))
            } else {
                let p = group.iter().fold(1i64, |acc, (_, v)| {
                    acc.wrapping_mul(dtype.round(*v).to_wrapped_int())
                });
                dtype.round(Scalar::Int(p))
            }
        })
        .collect();
    let shape = out_shape(&g.kept, &reduce, keepdim);
    let out = ev.tensor_from_values(&shape, dtype, &values, "prod")?;
    Ok(Value::tensor(out, "prod", None))
}

/// `std`/`var` with `unbiased=` or `correction=` (Bessel's correction by default).
fn std_var(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    if !t.dtype.is_floating() {
        return Err(ScriptError::NotImplemented(
            "std and var only support floating point and complex dtypes".into(),
        ));
    }
    let correction = match ev.arg_scalar(call, "correction")? {
        Some(c) => c.to_f64(),
        None => f64::from(u8::from(call.flag("unbiased", true))),
    };
    let reduce = mask_of_dims(ev, call, &t)?;
    let keepdim = call.flag("keepdim", false);
    let g = groups(ev, &t, &reduce, &call.name)?;
    let is_std = call.name == "std";
    let values: Vec<Scalar> = g
        .groups
        .iter()
        .map(|group| {
            let n = group.len() as f64;
            let mean = group.iter().map(|(_, v)| v.to_f64()).sum::<f64>() / n;
            let ss: f64 = group.iter().map(|(_, v)| (v.to_f64() - mean).powi(2)).sum();
            let var = ss / (n - correction).max(0.0);
            let r = if is_std { var.sqrt() } else { var };
            t.dtype.round(Scalar::Float(r))
        })
        .collect();
    let shape = out_shape(&g.kept, &reduce, keepdim);
    let out = ev.tensor_from_values(&shape, t.dtype, &values, &call.name)?;
    if matches!(t.dtype, DType::Float32 | DType::Float64) && out.numel() == 1 {
        // A reduction over every dimension runs `std_var_all_cpu`: `self.mean().item()`
        // first (a 0-d mean, then its division by the count: a wrapped int64 and its cast).
        let item = t.dtype.item_size() as u64;
        ev.note_transient(item);
        ev.note_transient(8 + item);
        ev.end_transient();
    }
    Ok(Value::tensor(out, &call.name, None))
}

/// `torch.equal`: same shape and the same values (of any dtypes).
fn equal(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let a = call.self_tensor()?;
    let Some(b) = call.tensor("other") else {
        return Ok(Value::Bool(false));
    };
    if a.shape() != b.shape() {
        return Ok(Value::Bool(false));
    }
    ev.check_work(a.numel(), "equal")?;
    let (x, y) = (ev.engine.values(&a), ev.engine.values(&b));
    Ok(Value::Bool(
        x.into_iter()
            .zip(y)
            .all(|(p, q)| compare(p, q) == Some(Ordering::Equal)),
    ))
}

/// `torch.allclose`: `|a - b| <= atol + rtol * |b|` everywhere (broadcast; equal infinities
/// are close; NaNs only with `equal_nan`).
fn allclose(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let a = call.self_tensor()?;
    let Some(b) = call.tensor("other") else {
        return Ok(Value::Bool(false));
    };
    if a.dtype != b.dtype {
        return Err(ScriptError::Runtime(format!(
            "{} did not match {}",
            a.dtype.scalar_type_name(),
            b.dtype.scalar_type_name()
        )));
    }
    let rtol = ev.arg_float(call, "rtol", 1e-5)?;
    let atol = ev.arg_float(call, "atol", 1e-8)?;
    let equal_nan = call.flag("equal_nan", false);
    let shape = broadcast_shapes(a.shape(), b.shape()).map_err(ScriptError::Runtime)?;
    ev.check_work(numel_of(&shape), "allclose")?;
    // ATen's allclose is `isclose(...).all().item()`: the bool result, isclose's buffers, the
    // 1-byte `all`, then the result freed.
    let mut events = vec![numel_of(&shape)];
    events.extend(super::logical::isclose_events(
        a.shape(),
        b.shape(),
        a.dtype,
        rtol,
        atol,
        equal_nan,
    ));
    events.extend([1, -1]);
    ev.note_kernel_events(&events);
    let x = ev.engine.values(&broadcast_view(&a, &shape));
    let y = ev.engine.values(&broadcast_view(&b, &shape));
    let close = x.into_iter().zip(y).all(|(p, q)| {
        let (p, q) = (p.to_f64(), q.to_f64());
        if p.is_nan() || q.is_nan() {
            return equal_nan && p.is_nan() && q.is_nan();
        }
        p == q || (p - q).abs() <= atol + rtol * q.abs()
    });
    Ok(Value::Bool(close))
}

impl Evaluator {
    /// `sum`, `mean`, `amax`, `amin` over `dims` (None: all dims).
    pub(super) fn reduce(
        &mut self,
        op: ReduceOp,
        t: &Tensor,
        dims: Option<&[i64]>,
        keepdim: bool,
        dtype: Option<DType>,
    ) -> R<Tensor> {
        crate::interp::torch::ops::complex::refuse_complex(
            &format!("{op:?}").to_ascii_lowercase(),
            &[t],
        )?;
        let name = match op {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Amax => "amax",
            ReduceOp::Amin => "amin",
        };
        if op == ReduceOp::Mean && dtype.is_none() && !t.dtype.is_floating() {
            return Err(ScriptError::NotImplemented(format!(
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
                t.dtype.scalar_type_name()
            )));
        }
        let n = t.ndim();
        if matches!(op, ReduceOp::Amax | ReduceOp::Amin) && t.numel() == 0 {
            // `zero_numel_check_dims`, before the dims are checked for repeats.
            let given = dims.unwrap_or(&[]);
            if given.is_empty() {
                return Err(ScriptError::Runtime(format!(
                    "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
                )));
            }
            for &d in given {
                let w = wrap_dim(d, n).map_err(crate::interp::torch::ops::index_err)?;
                if t.shape().get(w) == Some(&0) {
                    return Err(ScriptError::Index(format!(
                        "{name}(): Expected reduction dim {d} to have non-zero size."
                    )));
                }
            }
        }
        let mut reduce = vec![false; n];
        match dims {
            None => reduce.iter_mut().for_each(|r| *r = true),
            Some([]) => reduce.iter_mut().for_each(|r| *r = true),
            Some(dims) => {
                for &d in dims {
                    let w = wrap_dim(d, n).map_err(crate::interp::torch::ops::index_err)?;
                    if n > 0 && reduce[w] {
                        return Err(ScriptError::Runtime(format!(
                            "dim {w} appears multiple times in the list of dims"
                        )));
                    }
                    if n > 0 {
                        reduce[w] = true;
                    }
                }
            }
        }
        let out_dtype = match (op, dtype) {
            (_, Some(d)) => d,
            (ReduceOp::Sum, None) if !t.dtype.is_floating() => DType::Int64,
            (ReduceOp::Mean, None) if !t.dtype.is_floating() => {
                return Err(ScriptError::NotImplemented(format!(
                    "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
                    t.dtype.scalar_type_name()
                )));
            }
            _ => t.dtype,
        };
        self.check_work(t.numel(), name)?;
        let kept_shape: Vec<i64> = (0..n)
            .map(|d| if reduce[d] { 1 } else { t.shape()[d] })
            .collect();
        let out = self.empty(
            &kept_shape,
            out_dtype,
            crate::core::tensor::MemoryFormat::Contiguous,
            name,
        )?;
        if t.dtype != out_dtype && !self.torch.device.meta_op {
            // ATen's `make_reduction` reduces `self.to(out_dtype)` when the dtypes differ
            // (a bool mask's `sum()`, `sum(dtype=torch.float64)`): a whole copy, made after
            // the output and freed before the op returns.
            let copy = t.numel().max(0) * out_dtype.item_size() as i64;
            self.note_kernel_events(&[copy, -copy]);
        }
        let dims_list: Vec<usize> = (0..n).filter(|&d| reduce[d]).collect();
        self.engine.reduce(op, &out, t, &dims_list);
        if keepdim {
            return Ok(out);
        }
        let shape: Vec<i64> = (0..n)
            .filter(|&d| !reduce[d])
            .map(|d| t.shape()[d])
            .collect();
        Ok(out.with_layout(crate::core::tensor::Layout::contiguous(&shape)))
    }
}
