//! The dense layers' functional ops: `F.linear` and `torch.addmm`, `F.embedding`,
//! `F.dropout` (and `torch.dropout`), `F.bilinear`, `F.l1_loss`, and `clamp_min`/`clamp_max`
//! (which `binary_cross_entropy`'s backward calls).
//!
//! `F.linear` and `F.dropout` are built from other ops of the table, as ATen builds them
//! (`addmm(bias, input, weight.t())`, the batched input flattened then viewed back; `input *
//! noise`), so their autograd graph is PyTorch's node for node; the others record one node
//! with a formula of [`crate::interp::torch::nn::dense_backward`].

use std::rc::Rc;

use crate::core::tensor::layout::numel_of;
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::{formulas, Grad, GradOp};
use crate::interp::torch::nn::dense_backward::{self as backward, ADDMM, BILINEAR, EMBEDDING};
use crate::interp::torch::nn::dropout;
use crate::interp::torch::nn::functional::functional;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// `_unsafe_view`'s node: the batched `linear`'s output viewed back from its 2-D product.
const UNSAFE_VIEW: Grad = Grad::named("UnsafeViewBackward0", &formulas::RESHAPE);

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(
        &["linear"],
        &["input, weight, bias=None"],
        linear,
        Grad::UNTRACKED,
    ),
    OpDef {
        names: &["addmm"],
        schemas: &["Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor? out=None"],
        forms: Forms::Both,
        rule: addmm,
        grad: Grad::formula(&ADDMM),
        ..OpDef::PLAIN
    },
    functional(
        &["embedding"],
        &["input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False"],
        embedding,
        Grad::named("EmbeddingBackward0", &EMBEDDING),
    ),
    functional(
        &["dropout"],
        &["input, p=0.5, training=True, inplace=False"],
        dropout::dropout,
        Grad::UNTRACKED,
    ),
    functional(
        &["dropout1d", "dropout2d", "dropout3d"],
        &["input, p=0.5, training=True, inplace=False"],
        dropout::feature_dropout,
        Grad::UNTRACKED,
    ),
    OpDef {
        names: &["dropout"],
        schemas: &["Tensor input, float p, bool train"],
        forms: Forms::Function,
        rule: dropout::dropout,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    functional(
        &["bilinear"],
        &["input1, input2, weight, bias=None"],
        bilinear,
        Grad::by(bilinear_node, Some(&BILINEAR)),
    ),
    functional(
        &["l1_loss"],
        &["input, target, size_average=None, reduce=None, reduction='mean', weight=None"],
        l1_loss,
        Grad::UNTRACKED,
    ),
    OpDef {
        names: &["clamp_min"],
        schemas: &["Tensor self, Tensor min", "Tensor self, Scalar min"],
        forms: Forms::Both,
        rule: clamp_bound,
        grad: Grad::by(backward::clamp_bound_node, Some(&backward::CLAMP_MIN)),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["clamp_max"],
        schemas: &["Tensor self, Tensor max", "Tensor self, Scalar max"],
        forms: Forms::Both,
        rule: clamp_bound,
        grad: Grad::by(backward::clamp_bound_node, Some(&backward::CLAMP_MAX)),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["clamp_min_"],
        schemas: &["Tensor self, Tensor min", "Tensor self, Scalar min"],
        forms: Forms::Method,
        rule: clamp_bound,
        // Its node keeps a clone of the values it overwrote (`autograd::original_self`).
        grad: Grad::by(backward::clamp_bound_node, Some(&backward::CLAMP_MIN)),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["clamp_max_"],
        schemas: &["Tensor self, Tensor max", "Tensor self, Scalar max"],
        forms: Forms::Method,
        rule: clamp_bound,
        grad: Grad::by(backward::clamp_bound_node, Some(&backward::CLAMP_MAX)),
        ..OpDef::PLAIN
    },
];

