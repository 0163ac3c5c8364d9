//! 3-d pooling: `max_pool3d` (`torch.max_pool3d` and `F.max_pool3d`, which ATen computes as
//! `max_pool3d_with_indices`, dropping the indices when they are not asked for) and
//! `avg_pool3d`, with ATen's checks and messages in its order (`pooling_output_shape`,
//! `pool3d_shape_check`) and their nodes (`MaxPool3DWithIndicesBackward0`,
//! `AvgPool3DBackward0`). The adaptive 3-d poolings are in
//! [`crate::interp::torch::nn::pool_adaptive`]; the arithmetic is
//! [`crate::interp::torch::nn::pool_kernel`]'s, the 2-d one's with a depth.

use crate::core::tensor::layout::list_str;
use crate::core::tensor::{DType, ScriptError, Tensor};
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::nn::functional::functional;
use crate::interp::torch::nn::pool::{
    flag, input_value, not_implemented, out_shape, output_size, pooled_value, runtime, tensor_of,
    windows3, Kind, Params3, Pool,
};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(
        &["max_pool3d"],
        &["input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False"],
        max_pool3d,
        Grad::UNTRACKED,
    ),
    functional(
        &["max_pool3d_with_indices"],
        &["input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False"],
        max_pool3d,
        Grad::UNTRACKED,
    ),
    functional(
        &["avg_pool3d"],
        &["input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None"],
        avg_pool3d,
        Grad::UNTRACKED,
    ),
    OpDef {
        names: &["max_pool3d"],
        schemas: &["Tensor input, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False"],
        forms: Forms::Function,
        rule: max_pool3d,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
];

/// An int-or-ints parameter as given (empty when absent or `None`).
fn ints(ev: &mut Evaluator, call: &OpCall, name: &str) -> R<Vec<i64>> {
    match call.value(name).cloned() {
        None | Some(Value::None) => Ok(vec![]),
        Some(v @ (Value::Str(_) | Value::Float(_))) => Err(ScriptError::Type(format!(
            "{}(): argument '{name}' must be tuple of ints, not {}",
            call.name,
            v.type_name()
        ))),
        Some(v) => ev.int_list(&v, &call.name, name),
    }
}

/// One or three values as three, or `message`.
fn three(v: &[i64], message: &str) -> R<[i64; 3]> {
    match v {
        [a] => Ok([*a, *a, *a]),
        [a, b, c] => Ok([*a, *b, *c]),
        _ => Err(runtime(message.into())),
    }
}

/// `F.max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
/// return_indices=False)` and `torch.max_pool3d`.
fn max_pool3d(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = input_value(call)?;
    let x = tensor_of(&input)?;
    let kernel = ints(ev, call, "kernel_size")?;
    let stride = ints(ev, call, "stride")?;
    let padding = ints(ev, call, "padding")?;
    let padding = if padding.is_empty() { vec![0] } else { padding };
    let dilation = ints(ev, call, "dilation")?;
    let dilation = if dilation.is_empty() {
        vec![1]
    } else {
        dilation
    };
    let ceil = flag(ev, call, "ceil_mode", false)?;
    let indices =
        call.name == "max_pool3d_with_indices" || flag(ev, call, "return_indices", false)?;
    let k = three(
        &kernel,
        "max_pool3d: kernel_size must either be a single int, or a tuple of three ints",
    )?;
    let s = if stride.is_empty() {
        k
    } else {
        three(
            &stride,
            "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints",
        )?
    };
    let p = three(
        &padding,
        "max_pool3d: padding must either be a single int, or a tuple of three ints",
    )?;
    let d = three(
        &dilation,
        "max_pool3d: dilation must be either a single int, or a tuple of three ints",
    )?;
    if !matches!(x.ndim(), 4 | 5) {
        return Err(runtime(
            "non-empty 4D or 5D (batch mode) tensor expected for input".into(),
        ));
    }
    let pool = plan(
        &x,
        Kind::Max,
        (k, s, p, d),
        ceil,
        "max_pool3d_with_indices_out_cpu_template()",
    )?;
    if x.dtype == DType::Bool || x.dtype.is_complex() {
        return Err(not_implemented("max_pool3d_cpu", x.dtype));
    }
    pooled_value(ev, &input, &x, &pool, "max_pool3d", indices)
}

