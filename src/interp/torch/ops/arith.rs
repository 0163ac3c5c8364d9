//! The division family: `div`/`divide` with `rounding_mode=None|'trunc'|'floor'`, `div_`,
//! `floor_divide` and `floor_divide_`, with `out=`. They run as the engine's elementwise
//! binary kernels through TensorIterator's rules ([`Evaluator::elementwise`]): true division
//! promotes integers to the default float dtype; `trunc` and `floor` keep the promoted dtype
//! (integers stay integers, a zero integer divisor raises `ZeroDivisionError`).

use std::rc::Rc;

use crate::core::tensor::layout::broadcast_shapes;
use crate::core::tensor::{DType, MemoryFormat, ScriptError};
use crate::engines::BinaryOp;
use crate::interp::torch::autograd::{formulas, Grad};
use crate::interp::torch::ops::{can_cast, ElementwiseInput, ResultType};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["div", "divide"],
        schemas: &[
            "Tensor self, Tensor other, *, str? rounding_mode=None, Tensor? out=None",
            "Tensor self, Scalar other, *, str? rounding_mode=None, Tensor? out=None",
        ],
        forms: Forms::Both,
        rule: divide,
        grad: Grad::named("DivBackward0", &formulas::DIV),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["div_", "divide_"],
        schemas: &[
            "Tensor self, Tensor other, *, str? rounding_mode=None",
            "Tensor self, Scalar other, *, str? rounding_mode=None",
        ],
        forms: Forms::Method,
        rule: divide,
        grad: Grad::named(
            "DivBackward0",
            &crate::interp::torch::autograd::formulas::DIV,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["floor_divide"],
        schemas: &[
            "Tensor self, Tensor other, *, Tensor? out=None",
            "Tensor self, Scalar other, *, Tensor? out=None",
        ],
        forms: Forms::Both,
        rule: divide,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["floor_divide_"],
        schemas: &["Tensor self, Tensor other", "Tensor self, Scalar other"],
        forms: Forms::Method,
        rule: divide,
        ..OpDef::PLAIN
    },
];

/// Every op of the family: the rounding mode picks the kernel; `_` names write into `self`,
/// `out=` into the given tensor (resized per PyTorch's rules when its shape differs).
fn divide(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let base = call.name.trim_end_matches('_');
    let in_place = call.name.ends_with('_');
    let this = call.this.clone();
    let x = match &this {
        Some(this) => ElementwiseInput::Tensor(this.borrow().tensor.clone()),
        None => ev.number_input(call)?,
    };
    let (op, kernel) = if base == "floor_divide" {
        (BinaryOp::FloorDiv, "div_floor_cpu")
    } else {
        match call.value("rounding_mode") {
            None => (BinaryOp::Div, "div_true_cpu"),
            Some(Value::Str(s)) if s == "trunc" => (BinaryOp::TruncDiv, "div_trunc_cpu"),
            Some(Value::Str(s)) if s == "floor" => (BinaryOp::FloorDiv, "div_floor_cpu"),
            Some(other) => {
                let text = match other {
                    Value::Str(s) => s.clone(),
                    v => v.type_name().to_string(),
                };
                return Err(ScriptError::Runtime(format!(
                    "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{text}'"
                )));
            }
        }
    };
    let (y, same) = match call.value("other") {
        Some(Value::Tensor(o)) => (
            ElementwiseInput::Tensor(o.borrow().tensor.clone()),
            this.as_ref().is_some_and(|t| Rc::ptr_eq(o, t)),
        ),
        Some(v) => {
            let v = v.clone();
            let s = ev.scalar_of(&v).ok_or_else(|| {
                ScriptError::Type(format!(
                    "{}(): argument 'other' (position 1) must be Tensor, not {}",
                    call.name,
                    v.type_name()
                ))
            })?;
            (ElementwiseInput::Number(s), false)
        }
        None => (
            ElementwiseInput::Number(crate::core::tensor::Scalar::Int(1)),
            false,
        ),
    };
    let mut rt = ResultType::default();
    rt.add(&x);
    rt.add(&y);
    let mut result_dtype = rt.result();
    if op == BinaryOp::Div && !result_dtype.is_floating() {
        result_dtype = DType::Float32;
    }
    if op != BinaryOp::Div && result_dtype == DType::Bool {
        return Err(ScriptError::NotImplemented(format!(
            "\"{kernel}\" not implemented for 'Bool'"
        )));
    }
    let y = if same { x.clone() } else { y };
    let out_ref = match call.value("out") {
        Some(Value::Tensor(o)) => Some(Rc::clone(o)),
        _ => None,
    };
    let out = if in_place {
        match &x {
            ElementwiseInput::Tensor(t) => Some(t.clone()),
            ElementwiseInput::Number(_) => None,
        }
    } else if let Some(o) = &out_ref {
        let out_dtype = o.borrow().tensor.dtype;
        if !can_cast(result_dtype, out_dtype) {
            return Err(ScriptError::Runtime(format!(
                "result type {} can't be cast to the desired output type {}",
                result_dtype.scalar_type_name(),
                out_dtype.scalar_type_name()
            )));
        }
        let shape = broadcast_shapes(x.shape(), y.shape()).map_err(ScriptError::Runtime)?;
        Some(ev.resize_out(o, &shape, MemoryFormat::Contiguous)?)
    } else {
        None
    };
    let result = ev.elementwise(op, &x, &y, out.as_ref())?;
    if let (true, Some(this)) = (in_place, this) {
        return Ok(Value::Tensor(this));
    }
    if let Some(o) = out_ref {
        return Ok(Value::Tensor(o));
    }
    Ok(Value::tensor(result, base, None))
}
