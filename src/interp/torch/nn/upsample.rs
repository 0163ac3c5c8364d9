//! Upsampling: `F.interpolate` (with `F.upsample`, `F.upsample_nearest`,
//! `F.upsample_bilinear`), as `torch/nn/functional.py` checks its arguments (its messages, in
//! its order) and dispatches to ATen's `upsample_nearest{1,2,3}d`,
//! `_upsample_nearest_exact{1,2,3}d`, `upsample_linear1d` and `upsample_bilinear2d` (`mode='area'`
//! is `adaptive_avg_pool`), with ATen's checks, the output's memory format (the input's
//! suggested one), the kernel ATen picks (channels-last or generic, whose buffers the peak
//! counts) and the nodes PyTorch records, which save sizes and scales, no tensor. Also
//! `F.pixel_shuffle`/`F.pixel_unshuffle` (`torch.` too). The arithmetic is
//! [`crate::interp::torch::nn::upsample_kernel`]'s; the backwards are in
//! [`crate::interp::torch::nn::upsample_backward`].

use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::{Grad, GradOp};
use crate::interp::torch::nn::conv::{empty_output, host_tensor, meta_op};
use crate::interp::torch::nn::functional::functional;
use crate::interp::torch::nn::layers::functional as call_functional;
use crate::interp::torch::nn::pool::{flag, input_value, not_implemented, runtime, tensor_of};
use crate::interp::torch::nn::upsample_backward::{node_grad, pixel_shuffle_grad};
use crate::interp::torch::nn::upsample_kernel::{self as kernel, Nearest, Real};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(
        &["interpolate"],
        &["input, size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None, antialias=False"],
        interpolate,
        Grad::UNTRACKED,
    ),
    functional(
        &["upsample"],
        &["input, size=None, scale_factor=None, mode='nearest', align_corners=None"],
        interpolate,
        Grad::UNTRACKED,
    ),
    functional(
        &["upsample_nearest", "upsample_bilinear"],
        &["input, size=None, scale_factor=None"],
        interpolate,
        Grad::UNTRACKED,
    ),
    functional(
        &["pixel_shuffle"],
        &["input, upscale_factor"],
        pixel_shuffle,
        Grad::UNTRACKED,
    ),
    functional(
        &["pixel_unshuffle"],
        &["input, downscale_factor"],
        pixel_shuffle,
        Grad::UNTRACKED,
    ),
    OpDef {
        names: &["pixel_shuffle"],
        schemas: &["Tensor input, int upscale_factor"],
        forms: Forms::Function,
        rule: pixel_shuffle,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["pixel_unshuffle"],
        schemas: &["Tensor input, int downscale_factor"],
        forms: Forms::Function,
        rule: pixel_shuffle,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
];

/// An upsampling mode ATen computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Nearest(Nearest),
    /// `linear` (3-d) or `bilinear` (4-d).
    Linear {
        align: bool,
    },
}

/// A checked upsampling: sizes, the scales passed to the kernel, the mode.
pub(crate) struct Plan {
    pub mode: Mode,
    /// The input's shape.
    pub in_shape: Vec<i64>,
    /// The spatial output size.
    pub out_size: Vec<i64>,
    /// The scales the kernel is given (`None` where the size was given or recomputed).
    pub scales: Vec<Option<f64>>,
}

impl Plan {
    fn planes(&self) -> usize {
        self.in_shape[..2]
            .iter()
            .map(|&v| v.max(0) as usize)
            .product()
    }

    fn in_spatial(&self) -> Vec<usize> {
        self.in_shape[2..]
            .iter()
            .map(|&v| v.max(0) as usize)
            .collect()
    }

    pub(crate) fn out_shape(&self) -> Vec<i64> {
        let mut shape = self.in_shape[..2].to_vec();
        shape.extend_from_slice(&self.out_size);
        shape
    }

    /// Whether ATen runs its channels-last kernel (`_use_channels_last_kernel_2d`).
    fn channels_last_kernel(&self, x: &Tensor) -> bool {
        if self.in_shape.len() != 4 {
            return false;
        }
        let n = self.out_size.len();
        (x.layout.is_contiguous_as(MemoryFormat::ChannelsLast) && self.in_shape[1] > 3)
            || self.out_size[n - 2] + self.out_size[n - 1] <= 128
    }
}

