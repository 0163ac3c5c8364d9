//! Adaptive pooling: `adaptive_avg_pool2d`, `adaptive_max_pool2d`, their 3-d forms and their
//! 1-d forms (the
//! 2-d ones of `input.unsqueeze(-2)` with an output height of 1, squeezed, as ATen computes
//! them), with ATen's checks and messages; a 1x1 average is `input.mean((-1, -2),
//! keepdim=True)` (`MeanBackward1`), as in PyTorch.

use crate::core::tensor::layout::list_str;
use crate::core::tensor::{Layout, MemoryFormat, ScriptError, Tensor};
use crate::interp::torch::nn::pool::{
    flag, input_value, not_implemented, out_shape, record, run, runtime, tensor_of, windows3, Kind,
    Pool,
};
use crate::interp::torch::registry::OpCall;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// `F.adaptive_avg_pool2d(input, output_size)`, `F.adaptive_max_pool2d(input, output_size,
/// return_indices=False)`, their 1-d forms, and `torch.adaptive_avg_pool1d`.
pub(super) fn adaptive(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = input_value(call)?;
    let x = tensor_of(&input)?;
    let max = call.name.starts_with("adaptive_max");
    let indices = max && flag(ev, call, "return_indices", false)?;
    if call.name.ends_with("1d") {
        return adaptive_1d(ev, call, &input, &x, max, indices);
    }
    let size = output_size_2d(ev, call, &x)?;
    let dims = if call.name.ends_with("3d") { 3 } else { 2 };
    adaptive_nd(ev, &input, &x, max, size, indices, dims)
}

/// `torch.adaptive_max_pool1d(input, output_size)`: the values and the indices.
pub(super) fn adaptive_max_pool1d_function(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = input_value(call)?;
    let x = tensor_of(&input)?;
    adaptive_1d(ev, call, &input, &x, true, true)
}

/// `_list_with_default(output_size, input.size())`: `None` entries take the input's sizes.
fn output_size_2d(ev: &mut Evaluator, call: &OpCall, x: &Tensor) -> R<Vec<i64>> {
    let sh = x.shape();
    Ok(match call.value("output_size").cloned() {
        None => {
            return Err(ScriptError::Type(
                "object of type 'NoneType' has no len()".into(),
            ))
        }
        Some(Value::Int(n)) if call.name.ends_with("3d") => vec![n, n, n],
        Some(Value::Int(n)) => vec![n, n],
        Some(Value::Tuple(items) | Value::List(items)) => {
            if sh.len() <= items.len() {
                return Err(ScriptError::Value(format!(
                    "Input dimension should be at least {}",
                    items.len() + 1
                )));
            }
            let defaults = &sh[sh.len() - items.len()..];
            let mut out = Vec::with_capacity(items.len());
            for (v, d) in items.iter().zip(defaults) {
                out.push(match v {
                    Value::None => *d,
                    v => ev.index_int(v)?,
                });
            }
            out
        }
        Some(v) => ev.int_list(&v, &call.name, "output_size")?,
    })
}

/// A 1-d adaptive pooling: ATen's 1-d checks, then the 2-d pooling of
/// `input.unsqueeze(-2)` to `(1, output_size)`, squeezed.
fn adaptive_1d(
    ev: &mut Evaluator,
    call: &OpCall,
    input: &Value,
    x: &Tensor,
    max: bool,
    indices: bool,
) -> R<Value> {
    let name = if max {
        "adaptive_max_pool1d"
    } else {
        "adaptive_avg_pool1d"
    };
    if !matches!(x.ndim(), 2 | 3) {
        return Err(runtime(format!(
            "Expected 2 to 3 dimensions, but got {}-dimensional tensor for argument #1 'self' (while checking arguments for {name})",
            x.ndim()
        )));
    }
    let size = match call.value("output_size").cloned() {
        Some(v) => ev.int_list(&v, name, "output_size")?,
        None => vec![],
    };
    let [n] = size[..] else {
        return Err(runtime(format!(
            "{name}() argument 'output_size' should contain one int (got {})",
            size.len()
        )));
    };
    if max {
        nonzero_check(name, x.shape())?;
    }
    let u = ev.method(input.clone(), "unsqueeze", vec![Value::Int(-2)])?;
    let ux = tensor_of(&u)?;
    let out = adaptive_nd(ev, &u, &ux, max, vec![1, n], indices, 2)?;
    match out {
        Value::Tuple(items) => {
            let mut squeezed = Vec::with_capacity(items.len());
            for item in items {
                squeezed.push(ev.method(item, "squeeze", vec![Value::Int(-2)])?);
            }
            Ok(Value::Tuple(squeezed))
        }
        v => ev.method(v, "squeeze", vec![Value::Int(-2)]),
    }
}

