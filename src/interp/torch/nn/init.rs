//! `torch.nn.init`: the initializers of PyTorch 2.15's `torch/nn/init.py`, each as that Python
//! code runs it: under `no_grad`, through the tensor's own `uniform_`/`normal_`/`fill_`
//! methods (so the values are drawn from the default generator bit for bit, see
//! [`crate::core::tensor::random`]), returning the tensor object it filled. `trunc_normal_`'s
//! rejection loops are run on the host with the arithmetic of the tensor ops they call.
//! `orthogonal_` is in [`crate::interp::torch::nn::orthogonal`].

use std::rc::Rc;

use crate::core::tensor::random::{self, Distribution};
use crate::core::tensor::{DType, Layout, Scalar, ScriptError, Tensor};
use crate::interp::torch::signature::{bind, Bound, CallArgs, Schema};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The functions of `torch.nn.init` and their Python signatures.
const FUNCTIONS: &[(&str, &str)] = &[
    ("calculate_gain", "nonlinearity, param=None"),
    ("uniform_", "tensor, a=0.0, b=1.0, generator=None"),
    ("normal_", "tensor, mean=0.0, std=1.0, generator=None"),
    (
        "trunc_normal_",
        "tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None",
    ),
    ("constant_", "tensor, val"),
    ("ones_", "tensor"),
    ("zeros_", "tensor"),
    ("eye_", "tensor"),
    ("dirac_", "tensor, groups=1"),
    ("xavier_uniform_", "tensor, gain=1.0, generator=None"),
    ("xavier_normal_", "tensor, gain=1.0, generator=None"),
    (
        "kaiming_uniform_",
        "tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None",
    ),
    (
        "kaiming_normal_",
        "tensor, a=0, mode='fan_in', nonlinearity='leaky_relu', generator=None",
    ),
    ("orthogonal_", "tensor, gain=1, generator=None"),
    ("sparse_", "tensor, sparsity, std=0.01, generator=None"),
    ("_calculate_fan_in_and_fan_out", "tensor"),
    ("_calculate_correct_fan", "tensor, mode"),
];

/// The deprecated names (`init.uniform` for `init.uniform_`), which warn and call the new one.
const DEPRECATED: &[&str] = &[
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
];

/// The functions `calculate_gain` treats as linear.
const LINEAR_FNS: &[&str] = &[
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
];

/// Whether `torch.nn.init.name` is one of its functions.
pub(crate) fn is_init(name: &str) -> bool {
    FUNCTIONS.iter().any(|(n, _)| *n == name) || DEPRECATED.contains(&name)
}

/// A Python number argument.
fn num(v: &Value) -> Option<f64> {
    crate::interp::torch::autograd::number(v)
}

/// A Python number argument, or Python's `TypeError` for arithmetic on anything else.
fn float_arg(v: &Value, op: &str) -> R<f64> {
    num(v).ok_or_else(|| {
        ScriptError::Type(format!(
            "unsupported operand type(s) for {op}: '{}' and 'float'",
            v.type_name()
        ))
    })
}

/// The error of `tensor.attr` on a value that is not a tensor.
fn no_attribute(v: &Value, attr: &str) -> ScriptError {
    ScriptError::Attribute(format!(
        "'{}' object has no attribute '{attr}'",
        v.type_name()
    ))
}

/// Python's `float / 0`.
fn zero_division() -> ScriptError {
    ScriptError::ZeroDivision("float division by zero".into())
}

