//! The backward formulas of the dense layers' ops, as `derivatives.yaml`
//! (`FunctionsManual.cpp`) defines them: `addmm`, `clamp` (scalar and tensor bounds),
//! `clamp_min`/`clamp_max`, `embedding`, `bilinear` (the activations' are in
//! [`crate::interp::torch::nn::activation_backward`]).
//!
//! `addmm`'s runs as ops of the evaluator (so the engine's kernels do the products) with grad
//! mode off, as every formula does; the others compute on the saved values in double
//! precision and round once to the gradient's dtype.

use crate::core::tensor::{DType, Scalar};
use crate::interp::torch::autograd::backward::{shape_value, unsupported};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::{nodes::NodeQuery, number};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// A tensor's elements as host numbers (row-major), with its shape and dtype.
pub(crate) struct Host {
    pub shape: Vec<i64>,
    pub dtype: DType,
    pub values: Vec<f64>,
}

impl Evaluator {
    /// `v`'s elements (a tensor, or a number as a 0-d float64 tensor).
    pub(crate) fn host(&mut self, v: &Value) -> Host {
        match v.as_tensor() {
            Some(t) => Host {
                shape: t.shape().to_vec(),
                dtype: t.dtype,
                values: self.engine.values(&t).iter().map(|s| s.to_f64()).collect(),
            },
            None => Host {
                shape: vec![],
                dtype: DType::Float64,
                values: vec![number(v).unwrap_or(0.0)],
            },
        }
    }

    /// A new contiguous tensor of `shape` holding `values`, each rounded to `dtype`.
    pub(crate) fn host_tensor(&mut self, shape: &[i64], dtype: DType, values: &[f64]) -> R<Value> {
        let scalars: Vec<Scalar> = values
            .iter()
            .map(|&v| dtype.round(Scalar::Float(v)))
            .collect();
        let t = self.tensor_from_values(shape, dtype, &scalars, "backward")?;
        Ok(Value::tensor(t, "backward", None))
    }
}

/// On the meta device (where nothing is computed): a contiguous gradient of `shape` and
/// `dtype` without values, else `None` (the formula computes it).
pub(crate) fn meta_grad(ev: &mut Evaluator, shape: &[i64], dtype: DType) -> R<Option<Value>> {
    if !crate::interp::torch::nn::conv::meta_op(ev) {
        return Ok(None);
    }
    let strides = crate::core::tensor::Layout::contiguous(shape).strides;
    let t = ev.empty_strided(shape, &strides, dtype, "backward")?;
    Ok(Some(Value::tensor(t, "backward", None)))
}

/// The shape and dtype of a tensor value (a number: a 0-d float64).
pub(crate) fn shape_dtype(v: &Value) -> (Vec<i64>, DType) {
    v.as_tensor()
        .map_or((vec![], DType::Float64), |t| (t.shape().to_vec(), t.dtype))
}

/// A float argument the node kept, or `default`.
pub(super) fn arg(b: &Backward, name: &str, default: f64) -> f64 {
    b.arg(name).and_then(number).unwrap_or(default)
}

// ----- clamp -----

/// `clamp(Tensor self, Scalar? min=None, Scalar? max=None)` and
/// `clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None)`: `grad` where
/// `min <= self <= max`; a tensor bound gets `grad` where it clamped (`clamp_backward_min_max`).
pub(crate) static CLAMP: Formula = Formula {
    inputs: &["self", "min", "max"],
    saves: &["self", "min", "max"],
    args: &["min", "max"],
    backward: clamp,
};

/// `clamp_min(Tensor self, Scalar min)`: `grad` where `self >= min`.
pub(crate) static CLAMP_MIN: Formula = Formula {
    inputs: &["self", "min"],
    saves: &["self", "min"],
    args: &["min"],
    backward: clamp_min,
};

/// `clamp_max(Tensor self, Scalar max)`: `grad` where `self <= max`.
pub(crate) static CLAMP_MAX: Formula = Formula {
    inputs: &["self", "max"],
    saves: &["self", "max"],
    args: &["max"],
    backward: clamp_max,
};

