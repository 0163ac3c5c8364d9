//! Ops that cut a tensor into views along one dim (PyTorch's "Tensor Views" page): `split`,
//! `split_with_sizes`, `chunk`, `unbind`, `tensor_split`, `hsplit`, `vsplit`, `dsplit`, and the
//! `unsafe_` forms of `chunk` and `split`. Every part shares the input's storage; the result
//! is a tuple of views (autograd does not track the `unsafe_` parts as views).

use crate::core::tensor::layout::{list_str, wrap_dim};
use crate::core::tensor::{DType, ScriptError, Tensor};
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

fn index_err(msg: String) -> ScriptError {
    ScriptError::Index(msg)
}

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["split"],
        // `Tensor.split` and `torch.split` are Python functions: an int splits evenly,
        // anything else goes to `split_with_sizes` (and its argument error).
        schemas: &["Tensor self, Any split_size, int dim=0"],
        forms: Forms::Both,
        rule: split,
        complex: true,
        grad: Grad::by(
            crate::interp::torch::autograd::formulas_index::split_node,
            Some(&crate::interp::torch::autograd::formulas_index::PIECE),
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["split_with_sizes"],
        schemas: &["Tensor self, int[] split_sizes, int dim=0"],
        forms: Forms::Both,
        rule: split_with_sizes,
        complex: true,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_index::PIECE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["chunk"],
        schemas: &["Tensor self, int chunks, int dim=0"],
        forms: Forms::Both,
        rule: chunk,
        grad: Grad::named(
            "SplitBackward0",
            &crate::interp::torch::autograd::formulas_index::PIECE,
        ),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["unsafe_chunk"],
        // The parts share the input's storage but autograd does not track them as views:
        // an in-place op on one is recorded on it (ATen's RNN cells add into their gates so).
        schemas: &["Tensor self, int chunks, int dim=0"],
        forms: Forms::Both,
        rule: unsafe_chunk,
        grad: Grad::named(
            "UnsafeSplitBackward0",
            &crate::interp::torch::autograd::formulas_index::PIECE,
        ),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["unsafe_split"],
        schemas: &["Tensor self, int split_size, int dim=0"],
        forms: Forms::Both,
        rule: unsafe_split,
        grad: Grad::named(
            "UnsafeSplitBackward0",
            &crate::interp::torch::autograd::formulas_index::PIECE,
        ),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["unsafe_split_with_sizes"],
        schemas: &["Tensor self, int[] split_sizes, int dim=0"],
        forms: Forms::Both,
        rule: unsafe_split_with_sizes,
        grad: Grad::named(
            "UnsafeSplitWithSizesBackward0",
            &crate::interp::torch::autograd::formulas_index::PIECE,
        ),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["unbind"],
        schemas: &["Tensor self, int dim=0"],
        forms: Forms::Both,
        rule: unbind,
        complex: true,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_index::PIECE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["tensor_split"],
        schemas: &[
            "Tensor self, int[] indices, int dim=0",
            "Tensor self, Tensor tensor_indices_or_sections, int dim=0",
            "Tensor self, int sections, int dim=0",
        ],
        forms: Forms::Both,
        rule: tensor_split,
        grad: Grad::named(
            "SliceBackward0",
            &crate::interp::torch::autograd::formulas_index::PIECE,
        ),
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["hsplit", "vsplit", "dsplit"],
        // PyTorch's `int` takes only a 0-d integer tensor and `int[]` any sequence, so a
        // tensor is read here: 0-d as sections, 1-d as indices.
        schemas: &[
            "Tensor self, Tensor indices",
            "Tensor self, int sections",
            "Tensor self, int[] indices",
        ],
        forms: Forms::Both,
        rule: hvdsplit,
        complex: true,
        grad: Grad::named(
            "SliceBackward0",
            &crate::interp::torch::autograd::formulas_index::PIECE,
        ),
        ..OpDef::PLAIN
    },
];

/// The parts as a tuple of views named after the op.
fn parts(parts: Vec<Tensor>, name: &str) -> Value {
    Value::Tuple(
        parts
            .into_iter()
            .map(|p| Value::tensor(p, name, None))
            .collect(),
    )
}