/// The 2-d (or 3-d) adaptive pooling of `x` to `size`, its node recorded.
fn adaptive_nd(
    ev: &mut Evaluator,
    input: &Value,
    x: &Tensor,
    max: bool,
    size: Vec<i64>,
    return_indices: bool,
    dims: usize,
) -> R<Value> {
    let sh = x.shape().to_vec();
    let name = match (max, dims) {
        (true, 3) => "adaptive_max_pool3d",
        (true, _) => "adaptive_max_pool2d",
        (false, 3) => "adaptive_avg_pool3d",
        (false, _) => "adaptive_avg_pool2d",
    };
    let batched = if dims == 3 { "4D or 5D" } else { "3D or 4D" };
    let ranks = [dims + 1, dims + 2];
    if max {
        if !ranks.contains(&sh.len()) {
            return Err(runtime(format!(
                "{name}(): Expected {batched} tensor, but got: {}",
                list_str(&sh)
            )));
        }
        nonzero_check(name, &sh)?;
        if size.len() != dims {
            return Err(runtime(format!(
                "{name}(): internal error: output_size.size() must be {dims}"
            )));
        }
        let mut full = sh[..sh.len() - dims].to_vec();
        full.extend_from_slice(&size);
        ev.check_shape(&full)?;
    } else {
        if size.len() != dims {
            return Err(runtime(format!("{name}: output_size must be {dims}")));
        }
        if size.iter().any(|&n| n < 0) {
            let shown = if dims == 3 {
                format!("{}, {},{}", size[0], size[1], size[2])
            } else {
                format!("{}, {}", size[0], size[1])
            };
            return Err(runtime(format!(
                "{name}: elements of output_size must be greater than or equal to 0 but received {{{shown}}}"
            )));
        }
        if size.iter().all(|&n| n == 1) {
            return mean_pool(ev, input.clone(), x, dims);
        }
        nonzero_check(name, &sh)?;
        if !ranks.contains(&sh.len()) {
            return Err(runtime(format!(
                "{name}(): Expected {batched} tensor, but got {}",
                list_str(&sh)
            )));
        }
    }
    if !x.dtype.is_floating() {
        return Err(not_implemented(name, x.dtype));
    }
    let out3 = if dims == 3 {
        [size[0], size[1], size[2]]
    } else {
        [1, size[0], size[1]]
    };
    let one = [1, 1, 1];
    let zero = [0, 0, 0];
    let windows = windows3(x, (one, zero, zero, one), out3, dims);
    let kind = if max {
        Kind::AdaptiveMax
    } else {
        Kind::AdaptiveAvg
    };
    let pool = Pool {
        kind,
        out_shape: out_shape(x, windows.out_size, dims),
        windows,
        dims,
    };
    let (values, indices) = run(ev, x, &pool, name)?;
    let values = Value::tensor(values, name, None);
    let indices = indices.map(|i| Value::tensor(i, name, None));
    let out = match &indices {
        Some(i) if return_indices => Value::Tuple(vec![values.clone(), i.clone()]),
        _ => values.clone(),
    };
    record(ev, input, &pool, &out);
    // `AdaptiveMaxPool2DBackward0` keeps the indices (`result1`).
    if let Some(i) = &indices {
        ev.save_extras(&values, &[("result1", i)]);
    }
    Ok(out)
}

/// `Expected input to have non-zero size for non-batch dimensions`.
fn nonzero_check(name: &str, sh: &[i64]) -> R<()> {
    for (i, &n) in sh.iter().enumerate().skip(1) {
        if n <= 0 {
            return Err(runtime(format!(
                "{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with dimension {i} being empty",
                list_str(sh)
            )));
        }
    }
    Ok(())
}

/// `adaptive_avg_pool2d` to 1x1: `input.mean((-1, -2), keepdim=True)` (channels_last kept);
/// `adaptive_avg_pool3d` to 1x1x1: `input.mean((-1, -2, -3), keepdim=True)`.
fn mean_pool(ev: &mut Evaluator, input: Value, x: &Tensor, spatial: usize) -> R<Value> {
    let dims = Value::Tuple((1..=spatial as i64).map(|d| Value::Int(-d)).collect());
    let mean = ev.call(
        Value::Method(Box::new(input), "mean".into()),
        vec![dims],
        vec![("keepdim".into(), Value::Bool(true))],
    )?;
    // TensorIterator gives the mean the input's channels_last strides; they differ from the
    // contiguous ones only in the dimensions of size 1 (so the bytes are the same).
    if spatial == 2
        && x.ndim() == 4
        && x.layout.suggest_memory_format() == MemoryFormat::ChannelsLast
    {
        if let Value::Tensor(t) = &mean {
            let mut object = t.borrow_mut();
            let shape = object.tensor.shape().to_vec();
            if shape.len() == 4 && shape[2] == 1 && shape[3] == 1 {
                object.tensor.layout.strides =
                    Layout::with_format(&shape, MemoryFormat::ChannelsLast).strides;
            }
        }
    }
    Ok(mean)
}
