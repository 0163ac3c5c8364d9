//! The backward formulas of the activations model code trains through, as `derivatives.yaml`
//! (`FunctionsManual.cpp`) defines them: `leaky_relu`, `gelu`, `silu`, `elu`/`celu`/`selu`,
//! `softplus`, `mish`, `hardtanh`/`relu6`, `hardswish`, `hardsigmoid`, `logsigmoid`, `abs`,
//! `softmax`, `log_softmax` (and `F.softmin`). Each computes on the saved values in double
//! precision and rounds once to the gradient's dtype. Entries of `torch.nn.functional` that
//! several functions share get one formula that reads the node's name.

use crate::core::tensor::{DType, Scalar};
use crate::interp::torch::autograd::backward::unsupported;
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::nodes::NodeQuery;
use crate::interp::torch::autograd::number;
use crate::interp::torch::nn::dense_backward::{arg, meta_grad, shape_dtype, Host};
use crate::interp::torch::ops::erf;
use crate::interp::torch::ops::vec_float::{kernel_exp, lane_sum, LANES};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The gradient of a one-input pointwise op: `f(x, g)` for each element of the saved input
/// (or result) `x` and of the output's gradient `g`, rounded once to `g`'s dtype.
fn pointwise(
    ev: &mut Evaluator,
    b: &Backward,
    slot: &str,
    f: impl Fn(f64, f64) -> f64,
) -> R<Vec<Option<Value>>> {
    pointwise_steps(ev, b, slot, |x, g, _| f(x, g))
}

/// [`pointwise`] whose `f` rounds each step with its third argument, as ATen's kernel
/// computes in the dtype (`float` for the float dtypes, `double` for `float64`).
fn pointwise_steps(
    ev: &mut Evaluator,
    b: &Backward,
    slot: &str,
    f: impl Fn(f64, f64, &dyn Fn(f64) -> f64) -> f64,
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
    let double = g.dtype == crate::core::tensor::DType::Float64;
    let r = |v: f64| if double { v } else { f64::from(v as f32) };
    let values: Vec<f64> = x
        .values
        .iter()
        .zip(&g.values)
        .map(|(&x, &g)| f(x, g, &r))
        .collect();
    out[0] = Some(ev.host_tensor(&g.shape, g.dtype, &values)?);
    Ok(out)
}