/// `split(split_size, dim)`: an int (or a one-element integer tensor) splits into equal
/// parts; a list of sizes is `split_with_sizes`.
fn split(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let size = call.value("split_size").cloned().unwrap_or(Value::None);
    let int_like = match &size {
        Value::Int(_) | Value::Bool(_) => true,
        Value::Tensor(x) => {
            let x = x.borrow();
            x.tensor.ndim() == 0 && !x.tensor.dtype.is_floating()
        }
        _ => false,
    };
    if int_like {
        let s = ev.index_int(&size)?;
        return Ok(parts(ev.split(&t, s, dim)?, "split"));
    }
    let ok = match &size {
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .all(|v| matches!(v, Value::Int(_) | Value::Bool(_))),
        Value::Size(_) => true,
        _ => false,
    };
    if !ok {
        return Err(ScriptError::Type(format!(
            "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not {}",
            size.type_name()
        )));
    }
    let sizes = ev.int_list(&size, "split_with_sizes", "split_sizes")?;
    Ok(parts(ev.split_with_sizes(&t, &sizes, dim)?, "split"))
}

/// `split_with_sizes(split_sizes, dim)`.
fn split_with_sizes(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let sizes = ev.arg_ints(call, "split_sizes")?.unwrap_or_default();
    let dim = ev.arg_int(call, "dim", 0)?;
    Ok(parts(
        ev.split_with_sizes(&t, &sizes, dim)?,
        "split_with_sizes",
    ))
}

/// `chunk(chunks, dim)`.
fn chunk(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let chunks = ev.arg_int(call, "chunks", 0)?;
    let dim = ev.arg_int(call, "dim", 0)?;
    Ok(parts(ev.chunk(&t, chunks, dim)?, "chunk"))
}

/// `unsafe_chunk(chunks, dim)`: `chunk`'s parts, not tracked as views.
fn unsafe_chunk(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let chunks = ev.arg_int(call, "chunks", 0)?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let result = parts(ev.chunk(&t, chunks, dim)?, "unsafe_chunk");
    Ok(own_counters(ev, result))
}

/// The `unsafe_` parts each get a version counter of their own (ATen's `unsafe_split` gives
/// each a fresh `VariableVersion`): writing one does not invalidate what autograd saved of
/// another, as ATen's GRU and LSTM cells rely on.
fn own_counters(ev: &mut Evaluator, result: Value) -> Value {
    if let Value::Tuple(items) = &result {
        for item in items {
            if let Value::Tensor(t) = item {
                ev.torch.autograd.note_data_alias(t);
            }
        }
    }
    result
}

/// `unsafe_split(split_size, dim)`: `split`'s parts, not tracked as views.
fn unsafe_split(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let size = ev.arg_int(call, "split_size", 0)?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let result = parts(ev.split(&t, size, dim)?, "unsafe_split");
    Ok(own_counters(ev, result))
}

/// `unsafe_split_with_sizes(split_sizes, dim)`: `split_with_sizes`'s parts, not tracked as
/// views.
fn unsafe_split_with_sizes(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let sizes = ev.arg_ints(call, "split_sizes")?.unwrap_or_default();
    let dim = ev.arg_int(call, "dim", 0)?;
    let result = parts(
        ev.split_with_sizes(&t, &sizes, dim)?,
        "unsafe_split_with_sizes",
    );
    Ok(own_counters(ev, result))
}

/// `unbind(dim)`.
fn unbind(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    Ok(parts(ev.unbind(&t, dim)?, "unbind"))
}

/// What `tensor_split` and `hsplit`/`vsplit`/`dsplit` cut by.
enum Cut {
    Sections(i64),
    Indices(Vec<i64>),
}

/// Reads a `tensor_indices_or_sections` tensor: a 0-d long tensor is a number of sections,
/// a 1-d one a list of indices.
fn cut_of_tensor(ev: &mut Evaluator, x: &Tensor) -> R<Cut> {
    if x.dtype != DType::Int64 {
        return Err(ScriptError::Runtime(format!(
            "tensor_split expected tensor_indices_or_sections to have dtype of long, but got {}",
            x.dtype.scalar_type_name()
        )));
    }
    if x.ndim() > 1 {
        return Err(ScriptError::Runtime(format!(
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got a tensor with {} dims",
            x.ndim()
        )));
    }
    ev.check_parts(x.numel())?;
    let values: Vec<i64> = ev
        .engine
        .values(x)
        .into_iter()
        .map(|v| v.to_wrapped_int())
        .collect();
    Ok(if x.ndim() == 0 {
        Cut::Sections(values.first().copied().unwrap_or(0))
    } else {
        Cut::Indices(values)
    })
}

