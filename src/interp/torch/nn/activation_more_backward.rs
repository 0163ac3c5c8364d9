//! The backward formulas of `threshold`, `hardshrink`, `softshrink`, `glu` and
//! `rrelu_with_noise`, as `derivatives.yaml` (`FunctionsManual.cpp`) and ATen's CPU kernels
//! compute them: masks of the saved input for the first three, `glu_backward`'s two halves
//! (`sigmoid(b) * grad` and `(1 - sigmoid(b)) * sigmoid(b) * a * grad`, float steps), and
//! `noise * grad` (training) or `leaky_relu_backward` (evaluation) for `rrelu`.

use crate::core::tensor::DType;
use crate::interp::torch::autograd::backward::unsupported;
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::number;
use crate::interp::torch::nn::dense_backward::{meta_grad, shape_dtype};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// A kernel's arithmetic in `dtype`: float32 steps for the float dtypes, double for float64.
fn step(dtype: DType) -> impl Fn(f64) -> f64 {
    move |v| {
        if dtype == DType::Float64 {
            v
        } else {
            f64::from(v as f32)
        }
    }
}

/// The gradient of operand 0 from `f(x, g)` of each element of the tensor saved under
/// `slot` and of the incoming gradient (row-major), rounded to the gradient's dtype.
fn masked(
    ev: &mut Evaluator,
    b: &Backward,
    slot: &str,
    f: impl Fn(f64, f64) -> f64,
) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let (shape, dtype) = shape_dtype(b.grad);
    if let Some(dx) = meta_grad(ev, &shape, dtype)? {
        out[0] = Some(dx);
        return Ok(out);
    }
    let saved = ev.saved_input(b, slot)?;
    let x = ev.host(&saved);
    let g = ev.host(b.grad);
    if x.values.len() != g.values.len() {
        return Err(unsupported(b.node));
    }
    let values: Vec<f64> = x
        .values
        .iter()
        .zip(&g.values)
        .map(|(&x, &g)| f(x, g))
        .collect();
    out[0] = Some(ev.host_tensor(&g.shape, g.dtype, &values)?);
    Ok(out)
}

/// A number argument the node kept, or `default`.
fn arg(b: &Backward, name: &str, default: f64) -> f64 {
    b.arg(name).and_then(number).unwrap_or(default)
}

/// `threshold(Tensor self, Scalar threshold, Scalar value)` (and `threshold_`, whose node
/// keeps a clone of `self`): `threshold_backward(grad, self, threshold)`, 0 where
/// `self <= threshold`.
pub(crate) static THRESHOLD: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: &["threshold"],
    backward: threshold,
};

fn threshold(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let dtype = shape_dtype(b.grad).1;
    let th = step(dtype)(arg(b, "threshold", 0.0));
    masked(ev, b, "self", |x, g| if x <= th { 0.0 } else { g })
}

/// `hardshrink(Tensor self, Scalar lambd=0.5)`: `hardshrink_backward`, 0 inside
/// `[-lambd, lambd]`.
pub(crate) static HARDSHRINK: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: &["lambd"],
    backward: shrink,
};

/// `softshrink(Tensor self, Scalar lambd=0.5)`: `softshrink_backward`, the same mask.
pub(crate) static SOFTSHRINK: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: &["lambd"],
    backward: shrink,
};

fn shrink(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let dtype = shape_dtype(b.grad).1;
    let l = step(dtype)(arg(b, "lambd", 0.5));
    masked(
        ev,
        b,
        "self",
        |x, g| if x >= -l && x <= l { 0.0 } else { g },
    )
}

/// `glu(Tensor self, int dim=-1)`: `glu_backward(grad, self, dim)`.
pub(crate) static GLU: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: &["dim"],
    backward: glu,
};

fn glu(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let saved = ev.saved_input(b, "self")?;
    let (shape, dtype) = shape_dtype(&saved);
    if let Some(dx) = meta_grad(ev, &shape, dtype)? {
        out[0] = Some(dx);
        return Ok(out);
    }
    let n = shape.len();
    let dim = b.arg("dim").and_then(number).unwrap_or(-1.0) as i64;
    let d = if dim < 0 { dim + n as i64 } else { dim };
    if d < 0 || d as usize >= n {
        return Err(unsupported(b.node));
    }
    let d = d as usize;
    let x = ev.host(&saved);
    let g = ev.host(b.grad);
    let size = shape[d] as usize;
    let half = size / 2;
    let inner: usize = shape[d + 1..].iter().product::<i64>().max(0) as usize;
    let outer: usize = shape[..d].iter().product::<i64>().max(0) as usize;
    if g.values.len() != outer * half * inner {
        return Err(unsupported(b.node));
    }
    let r = step(dtype);
    let mut dx = vec![0.0; x.values.len()];
    for o in 0..outer {
        for k in 0..half {
            for i in 0..inner {
                let a_at = (o * size + k) * inner + i;
                let b_at = (o * size + k + half) * inner + i;
                let gv = g.values[(o * half + k) * inner + i];
                let s = r(1.0 / r(1.0 + r((-x.values[b_at]).exp())));
                dx[a_at] = r(s * gv);
                dx[b_at] = r(r(r(r(1.0 - s) * s) * x.values[a_at]) * gv);
            }
        }
    }
    out[0] = Some(ev.host_tensor(&shape, dtype, &dx)?);
    Ok(out)
}

/// `rrelu_with_noise(Tensor self, Tensor noise, Scalar lower, Scalar upper, bool training)`:
/// `rrelu_with_noise_backward(grad, self, noise, lower, upper, training, false)`.
pub(crate) static RRELU: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: &["lower", "upper", "training"],
    backward: rrelu,
};

/// `rrelu_with_noise_` (in place): the same on the saved result.
pub(crate) static RRELU_INPLACE: Formula = Formula {
    inputs: &["self"],
    saves: &["result"],
    args: &["lower", "upper", "training"],
    backward: rrelu_inplace,
};

fn rrelu(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    rrelu_with(ev, b, "self")
}

fn rrelu_inplace(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    rrelu_with(ev, b, "result")
}

fn rrelu_with(ev: &mut Evaluator, b: &Backward, slot: &str) -> R<Vec<Option<Value>>> {
    let (lower, upper) = (arg(b, "lower", 0.125), arg(b, "upper", 1.0 / 3.0));
    let training = matches!(b.arg("training"), Some(Value::Bool(true)));
    let dtype = shape_dtype(b.grad).1;
    let r = step(dtype);
    if training && (upper as f32 - lower as f32) > 1e-6 {
        return masked(ev, b, "noise", move |noise, g| r(noise * g));
    }
    let slope = r((lower + upper) / 2.0);
    masked(
        ev,
        b,
        slot,
        move |x, g| if x > 0.0 { g } else { r(g * slope) },
    )
}