impl Evaluator {
    /// `torch.nn.init.name(...)`.
    pub(crate) fn call_nn_init(
        &mut self,
        name: &str,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> R<Value> {
        if DEPRECATED.contains(&name) {
            self.recorder.warn(format!(
                "FutureWarning: `nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`."
            ));
            return self.call_nn_init(&format!("{name}_"), pos, kw);
        }
        let Some((_, signature)) = FUNCTIONS.iter().find(|(n, _)| *n == name) else {
            return Err(ScriptError::Attribute(format!(
                "module 'torch.nn.init' has no attribute '{name}'"
            )));
        };
        let schema = Schema::parse_python(signature).map_err(ScriptError::Runtime)?;
        let args = bind(std::slice::from_ref(&schema), &CallArgs { name, pos, kw })?;
        let given = |n: &str| args.get(n).cloned().unwrap_or(Value::None);
        let tensor = given("tensor");
        match name {
            "calculate_gain" => self.calculate_gain(&given("nonlinearity"), &given("param")),
            "_calculate_fan_in_and_fan_out" => {
                let (fan_in, fan_out) = fans(&tensor, "dim")?;
                Ok(Value::Tuple(vec![Value::Int(fan_in), Value::Int(fan_out)]))
            }
            "_calculate_correct_fan" => correct_fan(&tensor, &given("mode")).map(Value::Int),
            "uniform_" | "normal_" => {
                let t = tensor_of(&tensor, name)?;
                let (first, second) = if name == "uniform_" {
                    (arg_or(&args, "a", 0.0), arg_or(&args, "b", 1.0))
                } else {
                    (arg_or(&args, "mean", 0.0), arg_or(&args, "std", 1.0))
                };
                self.draw_method(&t, name, vec![first, second], &given("generator"))
            }
            "constant_" | "ones_" => {
                let t = tensor_of(&tensor, "fill_")?;
                let val = if name == "ones_" {
                    Value::Float(1.0)
                } else {
                    given("val")
                };
                self.no_grad_method(&t, "fill_", vec![val])
            }
            "zeros_" => {
                let t = tensor_of(&tensor, "zero_")?;
                self.no_grad_method(&t, "zero_", vec![])
            }
            "eye_" => self.eye_(&tensor),
            "dirac_" => self.dirac_(&tensor, &given("groups")),
            "xavier_uniform_" | "xavier_normal_" => self.xavier(name, &tensor, &args),
            "kaiming_uniform_" | "kaiming_normal_" => self.kaiming(name, &tensor, &args),
            "trunc_normal_" => self.trunc_normal_(&tensor, &args),
            "sparse_" => self.sparse_(&tensor, &args),
            _ => self.orthogonal_(&tensor, &given("gain"), &given("generator")),
        }
    }

    /// `calculate_gain(nonlinearity, param=None)`.
    fn calculate_gain(&mut self, nonlinearity: &Value, param: &Value) -> R<Value> {
        let name = match nonlinearity {
            Value::Str(s) => s.as_str(),
            _ => "",
        };
        match name {
            n if LINEAR_FNS.contains(&n) || n == "sigmoid" => Ok(Value::Int(1)),
            "tanh" => Ok(Value::Float(5.0 / 3.0)),
            "relu" => Ok(Value::Float(2f64.sqrt())),
            "leaky_relu" => {
                let slope = match param {
                    Value::None => 0.01,
                    Value::Int(i) => *i as f64,
                    Value::Float(f) => *f,
                    other => {
                        let text = self.str_of(other)?;
                        return Err(ScriptError::Value(format!(
                            "negative_slope {text} not a valid number"
                        )));
                    }
                };
                Ok(Value::Float((2.0 / (1.0 + slope * slope)).sqrt()))
            }
            "selu" => Ok(Value::Float(0.75)),
            _ => {
                let text = self.str_of(nonlinearity)?;
                Err(ScriptError::Value(format!(
                    "Unsupported nonlinearity {text}"
                )))
            }
        }
    }

    /// `xavier_uniform_(tensor, gain=1.0)`, `xavier_normal_(tensor, gain=1.0)`.
    fn xavier(&mut self, name: &str, tensor: &Value, args: &Bound) -> R<Value> {
        let (fan_in, fan_out) = fans(tensor, "dim")?;
        let t = tensor_of(tensor, "dim")?;
        let root = Value::Float((2.0 / (fan_in + fan_out) as f64).sqrt());
        let gain = args.get("gain").cloned().unwrap_or(Value::Float(1.0));
        let std = self.binary(crate::lang::ast::BinOp::Mul, gain, root)?;
        let std = float_arg(&std, "*")?;
        let generator = args.get("generator").cloned().unwrap_or(Value::None);
        if name == "xavier_uniform_" {
            let a = 3f64.sqrt() * std;
            let bounds = vec![Value::Float(-a), Value::Float(a)];
            self.draw_method(&t, "uniform_", bounds, &generator)
        } else {
            let params = vec![Value::Float(0.0), Value::Float(std)];
            self.draw_method(&t, "normal_", params, &generator)
        }
    }

    /// `kaiming_uniform_` and `kaiming_normal_(tensor, a=0, mode='fan_in',
    /// nonlinearity='leaky_relu')`.
    fn kaiming(&mut self, name: &str, tensor: &Value, args: &Bound) -> R<Value> {
        let t = tensor_of(tensor, "shape")?;
        if t.borrow().tensor.shape().contains(&0) {
            self.recorder
                .warn("UserWarning: Initializing zero-element tensors is a no-op".into());
            return Ok(tensor.clone());
        }
        let mode = args
            .get("mode")
            .cloned()
            .unwrap_or(Value::Str("fan_in".into()));
        let fan = correct_fan(tensor, &mode)?;
        let nonlinearity = args
            .get("nonlinearity")
            .cloned()
            .unwrap_or(Value::Str("leaky_relu".into()));
        let a = args.get("a").cloned().unwrap_or(Value::Int(0));
        let gain = self.calculate_gain(&nonlinearity, &a)?;
        let std = float_arg(&gain, "/")? / (fan as f64).sqrt();
        let generator = args.get("generator").cloned().unwrap_or(Value::None);
        if name == "kaiming_uniform_" {
            let bound = 3f64.sqrt() * std;
            let bounds = vec![Value::Float(-bound), Value::Float(bound)];
            self.draw_method(&t, "uniform_", bounds, &generator)
        } else {
            let params = vec![Value::Int(0), Value::Float(std)];
            self.draw_method(&t, "normal_", params, &generator)
        }
    }

    /// `tensor.method(*pos)` with grad mode off, as `with torch.no_grad():` runs it.
    pub(super) fn no_grad_method(
        &mut self,
        t: &TensorRef,
        method: &str,
        pos: Vec<Value>,
    ) -> R<Value> {
        self.no_grad_call(t, method, pos, vec![])
    }

    /// `tensor.method(*pos, **kw)` with grad mode off.
    fn no_grad_call(
        &mut self,
        t: &TensorRef,
        method: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let before = self.torch.grad_enabled;
        self.torch.grad_enabled = false;
        let recv = Value::Method(Box::new(Value::Tensor(Rc::clone(t))), method.into());
        let out = self.call(recv, pos, kw);
        self.torch.grad_enabled = before;
        out
    }

    /// `tensor.uniform_(a, b, generator=generator)` (or `normal_`) under `no_grad`.
    pub(super) fn draw_method(
        &mut self,
        t: &TensorRef,
        method: &str,
        pos: Vec<Value>,
        generator: &Value,
    ) -> R<Value> {
        check_generator(method, generator)?;
        self.no_grad_call(t, method, pos, vec![])
    }

    /// `eye_(tensor)`: `torch.eye(*tensor.shape, out=tensor)` (zeros, then ones on the
    /// diagonal).
    fn eye_(&mut self, tensor: &Value) -> R<Value> {
        let t = tensor_of(tensor, "ndimension")?;
        let view = t.borrow().tensor.clone();
        if view.ndim() != 2 {
            return Err(ScriptError::Value(
                "Only tensors with 2 dimensions are supported".into(),
            ));
        }
        self.fill(&view, Scalar::Int(0))?;
        let (rows, cols) = (view.shape()[0], view.shape()[1]);
        let diagonal = Tensor {
            storage: view.storage,
            dtype: view.dtype,
            layout: Layout {
                shape: vec![rows.min(cols)],
                strides: vec![view.layout.strides[0] + view.layout.strides[1]],
                offset: view.layout.offset,
            },
        };
        self.fill(&diagonal, Scalar::Int(1))?;
        Ok(tensor.clone())
    }

    /// `dirac_(tensor, groups=1)`: zeros, and a one at the centre of each preserved channel.
    fn dirac_(&mut self, tensor: &Value, groups: &Value) -> R<Value> {
        let t = tensor_of(tensor, "ndimension")?;
        let view = t.borrow().tensor.clone();
        if !(3..=5).contains(&view.ndim()) {
            return Err(ScriptError::Value(
                "Only tensors with 3, 4, or 5 dimensions are supported".into(),
            ));
        }
        let groups = match groups {
            Value::None => 1,
            Value::Int(g) => *g,
            Value::Bool(b) => i64::from(*b),
            other => {
                return Err(ScriptError::Type(format!(
                    "unsupported operand type(s) for %: 'int' and '{}'",
                    other.type_name()
                )))
            }
        };
        let shape = view.shape().to_vec();
        if groups == 0 {
            return Err(ScriptError::ZeroDivision("integer modulo by zero".into()));
        }
        if shape[0].rem_euclid(groups) != 0 {
            return Err(ScriptError::Value(
                "dim 0 must be divisible by groups".into(),
            ));
        }
        let per_group = shape[0].div_euclid(groups);
        let min_dim = per_group.min(shape[1]);
        self.no_grad_method(&t, "zero_", vec![])?;
        let strides = view.layout.strides.clone();
        let centre: i64 = (2..shape.len()).map(|d| (shape[d] / 2) * strides[d]).sum();
        for g in 0..groups.max(0) {
            for d in 0..min_dim {
                let offset =
                    view.layout.offset + (g * per_group + d) * strides[0] + d * strides[1] + centre;
                let cell = Tensor {
                    storage: view.storage,
                    dtype: view.dtype,
                    layout: Layout {
                        shape: vec![],
                        strides: vec![],
                        offset,
                    },
                };
                self.fill(&cell, Scalar::Int(1))?;
            }
        }
        Ok(tensor.clone())
    }

    /// `trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0)`: PyTorch 2.15's rejection
    /// samplers (normal draws redrawn where out of `[a, b]` when the interval holds more than
    /// 30% of the mass, else uniform proposals accepted against the density).
    fn trunc_normal_(&mut self, tensor: &Value, args: &Bound) -> R<Value> {
        let t = tensor_of(tensor, "is_meta")?;
        let number = |name: &str, default: f64| match args.get(name) {
            None => Ok(default),
            Some(v) => float_arg(v, "-"),
        };
        let mean = number("mean", 0.0)?;
        let std = number("std", 1.0)?;
        let a = number("a", -2.0)?;
        let b = number("b", 2.0)?;
        let generator = args.get("generator").cloned().unwrap_or(Value::None);
        if mean < a - 2.0 * std || mean > b + 2.0 * std {
            self.recorder.warn(
                "UserWarning: mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be incorrect.".into(),
            );
        }
        if std == 0.0 {
            return Err(zero_division());
        }
        let norm_cdf = |x: f64| (1.0 + erf(x / 2f64.sqrt())) / 2.0;
        let p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std);
        if p > 0.3 {
            self.trunc_by_normal(&t, [mean, std, a, b], &generator)?;
        } else {
            self.trunc_by_uniform(&t, [mean, std, a, b], &generator)?;
        }
        Ok(tensor.clone())
    }