/// A formula of one input saved as `self`, reading `args`.
macro_rules! activation {
    ($(#[$doc:meta])* $name:ident, [$($args:literal),*], $backward:ident) => {
        $(#[$doc])*
        pub(crate) static $name: Formula = Formula {
            inputs: &["self"],
            saves: &["self"],
            args: &[$($args),*],
            backward: $backward,
        };
    };
}

activation!(
    /// `leaky_relu(Tensor self, Scalar negative_slope=0.01)`: `grad` where `self > 0`, else
    /// `grad * negative_slope`.
    LEAKY_RELU,
    ["negative_slope"],
    leaky_relu
);
activation!(
    /// `gelu(Tensor self, *, str approximate='none')`: `gelu_backward`.
    GELU,
    ["approximate"],
    gelu
);
activation!(
    /// `softplus(Tensor self, Scalar beta=1, Scalar threshold=20)`.
    SOFTPLUS,
    ["beta", "threshold"],
    softplus
);
activation!(
    /// `hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1)` (`relu6` is
    /// `hardtanh(0, 6)`): `grad` strictly inside the bounds, else 0.
    HARDTANH,
    ["min_val", "max_val"],
    hardtanh
);
activation!(
    /// `log_sigmoid(Tensor self)`: `grad * (1 - sigmoid(x))` as ATen writes it.
    LOGSIGMOID,
    [],
    logsigmoid
);
activation!(
    /// `abs(Tensor self)`: `grad * sgn(self)`.
    ABS,
    [],
    abs
);

fn leaky_relu(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let slope = arg(b, "negative_slope", 0.01);
    pointwise(ev, b, "self", |x, g| if x > 0.0 { g } else { g * slope })
}

fn gelu(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let tanh = matches!(b.arg("approximate"), Some(Value::Str(s)) if s == "tanh");
    pointwise_steps(ev, b, "self", |x, g, r| {
        if tanh {
            let beta = r(std::f64::consts::SQRT_2 * std::f64::consts::FRAC_2_SQRT_PI * 0.5);
            let kappa = r(0.044715);
            let x_sq = r(x * x);
            let x_cube = r(x_sq * x);
            let inner = r(beta * r(x + r(kappa * x_cube)));
            let t = r(inner.tanh());
            let left = r(0.5 * x);
            let right = r(1.0 + t);
            let left_derivative = r(0.5 * right);
            let tanh_derivative = r(1.0 - r(t * t));
            let inner_derivative = r(beta * r(1.0 + r(r(3.0 * kappa) * x_sq)));
            let right_derivative = r(r(left * tanh_derivative) * inner_derivative);
            r(g * r(left_derivative + right_derivative))
        } else {
            let alpha = r(std::f64::consts::FRAC_1_SQRT_2);
            let beta = r(std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2 * 0.5);
            let cdf = r(0.5 * r(1.0 + r(erf(r(x * alpha)))));
            let pdf = r(beta * r(r(r(x * x) * -0.5).exp()));
            r(g * r(cdf + r(x * pdf)))
        }
    })
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn silu(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pointwise(ev, b, "self", |x, g| {
        let s = sigmoid(x);
        g * s * (1.0 + x * (1.0 - s))
    })
}

/// `elu_backward(grad, alpha, scale, input_scale, is_result=false, self)`.
fn elu_with(
    ev: &mut Evaluator,
    b: &Backward,
    alpha: f64,
    scale: f64,
    input_scale: f64,
) -> R<Vec<Option<Value>>> {
    pointwise(ev, b, "self", |x, g| {
        if x <= 0.0 {
            g * input_scale * alpha * scale * (x * input_scale).exp()
        } else {
            g * scale
        }
    })
}

fn elu(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    elu_with(ev, b, arg(b, "alpha", 1.0), 1.0, 1.0)
}

fn celu(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let alpha = arg(b, "alpha", 1.0);
    elu_with(ev, b, alpha, 1.0, 1.0 / alpha)
}

fn selu(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    const ALPHA: f64 = 1.673_263_242_354_377_3;
    const SCALE: f64 = 1.050_700_987_355_480_5;
    elu_with(ev, b, ALPHA, SCALE, 1.0)
}

fn softplus(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let beta = arg(b, "beta", 1.0);
    let threshold = arg(b, "threshold", 20.0);
    pointwise(ev, b, "self", |x, g| {
        if x * beta > threshold {
            g
        } else {
            let z = (x * beta).exp();
            g * z / (z + 1.0)
        }
    })
}

fn mish(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pointwise(ev, b, "self", |x, g| {
        let t = x.exp().ln_1p().tanh();
        g * (t + x * sigmoid(x) * (1.0 - t * t))
    })
}

fn hardtanh(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let (low, high) = (arg(b, "min_val", -1.0), arg(b, "max_val", 1.0));
    pointwise(
        ev,
        b,
        "self",
        |x, g| if x <= low || x >= high { 0.0 } else { g },
    )
}

fn hardswish(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pointwise(ev, b, "self", |x, g| {
        if x < -3.0 {
            0.0
        } else if x <= 3.0 {
            g * (x / 3.0 + 0.5)
        } else {
            g
        }
    })
}

fn hardsigmoid(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pointwise(ev, b, "self", |x, g| {
        if x > -3.0 && x < 3.0 {
            g / 6.0
        } else {
            0.0
        }
    })
}

fn logsigmoid(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pointwise(ev, b, "self", |x, g| {
        let negative = x < 0.0;
        let (max_deriv, sign) = if negative { (1.0, 1.0) } else { (0.0, -1.0) };
        let z = (-x.abs()).exp();
        g * (max_deriv - sign * (z / (1.0 + z)))
    })
}

fn abs(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pointwise(ev, b, "self", |x, g| {
        if x.is_nan() {
            f64::NAN
        } else if x == 0.0 {
            0.0
        } else {
            g * x.signum()
        }
    })
}

/// `relu6(Tensor self)`: `hardtanh(self, 0, 6)`'s gradient.
pub(crate) static RELU6: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: &[],
    backward: relu6,
};

fn relu6(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pointwise(
        ev,
        b,
        "self",
        |x, g| if x <= 0.0 || x >= 6.0 { 0.0 } else { g },
    )
}

/// The `elu`/`celu` entry of `torch.nn.functional`: by the node's name.
pub(crate) static ELU_FAMILY: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: &["alpha"],
    backward: elu_family,
};

fn elu_family(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    match b.node.name() {
        "CeluBackward0" => celu(ev, b),
        _ => elu(ev, b),
    }
}

/// The `silu`/`mish`/`hardswish`/`hardsigmoid`/`selu` entry of `torch.nn.functional`: by
/// the node's name (`selu`'s is `EluBackward0`).
pub(crate) static PLAIN_ACTIVATIONS: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: &[],
    backward: plain_activations,
};

