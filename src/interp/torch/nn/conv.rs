//! Convolutions: `conv1d`, `conv2d`, `conv3d`, `conv_transpose1d/2d/3d` (`torch.` and
//! `torch.nn.functional.`), with ATen's checks and messages in its order, the output's
//! memory format (channels_last when the input or the weight suggests it), and the
//! `ConvolutionBackward0` node whose formula is in
//! [`crate::interp::torch::nn::conv_backward`]. The arithmetic is
//! [`crate::interp::torch::nn::conv_kernel`]'s, on host values.

use crate::core::tensor::layout::list_str;
use crate::core::tensor::{DType, Layout, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::{Grad, GradOp};
use crate::interp::torch::nn::conv_backward::CONVOLUTION;
use crate::interp::torch::nn::conv_kernel::{self as kernel, Elem, Geometry};
use crate::interp::torch::nn::conv_memory;
use crate::interp::torch::nn::functional::functional;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// What autograd records for every convolution (the table's own recording is off: the rule
/// records the node with the operands `input, weight, bias`).
pub(crate) const CONVOLUTION_GRAD: Grad = Grad::named("ConvolutionBackward0", &CONVOLUTION);

const CONV1D: &str = "Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, int[1] dilation=1, int groups=1";
const CONV1D_STR: &str = "Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, str padding=\"valid\", int[1] dilation=1, int groups=1";
const CONV2D: &str = "Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1";
const CONV2D_STR: &str = "Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, str padding=\"valid\", int[2] dilation=1, int groups=1";
const CONV3D: &str = "Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0, int[3] dilation=1, int groups=1";
const CONV3D_STR: &str = "Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, str padding=\"valid\", int[3] dilation=1, int groups=1";
const CONV_T3D: &str = "Tensor input, Tensor weight, Tensor? bias=None, int[3] stride=1, int[3] padding=0, int[3] output_padding=0, int groups=1, int[3] dilation=1";
const CONV_T1D: &str = "Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, int[1] padding=0, int[1] output_padding=0, int groups=1, int[1] dilation=1";
const CONV_T2D: &str = "Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] output_padding=0, int groups=1, int[2] dilation=1";
const PY_CONV: &str = "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1";
const PY_CONV_T: &str =
    "input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1";

const fn torch_fn(names: &'static [&'static str], schemas: &'static [&'static str]) -> OpDef {
    OpDef {
        names,
        schemas,
        forms: Forms::Function,
        rule: conv,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    }
}

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    torch_fn(&["conv1d"], &[CONV1D, CONV1D_STR]),
    torch_fn(&["conv2d"], &[CONV2D, CONV2D_STR]),
    torch_fn(&["conv_transpose1d"], &[CONV_T1D]),
    torch_fn(&["conv_transpose2d"], &[CONV_T2D]),
    torch_fn(&["conv3d"], &[CONV3D, CONV3D_STR]),
    torch_fn(&["conv_transpose3d"], &[CONV_T3D]),
    functional(
        &["conv1d", "conv2d", "conv3d"],
        &[PY_CONV],
        conv,
        Grad::UNTRACKED,
    ),
    functional(
        &["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"],
        &[PY_CONV_T],
        conv,
        Grad::UNTRACKED,
    ),
];

/// A convolution's parameters, once checked and expanded to its spatial dimensions.
#[derive(Clone, Debug)]
pub(crate) struct Params {
    pub stride: Vec<i64>,
    /// Padding before each spatial dimension.
    pub pad: Vec<i64>,
    /// Padding after it (different only for `padding='same'` with an even kernel).
    pub pad_after: Vec<i64>,
    pub dilation: Vec<i64>,
    pub output_padding: Vec<i64>,
    pub groups: i64,
    pub transposed: bool,
}

/// c10's `TypeMeta` name of a dtype, as `Input type (float) and bias type (double)` says it.
fn type_meta_name(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "bool",
        DType::UInt8 => "unsigned char",
        DType::Int8 => "signed char",
        DType::Int16 => "short int",
        DType::Int32 => "int",
        DType::Int64 => "long int",
        DType::Float16 => "c10::Half",
        DType::BFloat16 => "c10::BFloat16",
        DType::Float32 => "float",
        DType::Float64 => "double",
        DType::Complex64 => "c10::complex<float>",
        DType::Complex128 => "c10::complex<double>",
    }
}

