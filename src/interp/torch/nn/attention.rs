//! `F.scaled_dot_product_attention` as PyTorch 2.15 runs it on the CPU
//! (`aten/src/ATen/native/transformers/attention.cpp`, `sdp_utils_cpp.cpp`):
//! - the fused flash kernel (`_scaled_dot_product_flash_attention_for_cpu`) when its
//!   constraints hold: no dropout, 3-D or 4-D query, key and value with the same batch,
//!   heads and head size, unit last strides, a mask that broadcasts as the kernel reads it.
//!   One `ScaledDotProductFlashAttentionForCpuBackward0` node keeps `query, key, value,
//!   output, logsumexp` (and the mask); the output takes the query's layout, the logsumexp is
//!   a `(B, L, H)` buffer seen as `(B, H, L)`, and the kernel's per-thread scratch
//!   ([`flash_scratch_bytes`]) lives while it runs;
//! - otherwise the math fallback, the ops ATen composes, each with its own node:
//!   `query * √scale` and `key.mT * √scale` (`MulBackward1`: a C++ scalar, nothing saved),
//!   `matmul`, the mask added in place, `_safe_softmax` (`SafeSoftmaxBackward0`: rows that
//!   are all `-inf` give zeros), `dropout`, `matmul`.
//!
//! A boolean mask becomes the query's dtype first (`0` where it is `True`, `-inf` where it is
//! `False`), as `convert_boolean_attn_mask` does.

use std::rc::Rc;

use crate::core::tensor::layout::infer_dense_strides;
use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::formulas::Backward;
use crate::interp::torch::autograd::{number, Formula, Grad, GradOp, Saved};
use crate::interp::torch::nn::functional::{functional, tensor_arg};
use crate::interp::torch::nn::norm_kernel::ATEN_THREADS;
use crate::interp::torch::registry::{OpCall, OpDef};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[functional(
    &["scaled_dot_product_attention"],
    &["query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False"],
    sdpa,
    Grad::UNTRACKED,
)];

/// The flash kernel's node.
static FLASH_GRAD: Grad = Grad::named("ScaledDotProductFlashAttentionForCpuBackward0", &FLASH);

/// `_scaled_dot_product_flash_attention_for_cpu`'s formula: it keeps its inputs and output
/// (`output`, the node's result), the logsumexp and the mask as extras.
pub(crate) static FLASH: Formula = Formula {
    inputs: &["query", "key", "value"],
    saves: &["query", "key", "value", "result"],
    args: &["dropout_p", "is_causal", "scale"],
    backward: flash_backward,
};

/// What a call asked for, beyond the three tensors.
struct Options {
    mask: Option<TensorRef>,
    dropout_p: f64,
    is_causal: bool,
    scale: Option<f64>,
}

/// Calls `v.name(*pos)`.
fn call_method(ev: &mut Evaluator, v: &Value, name: &str, pos: Vec<Value>) -> R<Value> {
    ev.call(Value::Method(Box::new(v.clone()), name.into()), pos, vec![])
}

/// C++'s name of a dtype in ATen's messages (`float`, `c10::Half`).
fn cpp_dtype(d: DType) -> String {
    match d {
        DType::Float32 => "float".into(),
        DType::Float64 => "double".into(),
        DType::Float16 => "c10::Half".into(),
        DType::BFloat16 => "c10::BFloat16".into(),
        DType::Int64 => "long int".into(),
        DType::Int32 => "int".into(),
        DType::Bool => "bool".into(),
        other => other.name().to_string(),
    }
}