/// A Python function's tensor argument at `position` (1-based), or `None` when optional and
/// not given: PyTorch's binder message otherwise.
pub(super) fn tensor_param(
    call: &OpCall,
    name: &str,
    position: usize,
    optional: bool,
) -> R<Option<TensorRef>> {
    match call.value(name) {
        Some(Value::Tensor(t)) => Ok(Some(Rc::clone(t))),
        None | Some(Value::None) if optional => Ok(None),
        other => Err(ScriptError::Type(format!(
            "{}(): argument '{name}' (position {position}) must be Tensor, not {}",
            call.name,
            other.map_or("NoneType".into(), Value::type_name)
        ))),
    }
}

/// Runs `f` with grad mode off (a rule's intermediate values that its own node covers).
fn no_grad<T>(ev: &mut Evaluator, f: impl FnOnce(&mut Evaluator) -> R<T>) -> R<T> {
    let was = std::mem::replace(&mut ev.torch.grad_enabled, false);
    let out = f(ev);
    ev.torch.grad_enabled = was;
    out
}

fn shape_value(shape: &[i64]) -> Value {
    Value::Tuple(shape.iter().map(|&n| Value::Int(n)).collect())
}

/// `a @ b` for batched operands (both at least 2-D, one at least 3-D; a matrix beside the
/// batch only where ATen does not fold it, [`folded_matmul`] runs the others), as
/// ATen's `matmul` runs it when a gradient is recorded: each side expanded to the broadcast
/// batch and reshaped to 3-D (views), `bmm`, and the product viewed back to the batch
/// (`UnsafeViewBackward0` over `BmmBackward0`, which keeps both 3-D operands). `None` for the
/// other cases, and when no node would be recorded (the fused kernel computes the same values).
pub(crate) fn batched_matmul(ev: &mut Evaluator, a: &Value, b: &Value) -> R<Option<Value>> {
    let (Value::Tensor(x), Value::Tensor(y)) = (a, b) else {
        return Ok(None);
    };
    let tracked = |t: &TensorRef| {
        t.try_borrow()
            .is_ok_and(|t| crate::interp::torch::autograd::tracks_grad(&t))
    };
    if !ev.torch.grad_enabled || !(tracked(x) || tracked(y)) {
        return Ok(None);
    }
    if let Some(out) = folded_matmul(ev, x, y)? {
        return Ok(Some(out));
    }
    let (xs, ys) = (
        x.borrow().tensor.shape().to_vec(),
        y.borrow().tensor.shape().to_vec(),
    );
    let (dx, dy) = (xs.len(), ys.len());
    if dx < 2 || dy < 2 || dx.max(dy) < 3 || xs[dx - 1] != ys[dy - 2] {
        return Ok(None);
    }
    let Ok(batch) = crate::core::tensor::layout::broadcast_shapes(&xs[..dx - 2], &ys[..dy - 2])
    else {
        return Ok(None);
    };
    let count = numel_of(&batch);
    let (n, k, m) = (xs[dx - 2], xs[dx - 1], ys[dy - 1]);
    let three_d = |ev: &mut Evaluator, v: &Value, rows: i64, cols: i64| -> R<Value> {
        let mut full = batch.clone();
        full.extend([rows, cols]);
        let expanded = ev.method(v.clone(), "expand", vec![shape_value(&full)])?;
        ev.method(expanded, "reshape", vec![shape_value(&[count, rows, cols])])
    };
    let a3 = three_d(ev, a, n, k)?;
    let b3 = three_d(ev, b, k, m)?;
    let product = ev.method(a3, "bmm", vec![b3])?;
    let mut out_shape = batch.clone();
    out_shape.extend([n, m]);
    let out = unsafe_view(ev, &product, &out_shape)?;
    Ok(Some(out))
}