fn runtime(msg: String) -> ScriptError {
    ScriptError::Runtime(msg)
}

/// A tensor argument at `position` (1-based), PyTorch's message otherwise.
fn tensor_at(call: &OpCall, name: &str, position: usize) -> R<Tensor> {
    match call.value(name) {
        Some(Value::Tensor(t)) => Ok(t.borrow().tensor.clone()),
        other => Err(ScriptError::Type(format!(
            "{}(): argument '{name}' (position {position}) must be Tensor, not {}",
            call.name,
            other.map_or("NoneType".into(), Value::type_name)
        ))),
    }
}

/// An `int[dims]` parameter as the binder gives it: absent or one int is `dims` values, a
/// sequence is as given.
fn ints(ev: &mut Evaluator, call: &OpCall, name: &str, default: i64, dims: usize) -> R<Vec<i64>> {
    match call.value(name).cloned() {
        None => Ok(vec![default; dims]),
        Some(Value::Int(i)) => Ok(vec![i; dims]),
        Some(Value::Str(_)) | Some(Value::Float(_)) => Err(ScriptError::Type(format!(
            "{}(): argument '{name}' must be tuple of ints, not {}",
            call.name,
            call.value(name).map_or("NoneType".into(), Value::type_name)
        ))),
        Some(v) => ev.int_list(&v, &call.name, name),
    }
}

/// ATen's `expand_param_if_needed`: one value for every spatial dimension.
fn expand(values: Vec<i64>, name: &str, dims: usize) -> R<Vec<i64>> {
    match values.len() {
        1 => Ok(vec![values[0]; dims]),
        n if n == dims => Ok(values),
        _ => Err(runtime(format!(
            "expected {name} to be a single integer value or a list of {dims} values to match the convolution dimensions, but got {name}={}",
            list_str(&values)
        ))),
    }
}

/// `padding=` as given: numbers, or `'valid'` / `'same'`.
enum Padding {
    Ints(Vec<i64>),
    Valid,
    Same,
}

fn padding(ev: &mut Evaluator, call: &OpCall, transposed: bool, dims: usize) -> R<Padding> {
    match call.value("padding") {
        Some(Value::Str(_)) if transposed => Err(ScriptError::Type(format!(
            "{}(): argument 'padding' must be tuple of ints, not str",
            call.name
        ))),
        Some(Value::Str(s)) if s == "valid" => Ok(Padding::Valid),
        Some(Value::Str(s)) if s == "same" => Ok(Padding::Same),
        Some(Value::Str(s)) => Err(runtime(format!("Invalid padding string: '{s}'"))),
        _ => Ok(Padding::Ints(ints(ev, call, "padding", 0, dims)?)),
    }
}

