//! `F.embedding_bag` (and `torch.embedding_bag`'s CPU kernel `_embedding_bag`): the checks of
//! `torch/nn/functional.py` in its order, the bags' sums, means and maxima as ATen's CPU
//! kernels compute them (a float sum in index order, the mean divided by the bag's size, the
//! first maximum), the four outputs ATen allocates (`offset2bag`, `bag_size`, `max_indices`,
//! which `EmbeddingBagBackward0` keeps as `result1..3`, or which are dropped at once) with
//! the kernel's scratch buffers between them, and the dense backward (`sort`,
//! `index_select`, `axpy` into a zeroed gradient, or `index_add_` per column for `max`).

use crate::core::tensor::layout::list_str;
use crate::core::tensor::{DType, Layout, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::{Grad, GradOp};
use crate::interp::torch::nn::functional::functional;
use crate::interp::torch::registry::{OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[functional(
    &["embedding_bag"],
    &["input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None"],
    embedding_bag,
    Grad::UNTRACKED,
)];

const SUM: i64 = 0;
const MEAN: i64 = 1;
const MAX: i64 = 2;

fn value_error(message: String) -> ScriptError {
    ScriptError::Value(message)
}

fn tensor_value(call: &OpCall, name: &str, position: usize) -> R<Value> {
    match call.value(name) {
        Some(v @ Value::Tensor(_)) => Ok(v.clone()),
        other => Err(ScriptError::Attribute(format!(
            "'{}' object has no attribute '{}'",
            other.map_or("NoneType".into(), Value::type_name),
            if position == 1 { "size" } else { "dtype" }
        ))),
    }
}

fn tensor(v: &Value) -> R<Tensor> {
    v.as_tensor()
        .ok_or_else(|| ScriptError::Runtime("embedding_bag: a tensor is missing".into()))
}

/// `F.embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
/// scale_grad_by_freq=False, mode='mean', sparse=False, per_sample_weights=None,
/// include_last_offset=False, padding_idx=None)`.
fn embedding_bag(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let mut input = tensor_value(call, "input", 1)?;
    let weight = tensor_value(call, "weight", 2)?;
    let mut offsets = call.value("offsets").cloned().unwrap_or(Value::None);
    let mut psw = call
        .value("per_sample_weights")
        .cloned()
        .unwrap_or(Value::None);
    let mut include_last = match call.value("include_last_offset") {
        Some(v) => {
            let v = v.clone();
            ev.truthy(&v)?
        }
        None => false,
    };
    let x = tensor(&input)?;
    let w = tensor(&weight)?;
    if let Value::Tensor(p) = &psw {
        let ps = p.borrow().tensor.shape().to_vec();
        if ps != x.shape() {
            return Err(value_error(format!(
                "embedding_bag: If per_sample_weights (torch.Size({})) is not None, then it must have the same shape as the input (torch.Size({}))",
                list_str(&ps),
                list_str(x.shape())
            )));
        }
    }
    if w.ndim() != 2 {
        return Err(value_error(format!(
            "weight has to be a 2D Tensor, but got Tensor of dimension {}",
            w.ndim()
        )));
    }
    match x.ndim() {
        2 => {
            if !matches!(offsets, Value::None) {
                return Err(value_error(format!(
                    "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type <class '{}'>",
                    python_type(&offsets)
                )));
            }
            let (numel, step) = (x.numel(), x.shape()[1]);
            let kw = vec![("dtype".to_string(), Value::DType(x.dtype))];
            offsets = ev.call(
                Value::Method(Box::new(Value::Torch), "arange".into()),
                vec![Value::Int(0), Value::Int(numel), Value::Int(step)],
                kw,
            )?;
            include_last = false;
            input = ev.method(input, "reshape", vec![Value::Int(-1)])?;
            if !matches!(psw, Value::None) {
                psw = ev.method(psw, "reshape", vec![Value::Int(-1)])?;
            }
        }
        1 => match &offsets {
            Value::None => {
                return Err(value_error(
                    "offsets has to be a 1D Tensor but got None".into(),
                ))
            }
            Value::Tensor(t) if t.borrow().tensor.ndim() != 1 => {
                return Err(value_error("offsets has to be a 1D Tensor".into()))
            }
            _ => {}
        },
        n => {
            return Err(value_error(format!(
                "input has to be 1D or 2D Tensor, but got Tensor of dimension {n}"
            )))
        }
    }
    let mode_value = call.value("mode").cloned();
    let mode = match &mode_value {
        None => MEAN,
        Some(Value::Str(m)) if m == "sum" => SUM,
        Some(Value::Str(m)) if m == "mean" => MEAN,
        Some(Value::Str(m)) if m == "max" => MAX,
        _ => return Err(value_error("mode has to be one of sum, mean or max".into())),
    };
    let flag = |ev: &mut Evaluator, name: &str| -> R<bool> {
        match call.value(name) {
            Some(v) => {
                let v = v.clone();
                ev.truthy(&v)
            }
            None => Ok(false),
        }
    };
    let scale_by_freq = flag(ev, "scale_grad_by_freq")?;
    let sparse = flag(ev, "sparse")?;
    if mode == MAX && scale_by_freq {
        return Err(value_error(
            "max mode does not support scaling the gradient by the frequency".into(),
        ));
    }
    if mode == MAX && sparse {
        return Err(value_error(
            "max mode does not support sparse weights".into(),
        ));
    }
    if call.value("max_norm").is_some() {
        return Err(ScriptError::NotImplemented(
            "embedding_bag with max_norm is not supported by Stridescope yet".into(),
        ));
    }
    if !matches!(psw, Value::None) && mode != SUM {
        let m = ["sum", "mean", "max"][mode as usize];
        return Err(ScriptError::NotImplemented(format!(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='{m}'). Please open a feature request on GitHub."
        )));
    }
    let rows = w.shape()[0];
    let padding_idx = match call.value("padding_idx") {
        None => -1,
        Some(v) => {
            let p = ev.index_int(&v.clone())?;
            if p < -rows || p >= rows {
                return Err(ScriptError::Runtime(format!(
                    "padding_idx must be within the number of embeddings, -{rows} through {}, but got {p}",
                    rows - 1
                )));
            }
            if p < 0 {
                p + rows
            } else {
                p
            }
        }
    };
    let params = Params {
        mode,
        include_last,
        padding_idx,
        scale_by_freq,
        sparse,
    };
    run(ev, &weight, &input, &offsets, &psw, params)
}

/// Python's class name of a value (`type(offsets)`).
fn python_type(v: &Value) -> String {
    match v {
        Value::Tensor(_) => "torch.Tensor".into(),
        other => other.type_name().to_string(),
    }
}

/// The kernel's parameters.
#[derive(Clone, Copy)]
struct Params {
    mode: i64,
    include_last: bool,
    padding_idx: i64,
    scale_by_freq: bool,
    sparse: bool,
}

/// `torch.embedding_bag(weight, indices, offsets, ...)`: ATen's checks, the outputs and the
/// node.
fn run(
    ev: &mut Evaluator,
    weight: &Value,
    input: &Value,
    offsets: &Value,
    psw: &Value,
    p: Params,
) -> R<Value> {
    let w = tensor(weight)?;
    let x = tensor(input)?;
    let o = tensor(offsets)?;
    for (name, t) in [("indices", &x), ("offsets", &o)] {
        if !matches!(t.dtype, DType::Int64 | DType::Int32) {
            return Err(ScriptError::Runtime(format!(
                "Expected tensor for argument #1 '{name}' to have one of the following scalar types: Long, Int; but got torch.{}Tensor instead (while checking arguments for embedding_bag)",
                t.dtype.scalar_type_name()
            )));
        }
    }
    if x.dtype != o.dtype {
        return Err(ScriptError::Runtime(format!(
            "expected scalar type {} but found {}",
            x.dtype.scalar_type_name(),
            o.dtype.scalar_type_name()
        )));
    }
    if !w.dtype.is_floating() {
        return Err(ScriptError::NotImplemented(format!(
            "\"embedding_bag_cpu_impl\" not implemented for '{}'",
            w.dtype.scalar_type_name()
        )));
    }
    let index: Vec<i64> = ev
        .engine
        .values(&x)
        .iter()
        .map(|s| s.to_wrapped_int())
        .collect();
    let starts: Vec<i64> = ev
        .engine
        .values(&o)
        .iter()
        .map(|s| s.to_wrapped_int())
        .collect();
    let n = index.len() as i64;
    let bags = if p.include_last {
        starts.len().saturating_sub(1)
    } else {
        starts.len()
    };
    if let Some(&first) = starts.first() {
        if first != 0 {
            return Err(ScriptError::Runtime(format!(
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got {first}"
            )));
        }
    }
    if let Some(&last) = starts.last() {
        if last > n {
            return Err(ScriptError::Runtime(format!(
                "offsets[-1] can not be greater than input's length {n}, but got offsets[-1] of {last}"
            )));
        }
    }
    let (rows, dim) = (w.shape()[0], w.shape()[1]);
    if let Some(&bad) = index.iter().find(|&&i| i < 0 || i >= rows) {
        return Err(ScriptError::Index(format!(
            "index {bad} is out of bounds for dimension 0 with size {rows}"
        )));
    }
    ev.check_work(n.saturating_mul(dim), "embedding_bag")?;
    let end = |b: usize| -> i64 {
        if b + 1 < starts.len() {
            starts[b + 1]
        } else {
            n
        }
    };
    let weights: Option<Vec<f64>> = match psw {
        Value::Tensor(t) => {
            let t = t.borrow().tensor.clone();
            Some(ev.engine.values(&t).iter().map(|s| s.to_f64()).collect())
        }
        _ => None,
    };
    let table: Vec<f64> = ev.engine.values(&w).iter().map(|s| s.to_f64()).collect();
    let d = dim.max(0) as usize;
    let f32_math = w.dtype != DType::Float64;
    let round = |v: f64| if f32_math { f64::from(v as f32) } else { v };
    let mut out = vec![0.0f64; bags * d];
    let mut sizes = vec![0i64; bags];
    let mut max_indices = vec![-1i64; if p.mode == MAX { bags * d } else { 0 }];
    for b in 0..bags {
        let (s, e) = (starts[b].clamp(0, n) as usize, end(b).clamp(0, n) as usize);
        let row = &mut out[b * d..(b + 1) * d];
        let mut count = 0;
        for (k, &i) in index.iter().enumerate().take(e.max(s)).skip(s) {
            if i == p.padding_idx {
                continue;
            }
            count += 1;
            let src = &table[i as usize * d..(i as usize + 1) * d];
            for j in 0..d {
                match p.mode {
                    MAX => {
                        if count == 1 || src[j] > row[j] {
                            row[j] = src[j];
                            max_indices[b * d + j] = i;
                        }
                    }
                    _ => {
                        row[j] = match &weights {
                            Some(ws) if f32_math => {
                                f64::from((ws[k] as f32).mul_add(src[j] as f32, row[j] as f32))
                            }
                            Some(ws) => ws[k].mul_add(src[j], row[j]),
                            None => round(row[j] + src[j]),
                        }
                    }
                }
            }
        }
        if p.mode == MEAN && count > 0 {
            let c = round(count as f64);
            for v in row.iter_mut() {
                *v = round(*v / c);
            }
        }
        sizes[b] = if p.mode == SUM {
            end(b) - starts[b]
        } else {
            count
        };
    }
    // `offset2bag`: the bag of each index.
    let mut bag_of = Vec::with_capacity(index.len() + 1);
    let mut bag = 0usize;
    for k in 0..index.len() {
        while bag + 1 < bags && k as i64 >= starts[bag + 1] {
            bag += 1;
        }
        bag_of.push(Scalar::Int(bag as i64));
    }
    bag_of.push(Scalar::Int(0));
    let results = (out, sizes, max_indices, bag_of);
    outputs(
        ev,
        (weight, input, offsets, psw),
        &w,
        p,
        results,
        (n, bags, d),
    )
}

/// Allocates the output and ATen's other three outputs with the kernel's buffers between
/// them, records `EmbeddingBagBackward0` keeping them.
fn outputs(
    ev: &mut Evaluator,
    (weight, input, offsets, psw): (&Value, &Value, &Value, &Value),
    w: &Tensor,
    p: Params,
    (out, sizes, max_indices, bag_of): (Vec<f64>, Vec<i64>, Vec<i64>, Vec<Scalar>),
    (n, bags, d): (i64, usize, usize),
) -> R<Value> {
    let b = bags as i64;
    let offsets_len = tensor(offsets)?.numel();
    let values: Vec<Scalar> = out.into_iter().map(Scalar::Float).collect();
    let result = ev.tensor_from_values(&[b, d as i64], w.dtype, &values, "embedding_bag")?;
    // `offset2bag`: `n + 1` zeros, ones added at the offsets, a cumulative sum, resized to n;
    // empty on ATen's fast path for sums (`embedding_bag_fast_path_sum`: float weights with
    // unit stride, per-sample weights, if any, with unit stride, no padding index).
    let psw_strided = match psw {
        Value::Tensor(t) => t.borrow().tensor.strides().first().is_some_and(|&s| s != 1),
        _ => false,
    };
    let offset2bag = if p.mode != SUM || psw_strided || p.padding_idx >= 0 {
        let mut t = ev.tensor_from_values(&[n + 1], DType::Int64, &bag_of, "embedding_bag")?;
        t.layout = Layout::contiguous(&[n]);
        let scratch = 8 * (n + 1);
        ev.note_kernel_events(&[8 * offsets_len, -8 * offsets_len, 8, -8, scratch, -scratch]);
        t
    } else {
        ev.tensor_from_values(&[0], DType::Int64, &[], "embedding_bag")?
    };
    let bag_size: Vec<Scalar> = sizes.iter().map(|&s| Scalar::Int(s)).collect();
    let bag_size = ev.tensor_from_values(&[b], DType::Int64, &bag_size, "embedding_bag")?;
    let diff = 8 * (b - 1).max(0);
    ev.note_kernel_events(&[diff, -diff, 8, -8]);
    let max_indices = if p.mode == MAX {
        ev.note_transient(8 * b as u64);
        let v: Vec<Scalar> = max_indices.into_iter().map(Scalar::Int).collect();
        let t = ev.tensor_from_values(&[b, d as i64], DType::Int64, &v, "embedding_bag");
        ev.end_transient();
        t?
    } else {
        let v = vec![Scalar::Int(0); bags];
        ev.tensor_from_values(&[b], DType::Int64, &v, "embedding_bag")?
    };
    if p.mode == MEAN {
        // `at::max(bag_size, ones_like(bag_size)).to(output.options())` (clamp_min, to).
        let item = w.dtype.item_size() as i64;
        ev.note_kernel_events(&[8 * b, item * b, -8 * b, -item * b]);
    }
    let result = Value::tensor(result, "embedding_bag", None);
    let extras = [
        Value::tensor(offset2bag, "embedding_bag", None),
        Value::tensor(bag_size, "embedding_bag", None),
        Value::tensor(max_indices, "embedding_bag", None),
    ];
    let args: Vec<(&str, Value)> = vec![
        ("mode", Value::Int(p.mode)),
        ("padding_idx", Value::Int(p.padding_idx)),
        ("scale_grad_by_freq", Value::Bool(p.scale_by_freq)),
        ("sparse", Value::Bool(p.sparse)),
        ("weight_sym_argsize_0", Value::Int(w.shape()[0])),
    ];
    let named: Vec<(&str, &Value)> = args.iter().map(|(k, v)| (*k, v)).collect();
    ev.record_grad(
        GradOp::Named {
            name: "embedding_bag",
            grad: &EMBEDDING_BAG_GRAD,
            args: &named,
        },
        &[weight, input, offsets, psw],
        &result,
    );
    ev.save_extras(
        &result,
        &[
            ("result1", &extras[0]),
            ("result2", &extras[1]),
            ("result3", &extras[2]),
        ],
    );
    Ok(result)
}

const EMBEDDING_BAG_GRAD: Grad = Grad::named("EmbeddingBagBackward0", &EMBEDDING_BAG);

/// `_embedding_bag(Tensor weight, Tensor indices, Tensor offsets, ...)`: the weight's
/// gradient from `_embedding_bag_backward` (the indices, offsets and per-sample weights kept,
/// with the three other outputs).
static EMBEDDING_BAG: Formula = Formula {
    inputs: &["weight", "indices", "offsets", "per_sample_weights"],
    saves: &["indices", "offsets", "per_sample_weights"],
    args: &[
        "mode",
        "padding_idx",
        "scale_grad_by_freq",
        "sparse",
        "weight_sym_argsize_0",
    ],
    backward: embedding_bag_backward,
};

fn int_arg(b: &Backward, name: &str) -> i64 {
    match b.arg(name) {
        Some(Value::Int(i)) => *i,
        _ => 0,
    }
}

fn embedding_bag_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let mode = int_arg(b, "mode");
    let padding_idx = int_arg(b, "padding_idx");
    let rows = int_arg(b, "weight_sym_argsize_0");
    let indices = tensor(&ev.saved_input(b, "indices")?)?;
    let offsets = tensor(&ev.saved_input(b, "offsets")?)?;
    // (An absent per-sample weight is saved as nothing.)
    let psw = ev
        .saved_input(b, "per_sample_weights")
        .unwrap_or(Value::None);
    let bag_size = tensor(&ev.saved_input(b, "result2")?)?;
    let max_indices = tensor(&ev.saved_input(b, "result3")?)?;
    let g = tensor(&b.g())?;
    let index: Vec<i64> = ev
        .engine
        .values(&indices)
        .iter()
        .map(|s| s.to_wrapped_int())
        .collect();
    let starts: Vec<i64> = ev
        .engine
        .values(&offsets)
        .iter()
        .map(|s| s.to_wrapped_int())
        .collect();
    let sizes: Vec<i64> = ev
        .engine
        .values(&bag_size)
        .iter()
        .map(|s| s.to_wrapped_int())
        .collect();
    let grads: Vec<f64> = ev.engine.values(&g).iter().map(|s| s.to_f64()).collect();
    let n = index.len();
    let bags = sizes.len();
    let d = g.shape().get(1).copied().unwrap_or(0).max(0) as usize;
    let f32_math = g.dtype != DType::Float64;
    let mut gw = vec![0.0f64; rows.max(0) as usize * d];
    // The scratch of `_embedding_bag_backward`: `offset2bag` again (sum mode), the
    // gradient made contiguous.
    let mut before: Vec<i64> = Vec::new();
    let sum_rebuilds = mode == SUM && matches!(psw, Value::None);
    let o2b = 8 * (n as i64 + 1);
    if sum_rebuilds && n > 0 {
        let k = 8 * starts.len() as i64;
        before.extend([o2b, k, -k, 8, -8, o2b, -o2b]);
    }
    let contiguous_copy = if g.layout.is_contiguous() {
        0
    } else {
        (g.numel() as usize * g.dtype.item_size()) as i64
    };
    before.push(contiguous_copy);
    let bag_of = |k: usize| -> usize {
        let mut bag = 0;
        while bag + 1 < starts.len() && k as i64 >= starts[bag + 1] {
            bag += 1;
        }
        bag.min(bags.saturating_sub(1))
    };
    let mut after: Vec<i64> = Vec::new();
    if mode == MAX {
        let mi: Vec<i64> = ev
            .engine
            .values(&max_indices)
            .iter()
            .map(|s| s.to_wrapped_int())
            .collect();
        for bag in 0..bags {
            if sizes[bag] == 0 {
                continue;
            }
            for j in 0..d {
                let r = mi[bag * d + j];
                if r >= 0 && (r as usize) < rows as usize {
                    let at = r as usize * d + j;
                    gw[at] = add(f32_math, gw[at], grads[bag * d + j]);
                }
            }
        }
        let k = sizes.iter().filter(|&&s| s != 0).count() as i64;
        let item = g.dtype.item_size() as i64;
        after.extend([
            8 * k,
            8 * k * d as i64,
            -8 * k,
            8 * k,
            item * k * d as i64,
            -8 * k,
        ]);
        for _ in 0..d {
            after.extend([8 * k, -8 * k]);
        }
        after.extend([-item * k * d as i64, -8 * k * d as i64]);
    } else {
        let weights: Option<Vec<f64>> = match &psw {
            Value::Tensor(t) => {
                let t = t.borrow().tensor.clone();
                Some(ev.engine.values(&t).iter().map(|s| s.to_f64()).collect())
            }
            _ => None,
        };
        // Sorted by index (the positions of equal indices in order), each added with
        // `axpy(scale, grad[bag], gw[index])`.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&k| (index[k], k));
        for k in order {
            let r = index[k];
            if r == padding_idx || r < 0 || r >= rows {
                continue;
            }
            let bag = bag_of(k);
            let mut scale = weights.as_ref().map_or(1.0, |w| w[k]);
            if mode == MEAN && sizes[bag] != 0 {
                scale /= sizes[bag] as f64;
            }
            for j in 0..d {
                let at = r as usize * d + j;
                let gv = grads[bag * d + j];
                gw[at] = if f32_math {
                    f64::from((scale as f32).mul_add(gv as f32, gw[at] as f32))
                } else {
                    scale.mul_add(gv, gw[at])
                };
            }
        }
        let s = 8 * n as i64;
        after.extend([s, s, s, -s, s, -s, -s, -s]);
    }
    after.push(-contiguous_copy);
    if sum_rebuilds && n > 0 {
        after.push(-o2b);
    }
    // The buffers before the gradient, held while it is allocated; those after it.
    let held: i64 = before.iter().sum();
    ev.note_kernel_events(&before);
    ev.note_transient(held.max(0) as u64);
    let values: Vec<Scalar> = gw.into_iter().map(Scalar::Float).collect();
    let t = ev.tensor_from_values(&[rows, d as i64], g.dtype, &values, "backward");
    ev.end_transient();
    let t = t?;
    let mut rest = vec![held];
    rest.extend(after);
    ev.note_kernel_events(&rest);
    out[0] = Some(Value::tensor(t, "backward", None));
    Ok(out)
}

fn add(f32_math: bool, a: f64, b: f64) -> f64 {
    if f32_math {
        f64::from(a as f32 + b as f32)
    } else {
        a + b
    }
}