fn sdpa(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let (q, k, v) = (
        tensor_arg(call, "query")?,
        tensor_arg(call, "key")?,
        tensor_arg(call, "value")?,
    );
    let mask = match call.value("attn_mask") {
        None | Some(Value::None) => None,
        Some(Value::Tensor(t)) => Some(Rc::clone(t)),
        Some(other) => {
            return Err(ScriptError::Type(format!(
                "scaled_dot_product_attention(): argument 'attn_mask' must be Tensor, not {}",
                other.type_name()
            )))
        }
    };
    let scale = match call.value("scale") {
        None | Some(Value::None) => None,
        Some(s) => Some(number(s).ok_or_else(|| {
            ScriptError::Type(format!(
                "scaled_dot_product_attention(): argument 'scale' must be float, not {}",
                s.type_name()
            ))
        })?),
    };
    let opts = Options {
        mask,
        dropout_p: ev.arg_float(call, "dropout_p", 0.0)?,
        is_causal: call.flag("is_causal", false),
        scale,
    };
    let (qt, kt, vt) = (
        q.borrow().tensor.clone(),
        k.borrow().tensor.clone(),
        v.borrow().tensor.clone(),
    );
    validate(&qt, &kt, &vt, &opts)?;
    let mask = match &opts.mask {
        Some(m) if m.borrow().tensor.dtype == DType::Bool => {
            let m = m.borrow().tensor.clone();
            Some(float_mask(ev, &m, qt.dtype)?)
        }
        Some(m) => Some(Value::Tensor(Rc::clone(m))),
        None => None,
    };
    let (q, k, v) = (Value::Tensor(q), Value::Tensor(k), Value::Tensor(v));
    if flash_fits(&qt, &kt, &vt, mask.as_ref(), &opts) {
        if qt.ndim() == 3 {
            let un = |ev: &mut Evaluator, x: &Value| {
                call_method(ev, x, "unsqueeze", vec![Value::Int(0)])
            };
            let (q4, k4, v4) = (un(ev, &q)?, un(ev, &k)?, un(ev, &v)?);
            let out = flash(ev, &q4, &k4, &v4, mask.as_ref(), &opts)?;
            return call_method(ev, &out, "squeeze", vec![Value::Int(0)]);
        }
        return flash(ev, &q, &k, &v, mask.as_ref(), &opts);
    }
    math(ev, &q, &k, &v, mask, &opts)
}

/// `validate_sdpa_input`'s checks, with its messages.
fn validate(q: &Tensor, k: &Tensor, v: &Tensor, opts: &Options) -> R<()> {
    if q.dtype != k.dtype || q.dtype != v.dtype {
        return Err(ScriptError::Runtime(format!(
            "Expected query, key, and value to have the same dtype, but got query.dtype: {} key.dtype: {} and value.dtype: {} instead.",
            cpp_dtype(q.dtype),
            cpp_dtype(k.dtype),
            cpp_dtype(v.dtype)
        )));
    }
    if q.ndim() < 2 || k.ndim() < 2 || v.ndim() < 2 {
        return Err(ScriptError::Runtime(format!(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: {} key.dim: {} and value.dim: {} instead.",
            q.ndim(),
            k.ndim(),
            v.ndim()
        )));
    }
    if let Some(m) = &opts.mask {
        let md = m.borrow().tensor.dtype;
        if md != DType::Bool && md != q.dtype {
            return Err(ScriptError::Runtime(format!(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: {} and  query.dtype: {} instead.",
                cpp_dtype(md),
                cpp_dtype(q.dtype)
            )));
        }
        if opts.is_causal {
            return Err(ScriptError::Runtime(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True".into(),
            ));
        }
    }
    Ok(())
}

/// `convert_boolean_attn_mask`: `where(mask, 0, -inf)` in `dtype` (two 0-d scalars live
/// while the result is allocated).
fn float_mask(ev: &mut Evaluator, mask: &Tensor, dtype: DType) -> R<Value> {
    let item = dtype.item_size() as u64;
    ev.note_transient(item);
    ev.note_transient(item);
    let values: Vec<Scalar> = if crate::interp::torch::nn::conv::meta_op(ev) {
        vec![]
    } else {
        ev.nn_read_host(mask)
            .iter()
            .map(|&b| Scalar::Float(if b != 0.0 { 0.0 } else { f64::NEG_INFINITY }))
            .collect()
    };
    let out = ev.empty(
        mask.shape(),
        dtype,
        MemoryFormat::Contiguous,
        "scaled_dot_product_attention",
    )?;
    ev.end_transient();
    if !values.is_empty() {
        ev.nn_write_host(&out, &values);
    }
    Ok(Value::tensor(out, "scaled_dot_product_attention", None))
}

fn last(t: &Tensor, from_end: usize) -> i64 {
    let s = t.shape();
    s.get(s.len().wrapping_sub(from_end)).copied().unwrap_or(0)
}