/// `F.conv1d/2d/3d`, `F.conv_transpose1d/2d/3d` and their `torch.` forms.
fn conv(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let transposed = call.name.starts_with("conv_transpose");
    let dims: usize = match call.name.chars().rev().nth(1) {
        Some('1') => 1,
        Some('3') => 3,
        _ => 2,
    };
    let input = tensor_at(call, "input", 1)?;
    let weight = tensor_at(call, "weight", 2)?;
    let bias = match call.value("bias") {
        None | Some(Value::None) => None,
        Some(Value::Tensor(t)) => Some(t.borrow().tensor.clone()),
        Some(other) => {
            return Err(ScriptError::Type(format!(
                "{}(): argument 'bias' (position 3) must be Tensor, not {}",
                call.name,
                other.type_name()
            )))
        }
    };
    let stride = ints(ev, call, "stride", 1, dims)?;
    let pad = padding(ev, call, transposed, dims)?;
    let dilation = ints(ev, call, "dilation", 1, dims)?;
    let output_padding = ints(ev, call, "output_padding", 0, dims)?;
    let groups = match call.value("groups") {
        None => 1,
        Some(Value::Int(i)) => *i,
        Some(other) => {
            return Err(ScriptError::Type(format!(
                "{}(): argument 'groups' must be int, not {}",
                call.name,
                other.type_name()
            )))
        }
    };
    if let (Some(b), false) = (&bias, transposed) {
        if b.dtype != input.dtype {
            return Err(runtime(format!(
                "Input type ({}) and bias type ({}) should be the same",
                type_meta_name(input.dtype),
                type_meta_name(b.dtype)
            )));
        }
    }
    let batched = if input.ndim() == dims + 2 {
        true
    } else if input.ndim() == dims + 1 {
        false
    } else {
        return Err(runtime(format!(
            "Expected {}D (unbatched) or {}D (batched) input to {}, but got input of size: {}",
            dims + 1,
            dims + 2,
            call.name,
            list_str(input.shape())
        )));
    };
    let x = if batched {
        input.clone()
    } else {
        unsqueeze0(&input)
    };
    if weight.ndim() < 3 {
        return Err(runtime(
            "weight should have at least three dimensions".into(),
        ));
    }
    let k = weight.ndim() - 2;
    // `_convolution_mode` turns 'same' into numbers first (from the parameters as given);
    // `_convolution` then expands stride, padding, dilation, output_padding in this order.
    let same = match pad {
        Padding::Same => Some(same_padding(ev, &weight, &stride, &dilation, k)?),
        _ => None,
    };
    let stride = expand(stride, "stride", k)?;
    let (pad, pad_after) = match (pad, same) {
        (_, Some(same)) => same,
        (Padding::Ints(p), None) => {
            let p = expand(p, "padding", k)?;
            (p.clone(), p)
        }
        _ => (vec![0; k], vec![0; k]),
    };
    let dilation = expand(dilation, "dilation", k)?;
    let output_padding = expand(output_padding, "output_padding", k)?;
    let params = Params {
        stride,
        pad,
        pad_after,
        dilation,
        output_padding,
        groups,
        transposed,
    };
    check_shape(&x, &weight, bias.as_ref(), &params)?;
    let out = forward(ev, &call.name, &x, &weight, bias.as_ref(), &params)?;
    let out = if batched { out } else { squeeze0(&out) };
    let result = Value::tensor(out, &call.name, None);
    record(ev, call, &params, &result);
    Ok(result)
}

/// `padding='same'`: the total padding `d * (k - 1)` split with the odd one after (ATen pads
/// the input on the right for an even kernel), which only stride 1 allows.
fn same_padding(
    ev: &mut Evaluator,
    weight: &Tensor,
    stride: &[i64],
    dilation: &[i64],
    k: usize,
) -> R<(Vec<i64>, Vec<i64>)> {
    if stride.iter().any(|&s| s != 1) {
        return Err(runtime(
            "padding='same' is not supported for strided convolutions".into(),
        ));
    }
    let dilation = match dilation.len() {
        1 => vec![dilation[0]; k],
        n if n == k => dilation.to_vec(),
        _ => {
            return Err(runtime(format!(
                "dilation cannot broadcast to {k} dimensions"
            )))
        }
    };
    let mut before = Vec::with_capacity(k);
    let mut after = Vec::with_capacity(k);
    for (i, d) in dilation.iter().enumerate() {
        let total = d * (weight.shape()[i + 2] - 1);
        if d % 2 == 1 && weight.shape()[i + 2] % 2 == 0 {
            ev.recorder.warn_once(SAME_WARNING);
        }
        before.push(total / 2);
        after.push(total - total / 2);
    }
    Ok((before, after))
}

const SAME_WARNING: &str = "UserWarning: Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the input be created (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1135.)";

/// `t` with a leading dimension of 1 (a view's metadata: the values are the same).
fn unsqueeze0(t: &Tensor) -> Tensor {
    let mut out = t.clone();
    let stride = t
        .shape()
        .first()
        .zip(t.strides().first())
        .map_or(1, |(n, s)| n * s);
    out.layout.shape.insert(0, 1);
    out.layout.strides.insert(0, stride.max(1));
    out
}

/// `t` without its leading dimension of 1.
fn squeeze0(t: &Tensor) -> Tensor {
    let mut out = t.clone();
    if !out.layout.shape.is_empty() {
        out.layout.shape.remove(0);
        out.layout.strides.remove(0);
    }
    out
}

