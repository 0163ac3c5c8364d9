//! Order statistics and NaN-aware reductions: `median`/`nanmedian`, `kthvalue`,
//! `count_nonzero`, `logsumexp`, `aminmax`, `nansum`/`nanmean`, and `unique`/
//! `unique_consecutive`.
//!
//! The engine has no kernels for them (they need a data-dependent order, or skip NaNs), so
//! they are computed in the evaluator from `engine.values()` in double precision, rounded once
//! to the dtype, and written into fresh contiguous storages with `tensor_from_values` (the CPU
//! engine's path, for that reason).

use std::cmp::Ordering;

use crate::core::tensor::layout::wrap_dim;
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::{nodes, Grad};
use crate::interp::torch::ops::reduce::{
    compare, groups, is_nan, mask, out_shape, values_and_indices,
};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["median", "nanmedian"],
        schemas: &["Tensor self", "Tensor self, int dim, bool keepdim=False"],
        forms: Forms::Both,
        rule: median,
        grad: Grad::by(nodes::reduction, Some(&crate::interp::torch::autograd::formulas_reduce::SELECTING)),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["kthvalue"],
        schemas: &["Tensor self, int k, int dim=-1, bool keepdim=False"],
        forms: Forms::Both,
        rule: kthvalue,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_reduce::SELECTING),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["count_nonzero"],
        schemas: &["Tensor self, int[] dim", "Tensor self, int? dim=None"],
        forms: Forms::Both,
        rule: count_nonzero,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["logsumexp"],
        schemas: &["Tensor self, int[1] dim, bool keepdim=False"],
        forms: Forms::Both,
        rule: logsumexp,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_reduce::LOGSUMEXP),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["aminmax"],
        schemas: &["Tensor self, *, int? dim=None, bool keepdim=False"],
        forms: Forms::Both,
        rule: aminmax,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["nansum", "nanmean"],
        schemas: &["Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None"],
        forms: Forms::Both,
        rule: nansum,
        grad: Grad::by(nodes::reduction, Some(&crate::interp::torch::autograd::formulas_reduce::NANSUM)),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["unique"],
        schemas: &["Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False, int? dim=None"],
        forms: Forms::Both,
        rule: unique,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["bincount"],
        schemas: &["Tensor self, Tensor? weights=None, int minlength=0"],
        forms: Forms::Both,
        rule: bincount,
        grad: crate::interp::torch::autograd::Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["unique_consecutive"],
        schemas: &[
            "Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None",
        ],
        forms: Forms::Both,
        rule: unique,
        ..OpDef::PLAIN
    },
];

use crate::interp::torch::ops::ordered::order;