/// `tensor_split(sections | indices | tensor, dim)`.
fn tensor_split(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let cut = match call.overload() {
        0 => Cut::Indices(ev.arg_ints(call, "indices")?.unwrap_or_default()),
        1 => {
            let x = call
                .tensor("tensor_indices_or_sections")
                .ok_or_else(|| ScriptError::Type("tensor_split(): expected a Tensor".into()))?;
            cut_of_tensor(ev, &x)?
        }
        _ => Cut::Sections(ev.arg_int(call, "sections", 0)?),
    };
    Ok(parts(ev.tensor_split(&t, &cut, dim)?, "tensor_split"))
}

/// `hsplit`/`vsplit`/`dsplit`: `tensor_split` along dim 1 (0 for 1-d), 0 or 2, where a
/// number of sections must divide the dim.
fn hvdsplit(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let (min_dims, dim) = match call.name.as_str() {
        "vsplit" => (2, 0),
        "dsplit" => (3, 2),
        _ => (1, usize::from(t.ndim() != 1)),
    };
    if t.ndim() < min_dims {
        return Err(ScriptError::Runtime(format!(
            "torch.{} requires a tensor with at least {} dimension, but got a tensor with {} dimensions!",
            call.name,
            min_dims,
            t.ndim()
        )));
    }
    let sections = match call.overload() {
        0 => match call.tensor("indices") {
            Some(x) if x.ndim() == 0 && !x.dtype.is_floating() => Some(ev.arg_int(call, "indices", 0)?),
            Some(x) if x.dtype.is_floating() || x.ndim() > 1 => {
                return Err(ScriptError::Type(format!(
                    "{}() received an invalid combination of arguments - got (Tensor), but expected one of:",
                    call.name
                )))
            }
            _ => None,
        },
        1 => Some(ev.arg_int(call, "sections", 0)?),
        _ => None,
    };
    let cut = match (sections, call.overload()) {
        (Some(sections), _) => {
            let size = t.shape()[dim];
            if sections == 0 || size % sections != 0 {
                return Err(ScriptError::Runtime(format!(
                    "torch.{} attempted to split along dimension {}, but the size of the dimension {} is not divisible by the split_size {}!",
                    call.name, dim, size, sections
                )));
            }
            Cut::Sections(sections)
        }
        (None, 2) => Cut::Indices(ev.arg_ints(call, "indices")?.unwrap_or_default()),
        (None, _) => {
            let x = call
                .tensor("indices")
                .ok_or_else(|| ScriptError::Type(format!("{}(): expected a Tensor", call.name)))?;
            ev.check_parts(x.numel())?;
            Cut::Indices(
                ev.engine
                    .values(&x)
                    .into_iter()
                    .map(|v| v.to_wrapped_int())
                    .collect(),
            )
        }
    };
    Ok(parts(ev.tensor_split(&t, &cut, dim as i64)?, &call.name))
}

impl Evaluator {
    /// `split(split_size, dim)`.
    pub(crate) fn split(&self, t: &Tensor, split_size: i64, dim: i64) -> R<Vec<Tensor>> {
        if t.ndim() == 0 {
            return Err(ScriptError::Runtime(
                "split expects at least a 1-dimensional tensor".into(),
            ));
        }
        if split_size < 0 {
            return Err(ScriptError::Runtime(format!(
                "split expects split_size be non-negative, but got split_size={split_size}"
            )));
        }
        let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
        let dim_size = t.shape()[d];
        if split_size == 0 && dim_size != 0 {
            return Err(ScriptError::Runtime(format!(
                "split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}"
            )));
        }
        let num = if split_size == 0 {
            1
        } else {
            (dim_size.saturating_add(split_size - 1) / split_size).max(1)
        };
        self.check_parts(num)?;
        let last = split_size.wrapping_sub(split_size.wrapping_mul(num).wrapping_sub(dim_size));
        (0..num)
            .map(|i| {
                let length = if i < num - 1 { split_size } else { last };
                self.narrow(t, d as i64, i.saturating_mul(split_size), length)
            })
            .collect()
    }