/// ATen's `check_shape_forward` (and the kernels' own checks after it), in their order.
fn check_shape(x: &Tensor, w: &Tensor, bias: Option<&Tensor>, p: &Params) -> R<()> {
    let ws = w.shape();
    let any = |v: &[i64], f: fn(i64) -> bool| v.iter().any(|&x| f(x));
    if any(&p.pad, |x| x < 0) {
        return Err(runtime("negative padding is not supported".into()));
    }
    if any(&p.output_padding, |x| x < 0) {
        return Err(runtime("negative output_padding is not supported".into()));
    }
    if any(&p.stride, |x| x <= 0) {
        return Err(runtime("non-positive stride is not supported".into()));
    }
    if !p.transposed && any(&p.dilation, |x| x <= 0) {
        return Err(runtime("non-positive dilation is not supported".into()));
    }
    if p.groups <= 0 {
        return Err(runtime("non-positive groups is not supported".into()));
    }
    if ws.len() != x.ndim() {
        return Err(runtime(format!(
            "Expected {}-dimensional input for {}-dimensional weight {}, but got {}-dimensional input of size {} instead",
            ws.len(),
            ws.len(),
            list_str(ws),
            x.ndim(),
            list_str(x.shape())
        )));
    }
    if ws[0] < p.groups {
        return Err(runtime(format!(
            "Given groups={}, expected weight to be at least {} at dimension 0, but got weight of size {} instead",
            p.groups,
            p.groups,
            list_str(ws)
        )));
    }
    if ws[0] % p.groups != 0 {
        return Err(runtime(format!(
            "Given groups={}, expected weight to be divisible by {} at dimension 0, but got weight of size [{}] instead",
            p.groups,
            p.groups,
            list_str(ws)
        )));
    }
    let bias_text = |expected: i64| {
        bias.filter(|b| b.ndim() != 1 || b.shape()[0] != expected)
            .map(|b| {
                format!(
                    "expected bias to be 1-dimensional with {expected} elements, but got bias of size {} instead",
                    list_str(b.shape())
                )
            })
    };
    let xs = x.shape();
    if p.transposed {
        if xs[1] != ws[0] {
            return Err(runtime(format!(
                "Given transposed=1, weight of size {}, expected input{} to have {} channels, but got {} channels instead",
                list_str(ws),
                list_str(xs),
                ws[0],
                xs[1]
            )));
        }
        if let Some(text) = bias_text(ws[1] * p.groups) {
            return Err(runtime(format!(
                "Given transposed=1, weight of size {}, {text}",
                list_str(ws)
            )));
        }
        return Ok(());
    }
    if xs[1] != ws[1] * p.groups {
        return Err(runtime(format!(
            "Given groups={}, weight of size {}, expected input{} to have {} channels, but got {} channels instead",
            p.groups,
            list_str(ws),
            list_str(xs),
            ws[1] * p.groups,
            xs[1]
        )));
    }
    if let Some(text) = bias_text(ws[0]) {
        return Err(runtime(format!(
            "Given weight of size {}, {text}",
            list_str(ws)
        )));
    }
    let padded: Vec<i64> = (2..xs.len())
        .map(|i| xs[i] + p.pad[i - 2] + p.pad_after[i - 2])
        .collect();
    let kernel: Vec<i64> = (2..xs.len())
        .map(|i| p.dilation[i - 2] * (ws[i] - 1) + 1)
        .collect();
    if padded.iter().zip(&kernel).any(|(a, b)| a < b) {
        let join = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(" x ");
        return Err(runtime(format!(
            "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size can't be greater than actual input size",
            join(&padded),
            join(&kernel)
        )));
    }
    Ok(())
}

/// The checks of the kernels ATen dispatches to (`slow_conv2d`, `slow_conv3d`,
/// `slow_conv_transpose2d/3d`, mkldnn): kernel sizes, dilation, output padding, output size,
/// dtypes.
fn check_kernel(x: &Tensor, w: &Tensor, p: &Params, out: &[i64]) -> R<()> {
    let ws = w.shape();
    let three = ws.len() == 5;
    if three && ws[2..].iter().any(|&k| k <= 0) {
        return Err(runtime(format!(
            "kernel size should be greater than zero, but got: {} x {} x {} (TxHxW)",
            ws[2], ws[3], ws[4]
        )));
    }
    let kernel = if ws.len() == 4 {
        [ws[2], ws[3]]
    } else {
        [1, ws.get(2).copied().unwrap_or(1)]
    };
    if !three && kernel.iter().any(|&k| k <= 0) {
        return Err(runtime(format!(
            "kernel size should be greater than zero, but got kernel_height: {} kernel_width: {}",
            kernel[0], kernel[1]
        )));
    }
    if p.transposed {
        check_transposed(x, p, out, three)?;
    }
    if x.dtype != w.dtype {
        let mkldnn = x.dtype == DType::Float32 && conv_memory::uses_mkldnn(x.shape(), ws, p);
        if mkldnn || (!p.transposed && matches!(x.dtype, DType::Float16 | DType::BFloat16)) {
            return Err(runtime(format!(
                "Input type ({}) and weight type ({}) should be the same or input should be a MKLDNN tensor and weight is a dense tensor",
                x.dtype.legacy_type_name(),
                w.dtype.legacy_type_name()
            )));
        }
        return Err(runtime(format!(
            "expected scalar type {} but found {}",
            x.dtype.scalar_type_name(),
            w.dtype.scalar_type_name()
        )));
    }
    if x.dtype == DType::Bool || x.dtype.is_complex() {
        let kernel = match (p.transposed, three) {
            (true, true) => "slow_conv_transpose3d_out_cpu",
            (true, false) => "slow_conv_transpose2d_out_cpu",
            (false, true) => "compute_columns3d",
            (false, false) => "slow_conv2d_cpu",
        };
        return Err(ScriptError::NotImplemented(format!(
            "\"{kernel}\" not implemented for '{}'",
            x.dtype.scalar_type_name()
        )));
    }
    Ok(())
}

