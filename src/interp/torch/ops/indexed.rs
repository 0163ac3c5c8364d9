//! Index- and mask-driven copies: `where`, `masked_fill(_)`, `index_select`, `gather`,
//! `scatter(_)` (with `reduce='add'|'multiply'`), `scatter_add(_)` and `take`, with PyTorch's checks, dtypes and output strides.
//!
//! Each of them reads an index or a mask tensor's values to decide where every element goes,
//! work the engine has no kernel for (its kernels walk strided views; none is driven by the
//! contents of another tensor). They compute on the CPU reference from `engine.values()`
//! and write the result with one engine copy ([`Evaluator::write_values`]), so on the GPU
//! engine the bytes still land through its copy kernel.

use std::rc::Rc;

use crate::core::tensor::layout::{
    broadcast_shapes, contiguous_strides, elementwise_output_strides, list_str, numel_of, wrap_dim,
    OperandLayout,
};
use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::ops::join::{out_arg, result_value};
use crate::interp::torch::ops::reorder::int_of;
use crate::interp::torch::ops::{broadcast_view, index_err, ElementwiseInput, ResultType};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["where"],
        schemas: &["Tensor self", "Tensor self, Any condition, Any other"],
        forms: Forms::Both,
        rule: where_,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::WHERE,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["masked_fill"],
        schemas: &[
            "Tensor self, Tensor mask, Tensor value",
            "Tensor self, Tensor mask, Scalar value",
        ],
        forms: Forms::Both,
        rule: masked_fill,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::MASKED_FILL,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["masked_fill_"],
        schemas: &[
            "Tensor self, Tensor mask, Tensor value",
            "Tensor self, Tensor mask, Scalar value",
        ],
        forms: Forms::Method,
        rule: masked_fill,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::MASKED_FILL,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["index_select"],
        schemas: &["Tensor self, int dim, Tensor index, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: index_select,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::GATHERING,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["gather"],
        schemas: &[
            "Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor? out=None",
        ],
        forms: Forms::Both,
        rule: gather,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::GATHERING,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["scatter"],
        schemas: &[
            "Tensor self, int dim, Tensor index, Tensor src, *, str? reduce=None",
            "Tensor self, int dim, Tensor index, Scalar value, *, str? reduce=None",
        ],
        forms: Forms::Both,
        rule: scatter,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::SCATTER,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["scatter_"],
        schemas: &[
            "Tensor self, int dim, Tensor index, Tensor src, *, str? reduce=None",
            "Tensor self, int dim, Tensor index, Scalar value, *, str? reduce=None",
        ],
        forms: Forms::Method,
        rule: scatter,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::SCATTER,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["scatter_add"],
        schemas: &["Tensor self, int dim, Tensor index, Tensor src"],
        forms: Forms::Both,
        rule: scatter,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::SCATTER,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["scatter_add_"],
        schemas: &["Tensor self, int dim, Tensor index, Tensor src"],
        forms: Forms::Method,
        rule: scatter,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::SCATTER,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["take"],
        schemas: &["Tensor self, Tensor index, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: take,
        grad: crate::interp::torch::autograd::Grad::formula(
            &crate::interp::torch::autograd::formulas_index::TAKE,
        ),
        ..OpDef::PLAIN
    },
];

/// The values of an index tensor, which must be int32 or int64 (`what` names the op).
fn check_index_dtype(index: &Tensor, message: &str) -> R<()> {
    if index.dtype == DType::Int64 || index.dtype == DType::Int32 {
        Ok(())
    } else {
        Err(ScriptError::Runtime(message.to_string()))
    }
}