/// `use_flash_attention_cpp`: whether the fused kernel takes the call.
fn flash_fits(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Value>, opts: &Options) -> bool {
    let nd = q.ndim();
    let dtype_ok = matches!(
        q.dtype,
        DType::Float32 | DType::Float64 | DType::Float16 | DType::BFloat16
    );
    let dims_ok = (nd == 3 || nd == 4) && k.ndim() == nd && v.ndim() == nd;
    if !dtype_ok || !dims_ok || opts.dropout_p > 0.0 {
        return false;
    }
    let lead = |t: &Tensor| t.shape()[..nd - 2].to_vec();
    let same_lead = lead(q) == lead(k) && lead(q) == lead(v);
    let head = last(q, 1) == last(k, 1) && last(q, 1) == last(v, 1);
    let nonzero = q
        .shape()
        .iter()
        .chain(k.shape())
        .chain(v.shape())
        .all(|&n| n > 0);
    let unit_stride = [q, k, v].iter().all(|t| t.strides().last() == Some(&1));
    if !(same_lead && head && nonzero && unit_stride) {
        return false;
    }
    let Some(Value::Tensor(m)) = mask else {
        return true;
    };
    let Ok(m) = m.try_borrow() else {
        return false;
    };
    if m.requires_grad || m.grad_fn.is_some() {
        return false;
    }
    let ms = m.tensor.shape();
    let (l, s) = (last(q, 2), last(k, 2));
    let rows_ok = |n: i64, want: i64| n == want || n == 1;
    if ms.len() < 2 || !rows_ok(ms[ms.len() - 2], l) || !rows_ok(ms[ms.len() - 1], s) {
        return false;
    }
    match ms.len() {
        2 => true,
        4 if nd == 4 => rows_ok(ms[0], q.shape()[0]) && rows_ok(ms[1], q.shape()[1]),
        _ => false,
    }
}

/// The bytes of the flash kernel's scratch: per thread, `qk`, its row maxima and sums and the
/// output block in the accumulation dtype (`q_split * kv_split + 2 * q_split + q_split *
/// head`), plus, for half types, a `q_split * kv_split` block in the input dtype. The query
/// block is 32 rows (64 from 192 rows, 256 from 768), the key block up to 512.
pub(crate) fn flash_scratch_bytes(dtype: DType, l: i64, s: i64, head: i64) -> (u64, u64) {
    let (block, q_split) = flash_split(l, s);
    let q_split = q_split as u64;
    let kv_split = (block as u64).checked_div(q_split).unwrap_or(0);
    let head = head.max(0) as u64;
    let accum = if dtype == DType::Float64 { 8 } else { 4 };
    let threads = ATEN_THREADS as u64;
    let per_thread = q_split * kv_split + 2 * q_split + q_split * head;
    let reduced = if matches!(dtype, DType::Float16 | DType::BFloat16) {
        threads * q_split * kv_split * 2
    } else {
        0
    };
    (threads * per_thread * accum, reduced)
}

/// The flash kernels' blocks for `l` query rows and `s` keys: the query block is 32 rows
/// (64 from 192 rows, 256 from 768), the key block up to 512; returns (`q_split * kv_split`,
/// `q_split`).
fn flash_split(l: i64, s: i64) -> (i64, i64) {
    let q_split = if l >= 768 {
        256
    } else if l >= 192 {
        64
    } else {
        32
    };
    let q_split = q_split.min(l).max(0);
    let kv_split = s.clamp(0, 512);
    (q_split * kv_split, q_split)
}

/// The mask's value for query row `i`, key column `j` of batch `b`, head `h` (broadcast).
fn mask_at(mask: &(Vec<i64>, Vec<f64>), b: usize, h: usize, i: usize, j: usize) -> f64 {
    let (shape, values) = mask;
    let idx = [b, h, i, j];
    let n = shape.len();
    let mut flat = 0usize;
    for (d, &size) in shape.iter().enumerate() {
        let at = if size == 1 { 0 } else { idx[4 - n + d] };
        flat = flat * size as usize + at;
    }
    values.get(flat).copied().unwrap_or(0.0)
}

/// One attention problem read from the host: `(B, H, L, E)` queries, `(B, H, S, E)` keys,
/// `(B, H, S, Ev)` values, row-major.
struct Problem {
    dims: [usize; 4],
    s: usize,
    ev: usize,
    q: Vec<f64>,
    k: Vec<f64>,
    v: Vec<f64>,
    mask: Option<(Vec<i64>, Vec<f64>)>,
    causal: bool,
    scale: f64,
}

