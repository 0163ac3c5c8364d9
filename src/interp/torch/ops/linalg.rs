//! Linear algebra beside `matmul`: `mv`, `outer` (`ger`), `trace`, `diag`, `cross`
//! (`torch.linalg.cross`), `dist`, `cdist`. Results are new contiguous tensors; values are
//! computed in double precision from `engine.values()` and rounded once to the dtype.

use crate::core::tensor::layout::wrap_dim;
use crate::core::tensor::layout::{broadcast_shapes, numel_of};
use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::{formulas, Grad};
use crate::interp::torch::ops::not_for_bool;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["mv"],
        schemas: &["Tensor self, Tensor vec"],
        forms: Forms::Both,
        rule: mv,
        grad: Grad::formula(&formulas::MATMUL),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["outer", "ger"],
        schemas: &["Tensor self, Tensor vec2"],
        forms: Forms::Both,
        rule: outer,
        grad: Grad::node("MulBackward0"),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["trace"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: trace,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["diag"],
        schemas: &["Tensor self, int diagonal=0"],
        forms: Forms::Both,
        rule: diag,
        grad: Grad::node("DiagonalBackward0_copy"),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["cross"],
        schemas: &["Tensor self, Tensor other, int? dim=None"],
        forms: Forms::Both,
        rule: cross,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["linalg_cross"],
        schemas: &["Tensor self, Tensor other, *, int dim=-1"],
        forms: Forms::Function,
        rule: cross,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["dist"],
        schemas: &["Tensor self, Tensor other, Scalar p=2"],
        forms: Forms::Both,
        rule: dist,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["cdist"],
        schemas: &["Tensor x1, Tensor x2, float p=2., str? compute_mode=None"],
        forms: Forms::Function,
        rule: cdist,
        ..OpDef::PLAIN
    },
];

/// The vector `p`-norm of `values` (`p = 0` counts non-zeros; `±inf` is the largest or
/// smallest magnitude).
pub(super) fn vector_norm(values: &[f64], p: f64) -> f64 {
    let abs = values.iter().map(|v| v.abs());
    if p == 0.0 {
        abs.filter(|&v| v != 0.0).count() as f64
    } else if p == f64::INFINITY {
        abs.fold(0.0, f64::max)
    } else if p == f64::NEG_INFINITY {
        abs.fold(f64::INFINITY, f64::min)
    } else if p == 1.0 {
        abs.fold(0.0, |a, b| a + b)
    } else if p == 2.0 {
        abs.map(|v| v * v).fold(0.0, |a, b| a + b).sqrt()
    } else {
        abs.map(|v| v.powf(p)).fold(0.0, |a, b| a + b).powf(1.0 / p)
    }
}

/// Host values of `t` as `f64`, row-major.
fn floats(ev: &mut Evaluator, t: &Tensor) -> Vec<f64> {
    ev.engine.values(t).iter().map(|v| v.to_f64()).collect()
}

/// A new contiguous tensor of `dtype` from `f64` values.
pub(super) fn from_floats(
    ev: &mut Evaluator,
    shape: &[i64],
    dtype: DType,
    values: &[f64],
    what: &str,
) -> R<Value> {
    let scalars: Vec<Scalar> = values
        .iter()
        .map(|&v| {
            if dtype.is_floating() {
                dtype.round(Scalar::Float(v))
            } else {
                dtype.round(Scalar::Int(v as i64))
            }
        })
        .collect();
    let t = ev.tensor_from_values(shape, dtype, &scalars, what)?;
    Ok(Value::tensor(t, what, None))
}

fn mv(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let m = call.self_tensor()?;
    let v = call.tensor("vec").unwrap_or_else(|| m.clone());
    if m.ndim() != 2 || v.ndim() != 1 {
        return Err(ScriptError::Runtime(format!(
            "vector + matrix @ vector expected, got 1, {}, {}",
            m.ndim(),
            v.ndim()
        )));
    }
    let out = ev.mv(&m, &v)?;
    Ok(Value::tensor(out, "mv", None))
}

fn outer(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let a = call.self_tensor()?;
    let b = call.tensor("vec2").unwrap_or_else(|| a.clone());
    for (t, name) in [(&a, "self"), (&b, "vec2")] {
        if t.ndim() != 1 {
            return Err(ScriptError::Runtime(format!(
                "outer: Expected 1-D argument {name}, but got {}-D",
                t.ndim()
            )));
        }
    }
    let column = ev.unsqueeze(&a, 1)?;
    let out = ev.tensor_binary(
        BinOp::Mul,
        &Value::tensor(column, "outer", None),
        &Value::tensor(b, "outer", None),
    )?;
    if let Value::Tensor(t) = &out {
        t.borrow_mut().made_by = call.name.clone();
    }
    Ok(out)
}

