//! Pooling: `max_pool1d`, `max_pool2d`, `avg_pool1d`, `avg_pool2d`, `adaptive_avg_pool2d`,
//! `adaptive_max_pool2d` (`torch.nn.functional.`, and the `torch.` forms PyTorch has), with
//! ATen's checks and messages in its order (`pooling_output_shape`, `pool2d_shape_check`),
//! the output's memory format (the input's suggested one) and the nodes PyTorch records
//! (`MaxPool2DWithIndicesBackward0`, `AvgPool2DBackward0`, `AdaptiveAvgPool2DBackward0`,
//! `AdaptiveMaxPool2DBackward0`; the 1-d forms are their 2-d ones between `unsqueeze(-2)`
//! and `squeeze(-2)`, as ATen computes them). The arithmetic is
//! [`crate::interp::torch::nn::pool_kernel`]'s; the backwards are in
//! [`crate::interp::torch::nn::pool_backward`].

use crate::core::tensor::layout::list_str;
use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::{Grad, GradOp};
use crate::interp::torch::nn::conv::{empty_output, host_tensor, meta_op};
use crate::interp::torch::nn::functional::functional;
use crate::interp::torch::nn::pool_adaptive::{adaptive, adaptive_max_pool1d_function};
use crate::interp::torch::nn::pool_backward::{ADAPTIVE_AVG, ADAPTIVE_MAX, AVG_POOL, MAX_POOL};
use crate::interp::torch::nn::pool_kernel::{self as kernel, AccType, Num, Windows};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

const MAX_POOL_PY: &str =
    "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False";

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(&["max_pool1d", "max_pool2d"], &[MAX_POOL_PY], max_pool, Grad::UNTRACKED),
    functional(
        &["avg_pool2d"],
        &["input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None"],
        avg_pool,
        Grad::UNTRACKED,
    ),
    functional(
        &["avg_pool1d"],
        &["input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True"],
        avg_pool,
        Grad::UNTRACKED,
    ),
    functional(
        &["adaptive_avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool3d"],
        &["input, output_size"],
        adaptive,
        Grad::UNTRACKED,
    ),
    functional(
        &["adaptive_max_pool2d", "adaptive_max_pool1d", "adaptive_max_pool3d"],
        &["input, output_size, return_indices=False"],
        adaptive,
        Grad::UNTRACKED,
    ),
    OpDef {
        names: &["adaptive_avg_pool1d"],
        schemas: &["Tensor input, int[1] output_size"],
        forms: Forms::Function,
        rule: adaptive,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["adaptive_max_pool1d"],
        schemas: &["Tensor input, int[1] output_size"],
        forms: Forms::Function,
        rule: adaptive_max_pool1d_function,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["max_pool1d", "max_pool2d"],
        schemas: &["Tensor input, int[1] kernel_size, int[1] stride=[], int[1] padding=0, int[1] dilation=1, bool ceil_mode=False"],
        forms: Forms::Function,
        rule: max_pool,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["avg_pool1d"],
        schemas: &["Tensor input, int[1] kernel_size, int[1] stride=[], int[1] padding=0, bool ceil_mode=False, bool count_include_pad=True"],
        forms: Forms::Function,
        rule: avg_pool,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
];

pub(super) fn runtime(msg: String) -> ScriptError {
    ScriptError::Runtime(msg)
}

/// The input tensor object, PyTorch's message otherwise.
pub(super) fn input_value(call: &OpCall) -> R<Value> {
    match call.value("input") {
        Some(v @ Value::Tensor(_)) => Ok(v.clone()),
        other => Err(ScriptError::Type(format!(
            "{}(): argument 'input' (position 1) must be Tensor, not {}",
            call.name,
            other.map_or("NoneType".into(), Value::type_name)
        ))),
    }
}

pub(super) fn tensor_of(v: &Value) -> R<Tensor> {
    v.as_tensor()
        .ok_or_else(|| runtime("pooling: the input is not a tensor".into()))
}

/// An int-or-ints parameter as given (`None` when absent or `None`).
fn given_ints(ev: &mut Evaluator, call: &OpCall, name: &str) -> R<Option<Vec<i64>>> {
    match call.value(name).cloned() {
        None => Ok(None),
        Some(v @ (Value::Str(_) | Value::Float(_))) => Err(ScriptError::Type(format!(
            "{}(): argument '{name}' must be tuple of ints, not {}",
            call.name,
            v.type_name()
        ))),
        Some(v) => ev.int_list(&v, &call.name, name).map(Some),
    }
}