impl Problem {
    /// The softmax probabilities of row `i` of head `(b, h)` (zeros where all is masked).
    fn probs(&self, b: usize, h: usize, i: usize) -> (Vec<f64>, f64) {
        let [bs, hs, l, e] = self.dims;
        let _ = (bs, l);
        let base_q = ((b * hs + h) * l + i) * e;
        let mut scores = vec![f64::NEG_INFINITY; self.s];
        for (j, sc) in scores.iter_mut().enumerate() {
            if self.causal && j > i {
                continue;
            }
            let base_k = ((b * hs + h) * self.s + j) * e;
            let dot: f64 = (0..e)
                .map(|x| self.q[base_q + x] * self.k[base_k + x])
                .sum();
            let m = self.mask.as_ref().map_or(0.0, |m| mask_at(m, b, h, i, j));
            *sc = dot * self.scale + m;
        }
        let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if max == f64::NEG_INFINITY {
            return (vec![0.0; self.s], f64::NEG_INFINITY);
        }
        let exps: Vec<f64> = scores.iter().map(|&x| (x - max).exp()).collect();
        let sum: f64 = exps.iter().sum();
        (exps.iter().map(|x| x / sum).collect(), max + sum.ln())
    }
}

impl Evaluator {
    /// The host values of an attention call's operands, as the node or the call holds them.
    fn attention_problem(
        &mut self,
        q: &Tensor,
        k: &Tensor,
        v: &Tensor,
        mask: Option<&Tensor>,
        causal: bool,
        scale: Option<f64>,
    ) -> Problem {
        let dim = |t: &Tensor, i: usize| t.shape().get(i).copied().unwrap_or(1).max(0) as usize;
        let e = dim(q, 3);
        Problem {
            dims: [dim(q, 0), dim(q, 1), dim(q, 2), e],
            s: dim(k, 2),
            ev: dim(v, 3),
            q: self.nn_read_host(q),
            k: self.nn_read_host(k),
            v: self.nn_read_host(v),
            mask: mask.map(|m| (m.shape().to_vec(), self.nn_read_host(m))),
            causal,
            scale: scale.unwrap_or(1.0 / (e as f64).sqrt()),
        }
    }
}

