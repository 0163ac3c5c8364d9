//! What `batch_norm`, `layer_norm` and `group_norm` share: how their elements fall into
//! statistics groups and affine channels ([`Plan`]), the statistics and the normalized values
//! (computed on the host in double precision, rounded once to the dtype), and the backward
//! formulas of their nodes (`NativeBatchNormBackward0`, `NativeLayerNormBackward0`,
//! `NativeGroupNormBackward0`), as ATen's `batch_norm_backward`, `layer_norm_backward` and
//! `group_norm_backward` compute them.

use crate::core::tensor::{DType, MemoryFormat, Scalar};
use crate::interp::torch::autograd::formulas::Backward;
use crate::interp::torch::autograd::{Formula, Grad};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// How a normalization groups the elements of its input (row-major index `i`): element `i`
/// is normalized with statistics `(i / stat_span) % stats` and scaled by weight
/// `(i / affine_span) % channels`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plan {
    pub stat_span: usize,
    pub stats: usize,
    pub affine_span: usize,
    pub channels: usize,
}

impl Plan {
    /// The statistics group of element `i`.
    pub(super) fn stat(&self, i: usize) -> usize {
        (i / self.stat_span.max(1)) % self.stats.max(1)
    }

    fn affine(&self, i: usize) -> usize {
        (i / self.affine_span.max(1)) % self.channels.max(1)
    }

    /// The plan as a node keeps it.
    pub(super) fn to_value(self) -> Value {
        Value::Tuple(
            [self.stat_span, self.stats, self.affine_span, self.channels]
                .iter()
                .map(|&n| Value::Int(n as i64))
                .collect(),
        )
    }

    fn from_value(v: Option<&Value>) -> Option<Plan> {
        let Some(Value::Tuple(items)) = v else {
            return None;
        };
        let n = |k: usize| match items.get(k) {
            Some(Value::Int(i)) => usize::try_from(*i).ok(),
            _ => None,
        };
        Some(Plan {
            stat_span: n(0)?,
            stats: n(1)?,
            affine_span: n(2)?,
            channels: n(3)?,
        })
    }

    /// The biased mean and variance of each statistics group, and its element count.
    pub(super) fn moments(&self, x: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let mut sum = vec![0.0; self.stats];
        let mut count = vec![0.0; self.stats];
        for (i, &v) in x.iter().enumerate() {
            let s = self.stat(i);
            sum[s] += v;
            count[s] += 1.0;
        }
        let mean: Vec<f64> = sum
            .iter()
            .zip(&count)
            .map(|(s, c)| if *c > 0.0 { s / c } else { f64::NAN })
            .collect();
        let mut sq = vec![0.0; self.stats];
        for (i, &v) in x.iter().enumerate() {
            let s = self.stat(i);
            sq[s] += (v - mean[s]) * (v - mean[s]);
        }
        let var = sq
            .iter()
            .zip(&count)
            .map(|(q, c)| if *c > 0.0 { q / c } else { f64::NAN })
            .collect();
        (mean, var, count)
    }

    /// `(x - mean) * invstd * weight + bias`, element by element, rounded to `dtype`.
    pub(super) fn normalize(
        &self,
        x: &[f64],
        mean: &[f64],
        invstd: &[f64],
        weight: Option<&[f64]>,
        bias: Option<&[f64]>,
        dtype: DType,
    ) -> Vec<Scalar> {
        x.iter()
            .enumerate()
            .map(|(i, &v)| {
                let (s, c) = (self.stat(i), self.affine(i));
                let w = weight.and_then(|w| w.get(c)).copied().unwrap_or(1.0);
                let b = bias.and_then(|b| b.get(c)).copied().unwrap_or(0.0);
                dtype.round(Scalar::Float((v - mean[s]) * invstd[s] * w + b))
            })
            .collect()
    }
}

/// `batch_norm`'s node.
pub(super) const BATCH_NORM_GRAD: Grad = Grad::named("NativeBatchNormBackward0", &NORM);
/// `layer_norm`'s node.
pub(super) const LAYER_NORM_GRAD: Grad = Grad::named("NativeLayerNormBackward0", &LAYER_NORM);
/// `group_norm`'s node.
pub(super) const GROUP_NORM_GRAD: Grad = Grad::named("NativeGroupNormBackward0", &NORM);

/// The three nodes' formula: operands `input, weight, bias`; the node keeps the input and the
/// weight, the plan, the statistics the forward used (`mean`, `invstd`) and whether they were
/// the batch's own (`training`; `batch_norm` in evaluation mode uses the running ones, which
/// are constants for the gradient), and whether a weight was given (`affine`).
static NORM: Formula = Formula {
    inputs: &["input", "weight", "bias"],
    saves: &["input", "weight"],
    args: &[
        "plan",
        "mean",
        "invstd",
        "training",
        "affine",
        "batch_kernel",
    ],
    backward: norm_backward,
};

/// `layer_norm`'s: as [`NORM`], and the node keeps the bias too (`NativeLayerNormBackward0`
/// saves `input, weight, bias` and the statistics).
static LAYER_NORM: Formula = Formula {
    inputs: &["input", "weight", "bias"],
    saves: &["input", "weight", "bias"],
    args: NORM.args,
    backward: norm_backward,
};

fn floats(v: Option<&Value>) -> Vec<f64> {
    match v {
        Some(Value::Tuple(items)) => items
            .iter()
            .map(|i| crate::interp::torch::autograd::number(i).unwrap_or(f64::NAN))
            .collect(),
        _ => vec![],
    }
}

