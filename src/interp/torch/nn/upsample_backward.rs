//! The backward formulas of upsampling and pixel shuffling
//! ([`crate::interp::torch::nn::upsample`]): the nodes save no tensor, only the sizes and
//! scales `derivatives.yaml` lists (`_saved_output_size`, `_saved_scales_h`, ...); the
//! gradient accumulates into zeros in ATen's loop order (`upsample_*_backward`), and
//! `PixelShuffleBackward0` is `pixel_unshuffle` of the gradient (and the other way round).

use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::nn::conv::{empty_output, host_tensor, meta_op};
use crate::interp::torch::nn::upsample::{shuffle, Mode};
use crate::interp::torch::nn::upsample_kernel::{self as kernel, Nearest, Real};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The upsampling ops (`upsample_nearest2d(Tensor self, SymInt[2] output_size, float?
/// scales_h, float? scales_w)`, ...): sizes and scales only.
pub(crate) static UPSAMPLE: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &[
        "align_corners",
        "output_size",
        "scales",
        "scales_d",
        "scales_h",
        "scales_w",
        "self_sym_sizes",
    ],
    backward: upsample_backward,
};

/// `pixel_shuffle(Tensor self, int upscale_factor)` and `pixel_unshuffle`.
pub(crate) static PIXEL_SHUFFLE: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["downscale_factor", "upscale_factor"],
    backward: pixel_shuffle_backward,
};

const NEAREST_1D: Grad = Grad::named("UpsampleNearest1DBackward0", &UPSAMPLE);
const NEAREST_2D: Grad = Grad::named("UpsampleNearest2DBackward0", &UPSAMPLE);
const NEAREST_3D: Grad = Grad::named("UpsampleNearest3DBackward0", &UPSAMPLE);
const EXACT_1D: Grad = Grad::named("UpsampleNearestExact1DBackward0", &UPSAMPLE);
const EXACT_2D: Grad = Grad::named("UpsampleNearestExact2DBackward0", &UPSAMPLE);
const EXACT_3D: Grad = Grad::named("UpsampleNearestExact3DBackward0", &UPSAMPLE);
const LINEAR_1D: Grad = Grad::named("UpsampleLinear1DBackward0", &UPSAMPLE);
const BILINEAR_2D: Grad = Grad::named("UpsampleBilinear2DBackward0", &UPSAMPLE);
const SHUFFLE: Grad = Grad::named("PixelShuffleBackward0", &PIXEL_SHUFFLE);
const UNSHUFFLE: Grad = Grad::named("PixelUnshuffleBackward0", &PIXEL_SHUFFLE);

/// The node of an upsampling of `dims` spatial dimensions.
pub(crate) fn node_grad(mode: Mode, dims: usize) -> &'static Grad {
    match (mode, dims) {
        (Mode::Nearest(Nearest::Floor), 1) => &NEAREST_1D,
        (Mode::Nearest(Nearest::Floor), 2) => &NEAREST_2D,
        (Mode::Nearest(Nearest::Floor), _) => &NEAREST_3D,
        (Mode::Nearest(Nearest::Exact), 1) => &EXACT_1D,
        (Mode::Nearest(Nearest::Exact), 2) => &EXACT_2D,
        (Mode::Nearest(Nearest::Exact), _) => &EXACT_3D,
        (Mode::Linear { .. }, 1) => &LINEAR_1D,
        (Mode::Linear { .. }, _) => &BILINEAR_2D,
    }
}

/// The node of `pixel_shuffle` (or `pixel_unshuffle`).
pub(crate) fn pixel_shuffle_grad(down: bool) -> &'static Grad {
    if down {
        &UNSHUFFLE
    } else {
        &SHUFFLE
    }
}

fn tensor_of(v: &Value) -> R<Tensor> {
    v.as_tensor()
        .ok_or_else(|| ScriptError::Runtime("upsample backward: the gradient is missing".into()))
}

fn ints(b: &Backward, name: &str) -> Vec<i64> {
    match b.arg(name) {
        Some(Value::Tuple(items)) => items
            .iter()
            .map(|v| match v {
                Value::Int(i) => *i,
                _ => 0,
            })
            .collect(),
        _ => vec![],
    }
}

fn scale(b: &Backward, name: &str) -> Option<f64> {
    match b.arg(name) {
        Some(Value::Float(f)) => Some(*f),
        _ => None,
    }
}