/// A transposed convolution's checks: dilation, output padding, output size.
fn check_transposed(x: &Tensor, p: &Params, out: &[i64], three: bool) -> R<()> {
    let pair = |v: &[i64], fill: i64| -> [i64; 2] {
        if v.len() == 2 {
            [v[0], v[1]]
        } else {
            [fill, v.first().copied().unwrap_or(fill)]
        }
    };
    if three {
        let (d, s, op) = (&p.dilation, &p.stride, &p.output_padding);
        if d.iter().any(|&x| x <= 0) {
            return Err(runtime(format!(
                "dilation should be greater than zero, but got dilation_depth: {}, dilation_height: {}, dilation_width: {}",
                d[0], d[1], d[2]
            )));
        }
        if (0..3).any(|i| !(op[i] < s[i] || op[i] < d[i])) {
            return Err(runtime(format!(
                "output padding must be smaller than either stride or dilation, but got output_padding_depth: {} output_padding_height: {} output_padding_width: {} stride_depth: {} stride_height: {} stride_width: {} dilation_depth: {} dilation_height: {} dilation_width: {}",
                op[0], op[1], op[2], s[0], s[1], s[2], d[0], d[1], d[2]
            )));
        }
    } else {
        let d = pair(&p.dilation, 1);
        if d.iter().any(|&x| x <= 0) {
            return Err(runtime(format!(
                "dilation should be greater than zero, but got dilation_height: {}, dilation_width: {}",
                d[0], d[1]
            )));
        }
        let (s, op) = (pair(&p.stride, 1), pair(&p.output_padding, 0));
        let fits = |i: usize| op[i] < s[i] || op[i] < d[i];
        if !(fits(0) && fits(1)) {
            return Err(runtime(format!(
                "output padding must be smaller than either stride or dilation, but got output_padding_height: {} output_padding_width: {} stride_height: {} stride_width: {} dilation_height: {} dilation_width: {}",
                op[0], op[1], s[0], s[1], d[0], d[1]
            )));
        }
    }
    if out.iter().skip(2).any(|&n| n < 1) {
        let sizes = |v: &[i64]| {
            v.iter()
                .skip(2)
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(" x ")
        };
        return Err(runtime(format!(
            "Given input size per channel: ({}). Calculated output size per channel: ({}). Output size is too small",
            sizes(x.shape()),
            sizes(out)
        )));
    }
    Ok(())
}

