//! Conversions and dtype questions: `to` (dtype, device, another tensor's dtype,
//! `memory_format`, `copy`), `float`/`half`/`int`/... , `clone(memory_format=)`, `type`,
//! `is_floating_point`, `is_complex`, `torch.is_tensor`, `torch.promote_types`,
//! `torch.result_type` and `torch.device`. A conversion that changes nothing returns `self`
//! (the same object); otherwise the copy runs as the engine's converting copy.

use std::rc::Rc;

use crate::core::tensor::{DType, MemoryFormat, ScriptError, Tensor};
use crate::interp::torch::autograd::{formulas, Grad};
use crate::interp::torch::ops::{ElementwiseInput, ResultType};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["to"],
        schemas: &[
            "Tensor self, Device? device=None, ScalarType? dtype=None, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None",
            "Tensor self, ScalarType dtype, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None",
            "Tensor self, Tensor tensor, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None",
        ],
        forms: Forms::Method,
        rule: to,
        grad: Grad::named("ToCopyBackward0", &formulas::IDENTITY),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["float", "half", "double", "bfloat16"],
        schemas: &["Tensor self, *, MemoryFormat memory_format=torch.preserve_format"],
        forms: Forms::Method,
        rule: cast,
        grad: Grad::named("ToCopyBackward0", &formulas::IDENTITY),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["int", "long", "bool"],
        schemas: &["Tensor self, *, MemoryFormat memory_format=torch.preserve_format"],
        forms: Forms::Method,
        rule: cast,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["byte", "char", "short"],
        schemas: &["Tensor self, *, MemoryFormat memory_format=torch.preserve_format"],
        forms: Forms::Method,
        rule: cast,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["clone"],
        schemas: &["Tensor self, *, MemoryFormat? memory_format=None"],
        forms: Forms::Both,
        rule: clone,
        grad: Grad::formula(&formulas::IDENTITY),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["type"],
        schemas: &["Tensor self, Any? dtype=None, bool non_blocking=False"],
        forms: Forms::Method,
        rule: type_,
        grad: Grad::named("ToCopyBackward0", &formulas::IDENTITY),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["is_floating_point"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: is_floating_point,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["is_complex"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: is_complex,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["is_tensor"],
        schemas: &["Any obj"],
        forms: Forms::Function,
        rule: is_tensor,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["promote_types"],
        schemas: &["ScalarType type1, ScalarType type2"],
        forms: Forms::Function,
        rule: promote_types,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["result_type"],
        schemas: &[
            "Tensor tensor, Tensor other",
            "Tensor tensor, Scalar other",
            "Scalar scalar, Tensor tensor",
            "Scalar scalar1, Scalar scalar2",
        ],
        forms: Forms::Function,
        rule: result_type,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["device"],
        schemas: &["Device type", "str type, int index"],
        forms: Forms::Function,
        rule: device,
        ..OpDef::PLAIN
    },
];

/// The device types PyTorch's device strings may name.
pub(crate) const DEVICE_TYPES: &[&str] = &[
    "cpu",
    "cuda",
    "ipu",
    "xpu",
    "mkldnn",
    "opengl",
    "opencl",
    "ideep",
    "hip",
    "ve",
    "fpga",
    "maia",
    "xla",
    "lazy",
    "vulkan",
    "mps",
    "meta",
    "hpu",
    "mtia",
    "privateuseone",
];

/// Parses a device string (`cpu`, `cuda:0`) as `torch.device` does: the type and an index.
fn parse_device(text: &str) -> R<(String, Option<i64>)> {
    let (kind, index) = match text.split_once(':') {
        Some((k, i)) => (k, Some(i)),
        None => (text, None),
    };
    if !DEVICE_TYPES.contains(&kind) {
        return Err(ScriptError::Runtime(format!(
            "Expected one of {} device type at start of device string: {text}",
            DEVICE_TYPES.join(", ")
        )));
    }
    let index = match index {
        None => None,
        Some(i) => Some(
            i.parse::<i64>()
                .ok()
                .filter(|n| *n >= 0)
                .ok_or_else(|| ScriptError::Runtime(format!("Invalid device string: '{text}'")))?,
        ),
    };
    Ok((kind.to_string(), index))
}

/// The text a device value holds (`cpu`, `cuda:1`).
fn device_text(kind: &str, index: Option<i64>) -> String {
    match index {
        Some(i) => format!("{kind}:{i}"),
        None => kind.to_string(),
    }
}

/// `torch.device('cpu')`, `torch.device('cuda', 0)`, `torch.device(1)` (a CUDA index).
fn device(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    let (kind, index) = match call.value("type") {
        Some(Value::Device(d)) => parse_device(d)?,
        Some(Value::Str(s)) => parse_device(s)?,
        _ => {
            return Err(ScriptError::Type(
                "device() received an invalid combination of arguments".into(),
            ))
        }
    };
    let index = match call.value("index") {
        Some(Value::Int(i)) => {
            if index.is_some() {
                return Err(ScriptError::Runtime(
                    "type (string) must not include an index because index was passed explicitly: "
                        .to_string()
                        + &device_text(&kind, index),
                ));
            }
            Some(*i)
        }
        _ => index,
    };
    Ok(Value::Device(device_text(&kind, index)))
}