/// `a @ b` where ATen's `matmul` folds the larger operand's batch into the rows of one `mm`
/// or `mv` (`should_fold`): the larger is at least 3-D, the other 1-D or 2-D, and either that
/// other requires grad or (no matrix on the left) the larger's batch folds without a copy.
/// `t1.reshape(-1, k).mm(t2)` viewed back to the batch (`UnsafeViewBackward0` over
/// `MmBackward0`/`MvBackward0`), where `t1` is the larger (`b.mT` when it is on the right,
/// with `t2` then `a.t()`); a matrix on the left gives `.mT.contiguous()` of that
/// (`CloneBackward0`). The gradients are then `mm`'s, summed over the batch in one product as
/// PyTorch sums them. `None` for the other cases.
fn folded_matmul(ev: &mut Evaluator, a: &TensorRef, b: &TensorRef) -> R<Option<Value>> {
    let (ta, tb) = (a.borrow().tensor.clone(), b.borrow().tensor.clone());
    let left_larger = ta.ndim() >= tb.ndim();
    let (big, small) = if left_larger { (&ta, &tb) } else { (&tb, &ta) };
    if big.ndim() < 3 || !matches!(small.ndim(), 1 | 2) {
        return Ok(None);
    }
    // `t1`'s layout: the larger, its last two dims swapped when it is on the right.
    let (mut shape, mut strides) = (big.shape().to_vec(), big.strides().to_vec());
    let d = shape.len();
    if !left_larger {
        shape.swap(d - 2, d - 1);
        strides.swap(d - 2, d - 1);
    }
    let small_ref = if left_larger { b } else { a };
    let small_grad = small_ref
        .try_borrow()
        .is_ok_and(|t| crate::interp::torch::autograd::tracks_grad(&t));
    let foldable =
        numel_of(&shape) == 0 || (0..d - 2).all(|i| strides[i] == strides[i + 1] * shape[i + 1]);
    if !(small_grad || (ta.ndim() != 2 && foldable)) {
        return Ok(None);
    }
    let k = shape[d - 1];
    let matrix = small.ndim() == 2;
    // `t2`: the smaller (`a.t()` for a matrix on the left); it must take `t1`'s columns.
    let t2_rows = if left_larger || !matrix {
        small.shape()[0]
    } else {
        small.shape()[1]
    };
    if t2_rows != k {
        return Ok(None);
    }
    let transpose = |ev: &mut Evaluator, v: Value| {
        ev.method(v, "transpose", vec![Value::Int(-2), Value::Int(-1)])
    };
    let (t1, t2) = if left_larger {
        (Value::Tensor(Rc::clone(a)), Value::Tensor(Rc::clone(b)))
    } else {
        let t1 = transpose(ev, Value::Tensor(Rc::clone(b)))?;
        let t2 = if matrix {
            ev.method(Value::Tensor(Rc::clone(a)), "t", vec![])?
        } else {
            Value::Tensor(Rc::clone(a))
        };
        (t1, t2)
    };
    let mut out_shape = shape[..d - 1].to_vec();
    let rows = numel_of(&out_shape);
    let folded = ev.method(t1, "reshape", vec![shape_value(&[rows, k])])?;
    let product = if matrix {
        out_shape.push(small.shape()[if left_larger { 1 } else { 0 }]);
        ev.method(folded, "mm", vec![t2])?
    } else {
        ev.method(folded, "mv", vec![t2])?
    };
    let out = unsafe_view(ev, &product, &out_shape)?;
    if left_larger || !matrix {
        return Ok(Some(out));
    }
    let back = transpose(ev, out)?;
    Ok(Some(ev.method(back, "contiguous", vec![])?))
}

// ----- linear and addmm -----

/// ATen's `_unsafe_view` of a folded product back to the caller's shape: a view with its own
/// node (`UnsafeViewBackward0`) over the product's.
fn unsafe_view(ev: &mut Evaluator, product: &Value, shape: &[i64]) -> R<Value> {
    let out = no_grad(ev, |ev| {
        ev.method(product.clone(), "view", vec![shape_value(shape)])
    })?;
    let args: [(&str, &Value); 0] = [];
    ev.record_grad(
        GradOp::Named {
            name: "_unsafe_view",
            grad: &UNSAFE_VIEW,
            args: &args,
        },
        &[product],
        &out,
    );
    Ok(out)
}