    /// The normal branch: `normal_`, then fresh normal draws of the whole tensor where a value
    /// lies outside `[a, b]`, until none does.
    fn trunc_by_normal(&mut self, t: &TensorRef, params: [f64; 4], generator: &Value) -> R<()> {
        let [mean, std, a, b] = params;
        let pos = vec![Value::Float(mean), Value::Float(std)];
        self.draw_method(t, "normal_", pos, generator)?;
        let view = t.borrow().tensor.clone();
        let dtype = view.dtype;
        let lo = dtype.round(Scalar::Float(a)).to_f64();
        let hi = dtype.round(Scalar::Float(b)).to_f64();
        let mut values = self.nn_read_host(&view);
        let mut redrawn = false;
        let order = DrawOrder::like(&view.layout);
        loop {
            let mask: Vec<bool> = values.iter().map(|&v| v < lo || v > hi).collect();
            if !mask.iter().any(|&m| m) {
                break;
            }
            self.check_work(view.numel(), "trunc_normal_")?;
            let fresh = order.draw(self, &Distribution::Normal { mean, std }, dtype)?;
            for ((v, m), f) in values.iter_mut().zip(&mask).zip(fresh) {
                if *m {
                    *v = f;
                }
            }
            redrawn = true;
        }
        if redrawn {
            let scalars: Vec<Scalar> = values.into_iter().map(Scalar::Float).collect();
            self.nn_write_host(&view, &scalars);
        }
        Ok(())
    }