/// The gradient of an upsampling: `grad_input` (zeros, in the gradient's suggested format)
/// then, for a gradient that is not contiguous, its contiguous copy (the kernel's).
fn upsample_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let g = tensor_of(&b.g())?;
    let in_shape = ints(b, "self_sym_sizes");
    let out_size = ints(b, "output_size");
    let dims = out_size.len();
    if in_shape.len() != dims + 2 {
        return Err(ScriptError::Runtime(
            "upsample backward: the node's sizes are missing".into(),
        ));
    }
    let scales: Vec<Option<f64>> = match dims {
        1 => vec![scale(b, "scales")],
        2 => vec![scale(b, "scales_h"), scale(b, "scales_w")],
        _ => vec![
            scale(b, "scales_d"),
            scale(b, "scales_h"),
            scale(b, "scales_w"),
        ],
    };
    let name = &*b.node.name;
    let format = if in_shape.len() == 4 {
        g.layout.suggest_memory_format()
    } else {
        MemoryFormat::Contiguous
    };
    if meta_op(ev) {
        let t = empty_output(ev, &in_shape, format, g.dtype, "backward")?;
        out[0] = Some(Value::tensor(t, "backward", None));
        return Ok(out);
    }
    let planes: usize = in_shape[..2].iter().map(|&v| v.max(0) as usize).product();
    let sizes: Vec<usize> = in_shape[2..].iter().map(|&v| v.max(0) as usize).collect();
    let gs = ev.engine.values(&g);
    let values: Vec<Scalar> = if name.starts_with("UpsampleNearest") {
        let rule = if name.starts_with("UpsampleNearestExact") {
            Nearest::Exact
        } else {
            Nearest::Floor
        };
        let idx: Vec<Vec<usize>> = sizes
            .iter()
            .zip(&out_size)
            .zip(&scales)
            .map(|((&i, &o), &s)| {
                (0..o)
                    .map(|k| kernel::nearest_idx(rule, k, i as i64, o, s).max(0) as usize)
                    .collect()
            })
            .collect();
        if g.dtype == DType::Float64 {
            let v: Vec<f64> = gs.iter().map(|s| s.to_f64()).collect();
            let r = kernel::nearest_backward(&v, planes, &sizes, &idx);
            r.into_iter().map(Scalar::Float).collect()
        } else {
            let v: Vec<f32> = gs.iter().map(|s| s.to_f32()).collect();
            let r = kernel::nearest_backward(&v, planes, &sizes, &idx);
            r.into_iter().map(|f| Scalar::Float(f64::from(f))).collect()
        }
    } else {
        let align = matches!(b.arg("align_corners"), Some(Value::Bool(true)));
        if g.dtype == DType::Float64 {
            let v: Vec<f64> = gs.iter().map(|s| s.to_f64()).collect();
            linear::<f64>(&v, planes, &sizes, &out_size, &scales, align)
                .into_iter()
                .map(Scalar::Float)
                .collect()
        } else {
            let v: Vec<f32> = gs.iter().map(|s| s.to_f32()).collect();
            linear::<f32>(&v, planes, &sizes, &out_size, &scales, align)
                .into_iter()
                .map(|f| Scalar::Float(f64::from(f)))
                .collect()
        }
    };
    let t = host_tensor(ev, &in_shape, format, g.dtype, &values, "backward")?;
    if !g.layout.is_contiguous_as(format) {
        let bytes = g.numel() * g.dtype.item_size() as i64;
        ev.note_kernel_events(&[bytes, -bytes]);
    }
    out[0] = Some(Value::tensor(t, "backward", None));
    Ok(out)
}

fn linear<T: Real>(
    g: &[T],
    planes: usize,
    sizes: &[usize],
    out_size: &[i64],
    scales: &[Option<f64>],
    align: bool,
) -> Vec<T> {
    let ls: Vec<Vec<kernel::Lambda<T>>> = sizes
        .iter()
        .zip(out_size)
        .zip(scales)
        .map(|((&i, &o), &s)| kernel::lambdas::<T>(i as i64, o, align, s, true))
        .collect();
    kernel::linear_backward(g, planes, sizes, &ls)
}

/// `PixelShuffleBackward0`: `pixel_unshuffle(grad, upscale_factor)`; `PixelUnshuffleBackward0`
/// the other way round.
fn pixel_shuffle_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let g = tensor_of(&b.g())?;
    let (r, down) = match (b.arg("upscale_factor"), b.arg("downscale_factor")) {
        (Some(Value::Int(r)), _) => (*r, true),
        (_, Some(Value::Int(r))) => (*r, false),
        _ => {
            return Err(ScriptError::Runtime(
                "pixel_shuffle backward: the factor is missing".into(),
            ))
        }
    };
    let t = shuffle(ev, &g, r, down)?;
    out[0] = Some(Value::tensor(t, "backward", None));
    Ok(out)
}