/// The fused kernel on 4-D operands: output in the query's layout, the logsumexp, the node.
fn flash(
    ev: &mut Evaluator,
    q: &Value,
    k: &Value,
    v: &Value,
    mask: Option<&Value>,
    opts: &Options,
) -> R<Value> {
    let tensor = |x: &Value| x.as_tensor();
    let (Some(qt), Some(kt), Some(vt)) = (tensor(q), tensor(k), tensor(v)) else {
        return Err(ScriptError::Runtime(
            "scaled_dot_product_attention: no tensors".into(),
        ));
    };
    let name = "scaled_dot_product_attention";
    let shape = qt.shape().to_vec();
    let (b, h, l, e) = (shape[0], shape[1], shape[2], shape[3]);
    let out = ev.empty_strided(
        &shape,
        &infer_dense_strides(&shape, qt.strides()),
        qt.dtype,
        name,
    )?;
    let accum = if qt.dtype == DType::Float64 {
        DType::Float64
    } else {
        DType::Float32
    };
    let lse_base = ev.empty(&[b, l, h], accum, MemoryFormat::Contiguous, name)?;
    let (scratch, reduced) = flash_scratch_bytes(qt.dtype, l, last(&kt, 2), e);
    ev.note_transient(scratch);
    if reduced > 0 {
        ev.note_transient(reduced);
    }
    ev.end_transient();
    let lse_view = Tensor {
        layout: crate::core::tensor::Layout {
            shape: vec![b, h, l],
            strides: vec![l * h, 1, h],
            offset: 0,
        },
        ..lse_base.clone()
    };
    if !crate::interp::torch::nn::conv::meta_op(ev) {
        let mask_t = mask.and_then(|m| m.as_tensor());
        let p = ev.attention_problem(&qt, &kt, &vt, mask_t.as_ref(), opts.is_causal, opts.scale);
        let [bs, hs, ls, _] = p.dims;
        let mut outs = Vec::with_capacity(bs * hs * ls * p.ev);
        let mut lses = Vec::with_capacity(bs * hs * ls);
        for bi in 0..bs {
            for hi in 0..hs {
                for i in 0..ls {
                    let (probs, lse) = p.probs(bi, hi, i);
                    for x in 0..p.ev {
                        let acc: f64 = probs
                            .iter()
                            .enumerate()
                            .map(|(j, w)| w * p.v[((bi * hs + hi) * p.s + j) * p.ev + x])
                            .sum();
                        outs.push(qt.dtype.round(Scalar::Float(acc)));
                    }
                    lses.push(accum.round(Scalar::Float(lse)));
                }
            }
        }
        ev.nn_write_host(&out, &outs);
        ev.nn_write_host(&lse_view, &lses);
    }
    let out_v = Value::tensor(out, name, None);
    let lse_v = Value::tensor(lse_view, name, None);
    let dropout = Value::Float(0.0);
    let causal = Value::Bool(opts.is_causal);
    let scale = opts.scale.map_or(Value::None, Value::Float);
    let args: [(&str, &Value); 3] = [
        ("dropout_p", &dropout),
        ("is_causal", &causal),
        ("scale", &scale),
    ];
    ev.record_grad(
        GradOp::Named {
            name,
            grad: &FLASH_GRAD,
            args: &args,
        },
        &[q, k, v],
        &out_v,
    );
    let mut extras: Vec<(&'static str, &Value)> = Vec::new();
    if let Some(m) = mask {
        extras.push(("attn_mask", m));
    }
    extras.push(("logsumexp", &lse_v));
    ev.save_extras(&out_v, &extras);
    Ok(out_v)
}

/// `_scaled_dot_product_attention_math`: the ops ATen composes.
fn math(
    ev: &mut Evaluator,
    q: &Value,
    k: &Value,
    v: &Value,
    mask: Option<Value>,
    opts: &Options,
) -> R<Value> {
    let (qt, kt) = match (q.as_tensor(), k.as_tensor()) {
        (Some(q), Some(k)) => (q.clone(), k.clone()),
        _ => {
            return Err(ScriptError::Runtime(
                "scaled_dot_product_attention: no tensors".into(),
            ))
        }
    };
    let e = last(&qt, 1);
    let scale = opts.scale.unwrap_or(1.0 / (e as f64).sqrt());
    let factor = scale.abs().sqrt();
    let q_factor = if scale < 0.0 { 0.0 - factor } else { factor };
    let q2 = scalar_mul(ev, q, q_factor)?;
    let mut mask = mask;
    if opts.is_causal {
        let (l, s) = (last(&qt, 2), last(&kt, 2));
        let n = (l.max(0) * s.max(0)) as usize;
        // `ones(L, S, bool).tril()`, then converted to the query's dtype.
        ev.note_transient(n as u64);
        let values: Vec<f64> = (0..n)
            .map(|x| {
                if (x as i64 % s.max(1)) <= x as i64 / s.max(1) {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        let item = qt.dtype.item_size() as u64;
        ev.note_transient(item);
        ev.note_transient(item);
        let t = ev.empty(
            &[l, s],
            qt.dtype,
            MemoryFormat::Contiguous,
            "scaled_dot_product_attention",
        )?;
        ev.end_transient();
        if !crate::interp::torch::nn::conv::meta_op(ev) {
            let conv: Vec<Scalar> = values
                .iter()
                .map(|&b| Scalar::Float(if b != 0.0 { 0.0 } else { f64::NEG_INFINITY }))
                .collect();
            ev.nn_write_host(&t, &conv);
        }
        mask = Some(Value::tensor(t, "scaled_dot_product_attention", None));
    }
    let k_t = call_method(ev, k, "transpose", vec![Value::Int(-2), Value::Int(-1)])?;
    let k2 = scalar_mul(ev, &k_t, factor)?;
    let attn = call_method(ev, &q2, "matmul", vec![k2])?;
    if let Some(m) = &mask {
        call_method(ev, &attn, "add_", vec![m.clone()])?;
    }
    let scores = attn;
    let mut attn = safe_softmax(ev, &scores)?;
    // The scores die as `attn` is rebound in ATen: before the dropout allocates.
    drop(scores);
    if opts.dropout_p > 0.0 {
        attn = crate::interp::torch::nn::layers::functional(
            ev,
            "dropout",
            vec![attn, Value::Float(opts.dropout_p)],
            vec![("training".into(), Value::Bool(true))],
        )?;
    }
    call_method(ev, &attn, "matmul", vec![v.clone()])
}

/// `tensor * factor` where the factor is a C++ scalar: a `MulBackward1` node, which keeps
/// the number, not a tensor.
fn scalar_mul(ev: &mut Evaluator, x: &Value, factor: f64) -> R<Value> {
    let out = call_method(ev, x, "mul", vec![Value::Float(factor)])?;
    ev.rename_node(&out, "MulBackward1");
    Ok(out)
}

/// `_safe_softmax(x, -1)`: a softmax whose rows of only `-inf` are zeros; while it runs, the
/// `isneginf` mask, its `all` over the rows and a 0-d zero are alive.
fn safe_softmax(ev: &mut Evaluator, x: &Value) -> R<Value> {
    let out = call_method(ev, x, "softmax", vec![Value::Int(-1)])?;
    ev.rename_node(&out, "SafeSoftmaxBackward0");
    let Some(t) = x.as_tensor() else {
        return Ok(out);
    };
    let numel = t.numel().max(0) as u64;
    let row = last(&t, 1).max(1) as u64;
    ev.note_transient(numel);
    ev.note_transient(numel / row);
    ev.note_transient(t.dtype.item_size() as u64);
    ev.end_transient();
    if crate::interp::torch::nn::conv::meta_op(ev) || numel == 0 {
        return Ok(out);
    }
    let input = ev.nn_read_host(&t);
    let masked_rows: Vec<usize> = input
        .chunks(row as usize)
        .enumerate()
        .filter(|(_, r)| r.iter().all(|&v| v == f64::NEG_INFINITY))
        .map(|(i, _)| i)
        .collect();
    if masked_rows.is_empty() {
        return Ok(out);
    }
    if let Some(o) = out.as_tensor() {
        let mut values: Vec<Scalar> = ev.nn_read_host(&o).into_iter().map(Scalar::Float).collect();
        for r in masked_rows {
            for v in values.iter_mut().skip(r * row as usize).take(row as usize) {
                *v = Scalar::Float(0.0);
            }
        }
        ev.nn_write_host(&o, &values);
    }
    Ok(out)
}

/// The flash node's backward: with `P = softmax(q kᵀ · scale + mask)`, `dV = Pᵀ dO`,
/// `dS = P ∘ (dO Vᵀ - rowsum(P ∘ dO Vᵀ))`, `dQ = dS K · scale`, `dK = dSᵀ Q · scale`.
fn flash_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    let tensor_of = |v: Value| match v {
        Value::Tensor(t) => Some(t.borrow().tensor.clone()),
        _ => None,
    };
    let q = tensor_of(ev.saved_input(b, "query")?);
    let k = tensor_of(ev.saved_input(b, "key")?);
    let v = tensor_of(ev.saved_input(b, "value")?);
    let (Some(q), Some(k), Some(v)) = (q, k, v) else {
        return Ok(out);
    };
    let grad = match b.grad {
        Value::Tensor(g) => g.borrow().tensor.clone(),
        _ => return Ok(out),
    };
    let name = "backward";
    let shapes = [q.shape().to_vec(), k.shape().to_vec(), v.shape().to_vec()];
    if crate::interp::torch::nn::conv::meta_op(ev) {
        for (i, slot) in out.iter_mut().enumerate().take(3) {
            if b.needs(i) {
                let t = ev.empty(&shapes[i], q.dtype, MemoryFormat::Contiguous, name)?;
                *slot = Some(Value::tensor(t, name, None));
            }
        }
        return Ok(out);
    }
    let mask = b.node.extras.get().and_then(|extras| {
        extras.iter().find_map(|(slot, saved)| match (slot, saved) {
            (&"attn_mask", Saved::Tensor(s)) => Some(s.tensor.clone()),
            _ => None,
        })
    });
    let causal = matches!(b.arg("is_causal"), Some(Value::Bool(true)));
    let scale = b.arg("scale").and_then(number);
    let p = ev.attention_problem(&q, &k, &v, mask.as_ref(), causal, scale);
    let d_out = ev.nn_read_host(&grad);
    let [bs, hs, l, e] = p.dims;
    let (s, evd) = (p.s, p.ev);
    let mut dq = vec![0.0; bs * hs * l * e];
    let mut dk = vec![0.0; bs * hs * s * e];
    let mut dv = vec![0.0; bs * hs * s * evd];
    for bi in 0..bs {
        for hi in 0..hs {
            let head = bi * hs + hi;
            for i in 0..l {
                let (probs, _) = p.probs(bi, hi, i);
                let go = &d_out[(head * l + i) * evd..(head * l + i + 1) * evd];
                let dp: Vec<f64> = (0..s)
                    .map(|j| {
                        let vj = &p.v[(head * s + j) * evd..(head * s + j + 1) * evd];
                        go.iter().zip(vj).map(|(a, b)| a * b).sum()
                    })
                    .collect();
                let row: f64 = probs.iter().zip(&dp).map(|(a, b)| a * b).sum();
                for j in 0..s {
                    for x in 0..evd {
                        dv[(head * s + j) * evd + x] += probs[j] * go[x];
                    }
                    let ds = probs[j] * (dp[j] - row) * p.scale;
                    if ds == 0.0 {
                        continue;
                    }
                    for x in 0..e {
                        dq[(head * l + i) * e + x] += ds * p.k[(head * s + j) * e + x];
                        dk[(head * s + j) * e + x] += ds * p.q[(head * l + i) * e + x];
                    }
                }
            }
        }
    }
    // ATen allocates each gradient as zeros in (B, L, H, E) order and returns it transposed
    // to (B, H, L, E): a head's rows interleave with the other heads', as in the forward's
    // output, so a `transpose(1, 2)` and `view` behind it need no copy.
    for (i, values) in [dq, dk, dv].into_iter().enumerate() {
        let [n, h, rows, width] = [shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]];
        let mut scalars = Vec::with_capacity(values.len());
        for bi in 0..n {
            for r in 0..rows {
                for hi in 0..h {
                    let at = ((bi * h + hi) * rows + r) * width;
                    scalars.extend(
                        values[at as usize..(at + width) as usize]
                            .iter()
                            .map(|&x| q.dtype.round(Scalar::Float(x))),
                    );
                }
            }
        }
        let base = ev.tensor_from_values(&[n, rows, h, width], q.dtype, &scalars, name)?;
        let t = Tensor {
            layout: crate::core::tensor::Layout {
                shape: shapes[i].clone(),
                strides: vec![rows * h * width, width, h * width, 1],
                offset: 0,
            },
            ..base
        };
        out[i] = Some(Value::tensor(t, name, None));
    }
    // Then the kernel's buffers: a contiguous copy of the incoming gradient unless its
    // (B, L, H, E) transpose is contiguous already, the per-thread `attn` and `grad_attn`
    // blocks (and their reduced-precision twins for half types), one thread's `dsum` row.
    let [gn, gh, gl, ge] = [shapes[0][0], shapes[0][1], shapes[0][2], evd as i64];
    let transposed_contiguous = {
        let st = grad.strides();
        let dims = [(gn, st[0]), (gl, st[2]), (gh, st[1]), (ge, st[3])];
        let mut expected = 1;
        let mut ok = true;
        for (size, stride) in dims.iter().rev() {
            if *size != 1 && *stride != expected {
                ok = false;
            }
            expected *= size;
        }
        ok
    };
    let item = q.dtype.item_size() as i64;
    let copy = if transposed_contiguous {
        0
    } else {
        grad.numel() * grad.dtype.item_size() as i64
    };
    let (block, _) = flash_split(l as i64, s as i64);
    let accum = if q.dtype == DType::Float64 { 8 } else { 4 };
    let threads = ATEN_THREADS as i64;
    let buf = threads * 2 * block * accum;
    let reduced = if matches!(q.dtype, DType::Float16 | DType::BFloat16) {
        threads * 2 * block * item
    } else {
        0
    };
    let dsum = flash_split(l as i64, s as i64).1 * accum;
    ev.note_kernel_events(&[copy, buf, reduced, dsum, -dsum, -reduced, -buf, -copy]);
    Ok(out)
}
