//! `F.dropout`, `torch.dropout` and the channel-wise `F.dropout1d`/`dropout2d`/`dropout3d`,
//! as ATen's `_dropout_impl` runs them on the CPU: `input * noise`, the noise drawn by
//! `bernoulli_(1 - p)` from the default generator (one double uniform per element, in the
//! noise's memory order) and divided by `1 - p`. The product is the ordinary `mul`, so the
//! node is PyTorch's `MulBackward0` and its gradient `grad * noise`.

use crate::core::tensor::random;
use crate::core::tensor::{DType, Scalar, ScriptError};
use crate::interp::torch::nn::dense::{no_input, tensor_param};
use crate::interp::torch::registry::OpCall;
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// `dropout`'s `p`: a Python number between 0 and 1 (`F.dropout`'s `ValueError`, or
/// `torch.dropout`'s `RuntimeError`).
fn dropout_p(call: &OpCall, aten: bool) -> R<f64> {
    let p = match call.value("p") {
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Float(f)) => *f,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        None if !aten => 0.5,
        other => {
            return Err(ScriptError::Type(format!(
                "'<' not supported between instances of '{}' and 'float'",
                other.map_or("NoneType".into(), Value::type_name)
            )))
        }
    };
    if !(0.0..=1.0).contains(&p) {
        let shown = match call.value("p") {
            Some(Value::Int(i)) => i.to_string(),
            Some(Value::Bool(b)) => if *b { "True" } else { "False" }.to_string(),
            // `torch.dropout` prints the double as C++ streams it (`2`, `1.5`).
            _ if aten && p.fract() == 0.0 => format!("{p:.0}"),
            _ => crate::core::print::tensor_str::py_float_repr(p),
        };
        let message = format!("dropout probability has to be between 0 and 1, but got {shown}");
        return Err(if aten {
            ScriptError::Runtime(message)
        } else {
            ScriptError::Value(message)
        });
    }
    Ok(p)
}

/// `train`, which `_VF.dropout` takes as a `bool` only.
fn dropout_train(call: &OpCall, kernel: &str) -> R<bool> {
    match call.value("training").or(call.value("train")) {
        None => Ok(true),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(ScriptError::Type(format!(
            "{kernel}(): argument 'train' (position 3) must be bool, not {}",
            other.type_name()
        ))),
    }
}

/// `F.dropout(input, p=0.5, training=True, inplace=False)` and `torch.dropout(input, p,
/// train)`, as ATen's `_dropout_impl` runs on the CPU: the input itself when not training,
/// `p == 0` or empty; else `input * noise`, `noise` an `empty_like(input)` filled by
/// `bernoulli_(1 - p)` (one double uniform per element, in memory order) then divided by
/// `1 - p` in the input's dtype.
pub(super) fn dropout(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_param(call, "input", 1, false)?.ok_or_else(no_input)?;
    let aten = call.value("train").is_some();
    let p = dropout_p(call, aten)?;
    let train = dropout_train(call, "dropout")?;
    let inplace = match call.value("inplace") {
        Some(v) => {
            let v = v.clone();
            ev.truthy(&v)?
        }
        None => false,
    };
    dropout_impl(ev, input, p, train, inplace, false)
}

/// `F.dropout1d`, `F.dropout2d`, `F.dropout3d` (`input, p=0.5, training=True,
/// inplace=False`): `feature_dropout`, whole channels zeroed, an unbatched input given a
/// batch dim of 1 first (`dropout1d` of 2-D, `dropout3d` of 4-D inputs), as
/// `torch/nn/functional.py` does.
pub(super) fn feature_dropout(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_param(call, "input", 1, false)?.ok_or_else(no_input)?;
    let p = dropout_p(call, false)?;
    let inplace = match call.value("inplace") {
        Some(v) => {
            let v = v.clone();
            ev.truthy(&v)?
        }
        None => false,
    };
    let dims = input.borrow().tensor.ndim();
    let name = call.name.as_str();
    let (spatial, batched) = match name {
        "dropout1d" => {
            if !(2..=3).contains(&dims) {
                return Err(ScriptError::Runtime(format!(
                    "dropout1d: Expected 2D or 3D input, but received a {dims}D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs)."
                )));
            }
            (1, dims == 3)
        }
        "dropout2d" => (2, true),
        _ => (3, dims == 5),
    };
    if name != "dropout1d" && !(spatial + 1..=spatial + 2).contains(&dims) {
        ev.recorder.warn(format!(
            "UserWarning: {name}: Received a {dims}-D input to {name}, which is deprecated and will result in an error in a future release. To retain the behavior and silence this warning, please use dropout instead. Note that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a channel dimension, and an optional batch dimension (i.e. {}D or {}D inputs).",
            spatial + 1,
            spatial + 2
        ));
    }
    if name == "dropout2d" && dims == 3 {
        ev.recorder.warn("UserWarning: dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a future release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.".into());
    }
    let train = dropout_train(call, "feature_dropout")?;
    let (unsqueeze, squeeze) = if inplace {
        ("unsqueeze_", "squeeze_")
    } else {
        ("unsqueeze", "squeeze")
    };
    let mut x = Value::Tensor(input);
    if !batched {
        x = ev.method(x, unsqueeze, vec![Value::Int(0)])?;
    }
    let Value::Tensor(t) = x else {
        return Err(no_input());
    };
    let out = dropout_impl(ev, t, p, train, inplace, true)?;
    if batched {
        return Ok(out);
    }
    ev.method(out, squeeze, vec![Value::Int(0)])
}