    /// `split(list_of_sizes, dim)` (`split_with_sizes`).
    pub(crate) fn split_with_sizes(&self, t: &Tensor, sizes: &[i64], dim: i64) -> R<Vec<Tensor>> {
        if t.ndim() == 0 {
            return Err(ScriptError::Runtime(
                "split expects at least a 1-dimensional tensor".into(),
            ));
        }
        let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
        let dim_size = t.shape()[d];
        let mut start = 0;
        self.check_parts(sizes.len() as i64)?;
        let mut out = Vec::with_capacity(sizes.len());
        for &len in sizes {
            if len < 0 {
                return Err(ScriptError::Runtime(format!(
                    "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={}",
                    list_str(sizes)
                )));
            }
            out.push(self.slice(t, d, Some(start), Some(start.saturating_add(len)), Some(1))?);
            start = start.saturating_add(len);
        }
        if start != dim_size {
            return Err(ScriptError::Runtime(format!(
                "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension {}), but got split_sizes={}",
                dim_size,
                d,
                list_str(sizes)
            )));
        }
        Ok(out)
    }

    /// Refuses to make more views at once than anyone can look at.
    pub(crate) fn check_parts(&self, parts: i64) -> R<()> {
        const MAX_PARTS: i64 = 1 << 16;
        if parts > MAX_PARTS {
            return Err(ScriptError::Runtime(format!(
                "this would make {parts} views at once; Stridescope makes at most {MAX_PARTS}"
            )));
        }
        Ok(())
    }

    /// `chunk(chunks, dim)`.
    pub(crate) fn chunk(&self, t: &Tensor, chunks: i64, dim: i64) -> R<Vec<Tensor>> {
        if t.ndim() == 0 {
            return Err(ScriptError::Runtime(
                "chunk expects at least a 1-dimensional tensor".into(),
            ));
        }
        if chunks <= 0 {
            return Err(ScriptError::Runtime(format!(
                "chunk expects `chunks` to be greater than 0, got: {chunks}"
            )));
        }
        let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
        let dim_size = t.shape()[d];
        let split_size = dim_size.saturating_add(chunks - 1) / chunks;
        if split_size == 0 && dim_size == 0 {
            // As many empty chunks as asked for: the limit on parts keeps that bounded.
            self.check_parts(chunks)?;
            let mut sizes = vec![split_size; chunks as usize];
            if let Some(last) = sizes.last_mut() {
                *last =
                    split_size.wrapping_sub(split_size.wrapping_mul(chunks).wrapping_sub(dim_size));
            }
            return self.split_with_sizes(t, &sizes, d as i64);
        }
        self.split(t, split_size, d as i64)
    }

    /// `unbind(dim)`.
    pub(crate) fn unbind(&self, t: &Tensor, dim: i64) -> R<Vec<Tensor>> {
        // The dim is wrapped first (a 0-dim tensor accepts -1 and 0), then must exist.
        let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
        if t.ndim() == 0 {
            return Err(ScriptError::Index(
                "Dimension specified as 0 but tensor has no dimensions".into(),
            ));
        }
        self.check_parts(t.shape()[d])?;
        Ok((0..t.shape()[d])
            .map(|i| self.select_unchecked(t, d, i))
            .collect())
    }

    /// `tensor_split` (ATen's): `Sections(n)` gives `n` parts, the first `size % n` one
    /// longer; `Indices` cuts before each index (as slicing clamps them).
    fn tensor_split(&self, t: &Tensor, cut: &Cut, dim: i64) -> R<Vec<Tensor>> {
        if t.ndim() == 0 {
            return Err(ScriptError::Runtime(
                "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
                    .into(),
            ));
        }
        let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
        let size = t.shape()[d];
        let bounds: Vec<(i64, i64)> = match cut {
            Cut::Sections(n) => {
                let n = *n;
                if n <= 0 {
                    return Err(ScriptError::Runtime(format!(
                        "number of sections must be larger than 0, got {n}"
                    )));
                }
                self.check_parts(n)?;
                let (min, extra) = (size / n, size % n);
                let mut start = 0;
                (0..n)
                    .map(|i| {
                        let len = if i < extra { min + 1 } else { min };
                        let b = (start, start + len);
                        start += len;
                        b
                    })
                    .collect()
            }
            Cut::Indices(indices) => {
                self.check_parts(indices.len() as i64 + 1)?;
                let mut start = 0;
                let mut b: Vec<(i64, i64)> = indices
                    .iter()
                    .map(|&end| {
                        let r = (start, end);
                        start = end;
                        r
                    })
                    .collect();
                b.push((start, size));
                b
            }
        };
        bounds
            .into_iter()
            .map(|(s, e)| self.slice(t, d, Some(s), Some(e), Some(1)))
            .collect()
    }
}