/// `torch.where(condition, input, other)`, `input.where(condition, other)`, and the
/// one-argument `torch.where(condition)` (the indices of the non-zero elements).
fn where_(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let first = call.self_tensor()?;
    let is_method = call.args.names.first().is_some_and(|n| n == "self");
    if call.overload() == 0 {
        if is_method {
            return Err(ScriptError::Type(
                "where() missing 2 required positional arguments: \"condition\", \"other\"".into(),
            ));
        }
        return ev.nonzero_tuple(&first);
    }
    let second = call.value("condition").cloned().unwrap_or(Value::None);
    let other = call.value("other").cloned().unwrap_or(Value::None);
    // The function form binds (condition, input, other) to (self, condition, other).
    let (cond, input) = if is_method {
        (second, Value::Tensor(call.self_ref()?))
    } else {
        (Value::Tensor(call.self_ref()?), second)
    };
    let Value::Tensor(cond) = cond else {
        return Err(ScriptError::Type(format!(
            "where(): argument 'condition' (position 1) must be Tensor, not {}",
            cond.type_name()
        )));
    };
    let cond = cond.borrow().tensor.clone();
    let x = where_input(ev, &input, "input", 2)?;
    let y = where_input(ev, &other, "other", 3)?;
    let out = ev.where_select(&cond, &x, &y)?;
    Ok(Value::tensor(out, "where", None))
}

fn where_input(ev: &Evaluator, v: &Value, name: &str, pos: usize) -> R<ElementwiseInput> {
    match v {
        Value::Tensor(t) => Ok(ElementwiseInput::Tensor(t.borrow().tensor.clone())),
        other => ev
            .scalar_of(other)
            .map(ElementwiseInput::Number)
            .ok_or_else(|| {
                ScriptError::Type(format!(
                    "where(): argument '{name}' (position {pos}) must be Tensor, not {}",
                    other.type_name()
                ))
            }),
    }
}

/// `masked_fill(mask, value)` and `masked_fill_`.
fn masked_fill(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let mask = call.tensor("mask").unwrap_or_else(|| t.clone());
    let value = ev.fill_value(call, "masked_fill_")?;
    let in_place = call.name.ends_with('_');
    let shape = broadcast_shapes(mask.shape(), t.shape()).map_err(ScriptError::Runtime)?;
    if mask.dtype != DType::Bool {
        return Err(ScriptError::Runtime(format!(
            "masked_fill_ only supports boolean masks, but got mask with dtype {}",
            mask.dtype.cpp_type_name()
        )));
    }
    if in_place && shape != t.shape() {
        return Err(ScriptError::Runtime(format!(
            "output with shape {} doesn't match the broadcast shape {}",
            list_str(t.shape()),
            list_str(&shape)
        )));
    }
    let value = t
        .dtype
        .checked_number(value)
        .map_err(ScriptError::Runtime)?;
    ev.check_work(numel_of(&shape), "masked_fill")?;
    if ev.torch.device.meta_op {
        // On the meta device nothing is computed: the result has its shape and no values.
        if in_place {
            ev.note_write(&t);
            return Ok(Value::Tensor(call.self_ref()?));
        }
        let out = ev.empty_strided(&shape, &contiguous_strides(&shape), t.dtype, "masked_fill")?;
        return Ok(Value::tensor(out, "masked_fill", Some(t.storage)));
    }
    let src = ev.engine.values(&broadcast_view(&t, &shape));
    let m = ev.engine.values(&broadcast_view(&mask, &shape));
    let filled: Vec<Scalar> = src
        .iter()
        .zip(&m)
        .map(|(&v, &k)| if k.to_bool() { value } else { v })
        .collect();
    if in_place {
        ev.write_values(&t, &filled)?;
        return Ok(Value::Tensor(call.self_ref()?));
    }
    let out = ev.strided_from_values(
        &shape,
        &contiguous_strides(&shape),
        t.dtype,
        &filled,
        "masked_fill",
    )?;
    Ok(Value::tensor(out, "masked_fill", Some(t.storage)))
}

