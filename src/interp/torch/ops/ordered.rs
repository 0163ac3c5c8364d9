//! Ops that follow the order of the elements along a dim: `sort`, `argsort`, `topk`, and the
//! cumulative `cumsum`/`cumprod`. The engine has no kernels for them (they need a
//! data-dependent order, or a running total), so they are computed in the evaluator from
//! `engine.values()` and written into fresh storages with `tensor_from_values` (the CPU
//! engine's path, for that reason).

use std::cmp::Ordering;

use crate::core::tensor::layout::wrap_dim;
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::torch::ops::reduce::{compare, groups, is_nan, mask};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["sort"],
        schemas: &[
            "Tensor self, int dim=-1, bool descending=False",
            "Tensor self, *, bool? stable, int dim=-1, bool descending=False",
        ],
        forms: Forms::Both,
        rule: sort,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_reduce::SORTED,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["argsort"],
        schemas: &[
            "Tensor self, int dim=-1, bool descending=False",
            "Tensor self, *, bool stable, int dim=-1, bool descending=False",
        ],
        forms: Forms::Both,
        rule: sort,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["topk"],
        schemas: &["Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True"],
        forms: Forms::Both,
        rule: topk,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_reduce::SORTED,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["diff"],
        schemas: &["Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None"],
        forms: Forms::Both,
        rule: diff,
        grad: crate::interp::torch::autograd::Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["cumsum", "cumprod"],
        schemas: &["Tensor self, int dim, *, ScalarType? dtype=None"],
        forms: Forms::Both,
        rule: cumulative,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_reduce::CUMULATIVE,
        ),
        ..OpDef::PLAIN
    },
];

/// One slice along the dim: the row-major indices of its elements, and its (position along
/// the dim, value) pairs in sorted order.
type SortedSlice = (Vec<usize>, Vec<(usize, Scalar)>);

/// NaN sorts as the largest value.
pub(super) fn order(a: &Scalar, b: &Scalar) -> Ordering {
    match (is_nan(*a), is_nan(*b)) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => compare(*a, *b).unwrap_or(Ordering::Equal),
    }
}

/// The reduce mask of `dim` (a 0-dim tensor has one slice: itself).
fn slices(t: &Tensor, dim: i64) -> R<Vec<bool>> {
    if t.ndim() == 0 {
        wrap_dim(dim, 1).map_err(ScriptError::Index)?;
        return Ok(vec![]);
    }
    mask(t, Some(dim))
}

/// Each slice along the dim sorted stably: (position along the dim, value) per element, in
/// the slice's order, for every slice (a group of row-major indices).
fn sorted_slices(
    ev: &mut Evaluator,
    t: &Tensor,
    dim: i64,
    descending: bool,
    what: &str,
) -> R<Vec<SortedSlice>> {
    let reduce = slices(t, dim)?;
    let g = groups(ev, t, &reduce, what)?;
    Ok(g.groups
        .into_iter()
        .map(|group| {
            let slots: Vec<usize> = group.iter().map(|(flat, _)| *flat).collect();
            let mut sorted: Vec<(usize, Scalar)> = group
                .into_iter()
                .enumerate()
                .map(|(k, (_, v))| (k, v))
                .collect();
            if descending {
                crate::core::tensor::stable_sort::sort_by(&mut sorted, |a, b| order(&b.1, &a.1));
            } else {
                crate::core::tensor::stable_sort::sort_by(&mut sorted, |a, b| order(&a.1, &b.1));
            }
            (slots, sorted)
        })
        .collect())
}

/// `sort(dim, descending)` as `torch.return_types.sort(values, indices)`; `argsort`: the
/// indices only.
fn sort(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", -1)?;
    let descending = call.flag("descending", false);
    let n = t.numel().max(0) as usize;
    let mut values = vec![Scalar::Int(0); n];
    let mut indices = vec![Scalar::Int(0); n];
    for (slots, sorted) in sorted_slices(ev, &t, dim, descending, &call.name)? {
        for (slot, (k, v)) in slots.into_iter().zip(sorted) {
            values[slot] = v;
            indices[slot] = Scalar::Int(k as i64);
        }
    }
    // ATen allocates the values, the indices, then an arange of the sorted dim's size
    // (int64) it fills the indices from, freed as it returns; argsort drops the values.
    let v = ev.tensor_from_values(t.shape(), t.dtype, &values, "sort")?;
    let i = ev.tensor_from_values(t.shape(), DType::Int64, &indices, &call.name)?;
    let ndim = t.ndim() as i64;
    let d = if dim < 0 { dim + ndim } else { dim };
    let size = usize::try_from(d)
        .ok()
        .and_then(|d| t.shape().get(d).copied())
        .unwrap_or(1);
    ev.note_kernel_events(&[size * 8]);
    if call.name == "argsort" {
        return Ok(Value::tensor(i, "argsort", None));
    }
    Ok(Value::NamedTuple(
        "torch.return_types.sort".into(),
        vec![
            ("values".into(), Value::tensor(v, "sort", None)),
            ("indices".into(), Value::tensor(i, "sort", None)),
        ],
    ))
}