/// `clamp`'s node: `ClampBackward0` with tensor bounds, `ClampBackward1` with numbers.
pub(crate) fn clamp_node(q: &NodeQuery) -> String {
    let tensor_bound = q
        .args
        .iter()
        .any(|(n, v)| matches!(*n, "min" | "max") && matches!(v, Value::Tensor(_)));
    if tensor_bound {
        "ClampBackward0".into()
    } else {
        "ClampBackward1".into()
    }
}

/// `clamp_min`'s and `clamp_max`'s nodes: `Backward1` against a tensor.
pub(crate) fn clamp_bound_node(q: &NodeQuery) -> String {
    let tensor = q
        .args
        .iter()
        .skip(1)
        .any(|(_, v)| matches!(v, Value::Tensor(_)));
    let base = if q.name.starts_with("clamp_max") {
        "ClampMax"
    } else {
        "ClampMin"
    };
    format!("{base}Backward{}", u8::from(tensor))
}

/// One bound of a clamp: a number, or a tensor's values broadcast against `self`.
enum Bound {
    None,
    Number(f64),
    Tensor(Host),
}

impl Bound {
    /// The bound at flat element `i` of `self` (of shape `shape`).
    fn at(&self, i: usize, shape: &[i64]) -> Option<f64> {
        match self {
            Bound::None => None,
            Bound::Number(x) => Some(*x),
            Bound::Tensor(h) => Some(broadcast_at(&h.values, &h.shape, i, shape)),
        }
    }
}

/// The element of a tensor of `from` shape that broadcasting puts at flat index `i` of `to`.
fn broadcast_at(values: &[f64], from: &[i64], i: usize, to: &[i64]) -> f64 {
    let mut rest = i as i64;
    let mut at = 0i64;
    let mut stride = 1i64;
    let lead = to.len().saturating_sub(from.len());
    for d in (0..to.len()).rev() {
        let n = to[d].max(1);
        let index = rest % n;
        rest /= n;
        if d >= lead {
            let size = from[d - lead];
            if size != 1 {
                at += index * stride;
            }
            stride *= size.max(1);
        }
    }
    values.get(at as usize).copied().unwrap_or(f64::NAN)
}

/// A bound the node kept: a number argument, or the tensor it saved in `slot`.
fn bound(b: &Backward, name: &str, tensor: Option<&Value>, ev: &mut Evaluator) -> Bound {
    if let Some(x) = b.arg(name).and_then(number) {
        return Bound::Number(x);
    }
    match tensor {
        Some(v) => Bound::Tensor(ev.host(v)),
        None => Bound::None,
    }
}

/// The gradients of a clamp of `self` between `low` and `high`; a tensor bound at operand
/// `i` gets its gradient where it clamped.
fn clamp_grads(
    ev: &mut Evaluator,
    b: &Backward,
    low: &Bound,
    high: &Bound,
    slots: (Option<usize>, Option<usize>),
) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    let x = ev.saved_input(b, "self")?;
    let x = ev.host(&x);
    let g = ev.host(b.grad);
    let shape = g.shape.clone();
    let n = g.values.len();
    let mut dx = vec![0.0; n];
    let mut dlow = vec![0.0; n];
    let mut dhigh = vec![0.0; n];
    for i in 0..n {
        let v = x.values.get(i).copied().unwrap_or(f64::NAN);
        let (lo, hi) = (low.at(i, &shape), high.at(i, &shape));
        let inside = lo.is_none_or(|lo| v >= lo) && hi.is_none_or(|hi| v <= hi);
        if inside {
            dx[i] = g.values[i];
        }
        match (lo, hi) {
            (Some(lo), Some(hi)) => {
                if v < lo && lo < hi {
                    dlow[i] = g.values[i];
                }
                if v > hi || hi < lo {
                    dhigh[i] = g.values[i];
                }
            }
            (Some(lo), None) if v < lo => dlow[i] = g.values[i],
            (None, Some(hi)) if v > hi => dhigh[i] = g.values[i],
            _ => {}
        }
    }
    if b.needs(0) {
        out[0] = Some(ev.host_tensor(&shape, g.dtype, &dx)?);
    }
    for (slot, values) in [(slots.0, dlow), (slots.1, dhigh)] {
        if let Some(i) = slot.filter(|i| b.needs(*i)) {
            let full = ev.host_tensor(&shape, g.dtype, &values)?;
            out[i] = Some(ev.sum_to(full, &b.shape(i))?);
        }
    }
    Ok(out)
}