/// `F.linear(input, weight, bias=None)`, as ATen's `linear` composes it: `addmm(bias, input,
/// weight.t())` for a 2-D input; a contiguous input of other rank flattened to 2-D, then its
/// product viewed back (`UnsafeViewBackward0`); otherwise `matmul(input, weight.t())` plus
/// the bias.
fn linear(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_param(call, "input", 1, false)?.ok_or_else(no_input)?;
    let weight = tensor_param(call, "weight", 2, false)?.ok_or_else(no_input)?;
    let bias = tensor_param(call, "bias", 3, true)?;
    let x = input.borrow().tensor.clone();
    let w = weight.borrow().tensor.clone();
    if x.ndim() == 0 || w.ndim() == 0 {
        return Err(ScriptError::Runtime(format!(
            "both arguments to linear need to be at least 1D, but they are {}D and {}D",
            x.ndim(),
            w.ndim()
        )));
    }
    let wt = ev.method(Value::Tensor(weight), "t", vec![])?;
    let input = Value::Tensor(input);
    let Some(bias) = bias.map(Value::Tensor) else {
        if x.ndim() >= 3 && w.ndim() == 2 {
            return folded(ev, input, &x, wt, None);
        }
        return ev.binary(BinOp::MatMul, input, wt);
    };
    if x.ndim() == 2 {
        return addmm_call(ev, bias, input, wt);
    }
    if x.layout.is_contiguous() {
        return folded(ev, input, &x, wt, Some(bias));
    }
    let product = if w.ndim() == 2 {
        folded(ev, input, &x, wt, None)?
    } else {
        ev.binary(BinOp::MatMul, input, wt)?
    };
    // ATen adds the bias in place (`output.add_(bias)`): no second output.
    ev.method(product, "add_", vec![bias])
}

pub(super) fn no_input() -> ScriptError {
    ScriptError::Type("linear(): missing a tensor argument".into())
}

/// `torch.addmm(bias, mat1, mat2)` through the table (its node, `AddmmBackward0`).
fn addmm_call(ev: &mut Evaluator, bias: Value, mat1: Value, mat2: Value) -> R<Value> {
    ev.call_table_function("addmm", &[bias, mat1, mat2], &[])
        .unwrap_or_else(|| {
            Err(ScriptError::Runtime(
                "addmm is not an op of the table".into(),
            ))
        })
}

/// The batched (or 1-D) input flattened to `[-1, in_features]`, multiplied (`mm`, or
/// `addmm` with the bias), and the product viewed back to the input's leading dims.
fn folded(
    ev: &mut Evaluator,
    input: Value,
    x: &Tensor,
    wt: Value,
    bias: Option<Value>,
) -> R<Value> {
    let shape = x.shape();
    let last = shape[shape.len() - 1];
    let lead = &shape[..shape.len() - 1];
    let flat = ev.method(input, "reshape", vec![shape_value(&[numel_of(lead), last])])?;
    let product = match bias {
        Some(bias) => addmm_call(ev, bias, flat, wt)?,
        None => ev.method(flat, "mm", vec![wt])?,
    };
    let columns = product.as_tensor().map_or(0, |t| t.shape()[1]);
    let mut out_shape = lead.to_vec();
    out_shape.push(columns);
    unsafe_view(ev, &product, &out_shape)
}

