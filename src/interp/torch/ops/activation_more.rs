//! The shrinking and thresholding activations and the gated and randomized ones:
//! `torch.threshold`/`threshold_`, `torch.hardshrink` (and the tensor method),
//! `torch.rrelu`/`rrelu_` (ops of the table), and the kernels `F.softshrink` and `F.glu`
//! call. Each computes on host values in the kernel's arithmetic (float32 steps for the float
//! dtypes, as ATen's CPU kernels) and writes a result laid out as TensorIterator lays it out.
//! `rrelu` draws its slopes from PyTorch's generator as `_rrelu_with_noise_train` does: one
//! `uniform_real_distribution<double>(lower, upper)` per element that is not positive, in
//! order.

use std::rc::Rc;

use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::{Grad, GradOp};
use crate::interp::torch::nn::activation_more_backward as grads;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["threshold"],
        schemas: &["Tensor self, Scalar threshold, Scalar value"],
        forms: Forms::Function,
        rule: threshold_rule,
        grad: Grad::formula(&grads::THRESHOLD),
        ..OpDef::PLAIN
    },
    // In place, the node keeps a clone of what it overwrote (`_saved_self`).
    OpDef {
        names: &["threshold_"],
        schemas: &["Tensor self, Scalar threshold, Scalar value"],
        forms: Forms::Function,
        rule: threshold_rule,
        grad: Grad::named("ThresholdBackward1", &grads::THRESHOLD),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["hardshrink"],
        schemas: &["Tensor self, Scalar lambd=0.5"],
        forms: Forms::Both,
        rule: hardshrink_rule,
        grad: Grad::formula(&grads::HARDSHRINK),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["rrelu", "rrelu_"],
        schemas: &[
            "Tensor self, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool training=False, Any? generator=None",
        ],
        forms: Forms::Function,
        rule: rrelu_rule,
        // The rule records its node itself: it keeps the noise it drew.
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
];

/// A number argument (`Scalar`) of a call, or `default`.
fn scalar(call: &OpCall, name: &str, default: f64) -> f64 {
    call.value(name)
        .and_then(crate::interp::torch::autograd::number)
        .unwrap_or(default)
}

fn threshold_rule(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let th = call.value("threshold").and_then(|v| ev.scalar_of(v));
    let value = call.value("value").and_then(|v| ev.scalar_of(v));
    let (Some(th), Some(value)) = (th, value) else {
        return Err(ScriptError::Type(format!(
            "{}(): argument 'threshold' must be Number",
            call.name
        )));
    };
    ev.threshold(&this, th, value, call.name == "threshold_")
}

fn hardshrink_rule(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let lambd = scalar(call, "lambd", 0.5);
    ev.shrink(&this, lambd, false)
}

fn rrelu_rule(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let lower = scalar(call, "lower", 0.125);
    let upper = scalar(call, "upper", 1.0 / 3.0);
    let training = match call.value("training") {
        Some(v) => {
            let v = v.clone();
            ev.truthy(&v)?
        }
        None => false,
    };
    ev.rrelu(&this, lower, upper, training, call.name == "rrelu_")
}

/// The value a float kernel's `Scalar` argument has in its arithmetic: the dtype's (float32
/// for float16/bfloat16, whose kernels compute in float), double for float64.
fn kernel_scalar(dtype: DType, v: f64) -> f64 {
    match dtype {
        DType::Float64 => v,
        _ => f64::from(v as f32),
    }
}

/// The largest finite value of a floating dtype, as C++'s `ostream` prints it.
fn dtype_max_text(dtype: DType) -> &'static str {
    match dtype {
        DType::Float64 => "1.79769e+308",
        DType::Float16 => "65504",
        DType::BFloat16 => "3.38953e+38",
        _ => "3.40282e+38",
    }
}

/// The largest finite value of a floating dtype.
fn dtype_max(dtype: DType) -> f64 {
    match dtype {
        DType::Float64 => f64::MAX,
        DType::Float16 => 65504.0,
        DType::BFloat16 => 3.389_531_389_251_535_5e38,
        _ => f64::from(f32::MAX),
    }
}

/// The `NotImplementedError` of a CPU kernel without `dtype`.
fn not_implemented(kernel: &str, dtype: DType) -> ScriptError {
    ScriptError::NotImplemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        dtype.scalar_type_name()
    ))
}

impl Evaluator {
    /// A pointwise result of `this` from `values` (row-major), written into `this` when
    /// `inplace` (the same object is returned), else a new tensor laid out as
    /// TensorIterator lays out a one-input op's output.
    fn activation_result(
        &mut self,
        this: &TensorRef,
        values: &[Scalar],
        inplace: bool,
        name: &str,
    ) -> R<Value> {
        let t = this.borrow().tensor.clone();
        if inplace {
            // The kernel writes in place: the values go straight into the target's storage.
            let out = self.uncounted(|ev| ev.host_result(&t, t.dtype, values, name))?;
            self.copy_into(&t, &out, false)?;
            return Ok(Value::Tensor(Rc::clone(this)));
        }
        let out = self.host_result(&t, t.dtype, values, name)?;
        Ok(Value::tensor(out, name, None))
    }