/// The error of moving a tensor to a device this (CPU-only) PyTorch does not have.
fn check_device(text: &str) -> R<()> {
    let (kind, _) = parse_device(text)?;
    match kind.as_str() {
        "cpu" | "meta" => Ok(()),
        // The simulated CUDA device, with the option "as on a CUDA device".
        "cuda"
            if crate::interp::torch::device::Device::of_value(&Value::Str(text.into()))
                .is_some() =>
        {
            Ok(())
        }
        "cuda" => Err(ScriptError::Runtime("No CUDA GPUs are available".into())),
        "mps" => Err(ScriptError::Runtime(
            "PyTorch is not linked with support for mps devices".into(),
        )),
        other => Err(ScriptError::NotImplemented(format!(
            "Stridescope runs tensors on the CPU; device '{other}' is not available"
        ))),
    }
}

/// `to(device, dtype)`, `to(dtype)`, `to(other)`: `self` when nothing changes.
fn to(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let t = this.borrow().tensor.clone();
    match call.value("device") {
        Some(Value::Str(s) | Value::Device(s)) => check_device(s)?,
        Some(Value::Int(_)) => {
            return Err(ScriptError::Runtime("No CUDA GPUs are available".into()))
        }
        _ => {}
    }
    let dtype = match call.value("tensor") {
        Some(Value::Tensor(o)) => o.borrow().tensor.dtype,
        // `to` takes numbers where a tensor goes: a number is a CUDA device index.
        Some(_) => return Err(ScriptError::Runtime("No CUDA GPUs are available".into())),
        None => call.dtype("dtype").unwrap_or(t.dtype),
    };
    let format = call.memory_format("memory_format", MemoryFormat::Preserve);
    // A move between devices is a copy (the op runs on the target's device).
    let moving = ev.device_of_op() != ev.device_of(&t);
    let copy = call.flag("copy", false) || moving;
    convert_to(ev, &this, &t, dtype, format, copy, "to")
}

/// A converted copy, or `this` itself when dtype and format already match.
fn convert_to(
    ev: &mut Evaluator,
    this: &TensorRef,
    t: &Tensor,
    dtype: DType,
    format: MemoryFormat,
    copy: bool,
    name: &str,
) -> R<Value> {
    if dtype == t.dtype
        && !copy
        && (format == MemoryFormat::Preserve || t.layout.suggest_memory_format() == format)
    {
        return Ok(Value::Tensor(Rc::clone(this)));
    }
    let out = ev.convert(t, dtype, format, name)?;
    Ok(Value::tensor(out, name, Some(t.storage)))
}

/// `float()`, `half()`, `int()`, ...: `to(dtype)` by name.
fn cast(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let t = this.borrow().tensor.clone();
    let dtype = match call.name.as_str() {
        "byte" => DType::UInt8,
        "char" => DType::Int8,
        other => DType::from_name(other).unwrap_or(DType::Float32),
    };
    let format = call.memory_format("memory_format", MemoryFormat::Preserve);
    convert_to(ev, &this, &t, dtype, format, false, &call.name)
}

/// `clone(memory_format=)`: always a copy.
fn clone(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let format = call.memory_format("memory_format", MemoryFormat::Preserve);
    let out = ev.convert(&t, t.dtype, format, "clone")?;
    Ok(Value::tensor(out, "clone", Some(t.storage)))
}

/// `type()`: the legacy type name; `type(dtype)` / `type('torch.IntTensor')`: a conversion.
fn type_(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let t = this.borrow().tensor.clone();
    let dtype = match call.value("dtype") {
        None => return Ok(Value::Str(t.dtype.legacy_type_name())),
        Some(Value::DType(d)) => *d,
        Some(Value::Method(owner, class)) if matches!(**owner, Value::Torch) => {
            crate::interp::torch::env::legacy_class_dtype(class).ok_or_else(|| {
                ScriptError::Type("dtype must be a type, str, or dtype object".into())
            })?
        }
        Some(Value::Str(s)) => DType::ALL
            .iter()
            .copied()
            .find(|d| d.legacy_type_name() == *s)
            .ok_or_else(|| ScriptError::Value(format!("invalid type: '{s}'")))?,
        Some(_) => {
            return Err(ScriptError::Type(
                "dtype must be a type, str, or dtype object".into(),
            ))
        }
    };
    convert_to(ev, &this, &t, dtype, MemoryFormat::Preserve, false, "type")
}

fn is_floating_point(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    Ok(Value::Bool(call.self_tensor()?.dtype.is_floating()))
}

/// Stridescope has no complex tensors: always `False`.
fn is_complex(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    Ok(Value::Bool(call.self_tensor()?.dtype.is_complex()))
}

fn is_tensor(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    Ok(Value::Bool(matches!(
        call.value("obj"),
        Some(Value::Tensor(_))
    )))
}

fn promote_types(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    match (call.dtype("type1"), call.dtype("type2")) {
        (Some(a), Some(b)) => Ok(Value::DType(DType::promote(a, b))),
        _ => Err(ScriptError::Type(
            "promote_types(): arguments must be torch.dtype".into(),
        )),
    }
}

/// `torch.result_type`: the dtype an elementwise op of the two operands computes in.
fn result_type(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let mut rt = ResultType::default();
    for name in ["tensor", "other", "scalar", "scalar1", "scalar2"] {
        match call.value(name) {
            Some(Value::Tensor(t)) if name == "tensor" || name == "other" => {
                rt.add(&ElementwiseInput::Tensor(t.borrow().tensor.clone()))
            }
            Some(v) => {
                if let Some(s) = ev.scalar_of(v) {
                    rt.add(&ElementwiseInput::Number(s));
                }
            }
            None => {}
        }
    }
    Ok(Value::DType(rt.result()))
}