fn plain_activations(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    match b.node.name() {
        "SiluBackward0" => silu(ev, b),
        "MishBackward0" => mish(ev, b),
        "HardswishBackward0" => hardswish(ev, b),
        "HardsigmoidBackward0" => hardsigmoid(ev, b),
        "EluBackward0" => selu(ev, b),
        _ => Err(unsupported(b.node)),
    }
}

/// The node of that entry: `selu`'s is `EluBackward0`.
pub(crate) fn plain_activation_node(q: &NodeQuery) -> String {
    match q.name {
        "selu" => "EluBackward0".into(),
        name => format!(
            "{}Backward0",
            crate::interp::torch::autograd::nodes::camel(name)
        ),
    }
}

/// The node of `softmax`, `log_softmax` and `softmin` (`softmax(-input)`).
pub(crate) fn softmax_node(q: &NodeQuery) -> String {
    match q.name {
        "log_softmax" => "LogSoftmaxBackward0".into(),
        _ => "SoftmaxBackward0".into(),
    }
}

/// `softmax`, `log_softmax` (and `F.softmin`): by the node's name.
pub(crate) static SOFTMAX_FAMILY: Formula = Formula {
    inputs: &["self"],
    saves: &["result"],
    args: &["dim"],
    backward: softmax_family,
};

fn softmax_family(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    match b.node.name() {
        "LogSoftmaxBackward0" => log_softmax(ev, b),
        _ => softmax(ev, b),
    }
}
// ----- softmax -----

// `_softmax`'s backward is `result * (grad - (grad * result).sum(dim))`, `_log_softmax`'s
// `grad - exp(result) * grad.sum(dim)`. `F.softmin` is `softmax` of the negated input (two nodes).

/// `F.softmax`'s and `F.log_softmax`'s dim when not given (`_get_softmax_dim`).
fn softmax_dim(b: &Backward, ndim: usize) -> R<usize> {
    let dim = match b.arg("dim").and_then(number) {
        Some(d) => d as i64,
        None if matches!(ndim, 0 | 1 | 3) => 0,
        None => 1,
    };
    let n = ndim.max(1) as i64;
    let d = if dim < 0 { dim + n } else { dim };
    if d < 0 || d >= n {
        return Err(unsupported(b.node));
    }
    Ok(d as usize)
}

/// The rows along `dim` of a tensor of `shape`: each a list of flat indices.
fn rows(shape: &[i64], dim: usize) -> Vec<Vec<usize>> {
    if shape.is_empty() {
        return vec![vec![0]];
    }
    let size = shape[dim].max(0) as usize;
    let inner: usize = shape[dim + 1..].iter().product::<i64>().max(0) as usize;
    let outer: usize = shape[..dim].iter().product::<i64>().max(0) as usize;
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            out.push((0..size).map(|k| (o * size + k) * inner + i).collect());
        }
    }
    out
}