/// ATen's `_dropout_impl`: `input * noise` (in place with `inplace`); `feature` draws one
/// value per (batch, channel) pair, broadcast over the other dims.
fn dropout_impl(
    ev: &mut Evaluator,
    input: TensorRef,
    p: f64,
    train: bool,
    inplace: bool,
    feature: bool,
) -> R<Value> {
    let x = input.borrow().tensor.clone();
    if p == 0.0 || !train || x.numel() == 0 {
        return Ok(Value::Tensor(input));
    }
    let method = if inplace { "mul_" } else { "mul" };
    let noise = if p == 1.0 {
        let zero = ev.full(&[], Scalar::Float(0.0), x.dtype, "dropout")?;
        Value::tensor(zero, "dropout", None)
    } else if feature {
        if x.ndim() < 2 {
            return Err(ScriptError::Runtime(
                "Feature dropout requires at least 2 dimensions in the input".into(),
            ));
        }
        let mut shape = vec![1i64; x.ndim()];
        shape[0] = x.shape()[0];
        shape[1] = x.shape()[1];
        let layout = crate::core::tensor::Layout::contiguous(&shape);
        dropout_noise(ev, &layout, x.dtype, p)?
    } else {
        // `empty_like` keeps a dense input's strides; the kernel draws in memory order.
        let strides = if x.layout.is_non_overlapping_and_dense() {
            x.strides().to_vec()
        } else {
            crate::core::tensor::layout::contiguous_strides(x.shape())
        };
        let layout = crate::core::tensor::Layout {
            shape: x.shape().to_vec(),
            strides,
            offset: 0,
        };
        dropout_noise(ev, &layout, x.dtype, p)?
    };
    ev.method(Value::Tensor(input), method, vec![noise])
}

/// The noise of `dropout`: a new tensor of `layout` (dense), `bernoulli_(1 - p)` drawn in
/// its memory order, then `div_(1 - p)` in `dtype`.
fn dropout_noise(
    ev: &mut Evaluator,
    layout: &crate::core::tensor::Layout,
    dtype: DType,
    p: f64,
) -> R<Value> {
    let n = layout.numel();
    ev.check_work(n, "dropout")?;
    let keep = 1.0 - p;
    // One draw after another, so drawing in chunks draws the same values.
    const CHUNK: usize = 4096;
    let n = n.max(0) as usize;
    let mut draws = Vec::with_capacity(n);
    let probabilities = vec![keep; CHUNK.min(n)];
    while draws.len() < n {
        let take = CHUNK.min(n - draws.len());
        let chunk = random::bernoulli(&mut ev.torch.generator, &probabilities[..take], true);
        draws.extend(chunk);
    }
    if !dtype.is_floating() {
        return Err(ScriptError::Runtime(format!(
            "result type Float can't be cast to the desired output type {}",
            dtype.scalar_type_name()
        )));
    }
    let scale = dtype.round(Scalar::Float(
        1.0 / dtype.round(Scalar::Float(keep)).to_f64(),
    ));
    // The element at each logical index, from the draw at its place in memory.
    let values: Vec<Scalar> = layout
        .offsets()
        .map(|at| {
            if draws.get(at as usize).copied().unwrap_or(false) {
                scale
            } else {
                Scalar::Float(0.0)
            }
        })
        .collect();
    // (The values reach the noise's layout through a host copy ATen does not make.)
    let fresh =
        ev.uncounted(|ev| ev.tensor_from_values(&layout.shape, dtype, &values, "dropout"))?;
    let noise = ev.empty_strided(&layout.shape, &layout.strides, dtype, "dropout")?;
    ev.copy_into(&noise, &fresh, false)?;
    // `noise.div_(1 - p)`: the wrapped float64 and its cast to the noise's dtype.
    let cast = if dtype == DType::Float64 {
        0
    } else {
        dtype.item_size()
    };
    ev.note_kernel_events(&[8 + cast as i64]);
    Ok(Value::tensor(noise, "dropout", None))
}