/// `index_select(dim, index)`.
fn index_select(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let index = call.tensor("index").unwrap_or_else(|| t.clone());
    let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
    if index.ndim() > 1 {
        return Err(ScriptError::Index(
            "index_select(): Index is supposed to be a vector".into(),
        ));
    }
    check_index_dtype(
        &index,
        "index_select(): Expected dtype int32 or int64 for index",
    )?;
    let n = t.shape().get(d).copied().unwrap_or(1);
    let idx: Vec<i64> = ev.engine.values(&index).into_iter().map(int_of).collect();
    if idx.iter().any(|&i| i < 0) {
        return Err(ScriptError::Index("index out of range in self".into()));
    }
    if let Some(bad) = idx.iter().find(|&&i| i >= n) {
        return Err(ScriptError::Runtime(format!(
            "INDICES element is out of DATA bounds, id={bad} axis_dim={n}"
        )));
    }
    let out = out_arg(call);
    if let Some(o) = &out {
        if o.borrow().tensor.dtype != t.dtype {
            return Err(ScriptError::Runtime(
                "index_select(): self and result must have the same scalar type".into(),
            ));
        }
    }
    let result = if t.ndim() == 0 {
        t.clone()
    } else {
        ev.index_select_values(&t, d, &idx, "index_select")?
    };
    if !index.layout.is_contiguous() {
        // The CPU kernel reads a contiguous copy of the index (after the result).
        ev.note_kernel_events(&[(index.numel().max(0) as usize * index.dtype.item_size()) as i64]);
    }
    let result = ev.write_out(out.as_ref(), result)?;
    Ok(result_value(out, result, "index_select", Some(t.storage)))
}

/// `gather(dim, index)`: `out[i][j] = self[index[i][j]][j]` (for dim 0).
fn gather(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let index = call.tensor("index").unwrap_or_else(|| t.clone());
    let result = ev.gather_tensor(&t, dim, &index)?;
    let out = out_arg(call);
    let result = ev.write_out(out.as_ref(), result)?;
    Ok(result_value(out, result, "gather", Some(t.storage)))
}

/// `scatter(dim, index, src|value)` and `scatter_`: `self[index[i][j]][j] = src[i][j]`;
/// `scatter_add(_)` is `scatter` with `reduce='add'` (with `scatter`'s messages, as in ATen).
fn scatter(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let index = call.tensor("index").unwrap_or_else(|| t.clone());
    let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
    check_index_dtype(&index, "scatter(): Expected dtype int32/int64 for index")?;
    let src = if call.overload() == 0 {
        call.tensor("src")
    } else {
        None
    };
    if let Some(s) = &src {
        if s.dtype != t.dtype {
            return Err(ScriptError::Runtime(
                "scatter(): Expected self.dtype to be equal to src.dtype".into(),
            ));
        }
    }
    if index.numel() > 0 && index.ndim().max(1) != t.ndim().max(1) {
        return Err(ScriptError::Runtime(
            "Index tensor must have the same number of dimensions as self tensor".into(),
        ));
    }
    if let Some(s) = &src {
        if index.numel() > 0 && index.ndim().max(1) != s.ndim().max(1) {
            return Err(ScriptError::Runtime(
                "Index tensor must have the same number of dimensions as src tensor".into(),
            ));
        }
    }
    let too_big_self = (0..index.ndim()).any(|k| k != d && index.shape()[k] > t.shape()[k]);
    let too_big_src = src.as_ref().is_some_and(|s| {
        (0..index.ndim()).any(|k| index.shape()[k] > s.shape().get(k).copied().unwrap_or(1))
    });
    if index.numel() > 0 && (too_big_self || too_big_src) {
        let mut msg = format!(
            "Expected index {} to be no larger than self {} apart from dimension {d}",
            list_str(index.shape()),
            list_str(t.shape())
        );
        if let Some(s) = &src {
            msg.push_str(&format!(
                " and to be no larger size than src {}",
                list_str(s.shape())
            ));
        }
        return Err(ScriptError::Runtime(msg));
    }
    let reduce = match call.value("reduce") {
        None if call.name.starts_with("scatter_add") => Some("add".to_string()),
        None => None,
        Some(Value::Str(r)) if r == "add" || r == "multiply" => Some(r.clone()),
        Some(_) => {
            return Err(ScriptError::Runtime(
                "reduce argument must be either add or multiply.".into(),
            ))
        }
    };
    let value = match &src {
        Some(_) => None,
        None => {
            let v = ev.arg_scalar(call, "value")?.unwrap_or(Scalar::Int(0));
            Some(t.dtype.checked_number(v).map_err(ScriptError::Runtime)?)
        }
    };
    ev.check_work(t.numel().saturating_add(index.numel()), "scatter")?;
    let mut values = ev.engine.values(&t);
    let idx: Vec<i64> = ev.engine.values(&index).into_iter().map(int_of).collect();
    let src_values = match &src {
        Some(s) => ev.engine.values(s),
        None => Vec::new(),
    };
    let size = t.shape().get(d).copied().unwrap_or(1);
    let self_strides = contiguous_strides(t.shape());
    let src_strides = src
        .as_ref()
        .map(|s| contiguous_strides(s.shape()))
        .unwrap_or_default();
    for (flat, &i) in idx.iter().enumerate() {
        if i < 0 || i >= size {
            // ATen's kernel stops here: what it wrote before stays written.
            if call.name.ends_with('_') {
                ev.write_values(&t, &values)?;
            }
            return Err(ScriptError::Runtime(format!(
                "index {i} is out of bounds for dimension {d} with size {size}"
            )));
        }
        let pos = unravel(flat as i64, index.shape());
        let mut at = 0;
        for (k, &p) in pos.iter().enumerate() {
            at += if k == d { i } else { p } * self_strides.get(k).copied().unwrap_or(0);
        }
        let v = match value {
            Some(v) => v,
            None => {
                let from: i64 = pos.iter().zip(&src_strides).map(|(p, s)| p * s).sum();
                src_values
                    .get(from as usize)
                    .copied()
                    .unwrap_or(Scalar::Int(0))
            }
        };
        if let Some(slot) = values.get_mut(at as usize) {
            *slot = match reduce.as_deref() {
                None => v,
                Some(r) => combine(*slot, v, r == "add", t.dtype),
            };
        }
    }
    if call.name.ends_with('_') {
        ev.write_values(&t, &values)?;
        return Ok(Value::Tensor(Rc::clone(&call.self_ref()?)));
    }
    let out = ev.strided_from_values(
        t.shape(),
        &contiguous_strides(t.shape()),
        t.dtype,
        &values,
        "scatter",
    )?;
    Ok(Value::tensor(out, "scatter", Some(t.storage)))
}