    /// The uniform branch: proposals drawn uniformly in `[a, b]`, each accepted when the log of
    /// a uniform draw is at most its log density (relative to the peak), redrawn until all are.
    fn trunc_by_uniform(&mut self, t: &TensorRef, params: [f64; 4], generator: &Value) -> R<()> {
        let [mean, std, a, b] = params;
        let mode = a.max(mean.min(b));
        let log_peak = -0.5 * ((mode - mean) / std).powi(2);
        let pos = vec![Value::Float(a), Value::Float(b)];
        self.draw_method(t, "uniform_", pos, generator)?;
        let view = t.borrow().tensor.clone();
        let dtype = view.dtype;
        let r = |x: f64| op_round(dtype, x);
        let (mean_s, std_s, peak_s) = (r(mean), r(std), r(log_peak));
        // `candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)`.
        let density = |x: f64| {
            let z = r(r(x - mean_s) / std_s);
            r(r(r(z * z) * -0.5) - peak_s)
        };
        let order = DrawOrder::like(&view.layout);
        let unit = Distribution::Uniform { from: 0.0, to: 1.0 };
        let proposal = Distribution::Uniform { from: a, to: b };
        let mut result = self.nn_read_host(&view);
        let candidates: Vec<f64> = result.iter().map(|&x| density(x)).collect();
        let accept = order.draw(self, &unit, dtype)?;
        let mut pending: Vec<bool> = accept
            .iter()
            .zip(&candidates)
            .map(|(&u, &c)| r(u.ln()) > c)
            .collect();
        if !pending.iter().any(|&p| p) {
            return Ok(());
        }
        loop {
            self.check_work(view.numel(), "trunc_normal_")?;
            let proposed = order.draw(self, &proposal, dtype)?;
            for ((v, &p), &c) in result.iter_mut().zip(&pending).zip(&proposed) {
                if p {
                    *v = c;
                }
            }
            let accept = order.draw(self, &unit, dtype)?;
            for ((p, &u), &c) in pending.iter_mut().zip(&accept).zip(&proposed) {
                if *p {
                    *p = r(u.ln()) > density(c);
                }
            }
            if !pending.iter().any(|&p| p) {
                break;
            }
        }
        let scalars: Vec<Scalar> = result.into_iter().map(Scalar::Float).collect();
        self.nn_write_host(&view, &scalars);
        Ok(())
    }