    /// `threshold(self, threshold, value)`: `value` where `self <= threshold`, else `self`
    /// (the bounds cast to the dtype first: an integer tensor compares with a truncated
    /// threshold).
    pub(crate) fn threshold(
        &mut self,
        this: &TensorRef,
        threshold: Scalar,
        value: Scalar,
        inplace: bool,
    ) -> R<Value> {
        let t = this.borrow().tensor.clone();
        if t.dtype == DType::Bool || t.dtype.is_complex() {
            return Err(not_implemented("threshold_cpu", t.dtype));
        }
        self.check_work(t.numel(), "threshold")?;
        let reduced = matches!(t.dtype, DType::Float16 | DType::BFloat16);
        let th = if reduced {
            f64::from(threshold.to_f64() as f32)
        } else {
            t.dtype.round(threshold).to_f64()
        };
        let value = t.dtype.round(value);
        let values: Vec<Scalar> = if self.torch.device.meta_op {
            Vec::new()
        } else {
            self.engine
                .values(&t)
                .into_iter()
                .map(|x| if x.to_f64() <= th { value } else { x })
                .collect()
        };
        self.activation_result(this, &values, inplace, "threshold")
    }

    /// `hardshrink(self, lambd)` (`shrink = false`: 0 inside `[-lambd, lambd]`, else `self`)
    /// or `softshrink(self, lambd)` (`self ∓ lambd` outside, `self * 0` inside, so a negative
    /// input inside gives `-0.0` as ATen's kernel does).
    pub(crate) fn shrink(&mut self, this: &TensorRef, lambd: f64, soft: bool) -> R<Value> {
        let t = this.borrow().tensor.clone();
        let dtype = t.dtype;
        if soft {
            if !dtype.is_floating() {
                return Err(not_implemented("softshrink_check", dtype));
            }
            let max = dtype_max(dtype);
            if !(0.0..=max).contains(&lambd) {
                return Err(ScriptError::Runtime(format!(
                    "lambda must be in range [0, {}] for input dtype {}, but found {}",
                    dtype_max_text(dtype),
                    dtype.scalar_type_name(),
                    crate::core::tensor::random::cpp_double(lambd)
                )));
            }
        } else if !dtype.is_floating() {
            return Err(not_implemented("hardshrink_cpu", dtype));
        }
        let name = if soft { "softshrink" } else { "hardshrink" };
        self.check_work(t.numel(), name)?;
        let l = kernel_scalar(dtype, lambd);
        let r = |v: f64| kernel_scalar(dtype, v);
        // `softshrink`'s vectorized loop (16 floats a step on the AVX2 build PyTorch is
        // recorded on) writes `+0` inside the band; the scalar tail writes `a * 0` (`-0.0` for
        // a negative `a`).
        let n = t.numel().max(0) as usize;
        let vectorized = n - n % 16;
        let values: Vec<Scalar> = if self.torch.device.meta_op {
            Vec::new()
        } else {
            self.engine
                .values(&t)
                .into_iter()
                .enumerate()
                .map(|(i, x)| {
                    let a = x.to_f64();
                    let y = if soft {
                        if a > l {
                            r(a - l)
                        } else if a < -l {
                            r(a + l)
                        } else if i < vectorized {
                            0.0
                        } else {
                            a * 0.0
                        }
                    } else if a >= -l && a <= l {
                        0.0
                    } else {
                        a
                    };
                    dtype.round(Scalar::Float(y))
                })
                .collect()
        };
        self.activation_result(this, &values, false, name)
    }

    /// `glu(self, dim)`: the first half along `dim` times the sigmoid of the second, a new
    /// tensor laid out as TensorIterator lays out an op on the halves.
    pub(crate) fn glu(&mut self, this: &TensorRef, dim: i64) -> R<Value> {
        let t = this.borrow().tensor.clone();
        if t.ndim() == 0 {
            return Err(ScriptError::Runtime(
                "glu does not support scalars because halving size must be even".into(),
            ));
        }
        let d = crate::core::tensor::layout::wrap_dim(dim, t.ndim()).map_err(ScriptError::Index)?;
        let size = t.shape()[d];
        if size % 2 != 0 {
            return Err(ScriptError::Runtime(format!(
                "Halving dimension must be even, but dimension {d} is size {size}"
            )));
        }
        if !t.dtype.is_floating() {
            return Err(not_implemented("glu_cpu", t.dtype));
        }
        let half = size / 2;
        let first = self.narrow_tensor(&t, d, 0, half)?;
        self.check_work(first.numel(), "glu")?;
        let dtype = t.dtype;
        let r = |v: f64| kernel_scalar(dtype, v);
        let values: Vec<Scalar> = if self.torch.device.meta_op {
            Vec::new()
        } else {
            let second = self.narrow_tensor(&t, d, half, half)?;
            let a = self.engine.values(&first);
            let b = self.engine.values(&second);
            a.iter()
                .zip(&b)
                .map(|(a, b)| {
                    let s = r(1.0 / r(1.0 + r((-b.to_f64()).exp())));
                    dtype.round(Scalar::Float(r(a.to_f64() * s)))
                })
                .collect()
        };
        let out = self.host_result(&first, dtype, &values, "glu")?;
        Ok(Value::tensor(out, "glu", None))
    }