/// `scatter`'s `reduce=`: `old + v` (`add`) or `old * v` (`multiply`), in the dtype's
/// arithmetic (integers wrap; floats are rounded when written).
fn combine(old: Scalar, v: Scalar, add: bool, dtype: DType) -> Scalar {
    if dtype.is_floating() {
        let (a, b) = (old.to_f64(), v.to_f64());
        dtype.round(Scalar::Float(if add { a + b } else { a * b }))
    } else {
        let (a, b) = (old.to_wrapped_int(), v.to_wrapped_int());
        Scalar::Int(if add {
            a.wrapping_add(b)
        } else {
            a.wrapping_mul(b)
        })
    }
}

/// `take(index)`: elements of `self` flattened, at `index` (negative counts from the end).
fn take(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let index = call.tensor("index").unwrap_or_else(|| t.clone());
    if index.dtype != DType::Int64 {
        return Err(ScriptError::Runtime(format!(
            "take(): Expected a long tensor for index, but got {}",
            index.dtype.scalar_type_name()
        )));
    }
    ev.check_work(index.numel(), "take")?;
    let values = ev.engine.values(&t);
    let n = t.numel();
    let mut picked = Vec::with_capacity(index.numel() as usize);
    for i in ev.engine.values(&index).into_iter().map(int_of) {
        if i < -n || i >= n {
            return Err(ScriptError::Index(format!(
                "out of range: tried to access index {i} on a tensor of {n} elements."
            )));
        }
        picked.push(values[(if i < 0 { i + n } else { i }) as usize]);
    }
    let out = out_arg(call);
    let result = ev.strided_from_values(
        index.shape(),
        &contiguous_strides(index.shape()),
        t.dtype,
        &picked,
        "take",
    )?;
    let result = ev.write_out(out.as_ref(), result)?;
    Ok(result_value(out, result, "take", Some(t.storage)))
}

