//! Rounding and sign: `floor`, `ceil`, `round` (with `decimals=`), `trunc`/`fix`, `frac`,
//! `sign`/`sgn` (and their in-place `_` forms, and `out=`), with `heaviside` and `lerp`.
//! Integer inputs keep their dtype (rounding them copies); a float result is computed in the
//! precision PyTorch's CPU kernels compute it in (`float` for 16-bit floats), so ties and
//! `decimals=` round as PyTorch rounds them.

use crate::core::tensor::{DType, Scalar, ScriptError};
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::ops::host_pointwise::operand;
use crate::interp::torch::ops::ElementwiseInput;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["floor", "ceil", "frac", "sign", "sgn"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: rounding,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_pointwise::POINTWISE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["trunc", "fix"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: rounding,
        grad: Grad::named(
            "TruncBackward0",
            &crate::interp::torch::autograd::formulas_pointwise::POINTWISE,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["floor_", "ceil_", "frac_", "sign_", "sgn_"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: rounding,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_pointwise::POINTWISE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["trunc_", "fix_"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: rounding,
        grad: Grad::named(
            "TruncBackward0",
            &crate::interp::torch::autograd::formulas_pointwise::POINTWISE,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["round"],
        schemas: &["Tensor self, *, int decimals=0, Tensor? out=None"],
        forms: Forms::Both,
        rule: rounding,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_pointwise::POINTWISE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["round_"],
        schemas: &["Tensor self, *, int decimals=0"],
        forms: Forms::Method,
        rule: rounding,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_pointwise::POINTWISE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["heaviside", "heaviside_"],
        schemas: &["Tensor self, Tensor values, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: heaviside,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["lerp", "lerp_"],
        schemas: &[
            "Tensor self, Tensor end, Scalar weight, *, Tensor? out=None",
            "Tensor self, Tensor end, Tensor weight, *, Tensor? out=None",
        ],
        forms: Forms::Both,
        rule: lerp,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_pointwise::LERP),
        ..OpDef::PLAIN
    },
];

/// Rounds `x` to the precision PyTorch computes `dtype` in (`float` for 16-bit floats).
fn in_precision(dtype: DType, x: f64) -> f64 {
    if dtype == DType::Float64 {
        x
    } else {
        x as f32 as f64
    }
}

/// `nearbyint`: to the nearest integer, ties to even.
fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 {
        2.0 * (x / 2.0).round()
    } else {
        r
    }
}

/// PyTorch's `round(decimals=)`: scales by a power of ten in the dtype's precision, rounds
/// ties to even, and scales back.
fn round_decimals(dtype: DType, x: f64, decimals: i64) -> f64 {
    let p = |v: f64| in_precision(dtype, v);
    if decimals == 0 {
        return round_half_even(x);
    }
    let ten_pow = p(10f64.powi(decimals.unsigned_abs().min(400) as i32));
    if decimals > 0 {
        p(round_half_even(p(x * ten_pow)) / ten_pow)
    } else {
        p(round_half_even(p(x / ten_pow)) * ten_pow)
    }
}

/// The kernel name PyTorch's dispatch error names for `base` on an unsupported dtype.
fn kernel_name(base: &str, decimals: i64) -> String {
    match base {
        "frac" => "frac_cpu".into(),
        "round" if decimals != 0 => "round_cpu".into(),
        "fix" => "trunc_vml_cpu".into(),
        b => format!("{b}_vml_cpu"),
    }
}

/// `floor`, `ceil`, `round`, `trunc`/`fix`, `frac`, `sign`/`sgn`.
fn rounding(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let base = call.name.trim_end_matches('_');
    let decimals = ev.arg_int(call, "decimals", 0)?;
    let dtype = t.dtype;
    let is_sign = matches!(base, "sign" | "sgn");
    let refused = dtype.is_complex()
        || (!is_sign && dtype == DType::Bool)
        || (!dtype.is_floating() && (base == "frac" || (base == "round" && decimals != 0)));
    if refused {
        return Err(ScriptError::NotImplemented(format!(
            "\"{}\" not implemented for '{}'",
            kernel_name(base, decimals),
            dtype.scalar_type_name()
        )));
    }
    let input = [ElementwiseInput::Tensor(t.clone())];
    ev.pointwise_result(call, &input, dtype, base, |v| match v[0] {
        Scalar::Float(x) => Scalar::Float(match base {
            "floor" => x.floor(),
            "ceil" => x.ceil(),
            "round" => round_decimals(dtype, x, decimals),
            "trunc" | "fix" => x.trunc(),
            "frac" => in_precision(dtype, x - x.trunc()),
            _ => f64::from(u8::from(x > 0.0)) - f64::from(u8::from(x < 0.0)),
        }),
        Scalar::Int(i) if is_sign => Scalar::Int(i.signum()),
        other => other,
    })
}

/// `heaviside(input, values)`: 0 below zero, 1 above, `values` at zero; both of one dtype.
fn heaviside(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let values = call
        .tensor("values")
        .ok_or_else(|| ScriptError::Type("heaviside(): argument 'values' must be Tensor".into()))?;
    if t.dtype != values.dtype {
        return Err(ScriptError::Runtime(
            "heaviside is not yet implemented for tensors with different dtypes.".into(),
        ));
    }
    if t.dtype.is_complex() {
        return Err(ScriptError::Runtime(
            "heaviside is not yet implemented for complex tensors.".into(),
        ));
    }
    let dtype = t.dtype;
    let inputs = [
        ElementwiseInput::Tensor(t),
        ElementwiseInput::Tensor(values),
    ];
    let result = ev.host_pointwise(&inputs, dtype, "heaviside", |v| {
        let x = v[0].to_f64();
        if x == 0.0 {
            v[1]
        } else {
            match dtype {
                DType::Bool => Scalar::Bool(x > 0.0),
                d if d.is_floating() => Scalar::Float(f64::from(u8::from(x > 0.0))),
                _ => Scalar::Int(i64::from(x > 0.0)),
            }
        }
    })?;
    ev.deliver_pointwise(call, result, "heaviside")
}

/// `lerp(input, end, weight)`: `input + weight * (end - input)`, computed as PyTorch does
/// (one fused multiply-add from the nearer end); floating dtypes only, all of one dtype.
fn lerp(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let end = call
        .tensor("end")
        .ok_or_else(|| ScriptError::Type("lerp(): argument 'end' must be Tensor".into()))?;
    let weight = operand(ev, call.value("weight")).ok_or_else(|| {
        ScriptError::Type("lerp(): argument 'weight' must be Tensor or Number".into())
    })?;
    let dtype = t.dtype;
    let expect = |what: &str, other: DType| -> R<()> {
        if other == dtype {
            return Ok(());
        }
        Err(ScriptError::Runtime(format!(
            "expected dtype {} for `{what}` but got dtype {}",
            dtype.cpp_type_name(),
            other.cpp_type_name()
        )))
    };
    expect("end", end.dtype)?;
    if let ElementwiseInput::Tensor(w) = &weight {
        expect("weight", w.dtype)?;
    }
    if !dtype.is_floating() {
        let kernel = match weight {
            ElementwiseInput::Tensor(_) => "lerp_kernel_tensor",
            ElementwiseInput::Number(_) => "lerp_kernel_scalar",
        };
        return Err(ScriptError::NotImplemented(format!(
            "\"{kernel}\" not implemented for '{}'",
            dtype.scalar_type_name()
        )));
    }
    let inputs = [
        ElementwiseInput::Tensor(t),
        ElementwiseInput::Tensor(end),
        weight,
    ];
    // ATen's `lerp` (scalar and vectorized alike): one fused multiply-add from the nearer
    // end, `fma(w, end - start, start)` or `fma(w - 1, end - start, end)`, in the dtype's
    // opmath (float32 for the half types).
    ev.pointwise_result(call, &inputs, dtype, "lerp", |v| {
        let (start, end, w) = (v[0].to_f64(), v[1].to_f64(), v[2].to_f64());
        Scalar::Float(if dtype == DType::Float64 {
            let diff = end - start;
            if w.abs() < 0.5 {
                w.mul_add(diff, start)
            } else {
                (w - 1.0).mul_add(diff, end)
            }
        } else {
            let (start, end, w) = (start as f32, end as f32, w as f32);
            let diff = end - start;
            let r = if w.abs() < 0.5 {
                w.mul_add(diff, start)
            } else {
                (w - 1.0).mul_add(diff, end)
            };
            in_precision(dtype, f64::from(r))
        })
    })
}