fn clamp(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let first = ev.saved_input(b, "min")?;
    let second = ev.saved_input(b, "max")?;
    let is_tensor = |v: &Value| matches!(v, Value::Tensor(_));
    // Tensor bounds are operands in order (min, then max); one alone is ambiguous.
    let (low, high, slots) = match (is_tensor(&first), is_tensor(&second)) {
        (false, false) => (
            bound(b, "min", None, ev),
            bound(b, "max", None, ev),
            (None, None),
        ),
        (true, true) => (
            bound(b, "min", Some(&first), ev),
            bound(b, "max", Some(&second), ev),
            (Some(1), Some(2)),
        ),
        _ => return Err(unsupported(b.node)),
    };
    // One number bound: `clamp_backward` is `where(self >= min, grad, 0)` (`<= max`).
    match (&low, &high) {
        (Bound::Number(_), Bound::None) => {
            let value = b.arg("min").cloned().unwrap_or(Value::None);
            note_scalar_bound_buffers(ev, b, &low, &value);
        }
        (Bound::None, Bound::Number(_)) => {
            let value = b.arg("max").cloned().unwrap_or(Value::None);
            note_scalar_bound_buffers(ev, b, &high, &value);
        }
        _ => {}
    }
    clamp_grads(ev, b, &low, &high, slots)
}

fn clamp_min(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let bound_value = ev.saved_input(b, "min")?;
    let low = bound(b, "min", Some(&bound_value), ev);
    note_scalar_bound_buffers(ev, b, &low, &bound_value);
    clamp_grads(ev, b, &low, &Bound::None, (Some(1), None))
}

fn clamp_max(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let bound_value = ev.saved_input(b, "max")?;
    let high = bound(b, "max", Some(&bound_value), ev);
    note_scalar_bound_buffers(ev, b, &high, &bound_value);
    clamp_grads(ev, b, &Bound::None, &high, (None, Some(1)))
}

/// The buffers of `where(self >= min, grad, scalar_tensor(0))` (`<= max`) for a number
/// bound: the 0-d zero, the comparison's wrapped number (and its cast to the dtype) and its
/// bool mask; the zero and the mask are alive while the gradient is allocated.
fn note_scalar_bound_buffers(ev: &mut Evaluator, b: &Backward, bound: &Bound, value: &Value) {
    if !matches!(bound, Bound::Number(_)) || !b.needs(0) {
        return;
    }
    let Some(g) = b.grad.as_tensor() else {
        return;
    };
    let item = g.dtype.item_size() as i64;
    let cast = if g.dtype == crate::core::tensor::DType::Float64 && matches!(value, Value::Float(_))
    {
        0
    } else {
        item
    };
    let mask = g.numel().max(0);
    ev.note_kernel_events(&[item, 8, cast, mask, -8, -cast]);
    ev.note_transient((item + mask) as u64);
}

// ----- addmm -----

/// `addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)`:
/// `self: maybe_multiply(grad, beta)` (summed back to `self`'s shape), `mat1: grad.mm(mat2.t())
/// * alpha`, `mat2: mat1.t().mm(grad) * alpha`.
pub(crate) static ADDMM: Formula = Formula {
    inputs: &["self", "mat1", "mat2"],
    saves: &["mat1", "mat2"],
    args: &["beta", "alpha"],
    backward: addmm,
};

fn scaled(ev: &mut Evaluator, v: Value, by: f64) -> R<Value> {
    if by == 1.0 {
        Ok(v)
    } else {
        ev.binary(
            BinOp::Mul,
            v,
            crate::interp::torch::autograd::backward::scalar(by),
        )
    }
}