/// A bool parameter (Python's truthiness), `default` when absent.
pub(super) fn flag(ev: &mut Evaluator, call: &OpCall, name: &str, default: bool) -> R<bool> {
    match call.value(name) {
        Some(v) => {
            let v = v.clone();
            ev.truthy(&v)
        }
        None => Ok(default),
    }
}

/// Which 2-d pooling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Max,
    Avg {
        include_pad: bool,
        divisor: Option<i64>,
    },
    AdaptiveAvg,
    AdaptiveMax,
}

/// A 2-d pooling, checked: its windows and the output's shape.
pub(crate) struct Pool {
    pub kind: Kind,
    pub windows: Windows,
    pub out_shape: Vec<i64>,
    /// Spatial dimensions: 2, or 3 for the 3-d poolings.
    pub dims: usize,
}

/// `pooling_output_shape` (with its checks).
pub(super) fn output_size(
    input: i64,
    k: i64,
    pad: i64,
    stride: i64,
    dilation: i64,
    ceil: bool,
) -> R<i64> {
    if stride == 0 {
        return Err(runtime("stride should not be zero".into()));
    }
    if pad < 0 {
        return Err(runtime(format!(
            "pad must be non-negative, but got pad: {pad}"
        )));
    }
    if pad > ((k - 1) * dilation + 1) / 2 {
        return Err(runtime(format!(
            "pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} and dilation={dilation}"
        )));
    }
    let numerator = input + 2 * pad - dilation * (k - 1) - 1 + if ceil { stride - 1 } else { 0 };
    // `div_rtn`: rounded toward negative infinity, whatever the signs.
    let (q, r) = (numerator / stride, numerator % stride);
    let mut out = if r != 0 && ((r < 0) != (stride < 0)) {
        q - 1
    } else {
        q
    } + 1;
    if ceil && (out - 1) * stride >= input + pad {
        out -= 1;
    }
    Ok(out)
}

/// ATen's `pool2d_shape_check`.
fn shape_check(
    x: &Tensor,
    k: [i64; 2],
    s: [i64; 2],
    p: [i64; 2],
    d: [i64; 2],
    out: [i64; 2],
) -> R<()> {
    if k[0] <= 0 || k[1] <= 0 {
        return Err(runtime(format!(
            "kernel size should be greater than zero, but got kH: {} kW: {}",
            k[0], k[1]
        )));
    }
    if s[0] <= 0 || s[1] <= 0 {
        return Err(runtime(format!(
            "stride should be greater than zero, but got dH: {} dW: {}",
            s[0], s[1]
        )));
    }
    if d[0] <= 0 || d[1] <= 0 {
        return Err(runtime(format!(
            "dilation should be greater than zero, but got dilationH: {} dilationW: {}",
            d[0], d[1]
        )));
    }
    let sh = x.shape();
    let n = sh.len();
    let valid = n >= 3 && sh[1] != 0 && sh[2] != 0;
    let channels_last = x.layout.suggest_memory_format() == MemoryFormat::ChannelsLast;
    if channels_last {
        if !(n == 4 && valid && sh[3] != 0) {
            return Err(runtime(format!(
                "Expected 4D (batch mode) tensor expected for input with channels_last layout with optional 0 dim batch size for input, but got: {}",
                list_str(sh)
            )));
        }
    } else if !((n == 3 && sh[0] != 0 && valid) || (n == 4 && valid && sh[3] != 0)) {
        return Err(runtime(format!(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{}",
            list_str(sh)
        )));
    }
    if k[1] / 2 < p[1] || k[0] / 2 < p[0] {
        return Err(runtime(format!(
            "pad should be smaller than or equal to half of kernel size, but got padW = {}, padH = {}, kW = {}, kH = {}",
            p[1], p[0], k[1], k[0]
        )));
    }
    if out[0] < 1 || out[1] < 1 {
        let plane = sh[n - 3];
        return Err(runtime(format!(
            "Given input size: ({plane}x{}x{}). Calculated output size: ({plane}x{}x{}). Output size is too small",
            sh[n - 2],
            sh[n - 1],
            out[0],
            out[1]
        )));
    }
    Ok(())
}

/// One or two values as a pair, or `message`.
fn pair(v: &[i64], message: &str) -> R<[i64; 2]> {
    match v {
        [a] => Ok([*a, *a]),
        [a, b] => Ok([*a, *b]),
        _ => Err(runtime(message.into())),
    }
}