/// The geometry of a checked convolution on a batched input `x` (x and y swap roles for a
/// transposed one: see [`kernel`]), and the output's shape.
pub(crate) fn geometry(xs: &[i64], ws: &[i64], p: &Params) -> (Geometry, Vec<i64>) {
    // Every convolution is a 3-d one: missing leading spatial dimensions are 1.
    let spatial = |v: &[i64]| -> [usize; 3] {
        let mut out = [1usize; 3];
        let dims = v.len().saturating_sub(2).min(3);
        for i in 0..dims {
            out[3 - dims + i] = v[2 + i].max(0) as usize;
        }
        out
    };
    let triple = |v: &[i64], fill: i64| -> [i64; 3] {
        let mut out = [fill; 3];
        let n = v.len().min(3);
        out[3 - n..].copy_from_slice(&v[v.len() - n..]);
        out
    };
    let (s, d, pb, pa, op) = (
        triple(&p.stride, 1),
        triple(&p.dilation, 1),
        triple(&p.pad, 0),
        triple(&p.pad_after, 0),
        triple(&p.output_padding, 0),
    );
    let k = spatial(ws);
    let input = spatial(xs);
    let mut other = [1i64; 3];
    for i in 0..3 {
        let kk = k[i] as i64;
        other[i] = if p.transposed {
            (input[i] as i64 - 1) * s[i] - pb[i] - pa[i] + d[i] * (kk - 1) + op[i] + 1
        } else {
            (input[i] as i64 + pb[i] + pa[i] - d[i] * (kk - 1) - 1).div_euclid(s[i].max(1)) + 1
        };
    }
    let g = p.groups.max(1);
    let (out_channels, x_size, y_size, x_channels, y_channels) = if p.transposed {
        let oc = ws[1] * g;
        (oc, other.map(|n| n.max(0) as usize), input, oc, xs[1])
    } else {
        (ws[0], input, other.map(|n| n.max(0) as usize), xs[1], ws[0])
    };
    let mut out = vec![xs[0], out_channels];
    let dims = xs.len().saturating_sub(2).min(3);
    out.extend_from_slice(&other[3 - dims..]);
    let u = |v: [i64; 3]| v.map(|n| n.max(0) as usize);
    let geo = Geometry {
        n: xs[0].max(0) as usize,
        groups: g as usize,
        x_channels: x_channels.max(0) as usize,
        y_channels: y_channels.max(0) as usize,
        x_size,
        y_size,
        kernel: k,
        stride: u(s),
        pad: u(pb),
        dilation: u(d),
    };
    (geo, out)
}

/// Host values of `t` in row-major order, as `f64` or wrapped `i64`.
pub(crate) fn host<T: Elem>(ev: &mut Evaluator, t: &Tensor, of: fn(Scalar) -> T) -> Vec<T> {
    ev.engine.values(t).into_iter().map(of).collect()
}

/// A fresh tensor of `shape` in `format` holding `values` (row-major).
pub(crate) fn host_tensor(
    ev: &mut Evaluator,
    shape: &[i64],
    format: MemoryFormat,
    dtype: DType,
    values: &[Scalar],
    what: &str,
) -> R<Tensor> {
    if format == MemoryFormat::Contiguous || shape.len() != 4 {
        return ev.tensor_from_values(shape, dtype, values, what);
    }
    let layout = Layout::with_format(shape, format);
    let item = dtype.item_size();
    let nbytes = values
        .len()
        .checked_mul(item)
        .ok_or_else(|| runtime(format!("{what}: tensor is too large")))?;
    ev.check_memory(nbytes, what)?;
    let mut bytes = vec![0u8; nbytes];
    for (offset, v) in layout.offsets().zip(values) {
        if let Ok(at) = usize::try_from(offset) {
            if (at + 1) * item <= nbytes {
                dtype.write(&mut bytes, at, *v);
            }
        }
    }
    let storage = ev.allocate_with(bytes, dtype, what)?;
    Ok(Tensor {
        storage,
        dtype,
        layout,
    })
}

/// The checks of the kernel, then the output.
fn forward(
    ev: &mut Evaluator,
    name: &str,
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    p: &Params,
) -> R<Tensor> {
    let (geo, out_shape) = geometry(x.shape(), w.shape(), p);
    check_kernel(x, w, p, &out_shape)?;
    let format = if x.ndim() == 4
        && (x.layout.suggest_memory_format() == MemoryFormat::ChannelsLast
            || w.layout.suggest_memory_format() == MemoryFormat::ChannelsLast)
    {
        MemoryFormat::ChannelsLast
    } else {
        MemoryFormat::Contiguous
    };
    if meta_op(ev) {
        return empty_output(ev, &out_shape, format, x.dtype, name);
    }
    check_work(ev, &geo, name)?;
    let positions: i64 = out_shape.iter().skip(2).product();
    let values: Vec<Scalar> = if x.dtype.is_floating() {
        let (xv, wv) = (host(ev, x, Scalar::to_f64), host(ev, w, Scalar::to_f64));
        let bv = bias.map(|b| host(ev, b, Scalar::to_f64));
        let mut out = if p.transposed {
            kernel::x_from_y(&xv, &wv, &geo)
        } else if x.dtype == DType::Float32 {
            kernel::y_from_x_f32(&xv, &wv, &geo)
        } else {
            kernel::y_from_x(&xv, &wv, &geo)
        };
        add_bias(&mut out, bv.as_deref(), positions as usize);
        out.into_iter().map(Scalar::Float).collect()
    } else {
        let (xv, wv) = (
            host(ev, x, Scalar::to_wrapped_int),
            host(ev, w, Scalar::to_wrapped_int),
        );
        let bv = bias.map(|b| host(ev, b, Scalar::to_wrapped_int));
        let mut out = if p.transposed {
            kernel::x_from_y(&xv, &wv, &geo)
        } else {
            kernel::y_from_x(&xv, &wv, &geo)
        };
        add_bias(&mut out, bv.as_deref(), positions as usize);
        out.into_iter().map(Scalar::Int).collect()
    };
    if format == MemoryFormat::Contiguous {
        let bias = bias.is_some_and(|b| b.numel() > 0);
        conv_memory::begin(ev, x.shape(), w.shape(), &out_shape, x.dtype, bias, p);
    }
    let out = host_tensor(ev, &out_shape, format, x.dtype, &values, name);
    conv_memory::end(ev);
    out
}

