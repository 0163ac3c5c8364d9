//! Functions ATen composes from other ops, here composed the same way so that their values,
//! autograd nodes and allocations are PyTorch's: `kron`, `cosine_similarity`,
//! `pairwise_distance`, and the index factories `triu_indices`/`tril_indices`.

use crate::core::tensor::{DType, Scalar, ScriptError};
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::optim::call_torch;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["kron"],
        schemas: &["Tensor self, Tensor other"],
        forms: Forms::Both,
        rule: kron,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["cosine_similarity"],
        schemas: &["Tensor x1, Tensor x2, int dim=1, float eps=1e-08"],
        forms: Forms::Function,
        rule: cosine_similarity,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["cosine_similarity"],
        schemas: &["x1, x2, dim=1, eps=1e-8"],
        forms: Forms::Functional,
        rule: cosine_similarity,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["pairwise_distance"],
        schemas: &["Tensor x1, Tensor x2, float p=2, float eps=1e-06, bool keepdim=False"],
        forms: Forms::Function,
        rule: pairwise_distance,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["pairwise_distance"],
        schemas: &["x1, x2, p=2.0, eps=1e-6, keepdim=False"],
        forms: Forms::Functional,
        rule: pairwise_distance,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["triu_indices", "tril_indices"],
        schemas: &["int row, int col, int offset=0, *, ScalarType? dtype=None"],
        forms: Forms::Function,
        rule: triangle_indices,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
];

/// `recv.name(*pos)`.
fn method(ev: &mut Evaluator, recv: &Value, name: &str, pos: Vec<Value>) -> R<Value> {
    ev.method(recv.clone(), name, pos)
}

/// An argument that must be a tensor.
fn tensor_value(call: &OpCall, name: &str, position: usize) -> R<Value> {
    match call.value(name) {
        Some(v @ Value::Tensor(_)) => Ok(v.clone()),
        Some(other) => Err(ScriptError::Type(format!(
            "{}(): argument '{name}' (position {position}) must be Tensor, not {}",
            call.name,
            other.type_name()
        ))),
        None => Err(ScriptError::Type(format!(
            "{}() missing required argument '{name}' (pos {position})",
            call.name
        ))),
    }
}

/// `torch.kron(a, b)`: both reshaped to interleave their dims with ones, multiplied
/// (the one allocation), and the product viewed as the block matrix.
fn kron(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let a = Value::Tensor(call.self_ref()?);
    let b = tensor_value(call, "other", 2)?;
    let (sa, sb) = (
        a.as_tensor()
            .map(|t| t.shape().to_vec())
            .unwrap_or_default(),
        b.as_tensor()
            .map(|t| t.shape().to_vec())
            .unwrap_or_default(),
    );
    let nd = sa.len().max(sb.len());
    let pad = |s: &[i64]| -> Vec<i64> {
        let mut p = vec![1; nd - s.len()];
        p.extend_from_slice(s);
        p
    };
    let (pa, pb) = (pad(&sa), pad(&sb));
    let ints = |v: Vec<i64>| Value::Tuple(v.into_iter().map(Value::Int).collect());
    let a_shape: Vec<i64> = pa.iter().flat_map(|&n| [n, 1]).collect();
    let b_shape: Vec<i64> = pb.iter().flat_map(|&n| [1, n]).collect();
    let out_shape: Vec<i64> = pa.iter().zip(&pb).map(|(x, y)| x * y).collect();
    let ar = method(ev, &a, "reshape", vec![ints(a_shape)])?;
    let br = method(ev, &b, "reshape", vec![ints(b_shape)])?;
    let product = ev.binary(BinOp::Mul, ar, br)?;
    method(ev, &product, "reshape", vec![ints(out_shape)])
}