/// The windows of a checked 2-d pooling of `x` (3-d or 4-d).
pub(super) fn windows(
    x: &Tensor,
    k: [i64; 2],
    s: [i64; 2],
    p: [i64; 2],
    d: [i64; 2],
    out: [i64; 2],
) -> Windows {
    let three = |v: [i64; 2], depth: i64| [depth, v[0], v[1]];
    windows3(
        x,
        (three(k, 1), three(s, 1), three(p, 0), three(d, 1)),
        three(out, 1),
        2,
    )
}

/// The windows of a checked pooling of `x` over its last `dims` dimensions (2 or 3; a 2-d
/// pooling has depth 1).
pub(super) fn windows3(x: &Tensor, (k, s, p, d): Params3, out: [i64; 3], dims: usize) -> Windows {
    let sh = x.shape();
    let n = sh.len();
    let planes: i64 = sh[..n - dims].iter().product();
    let u = |v: i64| v.max(0) as usize;
    let depth = if dims == 3 { u(sh[n - 3]) } else { 1 };
    Windows {
        planes: u(planes),
        in_size: [depth, u(sh[n - 2]), u(sh[n - 1])],
        out_size: out.map(u),
        kernel: k,
        stride: s,
        pad: p,
        dilation: d,
    }
}

/// Kernel, stride, padding, dilation of a 3-d pooling.
pub(super) type Params3 = ([i64; 3], [i64; 3], [i64; 3], [i64; 3]);

/// `x`'s shape with its last `dims` sizes replaced by `out`'s.
pub(super) fn out_shape(x: &Tensor, out: [usize; 3], dims: usize) -> Vec<i64> {
    let sh = x.shape();
    let mut shape = sh[..sh.len() - dims].to_vec();
    shape.extend(out[3 - dims..].iter().map(|&n| n as i64));
    shape
}

/// `"name" not implemented for 'Dtype'`.
pub(super) fn not_implemented(name: &str, dtype: DType) -> ScriptError {
    ScriptError::NotImplemented(format!(
        "\"{name}\" not implemented for '{}'",
        dtype.scalar_type_name()
    ))
}

/// `F.max_pool1d`, `F.max_pool2d`, `torch.max_pool1d`, `torch.max_pool2d`.
fn max_pool(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = input_value(call)?;
    let x = tensor_of(&input)?;
    let kernel = given_ints(ev, call, "kernel_size")?.unwrap_or_default();
    let stride = given_ints(ev, call, "stride")?.unwrap_or_default();
    let padding = given_ints(ev, call, "padding")?.unwrap_or_else(|| vec![0]);
    let dilation = given_ints(ev, call, "dilation")?.unwrap_or_else(|| vec![1]);
    let ceil = flag(ev, call, "ceil_mode", false)?;
    let indices = flag(ev, call, "return_indices", false)?;
    if call.name == "max_pool1d" {
        let sh = x.shape();
        let ok = (sh.len() == 2 && sh[0] != 0 && sh[1] != 0)
            || (sh.len() == 3 && sh[1] != 0 && sh[2] != 0);
        if !ok {
            return Err(runtime(format!(
                "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:{}",
                list_str(sh)
            )));
        }
        let one = |v: &[i64], what: &str, message: &str| -> R<Option<i64>> {
            match v {
                [] => Ok(None),
                [a] => Ok(Some(*a)),
                _ => Err(runtime(format!(
                    "max_pool1d() {what} {message} but got size {}",
                    v.len()
                ))),
            }
        };
        let ints_of = "must be an int, list of ints or tuple of ints of size 1";
        let k = one(&kernel, "kernel_size", ints_of)?.unwrap_or(0);
        let st = one(
            &stride,
            "stride",
            "must be None, an int, list of ints, or tuple of ints of size 1",
        )?
        .unwrap_or(k);
        let p = one(
            &padding,
            "padding",
            "must be an int, list of ints, or tuple of ints of size 1",
        )?
        .unwrap_or(0);
        let d = one(&dilation, "dilation", ints_of)?.unwrap_or(1);
        let positive = [(k, "kernel_size"), (st, "stride")];
        for (v, what) in positive {
            if v <= 0 {
                return Err(runtime(format!(
                    "max_pool1d() {what} must be greater than zero, but got {v}"
                )));
            }
        }
        if p < 0 {
            return Err(runtime(format!(
                "max_pool1d() padding must be non-negative, but got {p}"
            )));
        }
        if p > k / 2 {
            return Err(runtime(format!(
                "max_pool1d() padding should be at most half of kernel size, but got padding={p} and kernel_size={k}"
            )));
        }
        if d <= 0 {
            return Err(runtime(format!(
                "max_pool1d() dilation must be greater than zero, but got {d}"
            )));
        }
        let ow = output_size(*sh.last().unwrap_or(&0), k, p, st, d, ceil)?;
        if ow <= 0 {
            return Err(runtime(format!(
                "max_pool1d() Invalid computed output size: {ow}"
            )));
        }
        let params = ([1, k], [1, st], [0, p], [1, d]);
        return one_d(ev, &input, Kind::Max, params, ceil, indices);
    }
    let k = pair(
        &kernel,
        "max_pool2d: kernel_size must either be a single int, or a tuple of two ints",
    )?;
    let s = match stride.len() {
        0 => k,
        _ => pair(
            &stride,
            "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints",
        )?,
    };
    let p = pair(
        &padding,
        "max_pool2d: padding must either be a single int, or a tuple of two ints",
    )?;
    let d = pair(
        &dilation,
        "max_pool2d: dilation must be either a single int, or a tuple of two ints",
    )?;
    if !matches!(x.ndim(), 3 | 4) {
        return Err(runtime(
            "non-empty 3D or 4D (batch mode) tensor expected for input".into(),
        ));
    }
    pool2d_value(ev, &input, Kind::Max, (k, s, p, d), ceil, indices)
}

