//! Activations: `softmax`/`log_softmax` (ops of the table, `torch.` and tensor forms) and the
//! elementwise activations `torch.nn.functional` and the `nn` layers reach (`gelu`,
//! `leaky_relu`, `elu`, `silu`). Values are computed in double precision from
//! `engine.values()` and rounded once to the dtype (as [`crate::interp::torch::ops::math`] does).
//! `softmax` writes a contiguous result (ATen's `host_softmax` allocates it so); the
//! elementwise ones lay their result out as TensorIterator does.

use super::vec_float::{self, lane_sum, LANES};
use crate::core::tensor::layout::wrap_dim;
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[OpDef {
    names: &["softmax", "log_softmax"],
    schemas: &["Tensor self, int dim, ScalarType? dtype=None"],
    forms: Forms::Both,
    rule: softmax_rule,
    grad: crate::interp::torch::autograd::Grad::formula(
        &crate::interp::torch::nn::activation_backward::SOFTMAX_FAMILY,
    ),
    ..OpDef::PLAIN
}];

fn softmax_rule(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dim = ev.arg_int(call, "dim", 0)?;
    let out = ev.softmax(&t, dim, call.dtype("dtype"), call.name == "log_softmax")?;
    Ok(Value::tensor(out, &call.name, None))
}

/// An elementwise activation of [`Evaluator::activation`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Activation {
    /// `gelu`, exact (`erf`) or with the `tanh` approximation.
    Gelu { tanh: bool },
    /// `leaky_relu(negative_slope)`.
    LeakyRelu(f64),
    /// `elu(alpha)`.
    Elu(f64),
    /// `silu`: `x * sigmoid(x)`.
    Silu,
    /// `softplus(beta, threshold)`.
    Softplus { beta: f64, threshold: f64 },
    /// `mish`: `x * tanh(softplus(x))`.
    Mish,
    /// `hardswish`: `x * relu6(x + 3) / 6`.
    Hardswish,
    /// `hardsigmoid`: `relu6(x + 3) / 6`.
    Hardsigmoid,
    /// `selu`: a scaled `elu` with fixed constants.
    Selu,
    /// `celu(alpha)`: `elu` with the input scaled by `1 / alpha`.
    Celu(f64),
    /// `logsigmoid`: `log(sigmoid(x))`.
    LogSigmoid,
}

impl Activation {
    /// The CPU kernel's name, as its "not implemented for" error gives it.
    fn kernel(self) -> &'static str {
        match self {
            Activation::Gelu { .. } => "GeluKernelImpl",
            Activation::LeakyRelu(_) => "leaky_relu_cpu",
            Activation::Elu(_) => "elu_cpu",
            Activation::Silu => "silu_cpu",
            Activation::Softplus { .. } => "softplus_cpu",
            Activation::Mish => "mish_cpu",
            Activation::Hardswish => "hardswish_cpu",
            Activation::Hardsigmoid => "hardsigmoid_cpu",
            Activation::Selu | Activation::Celu(_) => "elu_cpu",
            Activation::LogSigmoid => "log_sigmoid_cpu",
        }
    }

    /// The op's name (for the trace).
    fn name(self) -> &'static str {
        match self {
            Activation::Gelu { .. } => "gelu",
            Activation::LeakyRelu(_) => "leaky_relu",
            Activation::Elu(_) => "elu",
            Activation::Silu => "silu",
            Activation::Softplus { .. } => "softplus",
            Activation::Mish => "mish",
            Activation::Hardswish => "hardswish",
            Activation::Hardsigmoid => "hardsigmoid",
            Activation::Selu => "selu",
            Activation::Celu(_) => "celu",
            Activation::LogSigmoid => "log_sigmoid",
        }
    }

    /// The value at `x`, each arithmetic step rounded by `r` (to float32 for the float
    /// dtypes ATen computes in float, the identity for double), in the kernel's order: so
    /// `1 + erf(x/√2)` cancels for large negative `x` as it does in PyTorch.
    fn apply(self, x: f64, r: impl Fn(f64) -> f64) -> f64 {
        match self {
            Activation::Gelu { tanh: false } => {
                let alpha = r(std::f64::consts::FRAC_1_SQRT_2);
                let e = r(erf(r(x * alpha)));
                r(r(x * 0.5) * r(1.0 + e))
            }
            Activation::Gelu { tanh: true } => {
                let beta = r(std::f64::consts::SQRT_2 * std::f64::consts::FRAC_2_SQRT_PI * 0.5);
                let kappa = r(0.044715);
                let cube = r(r(x * x) * x);
                let inner = r(beta * r(x + r(kappa * cube)));
                r(r(0.5 * x) * r(1.0 + r(inner.tanh())))
            }
            Activation::LeakyRelu(slope) => {
                if x > 0.0 {
                    x
                } else {
                    x * slope
                }
            }
            Activation::Elu(alpha) => {
                if x > 0.0 {
                    x
                } else {
                    r(alpha * r(x.exp_m1()))
                }
            }
            Activation::Silu => r(x / r(1.0 + r((-x).exp()))),
            Activation::Softplus { beta, threshold } => {
                let scaled = r(x * beta);
                if scaled > threshold {
                    x
                } else {
                    r(r(scaled.exp().ln_1p()) / beta)
                }
            }
            Activation::Mish => r(x * r(r(x.exp().ln_1p()).tanh())),
            Activation::Hardswish => r(r(x * r(x + 3.0).clamp(0.0, 6.0)) / 6.0),
            Activation::Hardsigmoid => r(r(x + 3.0).clamp(0.0, 6.0) / 6.0),
            Activation::Selu => {
                const ALPHA: f64 = 1.673_263_242_354_377_2;
                const SCALE: f64 = 1.050_700_987_355_480_5;
                if x > 0.0 {
                    r(x * r(SCALE))
                } else {
                    r(r(x.exp_m1()) * r(ALPHA * SCALE))
                }
            }
            Activation::Celu(alpha) => {
                if x > 0.0 {
                    x
                } else {
                    r(r(r(x * r(1.0 / alpha)).exp_m1()) * alpha)
                }
            }
            Activation::LogSigmoid => r(x.min(0.0) - r(r((-x.abs()).exp()).ln_1p())),
        }
    }
}

