//! The logical ops (`logical_and`, `logical_or`, `logical_xor`, `logical_not`, their in-place
//! `_` forms and `out=`), the special-value tests (`isnan`, `isinf`, `isfinite`, ...) and
//! `isclose`. Any dtype is read as its truth value; the result is
//! `bool`, except in place, where the truth values are written in the tensor's own dtype.

use crate::core::tensor::layout::broadcast_shapes;
use crate::core::tensor::{DType, Scalar, ScriptError};
use crate::interp::torch::ops::host_pointwise::operand;
use crate::interp::torch::ops::ElementwiseInput;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["logical_and", "logical_or", "logical_xor"],
        schemas: &["Tensor self, Tensor other, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: logical,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["logical_and_", "logical_or_", "logical_xor_"],
        schemas: &["Tensor self, Tensor other"],
        forms: Forms::Method,
        rule: logical,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["logical_not"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: logical,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["logical_not_"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: logical,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &[
            "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal",
        ],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: special_values,
        grad: crate::interp::torch::autograd::Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["isclose"],
        schemas: &[
            "Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False",
        ],
        forms: Forms::Both,
        rule: isclose,
        ..OpDef::PLAIN
    },
];

/// `logical_and/or/xor/not`.
fn logical(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let base = call.name.trim_end_matches('_');
    let mut inputs = vec![ElementwiseInput::Tensor(t.clone())];
    if base != "logical_not" {
        inputs.push(operand(ev, call.value("other")).ok_or_else(|| {
            ScriptError::Type(format!("{base}(): argument 'other' must be Tensor"))
        })?);
    }
    let in_place = call.name.ends_with('_');
    let dtype = if in_place { t.dtype } else { DType::Bool };
    ev.pointwise_result(call, &inputs, dtype, base, |v| {
        let a = v[0].to_bool();
        let truth = match base {
            "logical_and" => a && v[1].to_bool(),
            "logical_or" => a || v[1].to_bool(),
            "logical_xor" => a != v[1].to_bool(),
            _ => !a,
        };
        Scalar::Bool(truth)
    })
}

/// `isnan`, `isinf`, `isfinite`, `isposinf`, `isneginf`, `isreal`: a `bool` tensor. ATen
/// runs `isinf` of a float tensor as `self.abs() == inf` and `isfinite` as
/// `(self == self) * (self.abs() != inf)`, whose temporaries (and the wrapped `inf`) join the
/// peak; an integer or `bool` tensor holds no NaN or infinity.
fn special_values(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let name = call.name.as_str();
    let float = t.dtype.is_floating();
    if float {
        let n = t.numel().max(0);
        let abs = n * t.dtype.item_size() as i64;
        let cast = if t.dtype == DType::Float64 {
            0
        } else {
            t.dtype.item_size() as i64
        };
        // Each list ends with the result's bytes, allocated after it.
        let events: &[i64] = match name {
            "isinf" => &[abs, 8, cast, n],
            "isfinite" => &[abs, 8, cast, n, -8, -cast, n, n],
            _ => &[],
        };
        if !events.is_empty() {
            ev.note_kernel_events(events);
        }
    }
    let inputs = [ElementwiseInput::Tensor(t)];
    let name_owned = name.to_string();
    let result = ev.host_pointwise(&inputs, DType::Bool, name, move |v| {
        let x = v[0].to_f64();
        let truth = match name_owned.as_str() {
            "isnan" => float && x.is_nan(),
            "isinf" => float && x.is_infinite(),
            "isfinite" => !float || x.is_finite(),
            "isposinf" => float && x == f64::INFINITY,
            "isneginf" => float && x == f64::NEG_INFINITY,
            _ => true,
        };
        Scalar::Bool(truth)
    })?;
    Ok(Value::tensor(result, name, None))
}

/// `isclose(input, other, rtol, atol, equal_nan)`: `|input - other| <= atol + rtol·|other|`
/// in the operands' dtype (one dtype for both), equal values always close, NaNs close only
/// with `equal_nan`.
fn isclose(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let other = call
        .tensor("other")
        .ok_or_else(|| ScriptError::Type("isclose(): argument 'other' must be Tensor".into()))?;
    if t.dtype != other.dtype {
        return Err(ScriptError::Runtime(format!(
            "{} did not match {}",
            t.dtype.scalar_type_name(),
            other.dtype.scalar_type_name()
        )));
    }
    let rtol = ev.arg_float(call, "rtol", 1e-5)?;
    let atol = ev.arg_float(call, "atol", 1e-8)?;
    for (name, v) in [("rtol", rtol), ("atol", atol)] {
        if v < 0.0 {
            return Err(ScriptError::Runtime(format!(
                "{name} must be greater than or equal to zero, but got {}",
                crate::core::print::pyfmt::general(v, 6)
            )));
        }
    }
    let equal_nan = call.flag("equal_nan", false);
    let dtype = t.dtype;
    // Floats compare in their own precision (as PyTorch's tensor arithmetic does); other
    // dtypes in double.
    let p = move |x: f64| match dtype {
        DType::Float64 => x,
        d if d.is_floating() => d.round(Scalar::Float(x)).to_f64(),
        _ => x,
    };
    let (t_shape, o_shape) = (t.shape().to_vec(), other.shape().to_vec());
    let inputs = [ElementwiseInput::Tensor(t), ElementwiseInput::Tensor(other)];
    let result = ev.host_pointwise(&inputs, DType::Bool, "isclose", |v| {
        let (a, b) = (v[0].to_f64(), v[1].to_f64());
        let close = if a == b {
            true
        } else if a.is_nan() || b.is_nan() {
            equal_nan && a.is_nan() && b.is_nan()
        } else {
            let actual = p((a - b).abs());
            let allowed = p(atol + p(rtol * b).abs());
            actual.is_finite() && actual <= allowed
        };
        Scalar::Bool(close)
    })?;
    ev.note_kernel_events(&isclose_events(
        &t_shape, &o_shape, dtype, rtol, atol, equal_nan,
    ));
    Ok(Value::tensor(result, "isclose", None))
}

/// The allocator's events inside ATen's `isclose` after its result (`self == other`, bool):
/// `equal_nan`'s two NaN masks; then, unless both tolerances are 0, `atol + (rtol * other).abs()`
/// (wrapped numbers and their casts), `(self - other).abs()`, `isfinite` of that (`abs`,
/// `!= inf`, `== self`, their product) and `<=`, each freed as ATen lets it go. Integer
/// operands are first copied to the default float dtype.
pub(crate) fn isclose_events(
    a: &[i64],
    b: &[i64],
    dtype: DType,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Vec<i64> {
    let numel = |s: &[i64]| s.iter().product::<i64>().max(0);
    let (na, nb) = (numel(a), numel(b));
    let all = broadcast_shapes(a, b).map_or(na.max(nb), |s| numel(&s));
    let mut ev = Vec::new();
    if equal_nan && dtype.is_floating() {
        ev.extend([na, nb, -na, -nb]);
    }
    if rtol == 0.0 && atol == 0.0 {
        return ev;
    }
    let float = if dtype.is_floating() {
        dtype
    } else {
        DType::Float32
    };
    let is = float.item_size() as i64;
    let cast = if float == DType::Float64 { 0 } else { is };
    let casts = if dtype.is_floating() { 0 } else { na + nb };
    ev.extend([casts * is]);
    let scalar = |ev: &mut Vec<i64>, n: i64| ev.extend([8, cast, n * is, -cast, -8]);
    scalar(&mut ev, nb);
    ev.push(nb * is);
    scalar(&mut ev, nb);
    ev.extend([-nb * is, -nb * is]);
    ev.extend([all * is, all * is, -all * is]);
    ev.extend([
        all * is,
        8,
        cast,
        all,
        -8,
        -cast,
        all,
        all,
        -all,
        -all,
        -all * is,
    ]);
    ev.extend([all, -all, -all, -all * is, -nb * is, -casts * is]);
    ev
}