/// The checked 2-d pooling of `x` with fixed windows.
fn plan(x: &Tensor, kind: Kind, (k, s, p, d): Params, ceil: bool) -> R<Pool> {
    let sh = x.shape();
    let n = sh.len();
    let (h, w) = (sh[n - 2], sh[n - 1]);
    let out = [
        output_size(h, k[0], p[0], s[0], d[0], ceil)?,
        output_size(w, k[1], p[1], s[1], d[1], ceil)?,
    ];
    shape_check(x, k, s, p, d, out)?;
    let windows = windows(x, k, s, p, d, out);
    Ok(Pool {
        kind,
        out_shape: out_shape(x, windows.out_size, 2),
        windows,
        dims: 2,
    })
}

/// Kernel, stride, padding, dilation.
type Params = ([i64; 2], [i64; 2], [i64; 2], [i64; 2]);

/// A 1-d pooling: the 2-d one of `input.unsqueeze(-2)`, squeezed.
fn one_d(
    ev: &mut Evaluator,
    input: &Value,
    kind: Kind,
    params: Params,
    ceil: bool,
    indices: bool,
) -> R<Value> {
    let u = ev.method(input.clone(), "unsqueeze", vec![Value::Int(-2)])?;
    let out = pool2d_value(ev, &u, kind, params, ceil, indices)?;
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

/// A 2-d pooling with fixed windows, its node recorded.
fn pool2d_value(
    ev: &mut Evaluator,
    input: &Value,
    kind: Kind,
    params: Params,
    ceil: bool,
    indices: bool,
) -> R<Value> {
    let x = tensor_of(input)?;
    let pool = plan(&x, kind, params, ceil)?;
    let name = match kind {
        Kind::Max => "max_pool2d",
        _ => "avg_pool2d",
    };
    pooled_value(ev, input, &x, &pool, name, indices)
}

/// A planned pooling with fixed windows, computed, its node recorded (`indices`: the
/// indices returned too).
pub(super) fn pooled_value(
    ev: &mut Evaluator,
    input: &Value,
    x: &Tensor,
    pool: &Pool,
    name: &str,
    indices: bool,
) -> R<Value> {
    let kind = pool.kind;
    let bad = match kind {
        Kind::Max => x.dtype == DType::Bool,
        _ => !(x.dtype.is_floating() || x.dtype == DType::Int64),
    };
    if bad || x.dtype.is_complex() {
        return Err(not_implemented(name, x.dtype));
    }
    let (values, index_tensor) = run(ev, x, pool, name)?;
    let values = Value::tensor(values, name, None);
    let index_tensor = index_tensor.map(|i| Value::tensor(i, name, None));
    let out = match (indices, &index_tensor) {
        (true, Some(i)) => Value::Tuple(vec![values.clone(), i.clone()]),
        _ => values.clone(),
    };
    record(ev, input, pool, &out);
    // `MaxPool2DWithIndicesBackward0` keeps the int64 indices (`result1`, output-shaped).
    if let Some(i) = &index_tensor {
        ev.save_extras(&values, &[("result1", i)]);
    }
    Ok(out)
}

/// Computes a planned pooling: the values and (max kinds) the indices.
pub(super) fn run(
    ev: &mut Evaluator,
    x: &Tensor,
    pool: &Pool,
    name: &str,
) -> R<(Tensor, Option<Tensor>)> {
    let size = |v: [usize; 3]| v.iter().product::<usize>() as i64;
    let elements = (pool.windows.planes as i64)
        .saturating_mul(size(pool.windows.in_size) + size(pool.windows.out_size));
    let format = if x.ndim() == 4 && pool.dims == 2 {
        x.layout.suggest_memory_format()
    } else {
        MemoryFormat::Contiguous
    };
    if meta_op(ev) {
        let values = empty_output(ev, &pool.out_shape, format, x.dtype, name)?;
        let indices = match pool.kind {
            Kind::Max | Kind::AdaptiveMax => Some(empty_output(
                ev,
                &pool.out_shape,
                format,
                DType::Int64,
                name,
            )?),
            _ => None,
        };
        return Ok((values, indices));
    }
    ev.check_work(elements, name)?;
    let (values, indices) = match AccType::of(x.dtype) {
        AccType::F32 => compute::<f32>(ev, x, pool),
        AccType::F64 => compute::<f64>(ev, x, pool),
        AccType::I64 => compute::<i64>(ev, x, pool),
    };
    let values = host_tensor(ev, &pool.out_shape, format, x.dtype, &values, name)?;
    let indices = match indices {
        Some(i) => {
            let i: Vec<Scalar> = i.into_iter().map(Scalar::Int).collect();
            Some(host_tensor(
                ev,
                &pool.out_shape,
                format,
                DType::Int64,
                &i,
                name,
            )?)
        }
        None => None,
    };
    Ok((values, indices))
}

fn compute<T: Num>(ev: &mut Evaluator, x: &Tensor, pool: &Pool) -> (Vec<Scalar>, Option<Vec<i64>>) {
    let xv: Vec<T> = ev.engine.values(x).into_iter().map(T::of).collect();
    let w = &pool.windows;
    let (values, indices) = match pool.kind {
        Kind::Max => {
            let (v, i) = kernel::max_pool(&xv, w);
            (v, Some(i))
        }
        Kind::Avg {
            include_pad,
            divisor,
        } => (kernel::avg_pool(&xv, w, include_pad, divisor), None),
        Kind::AdaptiveAvg => (kernel::adaptive(&xv, w, false).0, None),
        Kind::AdaptiveMax => {
            let (v, i) = kernel::adaptive(&xv, w, true);
            (v, Some(i))
        }
    };
    (values.into_iter().map(T::scalar).collect(), indices)
}

/// `F.avg_pool2d`, `F.avg_pool1d`, `torch.avg_pool1d`.
fn avg_pool(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = input_value(call)?;
    let x = tensor_of(&input)?;
    let kernel = given_ints(ev, call, "kernel_size")?.unwrap_or_default();
    let stride = given_ints(ev, call, "stride")?.unwrap_or_default();
    let padding = given_ints(ev, call, "padding")?.unwrap_or_else(|| vec![0]);
    let ceil = flag(ev, call, "ceil_mode", false)?;
    let include_pad = flag(ev, call, "count_include_pad", true)?;
    let divisor = match call.value("divisor_override") {
        None => None,
        Some(v) => {
            let v = v.clone();
            Some(ev.index_int(&v)?)
        }
    };
    let kind = Kind::Avg {
        include_pad,
        divisor,
    };
    if call.name == "avg_pool1d" {
        if !matches!(x.ndim(), 2 | 3) {
            return Err(runtime(format!(
                "Expected 2 to 3 dimensions, but got {}-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)",
                x.ndim()
            )));
        }
        let one = |v: &[i64], what: &str| -> R<Option<i64>> {
            match v {
                [] => Ok(None),
                [a] => Ok(Some(*a)),
                _ => Err(runtime(format!(
                    "avg_pool1d() argument '{what}' should contain one int (got {})",
                    v.len()
                ))),
            }
        };
        let k = one(&kernel, "kernel_size")?.unwrap_or(0);
        let s = one(&stride, "stride")?.unwrap_or(k);
        let p = one(&padding, "padding")?.unwrap_or(0);
        return one_d(
            ev,
            &input,
            kind,
            ([1, k], [1, s], [0, p], [1, 1]),
            ceil,
            false,
        );
    }
    let k = pair(
        &kernel,
        "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints",
    )?;
    let s = match stride.len() {
        0 => k,
        _ => pair(
            &stride,
            "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints",
        )?,
    };
    let p = pair(
        &padding,
        "avg_pool2d: padding must either be a single int, or a tuple of two ints",
    )?;
    if divisor == Some(0) {
        return Err(runtime("divisor must be not zero".into()));
    }
    if x.ndim() < 3 {
        let n = x.ndim() as i64;
        return Err(ScriptError::Index(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got -3)",
            -n.max(1),
            n.max(1) - 1
        )));
    }
    pool2d_value(ev, &input, kind, (k, s, p, [1, 1]), ceil, false)
}