/// The error function, to double precision: its Taylor series near 0, a continued fraction
/// for `erfc` further out.
pub(crate) fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let r = if a < 3.0 {
        let mut term = a;
        let mut sum = a;
        let mut n = 0.0;
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -a * a / n;
            sum += term / (2.0 * n + 1.0);
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else if a > 27.0 {
        1.0
    } else {
        // erfc(a) = exp(-a²)/√π · 1/(a + (1/2)/(a + 1/(a + (3/2)/(a + ...))))
        let mut f = a;
        for k in (1..=80).rev() {
            f = a + (k as f64 / 2.0) / f;
        }
        1.0 - (-a * a).exp() / std::f64::consts::PI.sqrt() / f
    };
    r.copysign(x)
}

/// The `NotImplementedError` of a floating-only CPU kernel.
fn float_kernel_only(dtype: DType, kernel: &str) -> R<()> {
    if !dtype.is_floating() {
        return Err(ScriptError::NotImplemented(format!(
            "\"{kernel}\" not implemented for '{}'",
            dtype.scalar_type_name()
        )));
    }
    Ok(())
}

impl Evaluator {
    /// `softmax(input, dim, dtype)` / `log_softmax`: a contiguous result; `dtype` converts the
    /// input first; integer inputs have no kernel.
    pub(crate) fn softmax(
        &mut self,
        t: &Tensor,
        dim: i64,
        dtype: Option<DType>,
        log: bool,
    ) -> R<Tensor> {
        let d = wrap_dim(dim, t.ndim()).map_err(ScriptError::Index)?;
        let out_dtype = dtype.unwrap_or(t.dtype);
        let name = if log { "log_softmax" } else { "softmax" };
        if t.numel() != 0 {
            let last = t.ndim() == 0 || d == t.ndim() - 1;
            let kernel = format!("{name}{}_kernel_impl", if last { "_lastdim" } else { "" });
            float_kernel_only(out_dtype, &kernel)?;
        }
        self.check_work(t.numel(), name)?;
        if self.torch.device.meta_op {
            // On the meta device nothing is computed: a contiguous result without values.
            let shape = t.shape().to_vec();
            let strides = crate::core::tensor::Layout::contiguous(&shape).strides;
            return self.empty_strided(&shape, &strides, out_dtype, name);
        }
        let values: Vec<f64> = self
            .engine
            .values(t)
            .into_iter()
            .map(|v| out_dtype.round(v).to_f64())
            .collect();
        let shape = t.shape().to_vec();
        let (size, inner) = if shape.is_empty() {
            (1, 1)
        } else {
            (
                shape[d].max(0) as usize,
                shape[d + 1..].iter().product::<i64>().max(0) as usize,
            )
        };
        // float32 (also the opmath of float16/bfloat16) rounds each step as ATen's kernel
        // does (the exponentials, their sum, then a multiply by the sum's reciprocal along
        // the last dim or a division along another), so rows sum to 1 within the same float
        // error as PyTorch's; float64 computes in double.
        let last = shape.is_empty() || d == shape.len() - 1;
        let in_float = out_dtype != DType::Float64;
        let step = |v: f64| {
            if in_float {
                f64::from(v as f32)
            } else {
                v
            }
        };
        // float16/bfloat16 keep log_softmax's sum and its log along the last dim in their
        // own type.
        let reduced = matches!(out_dtype, DType::Float16 | DType::BFloat16);
        let in_dtype = |v: f64| {
            if reduced {
                out_dtype.round(Scalar::Float(v)).to_f64()
            } else {
                v
            }
        };
        let mut out = vec![0.0; values.len()];
        let block = size * inner;
        if block > 0 {
            for start in (0..values.len()).step_by(block) {
                for i in 0..inner {
                    let at = |k: usize| start + k * inner + i;
                    let max = (0..size)
                        .map(|k| values[at(k)])
                        .fold(f64::NEG_INFINITY, f64::max);
                    // float kernels take SLEEF's exponential (`Vectorized<float>::exp`)
                    // along the last dim (its tail a partial vector) and on whole vectors
                    // of the inner dims; the inner dims' tail is a scalar loop (`std::exp`).
                    let vectorized = last || i < inner - inner % LANES;
                    let exps: Vec<f64> = (0..size)
                        .map(|k| {
                            vec_float::kernel_exp(step(values[at(k)] - max), in_float, vectorized)
                        })
                        .collect();
                    let sum = if last && in_float {
                        lane_sum(&exps)
                    } else {
                        exps.iter().fold(0.0, |acc, &e| step(acc + e))
                    };
                    let inverse = step(1.0 / sum);
                    let log_sum = if last {
                        in_dtype(step(in_dtype(sum).ln()))
                    } else {
                        step(sum.ln())
                    };
                    for (k, &e) in exps.iter().enumerate() {
                        let x = step(values[at(k)] - max);
                        out[at(k)] = if log {
                            x - log_sum
                        } else if last {
                            e * inverse
                        } else {
                            e / sum
                        };
                    }
                }
            }
        }
        let scalars: Vec<Scalar> = out
            .into_iter()
            .map(|v| out_dtype.round(Scalar::Float(v)))
            .collect();
        self.tensor_from_values(&shape, out_dtype, &scalars, name)
    }