fn trace(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    if t.ndim() != 2 {
        return Err(ScriptError::Runtime(format!(
            "trace: expected a matrix, but got tensor with dim {}",
            t.ndim()
        )));
    }
    not_for_bool(t.dtype, "trace")?;
    let d = ev.diagonal(&t, 0, 0, 1)?;
    let values = ev.engine.values(&d);
    if t.dtype.is_floating() {
        // A fold from +0.0: an empty sum is 0, not `Sum`'s -0.0.
        let sum = values.iter().fold(0.0, |a, v| a + v.to_f64());
        return from_floats(ev, &[], t.dtype, &[sum], "trace");
    }
    let sum = values
        .iter()
        .fold(0i64, |acc, v| acc.wrapping_add(v.to_f64() as i64));
    let out = ev.tensor_from_values(&[], DType::Int64, &[Scalar::Int(sum)], "trace")?;
    Ok(Value::tensor(out, "trace", None))
}

fn diag(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let k = ev.arg_int(call, "diagonal", 0)?;
    match t.ndim() {
        1 => {
            let n = t.shape()[0].saturating_add(k.saturating_abs());
            ev.check_shape(&[n, n])?;
            ev.check_work(n.saturating_mul(n), "diag")?;
            let values = ev.engine.values(&t);
            let zero = t.dtype.round(Scalar::Int(0));
            let mut out = vec![zero; (n * n).max(0) as usize];
            for (i, v) in values.into_iter().enumerate() {
                let i = i as i64;
                let (r, c) = if k >= 0 { (i, i + k) } else { (i - k, i) };
                if let Some(slot) = out.get_mut((r * n + c) as usize) {
                    *slot = v;
                }
            }
            let out = ev.tensor_from_values(&[n, n], t.dtype, &out, "diag")?;
            Ok(Value::tensor(out, "diag", None))
        }
        2 => {
            let d = ev.diagonal(&t, k, 0, 1)?;
            let out = ev.convert(&d, t.dtype, MemoryFormat::Contiguous, "diag")?;
            Ok(Value::tensor(out, "diag", Some(t.storage)))
        }
        n => Err(ScriptError::Runtime(format!(
            "diag(): Supports 1D or 2D tensors. Got {n}D"
        ))),
    }
}

/// `torch.cross(input, other, dim=None)` and `torch.linalg.cross(input, other, dim=-1)` (the
/// table names it `linalg.cross`: it is reached through the `torch.linalg` module only).
fn cross(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let a = call.self_tensor()?;
    let b = call.tensor("other").unwrap_or_else(|| a.clone());
    let linalg = call.name == "linalg_cross";
    if a.ndim() != b.ndim() {
        return Err(ScriptError::Runtime(
            "linalg.cross: inputs must have the same number of dimensions.".into(),
        ));
    }
    let shape = broadcast_shapes(a.shape(), b.shape()).map_err(ScriptError::Runtime)?;
    let dim = match ev.arg_opt_int(call, "dim")? {
        Some(d) => d,
        None if linalg => -1,
        None => shape
            .iter()
            .position(|&n| n == 3)
            .map(|d| d as i64)
            .ok_or_else(|| ScriptError::Runtime("no dimension of size 3 in input".into()))?,
    };
    let d = wrap_dim(dim, shape.len()).map_err(ScriptError::Index)?;
    let (na, nb) = (a.shape()[d], b.shape()[d]);
    if na != 3 || nb != 3 {
        return Err(ScriptError::Runtime(format!(
            "linalg.cross: inputs dimension {dim} must have length 3. Got {na} and {nb}"
        )));
    }
    if a.dtype != b.dtype {
        return Err(ScriptError::Runtime(format!(
            "expected scalar type {} but found {}",
            a.dtype.scalar_type_name(),
            b.dtype.scalar_type_name()
        )));
    }
    let dtype = a.dtype;
    let ea = ev.expand(&a, &shape)?;
    let eb = ev.expand(&b, &shape)?;
    let (va, vb) = (floats(ev, &ea), floats(ev, &eb));
    let inner = shape[d + 1..].iter().product::<i64>().max(0) as usize;
    let mut out = vec![0.0; va.len()];
    for start in (0..va.len()).step_by((3 * inner).max(1)) {
        for i in 0..inner {
            let at = |k: usize| start + k * inner + i;
            let (x, y) = (
                [va[at(0)], va[at(1)], va[at(2)]],
                [vb[at(0)], vb[at(1)], vb[at(2)]],
            );
            out[at(0)] = x[1] * y[2] - x[2] * y[1];
            out[at(1)] = x[2] * y[0] - x[0] * y[2];
            out[at(2)] = x[0] * y[1] - x[1] * y[0];
        }
    }
    from_floats(ev, &shape, dtype, &out, "cross")
}

/// A `p` argument as a float (`float('inf')` included).
fn p_of(ev: &mut Evaluator, call: &OpCall, default: f64) -> R<f64> {
    ev.arg_float(call, "p", default)
}