/// The reduce mask of an `int[]` of dims (every dim when `None` or empty), refusing repeats.
pub(super) fn dims_mask(t: &Tensor, dims: Option<&[i64]>) -> R<Vec<bool>> {
    let n = t.ndim();
    let dims = match dims {
        None | Some([]) => return Ok(vec![true; n]),
        Some(d) => d,
    };
    let mut reduce = vec![false; n];
    for &d in dims {
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

/// A `torch.return_types.<kind>` of two tensors.
fn pair(
    ev: &mut Evaluator,
    kind: &str,
    names: [&str; 2],
    shape: &[i64],
    dtypes: [DType; 2],
    values: [&[Scalar]; 2],
) -> R<Value> {
    let a = ev.tensor_from_values(shape, dtypes[0], values[0], kind)?;
    let b = ev.tensor_from_values(shape, dtypes[1], values[1], kind)?;
    Ok(Value::NamedTuple(
        format!("torch.return_types.{kind}"),
        vec![
            (names[0].into(), Value::tensor(a, kind, None)),
            (names[1].into(), Value::tensor(b, kind, None)),
        ],
    ))
}

/// Refuses `bool` inputs, as the CPU kernels named `kernel` are not built for them.
fn refuse_bool(t: &Tensor, kernel: &str) -> R<()> {
    if t.dtype == DType::Bool {
        return Err(ScriptError::NotImplemented(format!(
            "\"{kernel}\" not implemented for 'Bool'"
        )));
    }
    Ok(())
}

/// The (position, value) of the lower median of a group: the first NaN for `median` when
/// there is one; `nanmedian` skips NaNs. Ties resolve to the earliest position.
fn group_median(group: &[(usize, Scalar)], ignore_nan: bool) -> (usize, Scalar) {
    let mut sorted: Vec<(usize, Scalar)> = group
        .iter()
        .enumerate()
        .map(|(k, (_, v))| (k, *v))
        .collect();
    if !ignore_nan {
        if let Some(first) = sorted.iter().find(|(_, v)| is_nan(*v)) {
            return *first;
        }
    }
    crate::core::tensor::stable_sort::sort_by(&mut sorted, |a, b| order(&a.1, &b.1));
    let nans = sorted.iter().filter(|(_, v)| is_nan(*v)).count();
    let kth = (sorted.len() - nans).saturating_sub(1) / 2;
    sorted
        .get(kth)
        .copied()
        .unwrap_or((0, Scalar::Float(f64::NAN)))
}

/// `median()`/`nanmedian()` (the lower median of every element, 0-dim) and `median(dim)`
/// as `torch.return_types.median(values, indices)`.
fn median(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let name = call.name.as_str();
    let ignore_nan = name == "nanmedian";
    let Some(dim) = ev.arg_opt_int(call, "dim")? else {
        refuse_bool(&t, "median_cpu")?;
        ev.check_work(t.numel(), name)?;
        let group: Vec<(usize, Scalar)> = ev.engine.values(&t).into_iter().enumerate().collect();
        let v = if group.is_empty() && t.dtype.is_floating() {
            Scalar::Float(f64::NAN)
        } else if group.is_empty() {
            // NaN converted to an integer, as the CPU kernel leaves it.
            t.dtype.round(Scalar::Int(i64::MIN))
        } else {
            group_median(&group, ignore_nan).1
        };
        let out = ev.tensor_from_values(&[], t.dtype, &[v], name)?;
        return Ok(Value::tensor(out, name, None));
    };
    let reduce = mask(&t, Some(dim))?;
    refuse_bool(&t, "median_out")?;
    if let Some(w) = reduce.iter().position(|&r| r) {
        if t.shape()[w] == 0 {
            return Err(ScriptError::Index(format!(
                "median(): Expected reduction dim {w} to have non-zero size."
            )));
        }
    }
    let keepdim = call.flag("keepdim", false);
    values_and_indices(ev, &t, &reduce, keepdim, name, |group| {
        group_median(group, ignore_nan)
    })
}

/// ATen's `quick_select_template`: moves the `k`-th smallest (NaN largest) of `arr` to
/// position `k`, carrying each element's original position, partitioning exactly as the CPU
/// kernel does (so ties resolve to the same position).
fn quick_select(arr: &mut [(Scalar, usize)], k: usize) {
    let gt = |x: Scalar, y: Scalar| {
        (is_nan(x) && !is_nan(y)) || compare(x, y) == Some(Ordering::Greater)
    };
    if arr.is_empty() {
        return;
    }
    let (mut l, mut r) = (0usize, arr.len() - 1);
    loop {
        if r <= l {
            return;
        }
        if r == l + 1 {
            if gt(arr[l].0, arr[r].0) {
                arr.swap(l, r);
            }
            return;
        }
        let p = l + (r - l) / 2;
        arr.swap(p, l + 1);
        if gt(arr[l + 1].0, arr[r].0) {
            arr.swap(l + 1, r);
        }
        if gt(arr[l].0, arr[r].0) {
            arr.swap(l, r);
        }
        if gt(arr[l + 1].0, arr[l].0) {
            arr.swap(l + 1, l);
        }
        let (mut i, mut j) = (l + 1, r);
        let piv = arr[l].0;
        loop {
            i += 1;
            while i < arr.len() && gt(piv, arr[i].0) {
                i += 1;
            }
            j = j.saturating_sub(1);
            while j > 0 && gt(arr[j].0, piv) {
                j -= 1;
            }
            if j < i {
                break;
            }
            arr.swap(i, j);
        }
        arr.swap(l, j);
        if j <= k {
            l = i;
        }
        if j >= k {
            if j == 0 {
                return;
            }
            r = j - 1;
        }
    }
}

/// `kthvalue(k, dim)`: the `k`-th smallest of each slice and its position, as
/// `torch.return_types.kthvalue(values, indices)`.
fn kthvalue(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let k = ev.arg_int(call, "k", 1)?;
    let dim = ev.arg_int(call, "dim", -1)?;
    let w = wrap_dim(dim, t.ndim()).map_err(ScriptError::Index)?;
    let size = if t.ndim() == 0 { 1 } else { t.shape()[w] };
    if size == 0 {
        return Err(ScriptError::Index(format!(
            "kthvalue(): Expected reduction dim {w} to have non-zero size."
        )));
    }
    if k < 1 || k > size {
        return Err(ScriptError::Runtime(format!(
            "kthvalue(): selected number k out of range for dimension {w}"
        )));
    }
    refuse_bool(&t, "kthvalue_cpu")?;
    let reduce = mask(&t, Some(dim))?;
    let keepdim = call.flag("keepdim", false);
    let out = values_and_indices(ev, &t, &reduce, keepdim, "kthvalue", |group| {
        let mut arr: Vec<(Scalar, usize)> = group
            .iter()
            .enumerate()
            .map(|(p, (_, v))| (*v, p))
            .collect();
        let at = (k - 1) as usize;
        quick_select(&mut arr, at);
        let (v, p) = arr.get(at).copied().unwrap_or((Scalar::Int(0), 0));
        (p, v)
    })?;
    if !ev.torch.device.meta_op {
        // The CPU kernel selects in a contiguous clone of the input and an int64 index
        // buffer of its size, both freed before it returns.
        let n = t.numel().max(0);
        let (copy, index) = (n * t.dtype.item_size() as i64, n * 8);
        ev.note_kernel_events(&[copy, index, -index, -copy]);
    }
    Ok(out)
}

/// `count_nonzero(dim=None)`: `int64` counts.
fn count_nonzero(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dims = ev.arg_ints(call, "dim")?;
    let reduce = dims_mask(&t, dims.as_deref())?;
    let g = groups(ev, &t, &reduce, "count_nonzero")?;
    let values: Vec<Scalar> = g
        .groups
        .iter()
        .map(|group| Scalar::Int(group.iter().filter(|(_, v)| v.to_f64() != 0.0).count() as i64))
        .collect();
    let shape = out_shape(&g.kept, &reduce, false);
    let out = ev.tensor_from_values(&shape, DType::Int64, &values, "count_nonzero")?;
    Ok(Value::tensor(out, "count_nonzero", None))
}

/// `logsumexp(dim, keepdim)`: `log(sum(exp(x - m))) + m` with `m` the slice's maximum (0
/// when infinite); integer inputs compute in the default float dtype.
fn logsumexp(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dims = ev.arg_ints(call, "dim")?.unwrap_or_default();
    let keepdim = call.flag("keepdim", false);
    let dtype = if t.dtype.is_floating() {
        t.dtype
    } else {
        DType::Float32
    };
    if dims.is_empty() && !keepdim {
        // `sum` over no dims reduces every dim but `amax` keeps them: their shapes clash.
        let ones = vec!["1"; t.ndim()].join(", ");
        return Err(ScriptError::Runtime(format!(
            "output with shape [] doesn't match the broadcast shape [{ones}]"
        )));
    }
    let reduce = dims_mask(&t, Some(&dims))?;
    let g = groups(ev, &t, &reduce, "logsumexp")?;
    let values: Vec<Scalar> = g
        .groups
        .iter()
        .map(|group| {
            let xs: Vec<f64> = group
                .iter()
                .map(|(_, v)| dtype.round(*v).to_f64())
                .collect();
            let mut m = xs.iter().copied().fold(f64::NEG_INFINITY, |a, b| {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.max(b)
                }
            });
            if m.is_infinite() {
                m = 0.0;
            }
            // Each step rounds to the dtype, as ATen runs `(x - m).exp_()`, `sum`, `log_`
            // and `add_` in it (a half-precision result differs from one rounding).
            let r = |x: f64| dtype.round(Scalar::Float(x)).to_f64();
            let s = xs.iter().fold(0.0, |acc, x| acc + r(r(x - m).exp()));
            dtype.round(Scalar::Float(r(r(s).ln()) + m))
        })
        .collect();
    let shape = out_shape(&g.kept, &reduce, keepdim);
    // ATen: `maxes = amax(keepdim)`, `maxes.abs() == inf` (a wrapped float64, its cast, a
    // bool mask) to mask infinities, then `(self - maxes).exp_()` and its `sum` (the result,
    // then `log_`/`add_` in place); the difference and the maxes freed last.
    let item = dtype.item_size() as i64;
    let rows = values.len() as i64;
    let (r, n) = (rows * item, t.numel().max(0) * item);
    let cast = if dtype == DType::Float64 { 0 } else { item };
    ev.note_kernel_events(&[r, r, 8, cast, rows, -8, -cast, -rows, -r, n]);
    ev.note_transient((r + n) as u64);
    let out = ev.tensor_from_values(&shape, dtype, &values, "logsumexp")?;
    ev.end_transient();
    Ok(Value::tensor(out, "logsumexp", None))
}

/// The smallest and largest of a group; NaN wins both.
fn min_max(group: &[(usize, Scalar)]) -> (Scalar, Scalar) {
    let mut lo = group.first().map(|g| g.1).unwrap_or(Scalar::Int(0));
    let mut hi = lo;
    for &(_, v) in group {
        if is_nan(lo) {
            break;
        }
        if is_nan(v) {
            return (v, v);
        }
        if compare(v, lo) == Some(Ordering::Less) {
            lo = v;
        }
        if compare(v, hi) == Some(Ordering::Greater) {
            hi = v;
        }
    }
    (lo, hi)
}

/// `aminmax(*, dim=None, keepdim=False)` as `torch.return_types.aminmax(min, max)`.
fn aminmax(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_opt_int(call, "dim")?;
    let keepdim = call.flag("keepdim", false);
    let reduce = mask(&t, dim)?;
    if dim.is_some() {
        if let Some(w) = (0..t.ndim()).find(|&w| reduce[w] && t.shape()[w] == 0) {
            return Err(ScriptError::Index(format!(
                "aminmax: Expected reduction dim {w} to have non-zero size."
            )));
        }
    }
    if dim.is_none() && t.numel() == 0 {
        return Err(ScriptError::Runtime(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
                .into(),
        ));
    }
    let g = groups(ev, &t, &reduce, "aminmax")?;
    let (lo, hi): (Vec<Scalar>, Vec<Scalar>) = g.groups.iter().map(|gr| min_max(gr)).unzip();
    let shape = out_shape(&g.kept, &reduce, keepdim);
    pair(
        ev,
        "aminmax",
        ["min", "max"],
        &shape,
        [t.dtype, t.dtype],
        [&lo, &hi],
    )
}

/// `nansum`/`nanmean(dim, keepdim, dtype)`: NaNs count as zero (and are not counted by
/// `nanmean`); integers and bools sum into `int64`.
fn nansum(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let name = call.name.as_str();
    let is_mean = name == "nanmean";
    if is_mean && !t.dtype.is_floating() {
        return Err(ScriptError::NotImplemented(format!(
            "nanmean(): expected input to have floating point or complex dtype but got {}",
            t.dtype.scalar_type_name()
        )));
    }
    if let Some(d) = call.dtype("dtype").filter(|d| is_mean && !d.is_floating()) {
        return Err(ScriptError::Runtime(format!(
            "nanmean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: {}",
            d.scalar_type_name()
        )));
    }
    let dtype = call.dtype("dtype").unwrap_or(if t.dtype.is_floating() {
        t.dtype
    } else {
        DType::Int64
    });
    let dims = ev.arg_ints(call, "dim")?;
    let reduce = dims_mask(&t, dims.as_deref())?;
    let g = groups(ev, &t, &reduce, name)?;
    let values: Vec<Scalar> = g
        .groups
        .iter()
        .map(|group| {
            let kept = group.iter().filter(|(_, v)| !is_nan(*v)).map(|(_, v)| *v);
            if dtype.is_floating() {
                let (mut s, mut n) = (0.0, 0usize);
                for v in kept {
                    s += dtype.round(v).to_f64();
                    n += 1;
                }
                let r = if is_mean { s / n as f64 } else { s };
                dtype.round(Scalar::Float(r))
            } else {
                let s = kept.fold(0i64, |acc, v| {
                    acc.wrapping_add(dtype.round(v).to_wrapped_int())
                });
                dtype.round(Scalar::Int(s))
            }
        })
        .collect();
    let shape = out_shape(&g.kept, &reduce, call.flag("keepdim", false));
    let out = ev.tensor_from_values(&shape, dtype, &values, name)?;
    Ok(Value::tensor(out, name, None))
}

/// `unique(sorted, return_inverse, return_counts, dim)` and `unique_consecutive`: the
/// distinct elements (or slices along `dim`) in ascending order (in their order for
/// `unique_consecutive`, merging runs only), then the inverse indices and the counts when
/// asked: one tensor, or a tuple.
fn unique(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let name = call.name.as_str();
    let consecutive = name == "unique_consecutive";
    let dim = ev.arg_opt_int(call, "dim")?;
    let (return_inverse, return_counts) = (
        call.flag("return_inverse", false),
        call.flag("return_counts", false),
    );
    ev.check_work(t.numel(), name)?;
    let values = ev.engine.values(&t);
    let shape = t.shape().to_vec();
    // The items to dedupe: single elements, or the slices along `dim`.
    let (outer, size, inner, w) = match dim {
        None => (1usize, values.len(), 1usize, None),
        Some(d) => {
            let w = wrap_dim(d, t.ndim()).map_err(ScriptError::Index)?;
            if t.numel() == 0 && t.shape().get(w).is_some_and(|&n| n != 0) {
                return Err(ScriptError::Runtime(
                    "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied".into(),
                ));
            }
            if t.ndim() == 0 {
                (1, 1, 1, None)
            } else {
                let count = |s: &[i64]| s.iter().product::<i64>().max(0) as usize;
                (
                    count(&shape[..w]),
                    shape[w].max(0) as usize,
                    count(&shape[w + 1..]),
                    Some(w),
                )
            }
        }
    };
    let item = |j: usize| -> Vec<Scalar> {
        (0..outer)
            .flat_map(|o| (0..inner).map(move |i| (o * size + j) * inner + i))
            .filter_map(|at| values.get(at).copied())
            .collect()
    };
    let items: Vec<Vec<Scalar>> = (0..size).map(item).collect();
    let cmp = |a: &Vec<Scalar>, b: &Vec<Scalar>| {
        a.iter()
            .zip(b)
            .map(|(x, y)| order(x, y))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    };
    let mut positions: Vec<usize> = (0..size).collect();
    if !consecutive {
        crate::core::tensor::stable_sort::sort_by(&mut positions, |a, b| {
            cmp(&items[*a], &items[*b])
        });
    }
    // Runs of equal items in `positions` order: the first of each, the inverse, the counts.
    let mut firsts: Vec<usize> = Vec::new();
    let mut counts: Vec<Scalar> = Vec::new();
    let mut inverse = vec![Scalar::Int(0); size];
    for (n, &p) in positions.iter().enumerate() {
        // NaN equals nothing, not even NaN: each one is its own unique element.
        let same = n > 0
            && cmp(&items[positions[n - 1]], &items[p]) == Ordering::Equal
            && !items[p].iter().any(|v| is_nan(*v));
        if !same {
            firsts.push(p);
            counts.push(Scalar::Int(0));
        }
        if let Some(Scalar::Int(c)) = counts.last_mut() {
            *c += 1;
        }
        inverse[p] = Scalar::Int(firsts.len() as i64 - 1);
    }
    let uniques = firsts.len();
    let (out_shape, out_values): (Vec<i64>, Vec<Scalar>) = match w {
        None => (
            vec![uniques as i64],
            firsts
                .iter()
                .filter_map(|&p| values.get(p).copied())
                .collect(),
        ),
        Some(w) => {
            let mut s = shape.clone();
            s[w] = uniques as i64;
            let mut out = Vec::with_capacity(outer * uniques * inner);
            for o in 0..outer {
                for &p in &firsts {
                    out.extend_from_slice(&items[p][o * inner..(o + 1) * inner]);
                }
            }
            (s, out)
        }
    };
    if w.is_none() && !consecutive && t.dtype != DType::Bool {
        // ATen's sorted `_unique2`: the flattened input sorted (values, int64 indices, the
        // sort's index range), then its outputs, and with counts the run offsets.
        let (n, item, found) = (size as i64, t.dtype.item_size() as i64, uniques as i64);
        let mut events = vec![n * item, n * 8, n * 8, -n * 8, found * item];
        if return_inverse {
            events.push(n * 8);
        }
        if return_counts {
            events.extend([found * 8, (found + 1) * 8]);
        }
        ev.note_kernel_events(&events);
    }
    let u = ev.tensor_from_values(&out_shape, t.dtype, &out_values, name)?;
    let u = Value::tensor(u, name, None);
    if !return_inverse && !return_counts {
        return Ok(u);
    }
    let mut result = vec![u];
    if return_inverse {
        let inv_shape = match (dim, w) {
            (None, _) => shape.clone(),
            (Some(_), _) => vec![size as i64],
        };
        let i = ev.tensor_from_values(&inv_shape, DType::Int64, &inverse, name)?;
        result.push(Value::tensor(i, name, None));
    }
    if return_counts {
        let c = ev.tensor_from_values(&[uniques as i64], DType::Int64, &counts, name)?;
        result.push(Value::tensor(c, name, None));
    }
    Ok(Value::Tuple(result))
}

/// `torch.bincount(input, weights=None, minlength=0)`: how often each value of a 1-d
/// non-negative integer tensor occurs (int64), or the sum of its weights (float32 weights
/// give float32, others float64), over `max(input) + 1` bins at least `minlength`.
fn bincount(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let minlength = ev.arg_int(call, "minlength", 0)?;
    if minlength < 0 {
        return Err(ScriptError::Runtime("minlength should be >= 0".into()));
    }
    let weights = match call.value("weights") {
        Some(Value::Tensor(w)) => Some(w.borrow().tensor.clone()),
        _ => None,
    };
    let integral = !t.dtype.is_floating() && !t.dtype.is_complex() && t.dtype != DType::Bool;
    if t.ndim() != 1 || !integral {
        return Err(ScriptError::Runtime(
            "bincount only supports 1-d non-negative integral inputs.".into(),
        ));
    }
    ev.check_work(t.numel(), "bincount")?;
    let values: Vec<i64> = ev
        .engine
        .values(&t)
        .into_iter()
        .map(|v| v.to_f64() as i64)
        .collect();
    if values.iter().any(|&v| v < 0) {
        return Err(ScriptError::Runtime(
            "bincount only supports 1-d non-negative integral inputs.".into(),
        ));
    }
    if let Some(w) = &weights {
        if w.ndim() != 1 || w.numel() != t.numel() {
            return Err(ScriptError::Runtime(
                "weights should be 1-d and have the same length as input".into(),
            ));
        }
    }
    let bins = values.iter().max().map_or(0, |m| m + 1).max(minlength);
    ev.check_work(bins, "bincount")?;
    // `min()` and `max()` of a non-empty input: a 0-d int64 each.
    if !values.is_empty() {
        ev.note_kernel_events(&[8, -8, 8, -8]);
    }
    let out = match &weights {
        None => {
            let mut counts = vec![0i64; bins as usize];
            for &v in &values {
                counts[v as usize] += 1;
            }
            let counts: Vec<Scalar> = counts.into_iter().map(Scalar::Int).collect();
            ev.tensor_from_values(&[bins], DType::Int64, &counts, "bincount")?
        }
        Some(w) => {
            let dtype = if w.dtype == DType::Float32 {
                DType::Float32
            } else {
                DType::Float64
            };
            let ws = ev.engine.values(w);
            let mut sums = vec![0.0f64; bins as usize];
            for (&v, wv) in values.iter().zip(&ws) {
                let slot = &mut sums[v as usize];
                *slot = dtype.round(Scalar::Float(*slot + wv.to_f64())).to_f64();
            }
            let sums: Vec<Scalar> = sums.into_iter().map(Scalar::Float).collect();
            ev.tensor_from_values(&[bins], dtype, &sums, "bincount")?
        }
    };
    Ok(Value::tensor(out, "bincount", None))
}