/// Records the pooling's node on its output, with the input as its operand and the windows
/// as its arguments.
pub(super) fn record(ev: &mut Evaluator, input: &Value, pool: &Pool, out: &Value) {
    let w = &pool.windows;
    let three = pool.dims == 3;
    let tuple = |v: [i64; 3]| {
        let v = if three { &v[..] } else { &v[1..] };
        Value::Tuple(v.iter().map(|&n| Value::Int(n)).collect())
    };
    let (grad, name, extra) = match (pool.kind, three) {
        (Kind::Max, false) => (&MAX_POOL_GRAD, "max_pool2d", vec![]),
        (Kind::Max, true) => (&MAX_POOL3D_GRAD, "max_pool3d", vec![]),
        (
            Kind::Avg {
                include_pad,
                divisor,
            },
            _,
        ) => (
            if three {
                &AVG_POOL3D_GRAD
            } else {
                &AVG_POOL_GRAD
            },
            if three { "avg_pool3d" } else { "avg_pool2d" },
            vec![
                ("count_include_pad", Value::Bool(include_pad)),
                ("divisor_override", divisor.map_or(Value::None, Value::Int)),
            ],
        ),
        (Kind::AdaptiveAvg, false) => (&ADAPTIVE_AVG_GRAD, "adaptive_avg_pool2d", vec![]),
        (Kind::AdaptiveAvg, true) => (&ADAPTIVE_AVG3D_GRAD, "adaptive_avg_pool3d", vec![]),
        (Kind::AdaptiveMax, false) => (&ADAPTIVE_MAX_GRAD, "adaptive_max_pool2d", vec![]),
        (Kind::AdaptiveMax, true) => (&ADAPTIVE_MAX3D_GRAD, "adaptive_max_pool3d", vec![]),
    };
    let mut args: Vec<(&str, Value)> = vec![
        ("kernel_size", tuple(w.kernel)),
        ("stride", tuple(w.stride)),
        ("padding", tuple(w.pad)),
        ("dilation", tuple(w.dilation)),
        ("output_size", tuple(w.out_size.map(|n| n as i64))),
    ];
    args.extend(extra);
    let named: Vec<(&str, &Value)> = args.iter().map(|(n, v)| (*n, v)).collect();
    let op = GradOp::Named {
        name,
        grad,
        args: &named,
    };
    ev.record_grad(op, &[input], out);
}

const MAX_POOL_GRAD: Grad = Grad::named("MaxPool2DWithIndicesBackward0", &MAX_POOL);
const AVG_POOL_GRAD: Grad = Grad::named("AvgPool2DBackward0", &AVG_POOL);
const ADAPTIVE_AVG_GRAD: Grad = Grad::named("AdaptiveAvgPool2DBackward0", &ADAPTIVE_AVG);
const ADAPTIVE_MAX_GRAD: Grad = Grad::named("AdaptiveMaxPool2DBackward0", &ADAPTIVE_MAX);
const MAX_POOL3D_GRAD: Grad = Grad::named("MaxPool3DWithIndicesBackward0", &MAX_POOL);
const AVG_POOL3D_GRAD: Grad = Grad::named("AvgPool3DBackward0", &AVG_POOL);
const ADAPTIVE_AVG3D_GRAD: Grad = Grad::named("AdaptiveAvgPool3DBackward0", &ADAPTIVE_AVG);
const ADAPTIVE_MAX3D_GRAD: Grad = Grad::named("AdaptiveMaxPool3DBackward0", &ADAPTIVE_MAX);