/// `torch.addmm(self, mat1, mat2, *, beta=1, alpha=1)`: `beta * self + alpha * (mat1 @ mat2)`,
/// with ATen's checks in its order (ranks, shapes, dtypes, `self`'s broadcast, the kernel).
fn addmm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_tensor()?;
    let (Some(m1), Some(m2)) = (call.tensor("mat1"), call.tensor("mat2")) else {
        return Err(ScriptError::Type("addmm(): missing a matrix".into()));
    };
    for (what, t) in [("self", &m1), ("mat2", &m2)] {
        if t.ndim() != 2 {
            return Err(ScriptError::Runtime(format!(
                "addmm: {what} must be a matrix, got {}-D tensor",
                t.ndim()
            )));
        }
    }
    if m1.shape()[1] != m2.shape()[0] {
        return Err(ScriptError::Runtime(format!(
            "addmm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            m1.shape()[0],
            m1.shape()[1],
            m2.shape()[0],
            m2.shape()[1]
        )));
    }
    for (what, t) in [("self", &this), ("mat1", &m1)] {
        if t.dtype != m2.dtype {
            return Err(ScriptError::Runtime(format!(
                "{what} and mat2 must have the same dtype, but got {} and {}",
                t.dtype.scalar_type_name(),
                m2.dtype.scalar_type_name()
            )));
        }
    }
    let beta = ev.arg_scalar(call, "beta")?.map_or(1.0, Scalar::to_f64);
    let alpha = ev.arg_scalar(call, "alpha")?.map_or(1.0, Scalar::to_f64);
    let out_shape = [m1.shape()[0], m2.shape()[1]];
    let this_value = Value::Tensor(call.self_ref()?);
    let out = no_grad(ev, |ev| {
        let expanded = ev.method(this_value, "expand", vec![shape_value(&out_shape)])?;
        if m2.dtype == DType::Bool && out_shape[0] * out_shape[1] != 0 {
            return Err(ScriptError::NotImplemented(
                "\"addmm_impl_cpu_\" not implemented for 'Bool'".into(),
            ));
        }
        let product = ev.method(
            Value::tensor(m1.clone(), "addmm", None),
            "mm",
            vec![Value::tensor(m2.clone(), "addmm", None)],
        )?;
        let product = scale(ev, product, alpha)?;
        if beta == 0.0 {
            return Ok(product);
        }
        let base = scale(ev, expanded, beta)?;
        // The product is the output: the bias is added into it, as BLAS's gemm accumulates
        // into the output (one allocation, as ATen's; the same sums).
        let same_dtype = base.as_tensor().is_some_and(|b| b.dtype == m2.dtype);
        if same_dtype && matches!(m2.dtype, DType::BFloat16 | DType::Float16) {
            // oneDNN's reduced-precision gemm adds the bias to its float32 sums and rounds
            // once: the values come from a float32 product, the memory from the ops above.
            let exact = ev.uncounted(|ev| -> R<Value> {
                let wide = |ev: &mut Evaluator, t: &Tensor| {
                    ev.method(
                        Value::tensor(t.clone(), "addmm", None),
                        "to",
                        vec![Value::DType(DType::Float32)],
                    )
                };
                let (a, b) = (wide(ev, &m1)?, wide(ev, &m2)?);
                let sums = ev.method(a, "mm", vec![b])?;
                let sums = scale(ev, sums, alpha)?;
                let base = ev.method(base.clone(), "to", vec![Value::DType(DType::Float32)])?;
                let sums = ev.method(sums, "add_", vec![base])?;
                ev.method(sums, "to", vec![Value::DType(m2.dtype)])
            })?;
            ev.uncounted(|ev| ev.method(product.clone(), "copy_", vec![exact]))?;
            return Ok(product);
        }
        if same_dtype {
            ev.method(product, "add_", vec![base])
        } else {
            ev.binary(BinOp::Add, base, product)
        }
    })?;
    let out = match out.as_tensor() {
        // `self + product` of a 0-d float `self` keeps the matrices' dtype.
        Some(t) if t.dtype != m2.dtype => {
            no_grad(ev, |ev| ev.method(out, "to", vec![Value::DType(m2.dtype)]))?
        }
        _ => out,
    };
    match call.value("out") {
        Some(Value::Tensor(dst)) => {
            let dst = Rc::clone(dst);
            no_grad(ev, |ev| {
                ev.method(Value::Tensor(Rc::clone(&dst)), "copy_", vec![out])
            })?;
            Ok(Value::Tensor(dst))
        }
        _ => Ok(out),
    }
}