/// `F.avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None)`.
fn avg_pool3d(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = input_value(call)?;
    let x = tensor_of(&input)?;
    let kernel = ints(ev, call, "kernel_size")?;
    let stride = ints(ev, call, "stride")?;
    let padding = ints(ev, call, "padding")?;
    let padding = if padding.is_empty() { vec![0] } else { padding };
    let ceil = flag(ev, call, "ceil_mode", false)?;
    let include_pad = flag(ev, call, "count_include_pad", true)?;
    let divisor = match call.value("divisor_override").cloned() {
        None | Some(Value::None) => None,
        Some(v) => Some(ev.index_int(&v)?),
    };
    let k = three(
        &kernel,
        "avg_pool3d: kernel_size must be a single int, or a tuple of three ints",
    )?;
    let s = if stride.is_empty() {
        k
    } else {
        three(
            &stride,
            "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints",
        )?
    };
    let p = three(
        &padding,
        "avg_pool3d: padding must be a single int, or a tuple of three ints",
    )?;
    if !matches!(x.ndim(), 4 | 5) {
        return Err(runtime(
            "non-empty 4D or 5D (batch mode) tensor expected for input".into(),
        ));
    }
    if divisor == Some(0) {
        return Err(runtime("divisor must be not zero".into()));
    }
    let kind = Kind::Avg {
        include_pad,
        divisor,
    };
    let pool = plan(&x, kind, (k, s, p, [1, 1, 1]), ceil, "avg_pool3d()")?;
    if !(x.dtype.is_floating() || x.dtype == DType::Int64) {
        return Err(not_implemented("avg_pool3d_out_frame", x.dtype));
    }
    pooled_value(ev, &input, &x, &pool, "avg_pool3d", false)
}

/// The checked 3-d pooling of `x` (4-d or 5-d): `pooling_output_shape` per dimension, then
/// ATen's `pool3d_shape_check` (`what` names the kernel in its messages).
fn plan(x: &Tensor, kind: Kind, params: Params3, ceil: bool, what: &str) -> R<Pool> {
    let (k, s, p, d) = params;
    let sh = x.shape();
    let n = sh.len();
    let input = [sh[n - 3], sh[n - 2], sh[n - 1]];
    let mut out = [0i64; 3];
    for i in 0..3 {
        out[i] = output_size(input[i], k[i], p[i], s[i], d[i], ceil)?;
    }
    if k.iter().any(|&v| v <= 0) {
        return Err(runtime(format!(
            "kernel size should be greater than zero, but got kT: {} kH: {} kW: {}",
            k[0], k[1], k[2]
        )));
    }
    if s.iter().any(|&v| v <= 0) {
        return Err(runtime(format!(
            "stride should be greater than zero, but got dT: {} dH: {} dW: {}",
            s[0], s[1], s[2]
        )));
    }
    if d.iter().any(|&v| v <= 0) {
        return Err(runtime(format!(
            "dilation should be greater than zero, but got dilationT: {} dilationH: {} dilationW: {}",
            d[0], d[1], d[2]
        )));
    }
    for (i, &size) in sh.iter().enumerate() {
        if (n == 4 || i > 0) && size <= 0 {
            return Err(runtime(format!(
                "{what}: Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with dimension {i} being empty",
                list_str(sh)
            )));
        }
    }
    let avg = matches!(kind, Kind::Avg { .. });
    if avg && (0..3).any(|i| input[i] < k[i]) {
        return Err(runtime(format!(
            "input image (T: {} H: {} W: {}) smaller than kernel size (kT: {} kH: {} kW: {})",
            input[0], input[1], input[2], k[0], k[1], k[2]
        )));
    }
    if (0..3).any(|i| k[i] / 2 < p[i]) {
        return Err(runtime(format!(
            "pad should be smaller than or equal to half of kernel size, but got kT: {} kW: {} kH: {} padT: {} padW: {} padH: {}",
            k[0], k[2], k[1], p[0], p[2], p[1]
        )));
    }
    if out.iter().any(|&o| o < 1) {
        let planes = sh[n - 4];
        return Err(runtime(format!(
            "Given input size: ({planes}x{}x{}x{}). Calculated output size: ({planes}x{}x{}x{}). Output size is too small",
            input[0], input[1], input[2], out[0], out[1], out[2]
        )));
    }
    let windows = windows3(x, params, out, 3);
    Ok(Pool {
        kind,
        out_shape: out_shape(x, windows.out_size, 3),
        windows,
        dims: 3,
    })
}
