//! `addcmul` and `addcdiv` (and their in-place `_` forms, and `out=`): `input + value *
//! tensor1 * tensor2` and `input + value * tensor1 / tensor2`, the ternary ops the
//! optimizers' updates are made of. The result dtype is the three tensors' promoted type;
//! each element is computed as ATen's CPU kernels compute it: `addcmul` as one fused
//! multiply-add of `value * tensor1` and `tensor2` onto `input` (what the vectorized kernel
//! compiles to), `addcdiv` as `input + (value * tensor1) / tensor2`, every step rounded in
//! the dtype's precision (`float` for 16-bit floats).

use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::torch::ops::host_pointwise::operand;
use crate::interp::torch::ops::{can_cast, ElementwiseInput, ResultType};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["addcmul", "addcdiv"],
        schemas: &[
            "Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor? out=None",
        ],
        forms: Forms::Both,
        rule: addc,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_pointwise::ADDC,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["addcmul_", "addcdiv_"],
        schemas: &["Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1"],
        forms: Forms::Method,
        rule: addc,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_pointwise::ADDC,
        ),
        ..OpDef::PLAIN
    },
];

/// PyTorch's refusal of `addcdiv` on two integral tensors.
const INTEGER_ADDCDIV: &str = "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.";

fn addc(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let divide = call.name.starts_with("addcdiv");
    let base = if divide { "addcdiv" } else { "addcmul" };
    let t = call.self_tensor()?;
    let tensor = |name: &str| -> R<Tensor> {
        call.tensor(name)
            .ok_or_else(|| ScriptError::Type(format!("{base}(): argument '{name}' must be Tensor")))
    };
    let (t1, t2) = (tensor("tensor1")?, tensor("tensor2")?);
    if divide
        && !t1.dtype.is_floating()
        && !t1.dtype.is_complex()
        && !t2.dtype.is_floating()
        && !t2.dtype.is_complex()
    {
        return Err(ScriptError::Runtime(INTEGER_ADDCDIV.into()));
    }
    let inputs = [
        ElementwiseInput::Tensor(t.clone()),
        ElementwiseInput::Tensor(t1),
        ElementwiseInput::Tensor(t2),
    ];
    let mut result_type = ResultType::default();
    for input in &inputs {
        result_type.add(input);
    }
    let dtype = result_type.result();
    if dtype.is_complex() {
        return Err(ScriptError::NotImplemented(format!(
            "Stridescope does not compute {base} on complex tensors yet"
        )));
    }
    if dtype == DType::Bool {
        return Err(ScriptError::NotImplemented(format!(
            "\"{base}_cpu_out\" not implemented for 'Bool'"
        )));
    }
    let target = if call.name.ends_with('_') {
        Some(t.dtype)
    } else {
        call.tensor("out").map(|o| o.dtype)
    };
    if let Some(target) = target {
        if !can_cast(dtype, target) {
            return Err(ScriptError::Runtime(format!(
                "result type {} can't be cast to the desired output type {}",
                dtype.scalar_type_name(),
                target.scalar_type_name()
            )));
        }
    }
    let value = match call.value("value") {
        None => Scalar::Int(1),
        Some(v) => match operand(ev, Some(v)) {
            Some(ElementwiseInput::Number(s)) => s,
            _ => {
                return Err(ScriptError::Type(format!(
                    "{base}(): argument 'value' must be Number, not {}",
                    v.type_name()
                )))
            }
        },
    };
    let value = value_in(dtype, value)?;
    ev.pointwise_result(call, &inputs, dtype, base, |v| {
        kernel(dtype, divide, value, v[0], v[1], v[2])
    })
}

/// `value` as the kernel holds it (`value.to<scalar_t>()`), with c10's overflow check.
fn value_in(dtype: DType, value: Scalar) -> R<Scalar> {
    if dtype.is_floating() {
        return Ok(Scalar::Float(value.to_f64()));
    }
    let v = value.to_wrapped_int();
    let (lo, hi) = match dtype {
        DType::UInt8 => (0, 255),
        DType::Int8 => (-128, 127),
        DType::Int16 => (-32768, 32767),
        DType::Int32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
        _ => (i64::MIN, i64::MAX),
    };
    if matches!(value, Scalar::Int(_)) && !(lo..=hi).contains(&v) {
        return Err(ScriptError::Runtime(format!(
            "value cannot be converted to type {} without overflow",
            dtype.cpp_type_name()
        )));
    }
    Ok(Scalar::Int(v))
}

/// One element: `x + value * a * b` (fused) or `x + value * a / b`, in the dtype's precision.
fn kernel(dtype: DType, divide: bool, value: Scalar, x: Scalar, a: Scalar, b: Scalar) -> Scalar {
    match dtype {
        DType::Float64 => {
            let (s, x, a, b) = (value.to_f64(), x.to_f64(), a.to_f64(), b.to_f64());
            Scalar::Float(if divide {
                x + s * a / b
            } else {
                (s * a).mul_add(b, x)
            })
        }
        d if d.is_floating() => {
            let (s, x, a, b) = (
                value.to_f64() as f32,
                x.to_f64() as f32,
                a.to_f64() as f32,
                b.to_f64() as f32,
            );
            Scalar::Float(f64::from(if divide {
                x + s * a / b
            } else {
                (s * a).mul_add(b, x)
            }))
        }
        _ => {
            let (s, x, a, b) = (
                value.to_wrapped_int(),
                x.to_wrapped_int(),
                a.to_wrapped_int(),
                b.to_wrapped_int(),
            );
            Scalar::Int(x.wrapping_add(s.wrapping_mul(a).wrapping_mul(b)))
        }
    }
}