/// `cosine_similarity(x1, x2, dim=1, eps=1e-8)` as ATen 2.15 computes it: each input
/// divided by its norm along `dim` (a clone of `linalg_vector_norm(keepdim=True)`, clamped
/// to `eps` without grad), then the product summed along `dim`.
fn cosine_similarity(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let x1 = tensor_value(call, "x1", 1)?;
    let x2 = tensor_value(call, "x2", 2)?;
    let dim = ev.arg_int(call, "dim", 1)?;
    let eps = ev.arg_float(call, "eps", 1e-8)?;
    let as_float = |ev: &mut Evaluator, x: Value| -> R<Value> {
        match x.as_tensor() {
            Some(t) if !t.dtype.is_floating() && !t.dtype.is_complex() => {
                method(ev, &x, "to", vec![Value::DType(DType::Float32)])
            }
            _ => Ok(x),
        }
    };
    let (x1, x2) = (as_float(ev, x1)?, as_float(ev, x2)?);
    // `expand_outplace`: inputs of different shapes are expanded to their broadcast shape
    // (views), so the norms and quotients below have that shape.
    let (x1, x2) = match (x1.as_tensor(), x2.as_tensor()) {
        (Some(a), Some(b)) if a.shape() != b.shape() => {
            let shape = crate::core::tensor::layout::broadcast_shapes(a.shape(), b.shape())
                .map_err(ScriptError::Runtime)?;
            let shape = crate::interp::torch::autograd::backward::shape_value(&shape);
            let x1 = method(ev, &x1, "expand", vec![shape.clone()])?;
            let x2 = method(ev, &x2, "expand", vec![shape])?;
            (x1, x2)
        }
        _ => (x1, x2),
    };
    let dtype = x1.as_tensor().map_or(DType::Float32, |t| t.dtype);
    let norm = |ev: &mut Evaluator, x: &Value| -> R<Value> {
        let n = call_torch(
            ev,
            "linalg_vector_norm",
            vec![x.clone(), Value::Int(2)],
            vec![("dim", Value::Int(dim)), ("keepdim", Value::Bool(true))],
        )?;
        method(ev, &n, "clone", vec![])
    };
    let n1 = norm(ev, &x1)?;
    let n2 = norm(ev, &x2)?;
    let before = ev.torch.grad_enabled;
    ev.torch.grad_enabled = false;
    let clamped = method(ev, &n1, "clamp_min_", vec![Value::Float(eps)])
        .and_then(|_| method(ev, &n2, "clamp_min_", vec![Value::Float(eps)]));
    ev.torch.grad_enabled = before;
    clamped?;
    // The clamps leave a 0-d tensor of `eps` alive until the function returns.
    let eps_tensor = ev.full(&[], Scalar::Float(eps), dtype, "cosine_similarity")?;
    // One C++ expression: its temporaries, and the norms (locals), live until it returns.
    let q1 = ev.binary(BinOp::Div, x1, n1.clone())?;
    let q2 = ev.binary(BinOp::Div, x2, n2.clone())?;
    let product = ev.binary(BinOp::Mul, q1.clone(), q2.clone())?;
    let out = method(ev, &product, "sum", vec![Value::Int(dim)]);
    drop((product, q1, q2));
    ev.release_raw(eps_tensor.storage);
    drop((n1, n2));
    out
}

/// `pairwise_distance(x1, x2, p=2, eps=1e-6, keepdim=False)`: `norm(x1 - x2 + eps, p)`
/// along the last dim of the broadcast inputs.
fn pairwise_distance(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let x1 = tensor_value(call, "x1", 1)?;
    let x2 = tensor_value(call, "x2", 2)?;
    let p = ev.arg_float(call, "p", 2.0)?;
    let eps = ev.arg_float(call, "eps", 1e-6)?;
    let keepdim = call.flag("keepdim", false);
    let nd = [&x1, &x2]
        .iter()
        .filter_map(|x| x.as_tensor().map(|t| t.ndim()))
        .max()
        .unwrap_or(0);
    // One C++ expression: the difference lives until `norm` returns.
    let diff = ev.binary(BinOp::Sub, x1, x2)?;
    let shifted = ev.binary(BinOp::Add, diff.clone(), Value::Float(eps))?;
    let last = if nd == 0 { 0 } else { nd as i64 - 1 };
    let out = call_torch(
        ev,
        "norm",
        vec![
            shifted,
            Value::Float(p),
            Value::Int(last),
            Value::Bool(keepdim),
        ],
        vec![],
    );
    drop(diff);
    // ATen's `at::norm(Tensor, Scalar p, int[] dim, bool keepdim)`.
    if let Ok(out) = &out {
        ev.rename_node(out, "NormBackward1");
    }
    out
}

/// `torch.triu_indices(row, col, offset=0)` and `tril_indices`: a 2 x N int64 tensor of
/// the rows and columns of the upper (lower) triangle, row by row.
fn triangle_indices(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let row = ev.arg_int(call, "row", 0)?;
    let col = ev.arg_int(call, "col", 0)?;
    let offset = ev.arg_int(call, "offset", 0)?;
    let name = call.name.as_str();
    if row < 0 || col < 0 {
        return Err(ScriptError::Runtime(format!(
            "row must be non-negative, got{}",
            row.min(col)
        )));
    }
    ev.check_work(row.saturating_mul(col), name)?;
    let upper = name == "triu_indices";
    let (mut rows, mut cols) = (Vec::new(), Vec::new());
    for r in 0..row {
        for c in 0..col {
            let keep = if upper {
                c - r >= offset
            } else {
                c - r <= offset
            };
            if keep {
                rows.push(Scalar::Int(r));
                cols.push(Scalar::Int(c));
            }
        }
    }
    let n = rows.len() as i64;
    let dtype = match call.value("dtype") {
        Some(Value::DType(d)) => *d,
        _ => DType::Int64,
    };
    rows.extend(cols);
    let values: Vec<Scalar> = rows.into_iter().map(|v| dtype.round(v)).collect();
    let t = ev.tensor_from_values(&[2, n], dtype, &values, name)?;
    Ok(Value::tensor(t, name, None))
}
