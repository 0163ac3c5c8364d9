//! Adaptive pooling: `adaptive_avg_pool2d`, `adaptive_max_pool2d` and their 1-d forms (the
//! 2-d ones of `input.unsqueeze(-2)` with an output height of 1, squeezed, as ATen computes
//! them), with ATen's checks and messages; a 1x1 average is `input.mean((-1, -2),
//! keepdim=True)` (`MeanBackward1`), as in PyTorch.

use crate::core::tensor::layout::list_str;
use crate::core::tensor::{Layout, MemoryFormat, ScriptError, Tensor};
use crate::interp::torch::nn::pool::{
    flag, input_value, not_implemented, out_shape, record, run, runtime, tensor_of, windows, Kind,
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
    adaptive_2d(ev, &input, &x, max, size, indices)
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
    let out = adaptive_2d(ev, &u, &ux, max, vec![1, n], indices)?;
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

/// The 2-d adaptive pooling of `x` to `size`, its node recorded.
fn adaptive_2d(
    ev: &mut Evaluator,
    input: &Value,
    x: &Tensor,
    max: bool,
    size: Vec<i64>,
    return_indices: bool,
) -> R<Value> {
    let sh = x.shape().to_vec();
    let name = if max {
        "adaptive_max_pool2d"
    } else {
        "adaptive_avg_pool2d"
    };
    if max {
        if !matches!(sh.len(), 3 | 4) {
            return Err(runtime(format!(
                "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {}",
                list_str(&sh)
            )));
        }
        nonzero_check(name, &sh)?;
        if size.len() != 2 {
            return Err(runtime(
                "adaptive_max_pool2d(): internal error: output_size.size() must be 2".into(),
            ));
        }
        let mut full = sh[..sh.len() - 2].to_vec();
        full.extend_from_slice(&size);
        ev.check_shape(&full)?;
    } else {
        if size.len() != 2 {
            return Err(runtime("adaptive_avg_pool2d: output_size must be 2".into()));
        }
        if size[0] < 0 || size[1] < 0 {
            return Err(runtime(format!(
                "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {{{}, {}}}",
                size[0], size[1]
            )));
        }
        if size == [1, 1] {
            return mean_pool(ev, input.clone(), x);
        }
        nonzero_check(name, &sh)?;
        if !matches!(sh.len(), 3 | 4) {
            return Err(runtime(format!(
                "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {}",
                list_str(&sh)
            )));
        }
    }
    if !x.dtype.is_floating() {
        return Err(not_implemented(name, x.dtype));
    }
    let zero = [0, 0];
    let mut windows = windows(x, zero, zero, zero, [1, 1], [size[0], size[1]]);
    windows.kernel = [1, 1];
    let kind = if max {
        Kind::AdaptiveMax
    } else {
        Kind::AdaptiveAvg
    };
    let pool = Pool {
        kind,
        out_shape: out_shape(x, windows.out_size),
        windows,
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

/// `adaptive_avg_pool2d` to 1x1: `input.mean((-1, -2), keepdim=True)` (channels_last kept).
fn mean_pool(ev: &mut Evaluator, input: Value, x: &Tensor) -> R<Value> {
    let dims = Value::Tuple(vec![Value::Int(-1), Value::Int(-2)]);
    let mean = ev.call(
        Value::Method(Box::new(input), "mean".into()),
        vec![dims],
        vec![("keepdim".into(), Value::Bool(true))],
    )?;
    // TensorIterator gives the mean the input's channels_last strides; they differ from the
    // contiguous ones only in the dimensions of size 1 (so the bytes are the same).
    if x.ndim() == 4 && x.layout.suggest_memory_format() == MemoryFormat::ChannelsLast {
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