    /// A tensor's values in row-major order, as numbers.
    pub(super) fn nn_read_host(&mut self, t: &Tensor) -> Vec<f64> {
        self.engine.values(t).iter().map(|v| v.to_f64()).collect()
    }

    /// Writes `values` (row-major) into `dst`'s cells through one staging copy (not a user
    /// allocation), and records the write.
    pub(super) fn nn_write_host(&mut self, dst: &Tensor, values: &[Scalar]) {
        let item = dst.dtype.item_size();
        let mut bytes = vec![0u8; values.len() * item];
        for (i, v) in values.iter().enumerate() {
            dst.dtype.write(&mut bytes, i, *v);
        }
        let staging = self.engine.allocate_with(bytes);
        let src = Tensor {
            storage: staging,
            dtype: dst.dtype,
            layout: Layout::contiguous(&dst.layout.shape),
        };
        self.engine.copy(dst, &src);
        self.engine.free(staging);
        self.note_write(dst);
    }
}

/// How `torch.empty_like(t).normal_()` lays its draws out: `empty_like` keeps a dense
/// tensor's strides (else it is contiguous), and the kernel writes in storage order.
struct DrawOrder {
    /// The row-major index of the element each draw lands in.
    logical: Vec<usize>,
    contiguous: bool,
}

