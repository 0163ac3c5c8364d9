//! Questions a tensor answers about itself, without touching its storage's bytes (except
//! `item` and `tolist`, which read them): `stride`, `size`, `dim`, `numel`, `element_size`,
//! `storage_offset`, `is_contiguous`, `data_ptr`, `item`, `tolist`, `is_set_to`.

use crate::core::tensor::layout::wrap_dim;
use crate::core::tensor::{MemoryFormat, Scalar, ScriptError};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["stride", "size"],
        schemas: &["Tensor self, int? dim=None"],
        forms: Forms::Method,
        rule: stride_or_size,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["dim", "ndimension"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: dim,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["numel"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: numel,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["nelement"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: numel,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["element_size"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: element_size,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["storage_offset"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: storage_offset,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["is_contiguous"],
        schemas: &["Tensor self, *, MemoryFormat memory_format=torch.contiguous_format"],
        forms: Forms::Method,
        rule: is_contiguous,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["data_ptr"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: data_ptr,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["item"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: item,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["tolist"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: tolist,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["is_set_to"],
        schemas: &["Tensor self, Tensor tensor"],
        forms: Forms::Method,
        rule: is_set_to,
        complex: true,
        ..OpDef::PLAIN
    },
];

/// `stride()` (a tuple), `size()` (a `torch.Size`), or one dim's.
fn stride_or_size(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let values = if call.name == "stride" {
        t.strides().to_vec()
    } else {
        t.shape().to_vec()
    };
    match ev.arg_opt_int(call, "dim")? {
        None if call.name == "size" => Ok(Value::Size(values)),
        None => Ok(Value::Tuple(values.into_iter().map(Value::Int).collect())),
        Some(d) => {
            if t.ndim() == 0 {
                return Err(ScriptError::Index(format!(
                    "Dimension specified as {d} but tensor has no dimensions"
                )));
            }
            let w = wrap_dim(d, t.ndim()).map_err(ScriptError::Index)?;
            Ok(Value::Int(values[w]))
        }
    }
}

fn dim(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    Ok(Value::Int(call.self_tensor()?.ndim() as i64))
}

fn numel(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    Ok(Value::Int(call.self_tensor()?.numel()))
}

fn element_size(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    Ok(Value::Int(call.self_tensor()?.dtype.item_size() as i64))
}

fn storage_offset(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    Ok(Value::Int(call.self_tensor()?.layout.offset))
}

fn is_contiguous(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let f = call.memory_format("memory_format", MemoryFormat::Contiguous);
    Ok(Value::Bool(t.layout.is_contiguous_as(f)))
}

/// The address of the first element: the storage's stable fake base plus the offset in bytes.
fn data_ptr(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let base = ev
        .memory
        .storage(t.storage)
        .map(|s| s.base_address)
        .unwrap_or(0);
    Ok(Value::Int(
        base as i64 + t.layout.offset * t.dtype.item_size() as i64,
    ))
}

/// A Python number from a one-element tensor.
pub(super) fn scalar_value(s: Scalar) -> Value {
    match s {
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Int(i) => Value::Int(i),
        Scalar::Float(f) => Value::Float(f),
    }
}

fn item(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    if t.numel() != 1 {
        return Err(ScriptError::Runtime(format!(
            "a Tensor with {} elements cannot be converted to Scalar",
            t.numel()
        )));
    }
    ev.check_item_not_meta(&t)?;
    if t.dtype.is_complex() {
        let values = ev.engine.values(&t);
        return Ok(crate::interp::torch::ops::complex::complex_tolist(
            &values,
            &[],
        ));
    }
    let v = ev
        .engine
        .values(&t)
        .first()
        .copied()
        .unwrap_or(Scalar::Int(0));
    Ok(scalar_value(v))
}

fn tolist(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    if ev.is_meta(&t) {
        return Err(ScriptError::NotImplemented(
            crate::interp::torch::device::COPY_OUT_OF_META.into(),
        ));
    }
    ev.check_work(t.numel(), "tolist")?;
    let values = ev.engine.values(&t);
    if t.dtype.is_complex() {
        return Ok(crate::interp::torch::ops::complex::complex_tolist(
            &values,
            t.shape(),
        ));
    }
    Ok(nest(&values, t.shape()))
}

fn is_set_to(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let o = call
        .tensor("tensor")
        .ok_or_else(|| ScriptError::Type("is_set_to(): argument 'tensor' must be Tensor".into()))?;
    Ok(Value::Bool(o.storage == t.storage && o.layout == t.layout))
}

/// Nests row-major values into Python lists of `shape`.
fn nest(values: &[Scalar], shape: &[i64]) -> Value {
    if shape.is_empty() {
        return values
            .first()
            .map(|s| scalar_value(*s))
            .unwrap_or(Value::None);
    }
    let inner: i64 = crate::core::tensor::layout::numel_of(&shape[1..]);
    let items = (0..shape[0])
        .map(|i| {
            let start = (i * inner) as usize;
            let end = ((i + 1) * inner) as usize;
            nest(values.get(start..end).unwrap_or(&[]), &shape[1..])
        })
        .collect();
    Value::List(items)
}