/// `topk(k, dim, largest, sorted)`: the `k` largest (or smallest) of each slice.
fn topk(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let k = ev.arg_int(call, "k", 1)?;
    let dim = ev.arg_int(call, "dim", -1)?;
    let largest = call.flag("largest", true);
    let size = if t.ndim() == 0 {
        1
    } else {
        t.shape()[wrap_dim(dim, t.ndim()).map_err(ScriptError::Index)?]
    };
    if k < 0 || k > size {
        return Err(ScriptError::Runtime("selected index k out of range".into()));
    }
    let mut shape = t.shape().to_vec();
    let w = if t.ndim() == 0 {
        None
    } else {
        wrap_dim(dim, t.ndim()).ok()
    };
    if let Some(w) = w {
        shape[w] = k;
    }
    let inner: usize = match w {
        Some(w) => shape[w + 1..].iter().product::<i64>().max(0) as usize,
        None => 1,
    };
    let outer: usize = match w {
        Some(w) => shape[..w].iter().product::<i64>().max(0) as usize,
        None => 1,
    };
    let count = (outer * inner).saturating_mul(k as usize);
    let mut values = vec![Scalar::Int(0); count];
    let mut indices = vec![Scalar::Int(0); count];
    for (s, (_, sorted)) in sorted_slices(ev, &t, dim, largest, "topk")?
        .into_iter()
        .enumerate()
    {
        let (o, i) = (s / inner.max(1), s % inner.max(1));
        for (j, (pos, v)) in sorted.into_iter().take(k as usize).enumerate() {
            let at = (o * k as usize + j) * inner + i;
            if at < count {
                values[at] = v;
                indices[at] = Scalar::Int(pos as i64);
            }
        }
    }
    let v = ev.tensor_from_values(&shape, t.dtype, &values, "topk")?;
    let i = ev.tensor_from_values(&shape, DType::Int64, &indices, "topk")?;
    Ok(Value::NamedTuple(
        "torch.return_types.topk".into(),
        vec![
            ("values".into(), Value::tensor(v, "topk", None)),
            ("indices".into(), Value::tensor(i, "topk", None)),
        ],
    ))
}

/// `cumsum`/`cumprod` along `dim`: integers (and bools) accumulate into `int64`, floats in
/// double precision (ATen's CPU accumulate type), each output rounded to the dtype.
fn cumulative(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let dtype = call.dtype("dtype").unwrap_or(if t.dtype.is_floating() {
        t.dtype
    } else {
        DType::Int64
    });
    let is_sum = call.name == "cumsum";
    let reduce = slices(&t, dim)?;
    let g = groups(ev, &t, &reduce, &call.name)?;
    let mut values = vec![Scalar::Int(0); t.numel().max(0) as usize];
    for group in g.groups {
        let (mut f, mut i) = (if is_sum { 0.0 } else { 1.0 }, i64::from(!is_sum));
        for (flat, v) in group {
            values[flat] = if dtype.is_floating() {
                let x = dtype.round(v).to_f64();
                f = if is_sum { f + x } else { f * x };
                dtype.round(Scalar::Float(f))
            } else {
                let x = dtype.round(v).to_wrapped_int();
                i = if is_sum {
                    i.wrapping_add(x)
                } else {
                    i.wrapping_mul(x)
                };
                dtype.round(Scalar::Int(i))
            };
        }
    }
    let out = ev.tensor_from_values(t.shape(), dtype, &values, &call.name)?;
    Ok(Value::tensor(out, &call.name, None))
}

/// `torch.diff(input, n=1, dim=-1, prepend=None, append=None)` as ATen composes it: the
/// input concatenated with `prepend` and `append` along `dim`, then `n` times
/// `a.narrow(dim, 1, len - 1) - a.narrow(dim, 0, len - 1)` (`logical_xor` for bool).
fn diff(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = Value::Tensor(call.self_ref()?);
    let t = call.self_tensor()?;
    let n = ev.arg_int(call, "n", 1)?;
    let dim = ev.arg_int(call, "dim", -1)?;
    if t.ndim() == 0 {
        return Err(ScriptError::Runtime(
            "diff expects input to be at least one-dimensional".into(),
        ));
    }
    if n < 0 {
        return Err(ScriptError::Runtime(format!(
            "order must be non-negative but got {n}"
        )));
    }
    let d = wrap_dim(dim, t.ndim()).map_err(ScriptError::Index)?;
    let mut parts = Vec::new();
    if let Some(v @ Value::Tensor(_)) = call.value("prepend") {
        parts.push(v.clone());
    }
    parts.push(input.clone());
    if let Some(v @ Value::Tensor(_)) = call.value("append") {
        parts.push(v.clone());
    }
    let mut a = if parts.len() > 1 {
        crate::interp::torch::optim::call_torch(
            ev,
            "cat",
            vec![Value::List(parts), Value::Int(d as i64)],
            vec![],
        )?
    } else {
        input
    };
    for _ in 0..n {
        let len = a.as_tensor().map_or(0, |x| x.shape()[d]);
        if len == 0 {
            break;
        }
        let narrow = |ev: &mut Evaluator, a: &Value, start: i64| {
            ev.method(
                a.clone(),
                "narrow",
                vec![Value::Int(d as i64), Value::Int(start), Value::Int(len - 1)],
            )
        };
        let (hi, lo) = (narrow(ev, &a, 1)?, narrow(ev, &a, 0)?);
        a = if a.as_tensor().is_some_and(|x| x.dtype == DType::Bool) {
            ev.method(hi, "logical_xor", vec![lo])?
        } else {
            ev.binary(crate::lang::ast::BinOp::Sub, hi, lo)?
        };
    }
    Ok(a)
}