impl DrawOrder {
    fn like(layout: &Layout) -> DrawOrder {
        let layout = if layout.is_non_overlapping_and_dense() {
            Layout {
                shape: layout.shape.clone(),
                strides: layout.strides.clone(),
                offset: 0,
            }
        } else {
            Layout::contiguous(&layout.shape)
        };
        let offsets: Vec<i64> = layout.offsets().collect();
        let mut logical: Vec<usize> = (0..offsets.len()).collect();
        crate::core::tensor::stable_sort::sort_by_key(&mut logical, |&i| offsets[i]);
        DrawOrder {
            logical,
            contiguous: layout.is_contiguous(),
        }
    }

    /// One draw per element from the default generator, in row-major order.
    fn draw(&self, ev: &mut Evaluator, dist: &Distribution, dtype: DType) -> R<Vec<f64>> {
        let n = self.logical.len();
        let drawn = random::sample(&mut ev.torch.generator, dist, dtype, n, self.contiguous)?;
        let mut out = vec![0.0; n];
        for (k, v) in drawn.into_iter().enumerate() {
            if let Some(&i) = self.logical.get(k) {
                out[i] = v.to_f64();
            }
        }
        Ok(out)
    }
}

/// The result of one float op of a tensor of `dtype`: computed in its `opmath` type (`float`
/// for the reduced types) and stored in `dtype`.
fn op_round(dtype: DType, x: f64) -> f64 {
    match dtype {
        DType::Float64 => x,
        DType::Float32 => f64::from(x as f32),
        other => other.round(Scalar::Float(f64::from(x as f32))).to_f64(),
    }
}

/// The error function (Abramowitz and Stegun 7.1.26, within 1.5e-7): enough to choose
/// `trunc_normal_`'s branch, the only use of the mass it computes.
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 {
        -y
    } else {
        y
    }
}

/// The tensor argument, or the `AttributeError` of its first use (`tensor.attr`).
pub(super) fn tensor_of(v: &Value, attr: &str) -> R<TensorRef> {
    match v {
        Value::Tensor(t) => Ok(Rc::clone(t)),
        other => Err(no_attribute(other, attr)),
    }
}

/// A keyword's value, or the default.
fn arg_or(args: &Bound, name: &str, default: f64) -> Value {
    args.get(name).cloned().unwrap_or(Value::Float(default))
}

/// Only the default generator exists here (`torch.manual_seed` returns it).
fn check_generator(method: &str, generator: &Value) -> R<()> {
    match generator {
        Value::None | Value::Generator => Ok(()),
        other => Err(ScriptError::Type(format!(
            "{method}(): argument 'generator' must be torch.Generator, not {}",
            other.type_name()
        ))),
    }
}

/// `_calculate_fan_in_and_fan_out(tensor)`.
pub(super) fn fans(tensor: &Value, attr: &str) -> R<(i64, i64)> {
    let t = tensor_of(tensor, attr)?;
    let shape = t.borrow().tensor.shape().to_vec();
    if shape.len() < 2 {
        return Err(ScriptError::Value(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions".into(),
        ));
    }
    let receptive: i64 = shape[2..].iter().product();
    Ok((shape[1] * receptive, shape[0] * receptive))
}

/// `_calculate_correct_fan(tensor, mode)`.
fn correct_fan(tensor: &Value, mode: &Value) -> R<i64> {
    let Value::Str(mode) = mode else {
        return Err(no_attribute(mode, "lower"));
    };
    let mode = mode.to_lowercase();
    if mode != "fan_in" && mode != "fan_out" {
        return Err(ScriptError::Value(format!(
            "Mode {mode} not supported, please use one of ['fan_in', 'fan_out']"
        )));
    }
    let (fan_in, fan_out) = fans(tensor, "dim")?;
    Ok(if mode == "fan_in" { fan_in } else { fan_out })
}