fn addmm(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let beta = arg(b, "beta", 1.0);
    let alpha = arg(b, "alpha", 1.0);
    let mut out = b.none();
    // The matrices' gradients first; the bias's is the output's gradient summed to its
    // shape afterwards (the engine's `sum_to`, after the node ran), as PyTorch allocates them.
    if b.needs(1) {
        let m1 = ev.saved_input(b, "mat1")?;
        let m2 = ev.saved_input(b, "mat2")?;
        let g = mm_mat1_backward(ev, b.g(), m1, m2)?;
        out[1] = Some(scaled(ev, g, alpha)?);
    }
    if b.needs(2) {
        let m1 = ev.saved_input(b, "mat1")?;
        let m2 = ev.saved_input(b, "mat2")?;
        let g = mm_mat2_backward(ev, b.g(), m1, m2)?;
        out[2] = Some(scaled(ev, g, alpha)?);
    }
    if b.needs(0) {
        let g = scaled(ev, b.g(), beta)?;
        out[0] = Some(ev.sum_to(g, &b.shape(0))?);
    }
    Ok(out)
}

/// Whether a matrix is column-major as ATen's `mm_mat*_backward` asks it (`strides[0] == 1
/// && strides[1] == sizes[0]`): its gradient is then made column-major too.
fn column_major(v: &Value) -> bool {
    v.as_tensor().is_some_and(|t| {
        let (shape, strides) = (t.shape(), t.strides());
        shape.len() == 2 && strides[0] == 1 && strides[1] == shape[0]
    })
}

/// ATen's `mm_mat1_backward`: `mat2.mm(grad.t()).t()` for a column-major `mat1`, else
/// `grad.mm(mat2.t())`.
pub(crate) fn mm_mat1_backward(ev: &mut Evaluator, g: Value, m1: Value, m2: Value) -> R<Value> {
    // Only `mat1`'s layout is read (ATen's node keeps its sizes and strides, not `mat1`):
    // holding it through the product would keep a freed input's bytes counted.
    let column = column_major(&m1);
    drop(m1);
    if column {
        let gt = ev.method(g, "t", vec![])?;
        let p = ev.method(m2, "mm", vec![gt])?;
        return ev.method(p, "t", vec![]);
    }
    let m2t = ev.method(m2, "t", vec![])?;
    ev.method(g, "mm", vec![m2t])
}

/// ATen's `mm_mat2_backward`: `grad.t().mm(mat1).t()` for a column-major `mat2`, else
/// `mat1.t().mm(grad)`.
pub(crate) fn mm_mat2_backward(ev: &mut Evaluator, g: Value, m1: Value, m2: Value) -> R<Value> {
    // Only `mat2`'s layout is read (see `mm_mat1_backward`).
    let column = column_major(&m2);
    drop(m2);
    if column {
        let gt = ev.method(g, "t", vec![])?;
        let p = ev.method(gt, "mm", vec![m1])?;
        return ev.method(p, "t", vec![]);
    }
    let m1t = ev.method(m1, "t", vec![])?;
    ev.method(m1t, "mm", vec![g])
}

// ----- embedding -----

/// `embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq)`
/// as `F.embedding(input, weight, padding_idx, ...)` calls it: the weight's gradient sums
/// the output's gradient rows at their indices, in index order (the padding row gets none).
pub(crate) static EMBEDDING: Formula = Formula {
    inputs: &["indices", "weight"],
    saves: &["indices"],
    args: &["padding_idx", "scale_grad_by_freq"],
    backward: embedding,
};