/// `v * by`, or `v` itself when `by` is 1.
fn scale(ev: &mut Evaluator, v: Value, by: f64) -> R<Value> {
    if by == 1.0 {
        return Ok(v);
    }
    ev.binary(
        BinOp::Mul,
        v,
        crate::interp::torch::autograd::backward::scalar(by),
    )
}

// ----- embedding -----

/// `F.embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
/// scale_grad_by_freq=False, sparse=False)`: the rows of `weight` at the indices, in a new
/// contiguous tensor of shape `input.shape + [embedding_dim]`; `max_norm` first renormalizes
/// the rows looked up, in place (`embedding_renorm_`).
fn embedding(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_param(call, "input", 1, false)?.ok_or_else(no_input)?;
    let weight = tensor_param(call, "weight", 2, false)?.ok_or_else(no_input)?;
    let indices = input.borrow().tensor.clone();
    let w = weight.borrow().tensor.clone();
    if w.ndim() != 2 {
        return Err(ScriptError::Runtime("'weight' must be 2-D".into()));
    }
    let rows = w.shape()[0];
    if let Some(p) = call.value("padding_idx") {
        let p = match p {
            Value::Int(p) => *p,
            Value::Bool(b) => i64::from(*b),
            other => {
                return Err(ScriptError::Type(format!(
                    "embedding(): argument 'padding_idx' (position 3) must be int, not {}",
                    other.type_name()
                )))
            }
        };
        if p >= rows || p < -rows {
            return Err(ScriptError::Other {
                class: "AssertionError".into(),
                message: "Padding_idx must be within num_embeddings".into(),
            });
        }
    }
    if !matches!(indices.dtype, DType::Int64 | DType::Int32) {
        return Err(ScriptError::Runtime(format!(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.{}Tensor instead (while checking arguments for embedding)",
            indices.dtype.scalar_type_name()
        )));
    }
    ev.check_work(indices.numel().saturating_mul(w.shape()[1]), "embedding")?;
    let index: Vec<i64> = ev
        .engine
        .values(&indices)
        .iter()
        .map(|s| s.to_f64() as i64)
        .collect();
    if index.iter().any(|&i| i < 0 || i >= rows) {
        return Err(ScriptError::Index("index out of range in self".into()));
    }
    if let Some(max_norm) = call
        .value("max_norm")
        .and_then(crate::interp::torch::autograd::number)
    {
        let norm_type = crate::interp::torch::nn::functional::number(call, "norm_type", 2.0);
        renorm_rows(ev, &w, &index, max_norm, norm_type)?;
    }
    let mut shape = indices.shape().to_vec();
    shape.push(w.shape()[1]);
    no_grad(ev, |ev| {
        // ATen's embedding: `weight.index_select(0, indices.reshape(-1))` (a view of
        // contiguous indices: only the result is allocated).
        let flat = ev.method(Value::Tensor(input), "reshape", vec![Value::Int(-1)])?;
        let rows = ev.method(
            Value::Tensor(weight),
            "index_select",
            vec![Value::Int(0), flat],
        )?;
        ev.method(rows, "view", vec![shape_value(&shape)])
    })
}

