//! The indexing ops called by name: `index_put_`/`index_put`, `nonzero`,
//! `argwhere` and `masked_select`. Their results depend on the data (which cells are
//! nonzero, where indices point), so the evaluator reads the inputs from the engine and
//! builds each result on the host, uploading it as a new storage (the CPU reference path:
//! the GPU engine has no gather/compaction kernel). `index_put_` moves bytes as indexed
//! assignment does (see the parent module).

use std::rc::Rc;

use crate::core::tensor::layout::{broadcast_shapes, contiguous_strides, numel_of};
use crate::core::tensor::{DType, Layout, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::ops::index::{PutValue, Slots};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["index_put_", "index_put"],
        schemas: &["Tensor self, Tensor[] indices, Tensor values, bool accumulate=False"],
        forms: Forms::Both,
        rule: index_put,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["nonzero"],
        schemas: &["Tensor self, *, bool as_tuple=False"],
        forms: Forms::Both,
        rule: nonzero,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["argwhere"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: argwhere,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["masked_select"],
        schemas: &["Tensor self, Tensor mask"],
        forms: Forms::Both,
        rule: masked_select,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::MASKED_SELECT,
        ),
        ..OpDef::PLAIN
    },
];

/// `index_put_(indices, values, accumulate=False)` writes in place and returns `self`;
/// `index_put` writes into a clone (same strides as `clone()`).
fn index_put(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let t = call.self_tensor()?;
    let values = call
        .tensor("values")
        .ok_or_else(|| ScriptError::Type(format!("{}(): missing values", call.name)))?;
    let accumulate = call.flag("accumulate", false);
    let mut slots: Slots = Vec::new();
    for index in call.tensors("indices") {
        let index = index.borrow().tensor.clone();
        slots.push(Some(ev.tensor_index(&index)?));
    }
    if call.name == "index_put_" {
        ev.index_put(&t, slots, PutValue::Tensor(values), accumulate)?;
        return Ok(Value::Tensor(Rc::clone(&this)));
    }
    let out = ev.clone_tensor(&t, MemoryFormat::Preserve)?;
    ev.index_put(&out, slots, PutValue::Tensor(values), accumulate)?;
    // The clone's own cells are new: only the source shows as read.
    Ok(Value::tensor(out, "index_put", Some(t.storage)))
}

/// The coordinates of `t`'s nonzero elements as `nonzero` lays them out: shape `[n, ndim]`
/// with strides `[1, n]` (column by column, as ATen's CPU kernel writes them).
fn nonzero_tensor(ev: &mut Evaluator, t: &Tensor) -> R<Tensor> {
    if ev.is_meta(t) {
        return Err(crate::core::tensor::ScriptError::NotImplemented(
            crate::interp::torch::device::NONZERO_OF_META.into(),
        ));
    }
    ev.check_work(t.numel(), "nonzero")?;
    let shape = t.shape().to_vec();
    let values = ev.engine.values(t);
    let hits: Vec<usize> = values
        .iter()
        .enumerate()
        .filter(|(_, v)| v.to_bool())
        .map(|(i, _)| i)
        .collect();
    let n = hits.len();
    let k = shape.len();
    let mut columns = vec![Scalar::Int(0); n * k];
    for (row, &flat) in hits.iter().enumerate() {
        let mut rest = flat as i64;
        for d in (0..k).rev() {
            let size = shape[d].max(1);
            columns[d * n + row] = Scalar::Int(rest % size);
            rest /= size;
        }
    }
    let flat = ev.tensor_from_values(&[(n * k) as i64], DType::Int64, &columns, "nonzero")?;
    Ok(flat.with_layout(Layout {
        shape: vec![n as i64, k as i64],
        strides: vec![1, n as i64],
        offset: 0,
    }))
}

/// `nonzero()`, and with `as_tuple=True` its columns: one 1-D view per dim of the same
/// storage (a 0-dim input counts as 1-D).
fn nonzero(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    if !call.flag("as_tuple", false) {
        let out = nonzero_tensor(ev, &t)?;
        return Ok(Value::tensor(out, "nonzero", None));
    }
    let input = if t.ndim() == 0 {
        t.with_layout(Layout {
            shape: vec![1],
            strides: vec![1],
            offset: t.layout.offset,
        })
    } else {
        t.clone()
    };
    let out = nonzero_tensor(ev, &input)?;
    let n = out.shape()[0];
    let parts = (0..input.ndim() as i64)
        .map(|j| {
            let column = out.with_layout(Layout {
                shape: vec![n],
                strides: vec![1],
                offset: j * n,
            });
            Value::tensor(column, "nonzero", None)
        })
        .collect();
    Ok(Value::Tuple(parts))
}

/// `argwhere()`: `nonzero()`.
fn argwhere(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let out = nonzero_tensor(ev, &t)?;
    Ok(Value::tensor(out, "argwhere", None))
}

/// `masked_select(mask)`: the elements of `self` where the bool `mask` is true, both
/// broadcast together, in row-major order, as a new 1-D tensor.
fn masked_select(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let mask = call
        .tensor("mask")
        .ok_or_else(|| ScriptError::Type("masked_select(): missing mask".into()))?;
    if mask.dtype != DType::Bool {
        return Err(ScriptError::Runtime(
            "masked_select: expected BoolTensor for mask".into(),
        ));
    }
    let shape = broadcast_shapes(mask.shape(), t.shape()).map_err(ScriptError::Runtime)?;
    ev.check_work(numel_of(&shape), "masked_select")?;
    let values = ev
        .engine
        .values(&crate::interp::torch::ops::broadcast_view(&t, &shape));
    let keep = ev
        .engine
        .values(&crate::interp::torch::ops::broadcast_view(&mask, &shape));
    let picked: Vec<Scalar> = values
        .into_iter()
        .zip(keep)
        .filter(|(_, m)| m.to_bool())
        .map(|(v, _)| v)
        .collect();
    let n = picked.len() as i64;
    let out = ev.tensor_from_values(&[n], t.dtype, &picked, "masked_select")?;
    debug_assert_eq!(out.strides(), &contiguous_strides(&[n])[..]);
    Ok(Value::tensor(out, "masked_select", Some(t.storage)))
}
