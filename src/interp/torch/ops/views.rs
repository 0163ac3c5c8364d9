//! View ops from PyTorch's "Tensor Views" page that are pure metadata: the result shares the
//! input's storage; only dtype, shape, strides and offset change (the rules are in
//! [`crate::interp::torch::ops::view_rules`]). `reshape`, `flatten` and `contiguous` copy when no view can do,
//! and `narrow_copy` always copies.

use crate::core::tensor::{MemoryFormat, ScriptError, Tensor};
use crate::interp::torch::autograd::{formulas, nodes, Grad};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["transpose", "swapaxes", "swapdims"],
        schemas: &["Tensor self, int dim0, int dim1"],
        forms: Forms::Both,
        rule: transpose,
        grad: Grad::named("TransposeBackward0", &formulas::TRANSPOSE),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["transpose_", "swapaxes_", "swapdims_"],
        schemas: &["Tensor self, int dim0, int dim1"],
        forms: Forms::Method,
        rule: transpose,
        // The in-place forms are their own entries in derivatives.yaml (`transpose_`, `t_`).
        grad: Grad::named(
            "TransposeBackward1",
            &crate::interp::torch::autograd::formulas::TRANSPOSE,
        ),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["view"],
        schemas: &["Tensor self, ScalarType dtype", "Tensor self, int[] size"],
        forms: Forms::Method,
        rule: view,
        grad: Grad::formula(&formulas::RESHAPE),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["view_as"],
        schemas: &["Tensor self, Tensor other"],
        forms: Forms::Method,
        rule: view_as,
        grad: Grad::named("ViewBackward0", &formulas::RESHAPE),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["reshape"],
        schemas: &["Tensor self, int[] shape"],
        forms: Forms::Both,
        rule: reshape,
        grad: Grad::by(nodes::reshape, Some(&formulas::RESHAPE)),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["reshape_as"],
        schemas: &["Tensor self, Tensor other"],
        forms: Forms::Method,
        rule: reshape,
        grad: Grad::named("ViewBackward0", &formulas::RESHAPE),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["flatten"],
        schemas: &["Tensor self, int start_dim=0, int end_dim=-1"],
        forms: Forms::Both,
        rule: flatten,
        grad: Grad::by(nodes::reshape, Some(&formulas::RESHAPE)),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["unflatten"],
        schemas: &["Tensor self, int dim, int[] sizes"],
        forms: Forms::Both,
        rule: unflatten,
        grad: Grad::named("ViewBackward0", &formulas::RESHAPE),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["squeeze"],
        schemas: &[
            "Tensor self",
            "Tensor self, int dim",
            "Tensor self, int[] dim",
        ],
        forms: Forms::Both,
        rule: squeeze,
        grad: Grad::by(nodes::squeeze, Some(&formulas::RESHAPE)),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["squeeze_"],
        schemas: &[
            "Tensor self",
            "Tensor self, int dim",
            "Tensor self, int[] dim",
        ],
        forms: Forms::Method,
        rule: squeeze,
        grad: Grad::by(nodes::squeeze, None),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["unsqueeze"],
        schemas: &["Tensor self, int dim"],
        forms: Forms::Both,
        rule: unsqueeze,
        grad: Grad::formula(&formulas::RESHAPE),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["unsqueeze_"],
        schemas: &["Tensor self, int dim"],
        forms: Forms::Method,
        rule: unsqueeze,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["t"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: t,
        grad: Grad::formula(&formulas::T),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["t_"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: t,
        complex: true,
        grad: Grad::named("TBackward1", &crate::interp::torch::autograd::formulas::T),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["permute"],
        schemas: &["Tensor self, int[] dims"],
        forms: Forms::Both,
        rule: permute,
        grad: Grad::formula(&formulas::PERMUTE),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["movedim", "moveaxis"],
        schemas: &[
            "Tensor self, int[] source, int[] destination",
            "Tensor self, int source, int destination",
        ],
        forms: Forms::Both,
        rule: movedim,
        grad: Grad::named(
            "PermuteBackward0",
            &crate::interp::torch::autograd::formulas_index::REARRANGE,
        ),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["expand"],
        schemas: &["Tensor self, int[] size, *, bool implicit=False"],
        forms: Forms::Method,
        rule: expand,
        grad: Grad::formula(&formulas::EXPAND),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["expand_as"],
        schemas: &["Tensor self, Tensor other"],
        forms: Forms::Method,
        rule: expand,
        grad: Grad::named("ExpandBackward0", &formulas::EXPAND),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["broadcast_to"],
        schemas: &["Tensor self, int[] size"],
        forms: Forms::Both,
        rule: expand,
        grad: Grad::named("ExpandBackward0", &formulas::EXPAND),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["ravel"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: ravel,
        grad: Grad::by(nodes::reshape, Some(&formulas::RESHAPE)),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["narrow"],
        schemas: &[
            "Tensor self, int dim, int start, int length",
            "Tensor self, int dim, Tensor start, int length",
        ],
        forms: Forms::Both,
        rule: narrow,
        grad: Grad::named(
            "SliceBackward0",
            &crate::interp::torch::autograd::formulas_index::SLICE,
        ),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["narrow_copy"],
        schemas: &[
            "Tensor self, int dim, int start, int length",
            "Tensor self, int dim, Tensor start, int length",
        ],
        forms: Forms::Both,
        rule: narrow,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["select"],
        schemas: &["Tensor self, int dim, int index"],
        forms: Forms::Both,
        rule: select,
        complex: true,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_index::SLICE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["unfold"],
        schemas: &["Tensor self, int dimension, int size, int step"],
        forms: Forms::Method,
        rule: unfold,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["diagonal"],
        schemas: &["Tensor self, int offset=0, int dim1=0, int dim2=1"],
        forms: Forms::Both,
        rule: diagonal,
        complex: true,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_index::DIAGONAL),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["as_strided"],
        schemas: &["Tensor self, int[] size, int[] stride, int? storage_offset=None"],
        forms: Forms::Both,
        rule: as_strided,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["as_strided_"],
        schemas: &["Tensor self, int[] size, int[] stride, int? storage_offset=None"],
        forms: Forms::Both,
        rule: as_strided,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["contiguous"],
        schemas: &["Tensor self, *, MemoryFormat memory_format=contiguous_format"],
        forms: Forms::Method,
        rule: contiguous,
        grad: Grad::named("CloneBackward0", &formulas::IDENTITY),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["detach"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: detach,
        grad: Grad::UNTRACKED,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["cpu"],
        schemas: &["Tensor self, MemoryFormat memory_format=torch.preserve_format"],
        forms: Forms::Method,
        rule: cpu,
        grad: crate::interp::torch::cuda_ops::TO_COPY,
        complex: true,
        ..OpDef::PLAIN
    },
];

/// A new view of the same storage, made by `op`.
fn view_value(out: Tensor, op: &str) -> Value {
    Value::tensor(out, op, None)
}

/// `transpose(dim0, dim1)` and its aliases `swapaxes`/`swapdims`; the `_` forms change the
/// object in place.
fn transpose(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let d0 = ev.arg_int(call, "dim0", 0)?;
    let d1 = ev.arg_int(call, "dim1", 0)?;
    let out = ev.transpose(&t, d0, d1)?;
    ev.metadata_result(&call.self_ref()?, out, &call.name)
}

/// `view(dtype)` (the same bytes reinterpreted) and `view(*size)`.
fn view(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let out = match call.dtype("dtype") {
        Some(d) if call.overload() == 0 => ev.view_dtype(&t, d)?,
        _ => {
            let shape = ev.arg_ints(call, "size")?.unwrap_or_default();
            ev.view(&t, &shape)?
        }
    };
    Ok(view_value(out, "view"))
}

/// `view_as(other)`: `view(other.size())`.
fn view_as(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let shape = call
        .tensor("other")
        .map(|o| o.shape().to_vec())
        .unwrap_or_default();
    Ok(view_value(ev.view(&t, &shape)?, "view_as"))
}

/// `reshape(*shape)` and `reshape_as(other)`: a view when `view` would work, else a
/// contiguous copy.
fn reshape(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let shape = match call.tensor("other") {
        Some(o) => o.shape().to_vec(),
        None => ev.arg_ints(call, "shape")?.unwrap_or_default(),
    };
    let (out, copied) = ev.reshape(&t, &shape)?;
    Ok(Value::tensor(out, "reshape", copied.then_some(t.storage)))
}

/// `flatten(start_dim, end_dim)`: the tensor itself when there is nothing to merge.
fn flatten(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let s = ev.arg_int(call, "start_dim", 0)?;
    let e = ev.arg_int(call, "end_dim", -1)?;
    match ev.flatten(&t, s, e)? {
        None => Ok(Value::Tensor(call.self_ref()?)),
        Some((out, copied)) => Ok(Value::tensor(out, "flatten", copied.then_some(t.storage))),
    }
}

/// `unflatten(dim, sizes)`.
fn unflatten(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let sizes = ev.arg_ints(call, "sizes")?.unwrap_or_default();
    Ok(view_value(ev.unflatten(&t, dim, &sizes)?, "unflatten"))
}

/// `squeeze()`, `squeeze(dim)`, `squeeze(dims)`; `squeeze_` in place.
fn squeeze(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dims = match call.overload() {
        0 => None,
        1 => Some(vec![ev.arg_int(call, "dim", 0)?]),
        _ => ev.arg_ints(call, "dim")?,
    };
    let out = ev.squeeze(&t, dims.as_deref())?;
    ev.metadata_result(&call.self_ref()?, out, &call.name)
}

/// `unsqueeze(dim)`; `unsqueeze_` in place.
fn unsqueeze(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let d = ev.arg_int(call, "dim", 0)?;
    let out = ev.unsqueeze(&t, d)?;
    ev.metadata_result(&call.self_ref()?, out, &call.name)
}

/// `t()`; `t_()` in place.
fn t(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let out = ev.t(&t, &call.name)?;
    ev.metadata_result(&call.self_ref()?, out, &call.name)
}

/// `permute(*dims)`.
fn permute(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dims = ev.arg_ints(call, "dims")?.unwrap_or_default();
    Ok(view_value(ev.permute(&t, &dims)?, "permute"))
}

/// `movedim(source, destination)` with ints or tuples (`moveaxis` is its alias).
fn movedim(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let (s, d) = if call.overload() == 0 {
        (
            ev.arg_ints(call, "source")?.unwrap_or_default(),
            ev.arg_ints(call, "destination")?.unwrap_or_default(),
        )
    } else {
        (
            vec![ev.arg_int(call, "source", 0)?],
            vec![ev.arg_int(call, "destination", 0)?],
        )
    };
    Ok(view_value(ev.movedim(&t, &s, &d)?, "movedim"))
}

/// `expand(*sizes)`, `expand_as(other)` and `broadcast_to(size)` (PyTorch's `broadcast_to`
/// is `expand`, with its messages).
fn expand(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let sizes = match call.tensor("other") {
        Some(o) => o.shape().to_vec(),
        None => ev.arg_ints(call, "size")?.unwrap_or_default(),
    };
    Ok(view_value(ev.expand(&t, &sizes)?, &call.name))
}

/// `ravel()`: `contiguous().view(-1)`, so a view of a contiguous tensor and otherwise a view
/// of a contiguous copy (even where `reshape(-1)` could have viewed a strided tensor).
fn ravel(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    if t.layout.is_contiguous_as(MemoryFormat::Contiguous) {
        return Ok(view_value(ev.view(&t, &[-1])?, "ravel"));
    }
    let copy = ev.convert(&t, t.dtype, MemoryFormat::Contiguous, "ravel")?;
    let out = ev.view(&copy, &[-1])?;
    Ok(Value::tensor(out, "ravel", Some(t.storage)))
}

/// `narrow(dim, start, length)` (a view) and `narrow_copy` (the same part, copied into a
/// contiguous tensor).
fn narrow(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let d = ev.arg_int(call, "dim", 0)?;
    let s = ev.arg_int(call, "start", 0)?;
    let l = ev.arg_int(call, "length", 0)?;
    let out = ev.narrow(&t, d, s, l)?;
    if call.name == "narrow_copy" {
        let copy = ev.convert(&out, out.dtype, MemoryFormat::Contiguous, "narrow_copy")?;
        return Ok(Value::tensor(copy, "narrow_copy", Some(t.storage)));
    }
    Ok(view_value(out, "narrow"))
}

/// `select(dim, index)`.
fn select(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let d = ev.arg_int(call, "dim", 0)?;
    let i = ev.arg_int(call, "index", 0)?;
    Ok(view_value(ev.select(&t, d, i)?, "select"))
}

/// `unfold(dimension, size, step)`.
fn unfold(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let d = ev.arg_int(call, "dimension", 0)?;
    let s = ev.arg_int(call, "size", 0)?;
    let st = ev.arg_int(call, "step", 0)?;
    Ok(view_value(ev.unfold(&t, d, s, st)?, "unfold"))
}

/// `diagonal(offset, dim1, dim2)`.
fn diagonal(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let o = ev.arg_int(call, "offset", 0)?;
    let d1 = ev.arg_int(call, "dim1", 0)?;
    let d2 = ev.arg_int(call, "dim2", 1)?;
    Ok(view_value(ev.diagonal(&t, o, d1, d2)?, "diagonal"))
}

/// `as_strided(size, stride, storage_offset)`; `as_strided_` changes the object in place.
fn as_strided(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let size = ev.arg_ints(call, "size")?.unwrap_or_default();
    let stride = ev.arg_ints(call, "stride")?.unwrap_or_default();
    let offset = ev.arg_opt_int(call, "storage_offset")?;
    let out = ev.as_strided(&t, &size, &stride, offset)?;
    ev.metadata_result(&call.self_ref()?, out, &call.name)
}

/// `contiguous(memory_format=)`: the tensor itself when already contiguous in that format,
/// else a copy.
fn contiguous(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let f = call.memory_format("memory_format", MemoryFormat::Contiguous);
    if f == MemoryFormat::Preserve {
        return Err(ScriptError::Runtime(
            "preserve memory format is unsupported by the contiguous operator".into(),
        ));
    }
    if t.layout.is_contiguous_as(f) {
        return Ok(Value::Tensor(call.self_ref()?));
    }
    let out = ev.convert(&t, t.dtype, f, "contiguous")?;
    Ok(Value::tensor(out, "contiguous", Some(t.storage)))
}

/// `cpu()`: every tensor is on the CPU already, so the tensor itself (the same object).
fn cpu(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    // From the simulated CUDA device: a copy.
    if ev.is_cuda(&this.borrow().tensor) {
        return ev.move_to_device(&this, crate::interp::torch::device::Device::Cpu);
    }
    Ok(Value::Tensor(this))
}

/// `detach()`: a new tensor object viewing the same storage with the same layout.
fn detach(_ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    Ok(view_value(call.self_tensor()?, "detach"))
}