/// `embedding_renorm_`: each row looked up whose `norm_type`-norm is above `max_norm` is
/// scaled by `max_norm / (norm + 1e-7)`, in place, each row once.
fn renorm_rows(ev: &mut Evaluator, w: &Tensor, index: &[i64], max_norm: f64, p: f64) -> R<()> {
    let mut seen: Vec<i64> = index.to_vec();
    seen.sort_unstable();
    seen.dedup();
    let dim = w.shape()[1].max(0) as usize;
    let mut values: Vec<f64> = ev.engine.values(w).iter().map(|s| s.to_f64()).collect();
    let round = |v: f64| w.dtype.round(Scalar::Float(v)).to_f64();
    for &row in &seen {
        let cells = &mut values[row as usize * dim..(row as usize + 1) * dim];
        let norm = if p == 1.0 {
            cells.iter().map(|v| v.abs()).sum::<f64>()
        } else if p == 2.0 {
            cells.iter().map(|v| v * v).sum::<f64>().sqrt()
        } else {
            cells
                .iter()
                .map(|v| v.abs().powf(p))
                .sum::<f64>()
                .powf(1.0 / p)
        };
        let norm = round(norm);
        if norm > max_norm {
            let scale = round(max_norm / round(norm + 1e-7));
            for v in cells.iter_mut() {
                *v = round(*v * scale);
            }
        }
    }
    let scalars: Vec<Scalar> = values.into_iter().map(Scalar::Float).collect();
    let fresh = ev.tensor_from_values(w.shape(), w.dtype, &scalars, "embedding")?;
    ev.copy_into(w, &fresh, false)
}

// ----- bilinear -----

/// `F.bilinear`'s node: `AddBackward0` with a bias (`_trilinear` then `+ bias`), else the
/// `ViewBackward0` of the batch viewed back.
fn bilinear_node(q: &crate::interp::torch::autograd::nodes::NodeQuery) -> String {
    if q.args.iter().any(|(n, _)| *n == "bias") {
        "AddBackward0".into()
    } else {
        "ViewBackward0".into()
    }
}

/// `F.bilinear(input1, input2, weight, bias=None)`: `y[..., o] = Σ_ij x1[..., i] W[o, i, j]
/// x2[..., j] + bias[o]`, in double precision rounded once.
fn bilinear(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let x1 = tensor_param(call, "input1", 1, false)?.ok_or_else(no_input)?;
    let x2 = tensor_param(call, "input2", 2, false)?.ok_or_else(no_input)?;
    let w = tensor_param(call, "weight", 3, false)?.ok_or_else(no_input)?;
    let bias = tensor_param(call, "bias", 4, true)?;
    let (a, c, wt) = (
        x1.borrow().tensor.clone(),
        x2.borrow().tensor.clone(),
        w.borrow().tensor.clone(),
    );
    if wt.ndim() != 3 {
        return Err(ScriptError::Index(format!(
            "Dimension out of range (expected to be in range of [-{n}, {}], but got 2)",
            wt.ndim().max(1) - 1,
            n = wt.ndim().max(1)
        )));
    }
    let (o_n, i_n, j_n) = (wt.shape()[0], wt.shape()[1], wt.shape()[2]);
    if a.ndim() != c.ndim() {
        return Err(ScriptError::Runtime(format!(
            "bilinear(): input dimensions do not match: got {} and {}",
            a.ndim(),
            c.ndim()
        )));
    }
    for d in 0..a.ndim().saturating_sub(1) {
        if a.shape()[d] != c.shape()[d] {
            return Err(ScriptError::Runtime(format!(
                "bilinear(): input batch dimensions do not match at dim {d}: got {} and {}",
                a.shape()[d],
                c.shape()[d]
            )));
        }
    }
    let last = |t: &Tensor| t.shape().last().copied().unwrap_or(1);
    if last(&a) != i_n {
        return Err(ScriptError::Runtime(format!(
            "bilinear(): input1 size does not match weight size: got {} but expected {i_n}",
            last(&a)
        )));
    }
    if last(&c) != j_n {
        return Err(ScriptError::Runtime(format!(
            "bilinear(): input2 size does not match weight size: got {} but expected {j_n}",
            last(&c)
        )));
    }
    let bias_t = bias.as_ref().map(|b| b.borrow().tensor.clone());
    if let Some(b) = &bias_t {
        if b.ndim() != 1 || b.shape()[0] != o_n {
            return Err(ScriptError::Runtime(format!(
                "bilinear(): bias size does not match weight size: got {} but expected {o_n}",
                b.shape().first().copied().unwrap_or(0)
            )));
        }
    }
    if a.dtype != c.dtype || a.dtype != wt.dtype {
        return Err(ScriptError::Runtime(format!(
            "All tensors must have the same dtype, got input1: {}, input2: {}, weight: {}",
            a.dtype.cpp_type_name(),
            c.dtype.cpp_type_name(),
            wt.dtype.cpp_type_name()
        )));
    }
    let batch = numel_of(&a.shape()[..a.ndim().saturating_sub(1)]);
    ev.check_work(
        batch
            .saturating_mul(o_n)
            .saturating_mul(i_n)
            .saturating_mul(j_n),
        "bilinear",
    )?;
    let va = ev.host(&Value::Tensor(Rc::clone(&x1))).values;
    let vc = ev.host(&Value::Tensor(Rc::clone(&x2))).values;
    let vw = ev.host(&Value::Tensor(Rc::clone(&w))).values;
    let vb = match &bias {
        Some(b) => ev.host(&Value::Tensor(Rc::clone(b))).values,
        None => vec![],
    };
    let (o_u, i_u, j_u) = (o_n as usize, i_n as usize, j_n as usize);
    let round = |v: f64| a.dtype.round(Scalar::Float(v)).to_f64();
    let mut out = Vec::with_capacity(batch as usize * o_u);
    for n in 0..batch as usize {
        for o in 0..o_u {
            let mut sum = 0.0;
            for i in 0..i_u {
                let mut inner = 0.0;
                for j in 0..j_u {
                    inner += vw[(o * i_u + i) * j_u + j] * vc[n * j_u + j];
                }
                sum += va[n * i_u + i] * inner;
            }
            let sum = match vb.get(o) {
                Some(b) => round(round(sum) + b),
                None => sum,
            };
            out.push(sum);
        }
    }
    let mut shape = a.shape()[..a.ndim().saturating_sub(1)].to_vec();
    shape.push(o_n);
    ev.host_tensor(&shape, a.dtype, &out)
}