/// `out[b, c, ...] += bias[c]`.
fn add_bias<T: Elem>(out: &mut [T], bias: Option<&[T]>, positions: usize) {
    let Some(bias) = bias.filter(|b| !b.is_empty()) else {
        return;
    };
    if positions == 0 {
        return;
    }
    for (i, plane) in out.chunks_mut(positions).enumerate() {
        let b = bias[i % bias.len()];
        for v in plane {
            *v = v.plus(b);
        }
    }
}

/// Whether the op runs on the meta device (where it computes nothing): only there does
/// `check_work` accept any size.
pub(crate) fn meta_op(ev: &Evaluator) -> bool {
    ev.check_work(i64::MAX, "").is_ok()
}

/// An output of `shape` in `format` whose values are not computed (a meta tensor).
pub(crate) fn empty_output(
    ev: &mut Evaluator,
    shape: &[i64],
    format: MemoryFormat,
    dtype: DType,
    what: &str,
) -> R<Tensor> {
    let format = if shape.len() == 4 {
        format
    } else {
        MemoryFormat::Contiguous
    };
    let strides = Layout::with_format(shape, format).strides;
    ev.empty_strided(shape, &strides, dtype, what)
}

/// Refuses convolutions too large for one op (`Limits::max_op_elements` for the tensors and
/// the im2col matrix; 32 times it for the multiply-adds).
pub(crate) fn check_work(ev: &Evaluator, geo: &Geometry, name: &str) -> R<()> {
    let column = i64::try_from(geo.column_elements()).unwrap_or(i64::MAX);
    ev.check_work(column, name)?;
    let limit = ev.limits.max_op_elements.saturating_mul(32);
    let macs = geo.multiply_adds();
    if macs > limit as u128 {
        return Err(runtime(format!(
            "{name}: {macs} multiply-adds is more than Stridescope computes in one op ({limit}); use smaller shapes"
        )));
    }
    Ok(())
}

/// Records the `ConvolutionBackward0` node on the output, with `input, weight, bias` as its
/// operands and the expanded parameters as its arguments.
fn record(ev: &mut Evaluator, call: &OpCall, p: &Params, out: &Value) {
    let tuple = |v: &[i64]| Value::Tuple(v.iter().map(|&n| Value::Int(n)).collect());
    let input = call.value("input").cloned().unwrap_or(Value::None);
    let weight = call.value("weight").cloned().unwrap_or(Value::None);
    let bias = call.value("bias").cloned().unwrap_or(Value::None);
    let args: Vec<(&str, Value)> = vec![
        ("stride", tuple(&p.stride)),
        ("padding", tuple(&p.pad)),
        ("padding_after", tuple(&p.pad_after)),
        ("dilation", tuple(&p.dilation)),
        ("output_padding", tuple(&p.output_padding)),
        ("groups", Value::Int(p.groups)),
        ("transposed", Value::Bool(p.transposed)),
    ];
    let named: Vec<(&str, &Value)> = args.iter().map(|(n, v)| (*n, v)).collect();
    let op = GradOp::Named {
        name: &call.name,
        grad: &CONVOLUTION_GRAD,
        args: &named,
    };
    ev.record_grad(op, &[&input, &weight, &bias], out);
}