fn dist(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let a = call.self_tensor()?;
    let b = call.tensor("other").unwrap_or_else(|| a.clone());
    let p = p_of(ev, call, 2.0)?;
    let shape = broadcast_shapes(a.shape(), b.shape()).map_err(ScriptError::Runtime)?;
    let dtype = DType::promote(a.dtype, b.dtype);
    if !dtype.is_floating() {
        return Err(ScriptError::NotImplemented(format!(
            "norm(): input dtype should be either floating point or complex. Got {} instead.",
            dtype.scalar_type_name()
        )));
    }
    let ea = ev.expand(&a, &shape)?;
    let eb = ev.expand(&b, &shape)?;
    let (va, vb) = (floats(ev, &ea), floats(ev, &eb));
    let diff: Vec<f64> = va
        .iter()
        .zip(&vb)
        .map(|(x, y)| dtype.round(Scalar::Float(x - y)).to_f64())
        .collect();
    from_floats(ev, &[], dtype, &[vector_norm(&diff, p)], "dist")
}

fn cdist(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let missing = || ScriptError::Type("cdist(): argument 'x1' must be Tensor".into());
    let x1 = call.tensor("x1").ok_or_else(missing)?;
    let x2 = call.tensor("x2").ok_or_else(missing)?;
    let p = p_of(ev, call, 2.0)?;
    if let Some(Value::Str(mode)) = call.value("compute_mode") {
        const MODES: &[&str] = &[
            "use_mm_for_euclid_dist_if_necessary",
            "use_mm_for_euclid_dist",
            "donot_use_mm_for_euclid_dist",
        ];
        if !MODES.contains(&mode.as_str()) {
            return Err(ScriptError::Value(format!(
                "{mode} is not a valid value for compute_mode"
            )));
        }
    }
    for (t, name) in [(&x1, "X1"), (&x2, "X2")] {
        if t.ndim() < 2 {
            return Err(ScriptError::Runtime(format!(
                "cdist only supports at least 2D tensors, {name} got: {}D",
                t.ndim()
            )));
        }
    }
    let (c1, c2) = (x1.shape()[x1.ndim() - 1], x2.shape()[x2.ndim() - 1]);
    if c1 != c2 {
        return Err(ScriptError::Runtime(format!(
            "X1 and X2 must have the same number of columns. X1: {c1} X2: {c2}"
        )));
    }
    for (t, name) in [(&x1, "X1"), (&x2, "X2")] {
        if !t.dtype.is_floating() {
            return Err(ScriptError::Runtime(format!(
                "cdist only supports floating-point dtypes, {name} got: {}",
                t.dtype.scalar_type_name()
            )));
        }
    }
    if x1.dtype != x2.dtype {
        return Err(ScriptError::Runtime(format!(
            "expected scalar type {} but found {}",
            x1.dtype.scalar_type_name(),
            x2.dtype.scalar_type_name()
        )));
    }
    if p < 0.0 {
        return Err(ScriptError::Runtime(
            "cdist only supports non-negative p values".into(),
        ));
    }
    let (n1, n2) = (x1.ndim(), x2.ndim());
    let batch = broadcast_shapes(&x1.shape()[..n1 - 2], &x2.shape()[..n2 - 2])
        .map_err(ScriptError::Runtime)?;
    let (r1, r2) = (x1.shape()[n1 - 2], x2.shape()[n2 - 2]);
    let e1 = ev.expand(&x1, &[batch.clone(), vec![r1, c1]].concat())?;
    let e2 = ev.expand(&x2, &[batch.clone(), vec![r2, c1]].concat())?;
    let (v1, v2) = (floats(ev, &e1), floats(ev, &e2));
    let (r1, r2, c) = (r1 as usize, r2 as usize, c1 as usize);
    let count = numel_of(&batch).max(0) as usize;
    let work = count
        .saturating_mul(r1)
        .saturating_mul(r2)
        .saturating_mul(c.max(1));
    ev.check_work(i64::try_from(work).unwrap_or(i64::MAX), "cdist")?;
    let mut out = Vec::with_capacity(count * r1 * r2);
    let dtype = x1.dtype;
    for b in 0..count {
        for i in 0..r1 {
            for j in 0..r2 {
                let diff: Vec<f64> = (0..c)
                    .map(|k| {
                        let x = v1[(b * r1 + i) * c + k] - v2[(b * r2 + j) * c + k];
                        dtype.round(Scalar::Float(x)).to_f64()
                    })
                    .collect();
                out.push(if dtype == DType::Float64 || !(p == 1.0 || p == 2.0) {
                    vector_norm(&diff, p)
                } else {
                    // ATen's kernel sums in the dtype, term by term.
                    let round = |v: f64| dtype.round(Scalar::Float(v)).to_f64();
                    let term = |d: f64| if p == 1.0 { d.abs() } else { round(d * d) };
                    let sum = diff.iter().fold(0.0, |acc, &d| round(acc + term(d)));
                    if p == 1.0 {
                        sum
                    } else {
                        sum.sqrt()
                    }
                });
            }
        }
    }
    let mut shape = batch;
    shape.extend([r1 as i64, r2 as i64]);
    from_floats(ev, &shape, dtype, &out, "cdist")
}