/// The multi-index of row-major position `flat` in `shape`.
fn unravel(mut flat: i64, shape: &[i64]) -> Vec<i64> {
    let mut pos = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        let n = shape[k].max(1);
        pos[k] = flat % n;
        flat /= n;
    }
    pos
}

impl Evaluator {
    /// `gather`'s checks and result (contiguous, of the index's shape); also the last step of
    /// `take_along_dim`.
    pub(super) fn gather_tensor(&mut self, t: &Tensor, dim: i64, index: &Tensor) -> R<Tensor> {
        let ev = self;
        let d = wrap_dim(dim, t.ndim()).map_err(index_err)?;
        check_index_dtype(index, "gather(): Expected dtype int32/int64 for index")?;
        if index.ndim().max(1) != t.ndim().max(1) {
            return Err(ScriptError::Runtime(
                "Index tensor must have the same number of dimensions as input tensor".into(),
            ));
        }
        for k in 0..index.ndim() {
            if k != d && index.shape()[k] > t.shape()[k] {
                return Err(ScriptError::Runtime(format!(
                    "Size does not match at dimension {k} expected index {} to be no larger than self {} apart from dimension {d}",
                    list_str(index.shape()),
                    list_str(t.shape())
                )));
            }
        }
        ev.check_work(index.numel(), "gather")?;
        let values = ev.engine.values(t);
        let idx: Vec<i64> = ev.engine.values(index).into_iter().map(int_of).collect();
        let size = t.shape().get(d).copied().unwrap_or(1);
        let self_strides = contiguous_strides(t.shape());
        let mut picked = Vec::with_capacity(idx.len());
        for (flat, &i) in idx.iter().enumerate() {
            if i < 0 || i >= size {
                return Err(ScriptError::Runtime(format!(
                    "index {i} is out of bounds for dimension {d} with size {size}"
                )));
            }
            let pos = unravel(flat as i64, index.shape());
            let mut at = 0;
            for (k, &p) in pos.iter().enumerate() {
                at += if k == d { i } else { p } * self_strides.get(k).copied().unwrap_or(0);
            }
            picked.push(values.get(at as usize).copied().unwrap_or(Scalar::Int(0)));
        }
        ev.strided_from_values(
            index.shape(),
            &contiguous_strides(index.shape()),
            t.dtype,
            &picked,
            "gather",
        )
    }

    /// Copies a computed result into an `out=` tensor (resized per PyTorch's rules; the
    /// result's dtype is converted), or returns it as it is without one.
    pub(super) fn write_out(
        &mut self,
        out: Option<&crate::interp::value::TensorRef>,
        result: Tensor,
    ) -> R<Tensor> {
        let Some(o) = out else {
            return Ok(result);
        };
        let dst = self.resize_out(o, result.shape(), MemoryFormat::Contiguous)?;
        self.copy_into(&dst, &result, false)?;
        Ok(dst)
    }