    /// `t.narrow(d, start, len)` as a tensor (a view, nothing allocated).
    fn narrow_tensor(&mut self, t: &Tensor, d: usize, start: i64, len: i64) -> R<Tensor> {
        let mut layout = t.layout.clone();
        layout.offset += start * layout.strides[d];
        layout.shape[d] = len;
        Ok(Tensor {
            layout,
            ..t.clone()
        })
    }

    /// `rrelu(self, lower, upper, training)` / `rrelu_`: `rrelu_with_noise` on a fresh
    /// `empty_like` noise. Training draws a slope in `[lower, upper)` for each element that
    /// is not positive (1 for the others) and multiplies; evaluation is `leaky_relu` with
    /// slope `(lower + upper) / 2`. The node (`RreluWithNoiseBackward0`, or `...1` in place,
    /// which keeps the result) keeps the noise.
    pub(crate) fn rrelu(
        &mut self,
        this: &TensorRef,
        lower: f64,
        upper: f64,
        training: bool,
        inplace: bool,
    ) -> R<Value> {
        if lower > upper {
            return Err(ScriptError::Runtime(
                "Lower bound should be less than or equal to the upper bound".into(),
            ));
        }
        let t = this.borrow().tensor.clone();
        if inplace && this.borrow().requires_grad {
            return Err(ScriptError::Runtime(
                "a leaf Variable that requires grad is being used in an in-place operation.".into(),
            ));
        }
        let kernel = if training {
            "rrelu_with_noise_out_cpu"
        } else {
            "leaky_relu_cpu"
        };
        if !t.dtype.is_floating() {
            return Err(not_implemented(kernel, t.dtype));
        }
        self.check_work(t.numel(), "rrelu")?;
        let dtype = t.dtype;
        let r = |v: f64| kernel_scalar(dtype, v);
        let shape = t.shape().to_vec();
        let meta = self.torch.device.meta_op;
        let x: Vec<f64> = if meta {
            Vec::new()
        } else {
            self.engine.values(&t).iter().map(|v| v.to_f64()).collect()
        };
        let (mut noise, mut out) = (Vec::with_capacity(x.len()), Vec::with_capacity(x.len()));
        if training {
            let (lo, hi) = (r(lower), r(upper));
            for &v in &x {
                if v <= 0.0 {
                    let bits = self.torch.generator.random64() & ((1u64 << 53) - 1);
                    let u = bits as f64 * (1.0 / 9_007_199_254_740_992.0);
                    let slope = r(u * (hi - lo) + lo);
                    out.push(r(v * slope));
                    noise.push(slope);
                } else {
                    out.push(v);
                    noise.push(1.0);
                }
            }
        } else {
            let slope = r((lower + upper) / 2.0);
            out = x
                .iter()
                .map(|&v| if v > 0.0 { v } else { r(v * slope) })
                .collect();
            // The noise stays as `empty_like` left it: uninitialized (zeros here).
            noise = vec![0.0; x.len()];
        }
        let round = |v: &[f64]| -> Vec<Scalar> {
            v.iter().map(|&v| dtype.round(Scalar::Float(v))).collect()
        };
        let noise_t = self.tensor_from_values(&shape, dtype, &round(&noise), "rrelu")?;
        let noise = Value::tensor(noise_t, "rrelu", None);
        let result = if inplace {
            let values = round(&out);
            self.activation_result(this, &values, true, "rrelu_")?
        } else {
            let out_t = self.tensor_from_values(&shape, dtype, &round(&out), "rrelu")?;
            Value::tensor(out_t, "rrelu", None)
        };
        // The eval path's slope: `(lower + upper) / 2` of two wrapped double scalars (their
        // `add`, `div`, and the `to` of the divisor), all freed at the end.
        if !training {
            self.note_kernel_events(&[8, 8, 8, 8, 8, 8, -8, -8, -8, -8, -8, -8]);
        }
        let (name, grad) = if inplace {
            ("rrelu_", &RRELU_INPLACE_GRAD)
        } else {
            ("rrelu", &RRELU_GRAD)
        };
        let args = [
            ("lower", Value::Float(lower)),
            ("upper", Value::Float(upper)),
            ("training", Value::Bool(training)),
        ];
        let named: Vec<(&str, &Value)> = args.iter().map(|(n, v)| (*n, v)).collect();
        let input = Value::Tensor(Rc::clone(this));
        self.record_grad(
            GradOp::Named {
                name,
                grad,
                args: &named,
            },
            &[&input],
            &result,
        );
        self.save_extras(&result, &[("noise", &noise)]);
        Ok(result)
    }
}

const RRELU_GRAD: Grad = Grad::named("RreluWithNoiseBackward0", &grads::RRELU);
const RRELU_INPLACE_GRAD: Grad = Grad::named("RreluWithNoiseBackward1", &grads::RRELU_INPLACE);