fn embedding(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(1) {
        return Ok(out);
    }
    let weight_shape = b.shape(1);
    let [rows, dim] = weight_shape[..] else {
        return Err(unsupported(b.node));
    };
    let padding = b.arg("padding_idx").and_then(number).map(|p| {
        let p = p as i64;
        if p < 0 {
            p + rows
        } else {
            p
        }
    });
    let by_freq = matches!(b.arg("scale_grad_by_freq"), Some(Value::Bool(true)));
    if let Some(dw) = meta_grad(ev, &weight_shape, shape_dtype(b.grad).1)? {
        out[1] = Some(dw);
        return Ok(out);
    }
    let indices = ev.saved_input(b, "indices")?;
    let indices: Vec<i64> = ev.host(&indices).values.iter().map(|&i| i as i64).collect();
    let g = ev.host(b.grad);
    let round = |v: f64| g.dtype.round(Scalar::Float(v)).to_f64();
    let (rows_u, dim_u) = (rows.max(0) as usize, dim.max(0) as usize);
    let mut counts = vec![0usize; rows_u];
    for &i in &indices {
        if let Some(c) = usize::try_from(i).ok().and_then(|i| counts.get_mut(i)) {
            *c += 1;
        }
    }
    let mut dw = vec![0.0; rows_u * dim_u];
    for (k, &i) in indices.iter().enumerate() {
        if Some(i) == padding || i < 0 || i >= rows {
            continue;
        }
        let i = i as usize;
        let scale = if by_freq { 1.0 / counts[i] as f64 } else { 1.0 };
        for d in 0..dim_u {
            let gv = g.values.get(k * dim_u + d).copied().unwrap_or(0.0);
            let slot = &mut dw[i * dim_u + d];
            *slot = round(*slot + round(gv * scale));
        }
    }
    out[1] = Some(ev.host_tensor(&weight_shape, g.dtype, &dw)?);
    Ok(out)
}

// ----- bilinear -----

/// `bilinear(input1, input2, weight, bias)`: `y[b, o] = Σ x1[b, i] W[o, i, j] x2[b, j] +
/// bias[o]` over the flattened batch `b`, each gradient summed in double precision.
pub(crate) static BILINEAR: Formula = Formula {
    inputs: &["input1", "input2", "weight", "bias"],
    saves: &["input1", "input2", "weight"],
    args: &[],
    backward: bilinear,
};

fn bilinear(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    let x1 = ev.saved_input(b, "input1")?;
    let x1 = ev.host(&x1);
    let x2 = ev.saved_input(b, "input2")?;
    let x2 = ev.host(&x2);
    let w = ev.saved_input(b, "weight")?;
    let w = ev.host(&w);
    let g = ev.host(b.grad);
    let [o_n, i_n, j_n] = w.shape[..] else {
        return Err(unsupported(b.node));
    };
    let (o_n, i_n, j_n) = (o_n as usize, i_n as usize, j_n as usize);
    let batch = g.values.len() / o_n.max(1);
    // The saved inputs must still hold the forward's elements (a `resize_` would not).
    if x1.values.len() != batch * i_n
        || x2.values.len() != batch * j_n
        || w.values.len() != o_n * i_n * j_n
        || g.values.len() != batch * o_n
    {
        return Err(unsupported(b.node));
    }
    let w_at = |o: usize, i: usize, j: usize| w.values[(o * i_n + i) * j_n + j];
    let mut d1 = vec![0.0; batch * i_n];
    let mut d2 = vec![0.0; batch * j_n];
    let mut dw = vec![0.0; o_n * i_n * j_n];
    let mut db = vec![0.0; o_n];
    for n in 0..batch {
        for o in 0..o_n {
            let gv = g.values[n * o_n + o];
            db[o] += gv;
            for i in 0..i_n {
                let a = x1.values[n * i_n + i];
                for j in 0..j_n {
                    let c = x2.values[n * j_n + j];
                    let wv = w_at(o, i, j);
                    d1[n * i_n + i] += gv * wv * c;
                    d2[n * j_n + j] += gv * wv * a;
                    dw[(o * i_n + i) * j_n + j] += gv * a * c;
                }
            }
        }
    }
    let grads = [
        (0, x1.shape.clone(), d1),
        (1, x2.shape.clone(), d2),
        (2, w.shape.clone(), dw),
        (3, vec![o_n as i64], db),
    ];
    for (slot, shape, values) in grads {
        if b.needs(slot) {
            out[slot] = Some(ev.host_tensor(&shape, g.dtype, &values)?);
        }
    }
    if b.needs(3) {
        let bias_shape = b.shape(3);
        if let Some(v) = out[3].take() {
            out[3] = Some(ev.method(v, "reshape", vec![shape_value(&bias_shape)])?);
        }
    }
    Ok(out)
}