impl Evaluator {
    /// A saved tensor's values as numbers (`None` for a `None` operand).
    fn saved_values(&mut self, b: &Backward, slot: &str) -> R<Option<(Vec<f64>, DType)>> {
        match self.saved_input(b, slot)? {
            Value::Tensor(t) => {
                let t = t.borrow().tensor.clone();
                Ok(Some((self.nn_read_host(&t), t.dtype)))
            }
            _ => Ok(None),
        }
    }

    /// A gradient tensor of `shape` from host values.
    fn grad_tensor(&mut self, shape: &[i64], dtype: DType, values: &[f64]) -> R<Value> {
        let scalars: Vec<Scalar> = values
            .iter()
            .map(|&v| dtype.round(Scalar::Float(v)))
            .collect();
        let t = self.tensor_from_values(shape, dtype, &scalars, "backward")?;
        Ok(Value::tensor(t, "backward", None))
    }
}

fn norm_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    let plan = Plan::from_value(b.arg("plan")).ok_or_else(|| {
        crate::core::tensor::ScriptError::Runtime("normalization backward: no plan".into())
    })?;
    let mean = floats(b.arg("mean"));
    let invstd = floats(b.arg("invstd"));
    let training = !matches!(b.arg("training"), Some(Value::Bool(false)));
    if crate::interp::torch::nn::conv::meta_op(ev) {
        // On the meta device the gradients have shapes and strides but no values.
        let Value::Tensor(input) = ev.saved_input(b, "input")? else {
            return Ok(out);
        };
        let dtype = input.borrow().tensor.dtype;
        for (i, slot) in out.iter_mut().enumerate().take(3) {
            if b.needs(i) {
                let t = ev.empty(&b.shape(i), dtype, MemoryFormat::Contiguous, "backward")?;
                *slot = Some(Value::tensor(t, "backward", None));
            }
        }
        return Ok(out);
    }
    let Some((x, dtype)) = ev.saved_values(b, "input")? else {
        return Ok(out);
    };
    let weight = if matches!(b.arg("affine"), Some(Value::Bool(true))) {
        ev.saved_values(b, "weight")?.map(|(w, _)| w)
    } else {
        None
    };
    let g = match b.g() {
        Value::Tensor(t) => {
            let t = t.borrow().tensor.clone();
            ev.nn_read_host(&t)
        }
        _ => return Ok(out),
    };
    if let Some(Value::Bool(channels_last)) = b.arg("batch_kernel") {
        let channels_last = *channels_last;
        let grads = crate::interp::torch::nn::norm_kernel::batch_backward(
            &x,
            &g,
            &plan,
            (&mean, &invstd),
            weight.as_deref(),
            training,
            dtype,
            channels_last,
        );
        let shapes = [b.shape(0), b.shape(1), b.shape(2)];
        for (i, values) in [grads.input, grads.weight, grads.bias].iter().enumerate() {
            if b.needs(i) {
                out[i] = Some(ev.grad_tensor(&shapes[i], dtype, values)?);
            }
        }
        if shapes[0].len() == 5 {
            // On a 5-d input ATen's kernel takes an input-sized buffer after the gradients
            // (measured with BatchNorm3d).
            let bytes = shapes[0].iter().product::<i64>() * dtype.item_size() as i64;
            ev.note_kernel_events(&[bytes]);
        }
        return Ok(out);
    }
    let w_of = |c: usize| {
        weight
            .as_ref()
            .and_then(|w| w.get(c))
            .copied()
            .unwrap_or(1.0)
    };
    let xhat = |i: usize| {
        let s = plan.stat(i);
        (x[i] - mean.get(s).copied().unwrap_or(0.0)) * invstd.get(s).copied().unwrap_or(0.0)
    };
    let mut grad_weight = vec![0.0; plan.channels];
    let mut grad_bias = vec![0.0; plan.channels];
    let mut sum_dy = vec![0.0; plan.stats];
    let mut sum_dy_xhat = vec![0.0; plan.stats];
    let mut count = vec![0.0; plan.stats];
    for (i, &dy) in g.iter().enumerate().take(x.len()) {
        let (s, c) = (plan.stat(i), plan.affine(i));
        let h = xhat(i);
        grad_weight[c] += dy * h;
        grad_bias[c] += dy;
        let d = dy * w_of(c);
        sum_dy[s] += d;
        sum_dy_xhat[s] += d * h;
        count[s] += 1.0;
    }
    if b.needs(0) {
        let grad_input: Vec<f64> = (0..x.len())
            .map(|i| {
                let (s, c) = (plan.stat(i), plan.affine(i));
                let d = g.get(i).copied().unwrap_or(0.0) * w_of(c);
                let r = invstd.get(s).copied().unwrap_or(0.0);
                if training {
                    r / count[s] * (count[s] * d - sum_dy[s] - xhat(i) * sum_dy_xhat[s])
                } else {
                    d * r
                }
            })
            .collect();
        out[0] = Some(ev.grad_tensor(&b.shape(0), dtype, &grad_input)?);
    }
    if b.needs(1) {
        out[1] = Some(ev.grad_tensor(&b.shape(1), dtype, &grad_weight)?);
    }
    if b.needs(2) {
        out[2] = Some(ev.grad_tensor(&b.shape(2), dtype, &grad_bias)?);
    }
    Ok(out)
}