    /// An elementwise activation of `this`: a new tensor, or written into `this` (`inplace`).
    pub(crate) fn activation(
        &mut self,
        this: &TensorRef,
        act: Activation,
        inplace: bool,
    ) -> R<Value> {
        let t = this.borrow().tensor.clone();
        if inplace && this.borrow().requires_grad {
            return Err(ScriptError::Runtime(
                "a leaf Variable that requires grad is being used in an in-place operation.".into(),
            ));
        }
        float_kernel_only(t.dtype, act.kernel())?;
        self.check_work(t.numel(), act.name())?;
        // On the meta device nothing is computed (the result has its layout, no values).
        let meta = self.torch.device.meta_op;
        let values: Vec<Scalar> = if meta {
            Vec::new()
        } else {
            self.engine.values(&t)
        }
        .into_iter()
        .map(|v| {
            let r = |v: f64| {
                if t.dtype == DType::Float64 {
                    v
                } else {
                    f64::from(v as f32)
                }
            };
            t.dtype.round(Scalar::Float(act.apply(v.to_f64(), r)))
        })
        .collect();
        let out = self.host_result(&t, t.dtype, &values, act.name())?;
        if inplace {
            self.copy_into(&t, &out, false)?;
            return Ok(Value::Tensor(std::rc::Rc::clone(this)));
        }
        Ok(Value::tensor(out, act.name(), None))
    }
}

#[cfg(test)]
mod tests {
    use super::erf;

    #[test]
    fn erf_matches_known_values() {
        assert!((erf(0.5) - 0.520_499_877_813_046_5).abs() < 1e-15);
        assert!((erf(-1.0) + 0.842_700_792_949_714_9).abs() < 1e-15);
        assert!((erf(3.5) - 0.999_999_256_901_627_7).abs() < 1e-15);
        assert_eq!(erf(0.0), 0.0);
    }
}
