//! Floating-point functions of one tensor: `sqrt`, `rsqrt`, `exp`, `log`, `log2`, `log10`,
//! `sin`, `cos`, `tan`, `tanh`, `sigmoid` (and their in-place `_` forms), and `xlogy`. Integer and bool
//! inputs promote to the default float dtype. The engine has no kernels for them, so they are
//! computed in the evaluator from `engine.values()` in double precision, rounded once to the
//! dtype (float32 `sqrt` and `sigmoid` as MKL and ATen's float kernel compute them), and
//! written into a fresh storage laid out as TensorIterator lays out the output
//! (the CPU engine's path, for that reason).

use std::rc::Rc;

use crate::core::tensor::layout::{elementwise_output_strides, OperandLayout};
use crate::core::tensor::{DType, Layout, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::{formulas, Grad};
use crate::interp::torch::ops::{storage_nbytes_for, vec_float};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["exp"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: float_unary,
        grad: Grad::formula(&formulas::EXP),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["log"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: float_unary,
        grad: Grad::formula(&formulas::LOG),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["sqrt"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: float_unary,
        grad: Grad::formula(&formulas::SQRT),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["tanh"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: float_unary,
        grad: Grad::formula(&formulas::TANH),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["sigmoid"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: float_unary,
        grad: Grad::formula(&formulas::SIGMOID),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["expm1"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: float_unary,
        grad: Grad::formula(&EXPM1_BACKWARD),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["sin"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: float_unary,
        grad: Grad::formula(&formulas::SIN),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["cos"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: float_unary,
        grad: Grad::formula(&formulas::COS),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["rsqrt", "log2", "log10", "tan"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: float_unary,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_pointwise::POINTWISE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &[
            "sqrt_", "rsqrt_", "exp_", "log_", "log2_", "log10_", "sin_", "cos_", "tan_", "tanh_",
            "sigmoid_",
        ],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: float_unary,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_pointwise::POINTWISE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["xlogy"],
        schemas: &["Tensor self, Tensor other, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: xlogy,
        grad: Grad::formula(&XLOGY_BACKWARD),
        ..OpDef::PLAIN
    },
];

/// `xlogy(Tensor self, Tensor other)`: `self * log(other)`, 0 where `self` is 0, NaN where
/// `other` is (ATen's scalar kernel: `std::log` of the dtype, then the product); integer
/// operands promote to the default float dtype.
fn xlogy(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    use super::host_pointwise::operand;
    let (Some(a), Some(b)) = (
        operand(ev, call.value("self")),
        operand(ev, call.value("other")),
    ) else {
        return Err(ScriptError::Type(
            "xlogy(): argument 'other' (position 2) must be Tensor".into(),
        ));
    };
    let dtype_of = |i: &super::ElementwiseInput| match i {
        super::ElementwiseInput::Tensor(t) => t.dtype,
        super::ElementwiseInput::Number(_) => DType::Float32,
    };
    let common = DType::promote(dtype_of(&a), dtype_of(&b));
    let dtype = if common.is_floating() {
        common
    } else {
        DType::Float32
    };
    let single = dtype != DType::Float64;
    ev.pointwise_result(call, &[a, b], dtype, "xlogy", |v| {
        let (x, y) = (v[0].to_f64(), v[1].to_f64());
        Scalar::Float(if y.is_nan() {
            f64::NAN
        } else if x == 0.0 {
            0.0
        } else if single {
            f64::from(x as f32 * (y as f32).ln())
        } else {
            x * y.ln()
        })
    })
}

/// `xlogy(Tensor self, Tensor other)`: `self: grad * xlogy(self != 0, other)`, `other: grad *
/// self / other`.
static XLOGY_BACKWARD: Formula = Formula {
    inputs: &["self", "other"],
    saves: &["self", "other"],
    args: &[],
    backward: xlogy_backward,
};

fn xlogy_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    let (x, y) = (ev.saved_input(b, "self")?, ev.saved_input(b, "other")?);
    if b.needs(0) {
        let nonzero = ev.binary(BinOp::Ne, x.clone(), Value::Int(0))?;
        let xl = ev.method(nonzero, "xlogy", vec![y.clone()])?;
        out[0] = Some(ev.binary(BinOp::Mul, b.g(), xl)?);
    }
    if b.needs(1) {
        let gx = ev.binary(BinOp::Mul, b.g(), x)?;
        out[1] = Some(ev.binary(BinOp::Div, gx, y)?);
    }
    Ok(out)
}

/// `expm1(Tensor self)`: `grad * (result + 1)`.
static EXPM1_BACKWARD: Formula = Formula {
    inputs: &["self"],
    saves: &["result"],
    args: &[],
    backward: expm1_backward,
};

fn expm1_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        let result = ev.saved_input(b, "result")?;
        let d = ev.binary(BinOp::Add, result, Value::Int(1))?;
        out[0] = Some(ev.binary(BinOp::Mul, b.g(), d)?);
    }
    Ok(out)
}

/// The function `name` computes, chosen once per op (not per element).
fn function(name: &str) -> fn(f64) -> f64 {
    match name {
        "sqrt" => f64::sqrt,
        "rsqrt" => |x| 1.0 / x.sqrt(),
        "exp" => f64::exp,
        "expm1" => f64::exp_m1,
        "log" => f64::ln,
        "log2" => f64::log2,
        "log10" => f64::log10,
        "sin" => f64::sin,
        "cos" => f64::cos,
        "tan" => f64::tan,
        "tanh" => f64::tanh,
        _ => |x| 1.0 / (1.0 + (-x).exp()),
    }
}

/// Every op of the family: out of place, in place (`_`) or into `out=`.
/// float32 `sigmoid` as ATen's kernel computes it, in float: `1 / (1 + exp(-x))`, the
/// exponential SLEEF's in a vector, else the correctly rounded one (`std::exp`).
fn sigmoid_f32(x: f32, vectorized: bool) -> f32 {
    let e = vec_float::kernel_exp(f64::from(-x), true, vectorized) as f32;
    1.0 / (1.0 + e)
}

fn float_unary(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let t = this.borrow().tensor.clone();
    let base = call.name.trim_end_matches('_');
    let in_place = call.name.ends_with('_');
    let dtype = if t.dtype.is_floating() {
        t.dtype
    } else {
        DType::Float32
    };
    if in_place && dtype != t.dtype {
        return Err(ScriptError::Runtime(format!(
            "result type Float can't be cast to the desired output type {}",
            t.dtype.scalar_type_name()
        )));
    }
    ev.check_work(t.numel(), base)?;
    let f = function(base);
    let round = |x: f64| match dtype {
        DType::Float32 => Scalar::Float(f64::from(x as f32)),
        DType::Float64 => Scalar::Float(x),
        _ => dtype.round(Scalar::Float(x)),
    };
    // ATen's vectorized loop takes whole pairs of vectors of a dense tensor, in memory order,
    // the rest element by element: where each element is in that order (sigmoid's last bit
    // depends on it).
    let in_vector: Vec<bool> = if base == "sigmoid" && dtype == DType::Float32 {
        let n = t.numel().max(0) as usize;
        let whole = n - n % (2 * vec_float::LANES);
        let dense = t.layout.is_non_overlapping_and_dense();
        let offsets: Vec<i64> = t.layout.offsets().collect();
        let first = offsets.iter().copied().min().unwrap_or(0);
        offsets
            .iter()
            .map(|&o| dense && ((o - first) as usize) < whole)
            .collect()
    } else {
        Vec::new()
    };
    // On the meta device nothing is computed (the result has its layout, no values).
    let values: Vec<Scalar> = if ev.torch.device.meta_op {
        Vec::new()
    } else {
        ev.engine.values(&t)
    }
    .into_iter()
    .enumerate()
    .map(|(i, v)| match (base, dtype) {
        ("sigmoid", DType::Float32) => Scalar::Float(f64::from(sigmoid_f32(
            v.to_f64() as f32,
            in_vector.get(i).copied().unwrap_or(false),
        ))),
        // float32 `sqrt` is MKL's, not correctly rounded (see `mkl_sqrt`).
        ("sqrt", DType::Float32) => {
            Scalar::Float(f64::from(super::mkl_sqrt::sqrt_f32(v.to_f64() as f32)))
        }
        ("sqrt", DType::Float64) => Scalar::Float(super::mkl_sqrt::sqrt_f64(v.to_f64())),
        _ => round(f(v.to_f64())),
    })
    .collect();
    // Written back into `self` or `out=`, the values are no tensor ATen allocates.
    let out = if in_place || matches!(call.value("out"), Some(Value::Tensor(_))) {
        ev.uncounted(|ev| ev.host_result(&t, dtype, &values, base))?
    } else {
        ev.host_result(&t, dtype, &values, base)?
    };
    if in_place {
        ev.copy_into(&t, &out, false)?;
        return Ok(Value::Tensor(this));
    }
    if let Some(Value::Tensor(o)) = call.value("out") {
        let o = Rc::clone(o);
        let target = ev.resize_out(
            &o,
            out.shape(),
            crate::core::tensor::MemoryFormat::Contiguous,
        )?;
        ev.copy_into(&target, &out, false)?;
        return Ok(Value::Tensor(o));
    }
    Ok(Value::tensor(out, base, None))
}

impl Evaluator {
    /// A fresh tensor shaped like `like`, with the strides TensorIterator gives a unary op's
    /// output, holding `values` (in row-major order) computed on the host.
    pub(super) fn host_result(
        &mut self,
        like: &Tensor,
        dtype: DType,
        values: &[Scalar],
        what: &str,
    ) -> R<Tensor> {
        let shape = like.shape();
        let strides = elementwise_output_strides(
            shape,
            &[OperandLayout {
                shape,
                strides: like.strides(),
                item_size: like.dtype.item_size() as i64,
            }],
        );
        let nbytes = storage_nbytes_for(shape, &strides, 0, dtype.item_size())
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| ScriptError::Runtime(format!("{what}: tensor is too large")))?;
        let layout = Layout {
            shape: shape.to_vec(),
            strides,
            offset: 0,
        };
        if self.torch.device.meta_op {
            // A meta result has no values: nothing to write.
            let storage = self.allocate_meta(nbytes, dtype);
            return Ok(Tensor {
                storage,
                dtype,
                layout,
            });
        }
        self.check_memory(nbytes, what)?;
        let mut bytes = vec![0u8; nbytes];
        for (offset, v) in layout.offsets().zip(values) {
            if let Ok(at) = usize::try_from(offset) {
                if (at + 1) * dtype.item_size() <= nbytes {
                    dtype.write(&mut bytes, at, *v);
                }
            }
        }
        let storage = self.allocate_with(bytes, dtype, what)?;
        Ok(Tensor {
            storage,
            dtype,
            layout,
        })
    }
}