// ----- l1_loss and clamp_min/clamp_max -----

/// `F.l1_loss(input, target, reduction='mean')`: `(input - target).abs()` reduced, as ATen
/// composes it (its node is the reduction's, or `AbsBackward0`).
fn l1_loss(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_param(call, "input", 1, false)?.ok_or_else(no_input)?;
    let target = tensor_param(call, "target", 2, false)?.ok_or_else(no_input)?;
    let reduction = match call.value("reduction") {
        Some(Value::Str(r)) => crate::interp::torch::ops::Reduction::parse(r)?,
        _ => crate::interp::torch::ops::Reduction::Mean,
    };
    let diff = ev.binary(BinOp::Sub, Value::Tensor(input), Value::Tensor(target))?;
    let abs = ev.method(diff.clone(), "abs", vec![])?;
    // ATen's temporaries live to the end of the function: the difference too.
    let out = match reduction {
        crate::interp::torch::ops::Reduction::None => Ok(abs),
        crate::interp::torch::ops::Reduction::Mean => ev.method(abs, "mean", vec![]),
        crate::interp::torch::ops::Reduction::Sum => ev.method(abs, "sum", vec![]),
    };
    drop(diff);
    out
}

/// `clamp_min(self, min)`, `clamp_max(self, max)` and their in-place forms: `clamp` with one
/// bound.
fn clamp_bound(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let (param, method) = match call.name.as_str() {
        "clamp_min" => ("min", "clamp"),
        "clamp_max" => ("max", "clamp"),
        "clamp_min_" => ("min", "clamp_"),
        _ => ("max", "clamp_"),
    };
    let bound = call.value(param).cloned().unwrap_or(Value::None);
    // The clone of an in-place target made for this op's node stays for it.
    let original = ev.torch.autograd.original_self.take();
    let out = no_grad(ev, |ev| {
        ev.call(
            Value::Method(Box::new(Value::Tensor(this)), method.into()),
            vec![],
            vec![(param.to_string(), bound)],
        )
    });
    ev.torch.autograd.original_self = original;
    out
}