    /// The one-argument `torch.where(condition)`: `condition.nonzero().unbind(1)`. The
    /// `[n, ndim]` index tensor is allocated transposed (column-major), as PyTorch's
    /// `nonzero` does, so each returned tensor is a view of one shared storage.
    fn nonzero_tuple(&mut self, cond: &Tensor) -> R<Value> {
        let ndim = cond.ndim().max(1);
        let shape = if cond.ndim() == 0 {
            vec![1]
        } else {
            cond.shape().to_vec()
        };
        self.check_work(cond.numel(), "nonzero")?;
        let values = self.engine.values(cond);
        let hits: Vec<usize> = values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.to_bool())
            .map(|(i, _)| i)
            .collect();
        let n = hits.len() as i64;
        // Column-major: all of dim 0's indices, then dim 1's, ...
        let mut cols = Vec::with_capacity(hits.len() * ndim);
        for k in 0..ndim {
            for &h in &hits {
                cols.push(Scalar::Int(unravel(h as i64, &shape)[k]));
            }
        }
        let all = self.strided_from_values(
            &[ndim as i64, n],
            &[n.max(1), 1],
            DType::Int64,
            &cols,
            "nonzero",
        )?;
        let parts: Vec<Value> = (0..ndim as i64)
            .map(|k| {
                let mut part = all.clone();
                part.layout.shape = vec![n];
                part.layout.strides = vec![1];
                part.layout.offset = k * n;
                Value::tensor(part, "where", None)
            })
            .collect();
        Ok(Value::Tuple(parts))
    }

    /// `torch.where(cond, x, y)` with `x`/`y` tensors or numbers: the promoted dtype, the
    /// broadcast shape, TensorIterator's output strides; values picked on the CPU reference.
    fn where_select(
        &mut self,
        cond: &Tensor,
        x: &ElementwiseInput,
        y: &ElementwiseInput,
    ) -> R<Tensor> {
        if cond.dtype != DType::Bool {
            return Err(ScriptError::Runtime(format!(
                "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
                cond.dtype.scalar_type_name()
            )));
        }
        let mut rt = ResultType::default();
        rt.add(x);
        rt.add(y);
        let dtype = rt.result();
        let mut shape = cond.shape().to_vec();
        for input in [x, y] {
            shape = broadcast_shapes(&shape, input.shape()).map_err(ScriptError::Runtime)?;
        }
        self.check_work(numel_of(&shape), "where")?;
        // ATen's where wraps a number in a 0-d tensor of the result dtype, then copies each
        // tensor of another dtype to it: all alive while the output is allocated, freed after.
        for input in [x, y] {
            let n = match input {
                ElementwiseInput::Number(_) => 1,
                ElementwiseInput::Tensor(t) if t.dtype != dtype => {
                    numel_of(t.shape()).max(0) as u64
                }
                ElementwiseInput::Tensor(_) => 0,
            };
            self.note_transient(n * dtype.item_size() as u64);
        }
        let layout_of = |i: &ElementwiseInput| match i {
            ElementwiseInput::Tensor(t) => (t.shape().to_vec(), t.strides().to_vec(), t.dtype),
            ElementwiseInput::Number(_) => (vec![], vec![], dtype),
        };
        let operands = [
            (cond.shape().to_vec(), cond.strides().to_vec(), cond.dtype),
            layout_of(x),
            layout_of(y),
        ];
        let ops: Vec<OperandLayout<'_>> = operands
            .iter()
            .map(|(s, st, d)| OperandLayout {
                shape: s,
                strides: st,
                item_size: d.item_size() as i64,
            })
            .collect();
        let strides = elementwise_output_strides(&shape, &ops);
        let c = self.engine.values(&broadcast_view(cond, &shape));
        let mut read = |i: &ElementwiseInput| -> Vec<Scalar> {
            match i {
                ElementwiseInput::Tensor(t) => self.engine.values(&broadcast_view(t, &shape)),
                ElementwiseInput::Number(s) => vec![dtype.round(*s); c.len()],
            }
        };
        let xs = read(x);
        let ys = read(y);
        let picked: Vec<Scalar> = c
            .iter()
            .zip(xs.iter().zip(&ys))
            .map(|(k, (&a, &b))| dtype.round(if k.to_bool() { a } else { b }))
            .collect();
        self.strided_from_values(&shape, &strides, dtype, &picked, "where")
    }
}

impl Evaluator {
    /// The `value` of a fill (`masked_fill`, `index_fill`): a number, or a 0-d tensor's item
    /// (PyTorch refuses any other tensor with `<op> only supports a 0-dimensional value
    /// tensor`).
    pub(super) fn fill_value(&mut self, call: &OpCall, op: &str) -> R<Scalar> {
        match call.value("value") {
            Some(Value::Tensor(v)) => {
                let v = v.borrow().tensor.clone();
                if v.ndim() != 0 {
                    return Err(ScriptError::Runtime(format!(
                        "{op} only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                        v.ndim()
                    )));
                }
                Ok(self
                    .engine
                    .values(&v)
                    .first()
                    .copied()
                    .unwrap_or(Scalar::Int(0)))
            }
            _ => Ok(self.arg_scalar(call, "value")?.unwrap_or(Scalar::Int(0))),
        }
    }
}