/// What a softmax-family backward reads: its saved `result` and the incoming gradient on the
/// host, and the gradient's dtype (`grad_dtype`, else the result's). `None`, with `out[0]`
/// set, where the result is a meta tensor: the gradient is its layout, without values.
fn result_and_grad(
    ev: &mut Evaluator,
    b: &Backward,
    grad_dtype: Option<DType>,
    out: &mut [Option<Value>],
) -> R<Option<(Host, Host, DType)>> {
    let y = ev.saved_input(b, "result")?;
    let (shape, y_dtype) = shape_dtype(&y);
    let dtype = grad_dtype.unwrap_or(y_dtype);
    if let Some(dx) = meta_grad(ev, &shape, dtype)? {
        out[0] = Some(dx);
        return Ok(None);
    }
    let (y, g) = (ev.host(&y), ev.host(b.grad));
    if g.values.len() != y.values.len() {
        return Err(unsupported(b.node));
    }
    Ok(Some((y, g, dtype)))
}

fn softmax(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    // The gradient has the input's dtype (the node keeps it, not the input).
    let input_dtype = b.node.operands.first().and_then(|o| o.dtype);
    let Some((y, g, dtype)) = result_and_grad(ev, b, input_dtype, &mut out)? else {
        return Ok(out);
    };
    let dim = softmax_dim(b, y.shape.len())?;
    let rows = rows(&y.shape, dim);
    let mut dx = vec![0.0; y.values.len()];
    for row in &rows {
        let dot: f64 = row.iter().map(|&i| g.values[i] * y.values[i]).sum();
        for &i in row {
            dx[i] = y.values[i] * (g.values[i] - dot);
        }
    }
    out[0] = Some(ev.host_tensor(&y.shape, dtype, &dx)?);
    Ok(out)
}

/// The `log_softmax` node of `F.cross_entropy`: `grad - exp(result) * grad.sum(dim)`, each
/// step rounded to the dtype (the row sum added in order), as ATen's kernel computes it after
/// `nll_loss`'s backward.
pub(crate) static CROSS_ENTROPY_LOG_SOFTMAX: Formula = Formula {
    inputs: &["self"],
    saves: &["result"],
    args: &["dim"],
    backward: cross_entropy_log_softmax,
};

fn cross_entropy_log_softmax(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let Some((y, g, dtype)) = result_and_grad(ev, b, None, &mut out)? else {
        return Ok(out);
    };
    let round = |v: f64| dtype.round(Scalar::Float(v)).to_f64();
    let dim = softmax_dim(b, y.shape.len())?;
    let last = dim + 1 >= y.shape.len();
    let inner: usize = y
        .shape
        .get(dim + 1..)
        .unwrap_or(&[])
        .iter()
        .product::<i64>()
        .max(0) as usize;
    // `grad - exp(result) * sum(grad)` in ATen's vectorized kernel: along the last dim the
    // sum is `vec::reduce_all`'s and every exponential SLEEF's; along another dim whole
    // vectors of the inner dims take SLEEF's, their tail the scalar one.
    let in_float = dtype != DType::Float64;
    let mut dx = g.values.clone();
    for row in rows(&y.shape, dim) {
        let sum = if last && dtype == DType::Float32 {
            lane_sum(&row.iter().map(|&i| g.values[i]).collect::<Vec<_>>())
        } else {
            row.iter().fold(0.0, |a, &i| round(a + g.values[i]))
        };
        for &i in &row {
            let vectorized = last || i % inner.max(1) < inner - inner % LANES;
            let p = round(kernel_exp(y.values[i], in_float, vectorized));
            dx[i] = round(g.values[i] - round(p * sum));
        }
    }
    out[0] = Some(ev.host_tensor(&y.shape, dtype, &dx)?);
    Ok(out)
}

fn log_softmax(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let Some((y, g, dtype)) = result_and_grad(ev, b, None, &mut out)? else {
        return Ok(out);
    };
    let dim = softmax_dim(b, y.shape.len())?;
    let mut dx = vec![0.0; y.values.len()];
    for row in rows(&y.shape, dim) {
        let sum: f64 = row.iter().map(|&i| g.values[i]).sum();
        for &i in &row {
            dx[i] = g.values[i] - y.values[i].exp() * sum;
        }
    }
    out[0] = Some(ev.host_tensor(&y.shape, dtype, &dx)?);
    Ok(out)
}
