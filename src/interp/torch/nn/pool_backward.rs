//! The backward formulas of the poolings ([`crate::interp::torch::nn::pool`]): each saves
//! its input (`self`, as PyTorch's nodes do) and recomputes what it needs from it and the
//! windows its node kept (a maximum's index is the same on the same values).

use crate::core::tensor::{MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::nn::conv::host_tensor;
use crate::interp::torch::nn::pool_kernel::{self as kernel, AccType, Num, Windows};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

const ARGS: &[&str] = &[
    "kernel_size",
    "stride",
    "padding",
    "dilation",
    "output_size",
    "count_include_pad",
    "divisor_override",
];

/// `max_pool2d_with_indices(Tensor self, ...)`.
pub(crate) static MAX_POOL: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: ARGS,
    backward: max_pool_backward,
};

/// `avg_pool2d(Tensor self, ...)`.
pub(crate) static AVG_POOL: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: ARGS,
    backward: avg_pool_backward,
};

/// `_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size)`.
pub(crate) static ADAPTIVE_AVG: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: ARGS,
    backward: adaptive_avg_backward,
};

/// `adaptive_max_pool2d(Tensor self, int[2] output_size)`.
pub(crate) static ADAPTIVE_MAX: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: ARGS,
    backward: adaptive_max_backward,
};

/// Which backward.
#[derive(Clone, Copy)]
enum Which {
    Max,
    Avg,
    AdaptiveAvg,
    AdaptiveMax,
}

fn max_pool_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pool_backward(ev, b, Which::Max)
}

fn avg_pool_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pool_backward(ev, b, Which::Avg)
}

fn adaptive_avg_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pool_backward(ev, b, Which::AdaptiveAvg)
}

fn adaptive_max_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pool_backward(ev, b, Which::AdaptiveMax)
}

/// A window argument as three values (depth, height, width): a 2-d pooling's pair gets
/// `depth` in front.
fn triple(b: &Backward, name: &str, default: i64, depth: i64) -> [i64; 3] {
    match b.arg(name) {
        Some(Value::Tuple(items)) => {
            let get = |i: usize| match items.get(i) {
                Some(Value::Int(n)) => *n,
                _ => default,
            };
            if items.len() == 3 {
                [get(0), get(1), get(2)]
            } else {
                [depth, get(0), get(1)]
            }
        }
        _ => [depth, default, default],
    }
}

fn tensor_of(v: &Value) -> R<Tensor> {
    v.as_tensor()
        .ok_or_else(|| ScriptError::Runtime("pooling backward: a saved tensor is missing".into()))
}

fn pool_backward(ev: &mut Evaluator, b: &Backward, which: Which) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let x = tensor_of(&ev.saved_input(b, "self")?)?;
    let g = tensor_of(&b.g())?;
    let sh = x.shape();
    let n = sh.len();
    let three = matches!(b.arg("output_size"), Some(Value::Tuple(items)) if items.len() == 3);
    let dims = if three { 3 } else { 2 };
    let planes: i64 = sh[..n.saturating_sub(dims)].iter().product();
    let out_size = triple(b, "output_size", 0, 1);
    let u = |v: i64| v.max(0) as usize;
    let depth = if three { u(sh[n - 3]) } else { 1 };
    let w = Windows {
        planes: u(planes),
        in_size: [depth, u(sh[n - 2]), u(sh[n - 1])],
        out_size: out_size.map(u),
        kernel: triple(b, "kernel_size", 1, 1),
        stride: triple(b, "stride", 1, 1),
        pad: triple(b, "padding", 0, 0),
        dilation: triple(b, "dilation", 1, 1),
    };
    let include_pad = !matches!(b.arg("count_include_pad"), Some(Value::Bool(false)));
    let divisor = match b.arg("divisor_override") {
        Some(Value::Int(d)) => Some(*d),
        _ => None,
    };
    if crate::interp::torch::nn::conv::meta_op(ev) {
        // Meta tensors: the gradient's shape, nothing computed.
        let t = crate::interp::torch::nn::conv::empty_output(
            ev,
            sh,
            MemoryFormat::Contiguous,
            x.dtype,
            "backward",
        )?;
        out[0] = Some(Value::tensor(t, "backward", None));
        return Ok(out);
    }
    let values = match AccType::of(x.dtype) {
        AccType::F64 => grads::<f64>(ev, &x, &g, &w, which, include_pad, divisor),
        _ => grads::<f32>(ev, &x, &g, &w, which, include_pad, divisor),
    };
    let t = host_tensor(
        ev,
        sh,
        MemoryFormat::Contiguous,
        x.dtype,
        &values,
        "backward",
    )?;
    out[0] = Some(Value::tensor(t, "backward", None));
    if !g.layout.is_contiguous() {
        // The CPU kernels read `grad_output.contiguous()`, a copy taken after the gradient.
        ev.note_kernel_events(&[g.numel() * g.dtype.item_size() as i64]);
    }
    Ok(out)
}

fn grads<T: Num>(
    ev: &mut Evaluator,
    x: &Tensor,
    g: &Tensor,
    w: &Windows,
    which: Which,
    include_pad: bool,
    divisor: Option<i64>,
) -> Vec<Scalar> {
    let gv: Vec<T> = ev.engine.values(g).into_iter().map(T::of).collect();
    let values = match which {
        Which::Max | Which::AdaptiveMax => {
            let xv: Vec<T> = ev.engine.values(x).into_iter().map(T::of).collect();
            let indices = match which {
                Which::Max => kernel::max_pool(&xv, w).1,
                _ => kernel::adaptive(&xv, w, true).1,
            };
            kernel::max_pool_backward(&gv, &indices, w)
        }
        Which::Avg => kernel::avg_pool_backward(&gv, w, include_pad, divisor),
        Which::AdaptiveAvg => kernel::adaptive_avg_backward(&gv, w),
    };
    values.into_iter().map(T::scalar).collect()
}