fn value_error(msg: String) -> ScriptError {
    ScriptError::Value(msg)
}

/// A Python list of ints as `list(...)` prints it.
fn list_of(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(", "))
}

/// A number argument as a float (`scale_factor`).
fn float_of(v: &Value) -> R<f64> {
    match v {
        Value::Int(i) => Ok(*i as f64),
        Value::Float(f) => Ok(*f),
        Value::Bool(b) => Ok(f64::from(u8::from(*b))),
        other => Err(ScriptError::Type(format!(
            "must be real number, not {}",
            other.type_name()
        ))),
    }
}

/// `F.interpolate`, `F.upsample`, `F.upsample_nearest`, `F.upsample_bilinear`.
fn interpolate(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = input_value(call)?;
    let x = tensor_of(&input)?;
    let name = call.name.as_str();
    if name != "interpolate" {
        ev.recorder.warn(format!(
            "UserWarning: `nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead."
        ));
    }
    let mode = match name {
        "upsample_nearest" => "nearest".to_string(),
        "upsample_bilinear" => "bilinear".to_string(),
        _ => match call.value("mode") {
            None => "nearest".to_string(),
            Some(Value::Str(s)) => s.clone(),
            Some(other) => ev.str_of(&other.clone())?,
        },
    };
    let mut align = match call.value("align_corners") {
        _ if name == "upsample_bilinear" => Some(true),
        None => None,
        Some(v) => {
            let v = v.clone();
            Some(ev.truthy(&v)?)
        }
    };
    if matches!(mode.as_str(), "nearest" | "area" | "nearest-exact") {
        if align.is_some() {
            return Err(value_error(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear".into(),
            ));
        }
    } else if align.is_none() {
        align = Some(false);
    }
    let sh = x.shape().to_vec();
    let dim = sh.len() as i64 - 2;
    let spatial = list_of(sh.get(2..).unwrap_or(&[]));
    let size = call.value("size").cloned();
    let scale = call.value("scale_factor").cloned();
    let (mut out_size, mut scales): (Option<Vec<i64>>, Option<Vec<f64>>) = match (&size, &scale) {
        (Some(_), Some(_)) => {
            return Err(value_error(
                "only one of size or scale_factor should be defined".into(),
            ))
        }
        (Some(s), None) => {
            let items = match s {
                Value::Tuple(items) | Value::List(items) => Some(items.clone()),
                Value::Size(dims) => Some(dims.iter().map(|&d| Value::Int(d)).collect()),
                _ => None,
            };
            match items {
                Some(items) => {
                    if items.len() as i64 != dim {
                        let shown = ev.repr(s)?;
                        return Err(value_error(format!(
                            "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of {spatial} and output size of {shown}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
                        )));
                    }
                    if !items
                        .iter()
                        .all(|v| matches!(v, Value::Int(_) | Value::Bool(_)))
                    {
                        let kinds: Vec<String> = items
                            .iter()
                            .map(|v| format!("<class '{}'>", v.type_name()))
                            .collect();
                        return Err(ScriptError::Type(format!(
                            "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], but got size with types [{}]",
                            kinds.join(", ")
                        )));
                    }
                    let mut out = Vec::with_capacity(items.len());
                    for v in &items {
                        out.push(ev.index_int(v)?);
                    }
                    (Some(out), None)
                }
                None => {
                    let n = ev.index_int(s)?;
                    (Some(vec![n; dim.max(0) as usize]), None)
                }
            }
        }
        (None, Some(s)) => match s {
            Value::Tuple(items) | Value::List(items) => {
                if items.len() as i64 != dim {
                    let shown = ev.repr(s)?;
                    return Err(value_error(format!(
                        "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial dimensions of {spatial} and scale_factor of shape {shown}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                    )));
                }
                (None, Some(items.iter().map(float_of).collect::<R<_>>()?))
            }
            v => (None, Some(vec![float_of(v)?; dim.max(0) as usize])),
        },
        (None, None) => {
            return Err(value_error(
                "either size or scale_factor should be defined".into(),
            ))
        }
    };
    let mut recompute = match call.value("recompute_scale_factor") {
        None => false,
        Some(v) => {
            let v = v.clone();
            ev.truthy(&v)?
        }
    };
    if recompute && size.is_some() {
        return Err(value_error(
            "recompute_scale_factor is not meaningful with an explicit size.".into(),
        ));
    }
    if mode == "area" && out_size.is_none() {
        recompute = true;
    }
    if recompute {
        if let Some(s) = scales.take() {
            out_size = Some(
                s.iter()
                    .zip(sh.get(2..).unwrap_or(&[]))
                    .map(|(f, &n)| (n as f64 * f).trunc() as i64)
                    .collect(),
            );
        }
    }
    let antialias = flag(ev, call, "antialias", false)?;
    if antialias && !(matches!(mode.as_str(), "bilinear" | "bicubic" | "lanczos") && sh.len() == 4)
    {
        return Err(value_error(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input".into(),
        ));
    }
    let align = align.unwrap_or(false);
    let n = sh.len();
    let m = match (n, mode.as_str()) {
        (3..=5, "nearest") => Mode::Nearest(Nearest::Floor),
        (3..=5, "nearest-exact") => Mode::Nearest(Nearest::Exact),
        (3 | 4, "area") => {
            let function = if n == 3 {
                "adaptive_avg_pool1d"
            } else {
                "adaptive_avg_pool2d"
            };
            let size = out_size.unwrap_or_default();
            let size = Value::Tuple(size.into_iter().map(Value::Int).collect());
            return call_functional(ev, function, vec![input, size], vec![]);
        }
        (3, "linear") => Mode::Linear { align },
        (4, "bilinear") if !antialias => Mode::Linear { align },
        (5, "area" | "trilinear") | (4, "bicubic" | "lanczos" | "bilinear") => {
            return Err(ScriptError::NotImplemented(format!(
                "F.interpolate with mode='{mode}'{} on a {n}-D input is not supported by Stridescope (nearest, nearest-exact, area, linear and bilinear are)",
                if antialias { " and antialias=True" } else { "" }
            )))
        }
        (3, "bilinear") => return Err(mismatch(3, "bilinear", 4)),
        (3, "trilinear") => return Err(mismatch(3, "trilinear", 5)),
        (4, "linear") => return Err(mismatch(4, "linear", 3)),
        (4, "trilinear") => return Err(mismatch(4, "trilinear", 5)),
        (5, "linear") => return Err(mismatch(5, "linear", 3)),
        (5, "bilinear") => return Err(mismatch(5, "bilinear", 4)),
        _ => {
            return Err(ScriptError::NotImplemented(format!(
                "Input Error: Only 3D, 4D and 5D input Tensors supported (got {n}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
            )))
        }
    };
    let spatial_dims = n - 2;
    let out = match (out_size, scales) {
        (Some(o), _) => (o, vec![None; spatial_dims]),
        (None, Some(s)) => (
            s.iter()
                .zip(&sh[2..])
                .map(|(f, &n)| (n as f64 * f) as i64)
                .collect(),
            s.into_iter().map(Some).collect(),
        ),
        (None, None) => (vec![], vec![]),
    };
    let plan = Plan {
        mode: m,
        in_shape: sh,
        out_size: out.0,
        scales: out.1,
    };
    upsample(ev, &input, &x, plan)
}

/// `Got 3D input, but bilinear mode needs 4D input`.
fn mismatch(n: usize, mode: &str, needs: usize) -> ScriptError {
    ScriptError::NotImplemented(format!(
        "Got {n}D input, but {mode} mode needs {needs}D input"
    ))
}

/// ATen's `upsample_{1,2,3}d_common_check`: positive input and output sizes.
fn common_check(plan: &Plan) -> R<()> {
    let i = &plan.in_shape[2..];
    let o = &plan.out_size;
    if i.iter().chain(o.iter()).all(|&v| v > 0) {
        return Ok(());
    }
    let join = |v: &[i64], names: &[&str]| {
        names
            .iter()
            .zip(v)
            .map(|(n, v)| format!("{n}: {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let names: &[&str] = match i.len() {
        1 => &["W"],
        2 => &["H", "W"],
        _ => &["D", "H", "W"],
    };
    let and = if i.len() == 1 { " and" } else { "" };
    Err(runtime(format!(
        "Input and output sizes should be greater than 0, but got input ({}){and} output ({})",
        join(i, names),
        join(o, names)
    )))
}

/// The kernel's name in ATen's "not implemented" message for an unsupported dtype.
fn dtype_check(plan: &Plan, x: &Tensor, channels_last: bool) -> R<()> {
    let float = x.dtype.is_floating() && !x.dtype.is_complex();
    let ok = match plan.mode {
        Mode::Nearest(_) => float || x.dtype == DType::UInt8,
        Mode::Linear { .. } => float,
    };
    if ok {
        return Ok(());
    }
    let name = match (plan.mode, channels_last) {
        (Mode::Nearest(_), true) => "upsample_nearest2d_channels_last",
        (Mode::Nearest(_), false) => "compute_indices_weights_nearest",
        (Mode::Linear { .. }, true) => "upsample_bilinear2d_channels_last",
        (Mode::Linear { .. }, false) => "compute_indices_weights_linear",
    };
    Err(not_implemented(name, x.dtype))
}

/// Runs a checked upsampling of `input` and records its node.
pub(crate) fn upsample(ev: &mut Evaluator, input: &Value, x: &Tensor, plan: Plan) -> R<Value> {
    common_check(&plan)?;
    let channels_last = plan.channels_last_kernel(x);
    let shape = plan.out_shape();
    let name = op_name(&plan);
    ev.check_shape(&shape)?;
    if let Err(e) = dtype_check(&plan, x, channels_last) {
        // The output was allocated (the op's meta function) before the kernel refused.
        let bytes = shape.iter().product::<i64>() * x.dtype.item_size() as i64;
        ev.note_kernel_events(&[bytes, -bytes]);
        return Err(e);
    }
    let format = if shape.len() == 4 {
        x.layout.suggest_memory_format()
    } else {
        MemoryFormat::Contiguous
    };
    let out = if meta_op(ev) {
        empty_output(ev, &shape, format, x.dtype, name)?
    } else {
        let elements: i64 = shape.iter().product::<i64>().saturating_add(x.numel());
        ev.check_work(elements, name)?;
        let values = compute(ev, x, &plan, channels_last);
        let out = host_tensor(ev, &shape, format, x.dtype, &values, name)?;
        ev.note_kernel_events(&kernel_events(&plan, x, &out, channels_last));
        out
    };
    let out = Value::tensor(out, name, None);
    record(ev, input, &plan, &out);
    Ok(out)
}

/// The allocator's events inside ATen's kernel, after the output: the channels-last
/// kernel's contiguous copies, or the generic kernel's index and weight tensors (one index
/// and one weight per spatial dimension for nearest, two of each for linear).
fn kernel_events(plan: &Plan, x: &Tensor, out: &Tensor, channels_last: bool) -> Vec<i64> {
    let item = x.dtype.item_size() as i64;
    let mut events = Vec::new();
    if channels_last {
        let cl = MemoryFormat::ChannelsLast;
        let input = if x.layout.is_contiguous_as(cl) {
            0
        } else {
            x.numel() * item
        };
        let output = if out.layout.is_contiguous_as(cl) {
            0
        } else {
            out.numel() * item
        };
        events.extend([input, output, -output, -input]);
    } else {
        let per = match plan.mode {
            Mode::Nearest(_) => 1,
            Mode::Linear { .. } => 2,
        };
        for &o in &plan.out_size {
            for _ in 0..per {
                events.extend([8 * o, item * o]);
            }
        }
        let frees: Vec<i64> = events.iter().map(|e| -e).collect();
        events.extend(frees);
    }
    events
}

/// The ATen op's name (the tensor's maker).
fn op_name(plan: &Plan) -> &'static str {
    match (plan.mode, plan.out_size.len()) {
        (Mode::Nearest(Nearest::Floor), 1) => "upsample_nearest1d",
        (Mode::Nearest(Nearest::Floor), 2) => "upsample_nearest2d",
        (Mode::Nearest(Nearest::Floor), _) => "upsample_nearest3d",
        (Mode::Nearest(Nearest::Exact), 1) => "_upsample_nearest_exact1d",
        (Mode::Nearest(Nearest::Exact), 2) => "_upsample_nearest_exact2d",
        (Mode::Nearest(Nearest::Exact), _) => "_upsample_nearest_exact3d",
        (Mode::Linear { .. }, 1) => "upsample_linear1d",
        (Mode::Linear { .. }, _) => "upsample_bilinear2d",
    }
}

/// The output's values in logical order.
fn compute(ev: &mut Evaluator, x: &Tensor, plan: &Plan, channels_last: bool) -> Vec<Scalar> {
    let xs = ev.engine.values(x);
    match plan.mode {
        Mode::Nearest(rule) => {
            let idx: Vec<Vec<usize>> = plan
                .in_spatial()
                .iter()
                .zip(&plan.out_size)
                .zip(&plan.scales)
                .map(|((&i, &o), &s)| {
                    if x.dtype == DType::Float64 {
                        kernel::nearest_indices::<f64>(rule, channels_last, i as i64, o, s)
                    } else {
                        kernel::nearest_indices::<f32>(rule, channels_last, i as i64, o, s)
                    }
                })
                .collect();
            kernel::gather(&xs, plan.planes(), &plan.in_spatial(), &idx)
        }
        Mode::Linear { align } => {
            if x.dtype == DType::Float64 {
                let v: Vec<f64> = xs.iter().map(|s| s.to_f64()).collect();
                linear::<f64>(&v, plan, align, channels_last)
                    .into_iter()
                    .map(Scalar::Float)
                    .collect()
            } else {
                let v: Vec<f32> = xs.iter().map(|s| s.to_f32()).collect();
                linear::<f32>(&v, plan, align, channels_last)
                    .into_iter()
                    .map(|f| Scalar::Float(f64::from(f)))
                    .collect()
            }
        }
    }
}

fn linear<T: Real>(x: &[T], plan: &Plan, align: bool, channels_last: bool) -> Vec<T> {
    let sizes = plan.in_spatial();
    let ls: Vec<Vec<kernel::Lambda<T>>> = sizes
        .iter()
        .zip(&plan.out_size)
        .zip(&plan.scales)
        .map(|((&i, &o), &s)| kernel::lambdas::<T>(i as i64, o, align, s, channels_last))
        .collect();
    match (&ls[..], &sizes[..]) {
        ([lw], [w]) => kernel::linear_1d(x, plan.planes(), *w, lw),
        ([lh, lw], [h, w]) => kernel::bilinear(
            x,
            plan.planes(),
            plan.in_shape[1].max(1) as usize,
            [*h, *w],
            lh,
            lw,
            channels_last,
        ),
        _ => vec![],
    }
}

/// Records the upsampling's node: sizes and scales, no tensor.
fn record(ev: &mut Evaluator, input: &Value, plan: &Plan, out: &Value) {
    let ints = |v: &[i64]| Value::Tuple(v.iter().map(|&i| Value::Int(i)).collect());
    let scale = |s: Option<f64>| s.map_or(Value::None, Value::Float);
    let mut args: Vec<(&str, Value)> = Vec::new();
    if let Mode::Linear { align } = plan.mode {
        args.push(("align_corners", Value::Bool(align)));
    }
    args.push(("output_size", ints(&plan.out_size)));
    let names: &[&str] = match plan.scales.len() {
        1 => &["scales"],
        2 => &["scales_h", "scales_w"],
        _ => &["scales_d", "scales_h", "scales_w"],
    };
    for (n, s) in names.iter().zip(&plan.scales) {
        args.push((n, scale(*s)));
    }
    args.push(("self_sym_sizes", ints(&plan.in_shape)));
    let named: Vec<(&str, &Value)> = args.iter().map(|(n, v)| (*n, v)).collect();
    let op = GradOp::Named {
        name: op_name(plan),
        grad: node_grad(plan.mode, plan.out_size.len()),
        args: &named,
    };
    ev.record_grad(op, &[input], out);
}

/// `F.pixel_shuffle(input, upscale_factor)`, `F.pixel_unshuffle(input, downscale_factor)`
/// and their `torch.` forms: one copy in the input's suggested memory format.
fn pixel_shuffle(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = input_value(call)?;
    let x = tensor_of(&input)?;
    let down = call.name == "pixel_unshuffle";
    let param = if down {
        "downscale_factor"
    } else {
        "upscale_factor"
    };
    let r = match call.value(param) {
        Some(v) => {
            let v = v.clone();
            ev.index_int(&v)?
        }
        None => {
            return Err(ScriptError::Type(format!(
                "{}() missing 1 required positional argument: '{param}'",
                call.name
            )))
        }
    };
    let out = shuffle(ev, &x, r, down)?;
    let out = Value::tensor(out, &call.name, None);
    let arg = Value::Int(r);
    let op = GradOp::Named {
        name: &call.name,
        grad: pixel_shuffle_grad(down),
        args: &[(param, &arg)],
    };
    ev.record_grad(op, &[&input], &out);
    Ok(out)
}

/// ATen's `pixel_shuffle_cpu`/`pixel_unshuffle_cpu`: the checks, the output, then the
/// input made contiguous in its suggested format (a copy the peak counts) for the kernel.
pub(crate) fn shuffle(ev: &mut Evaluator, x: &Tensor, r: i64, down: bool) -> R<Tensor> {
    let sh = x.shape().to_vec();
    let n = sh.len();
    let name = if down {
        "pixel_unshuffle"
    } else {
        "pixel_shuffle"
    };
    if n < 3 {
        return Err(runtime(format!(
            "{name} expects input to have at least 3 dimensions, but got input with {n} dimension(s)"
        )));
    }
    let (c, h, w) = (sh[n - 3], sh[n - 2], sh[n - 1]);
    let mut shape = sh.clone();
    if down {
        if r <= 0 {
            return Err(runtime(format!(
                "pixel_unshuffle expects a positive downscale_factor, but got {r}"
            )));
        }
        if h % r != 0 {
            return Err(runtime(format!(
                "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h} is not divisible by {r}"
            )));
        }
        if w % r != 0 {
            return Err(runtime(format!(
                "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w} is not divisible by {r}"
            )));
        }
        shape[n - 3] = c.saturating_mul(r.saturating_mul(r));
        shape[n - 2] = h / r;
        shape[n - 1] = w / r;
    } else {
        if r <= 0 {
            return Err(runtime(format!(
                "pixel_shuffle expects a positive upscale_factor, but got {r}"
            )));
        }
        let Some(square) = r.checked_mul(r) else {
            return Err(value_error(format!(
                "upscale factor is too large, (upscale_factor)^2 overflowed: upscale_factor={r}"
            )));
        };
        if c % square != 0 {
            return Err(runtime(format!(
                "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)={c} is not divisible by {square}"
            )));
        }
        shape[n - 3] = c / square;
        shape[n - 2] = h.saturating_mul(r);
        shape[n - 1] = w.saturating_mul(r);
    }
    ev.check_shape(&shape)?;
    let format = if n == 4 {
        x.layout.suggest_memory_format()
    } else {
        MemoryFormat::Contiguous
    };
    if meta_op(ev) {
        return empty_output(ev, &shape, format, x.dtype, name);
    }
    ev.check_work(x.numel().saturating_mul(2), name)?;
    let values = ev.engine.values(x);
    let out_values = kernel::pixel_shuffle(&values, &sh, r as usize, down);
    let out = host_tensor(ev, &shape, format, x.dtype, &out_values, name)?;
    if out.numel() > 0 && !x.layout.is_contiguous_as(format) {
        let bytes = x.numel() * x.dtype.item_size() as i64;
        ev.note_kernel_events(&[bytes, -bytes]);
    }
    Ok(out)
}
