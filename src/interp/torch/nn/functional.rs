//! `torch.nn.functional` and the `torch.nn` activation layers: a small table of Python
//! signatures (name, parameters, how many are required), bound with Python's rules and
//! messages, each mapped to the op that computes it (`F.softmax` -> `softmax`, `F.gelu` ->
//! the `gelu` activation, ...), `inplace=` included.

use crate::core::tensor::ScriptError;
use crate::interp::torch::ops::Activation;
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// A Python function's signature: its parameters in order, the first `required` without
/// defaults.
struct PyFn {
    name: &'static str,
    params: &'static [&'static str],
    required: usize,
    /// How many parameters may be given by position (the rest are keyword-only).
    positional: usize,
}

/// A signature whose parameters may all be given by position.
const fn py(name: &'static str, params: &'static [&'static str], required: usize) -> PyFn {
    PyFn {
        name,
        params,
        required,
        positional: params.len(),
    }
}

/// `torch.nn.functional` functions.
const FUNCTIONS: &[PyFn] = &[
    py("relu", &["input", "inplace"], 1),
    py("relu_", &["input"], 1),
    py("softmax", &["input", "dim", "_stacklevel", "dtype"], 1),
    py("log_softmax", &["input", "dim", "_stacklevel", "dtype"], 1),
    PyFn {
        name: "gelu",
        params: &["input", "approximate"],
        required: 1,
        positional: 1,
    },
    py("leaky_relu", &["input", "negative_slope", "inplace"], 1),
    py("leaky_relu_", &["input", "negative_slope"], 1),
    py("elu", &["input", "alpha", "inplace"], 1),
    py("elu_", &["input", "alpha"], 1),
    py("silu", &["input", "inplace"], 1),
    py("sigmoid", &["input"], 1),
    py("softplus", &["input", "beta", "threshold"], 1),
    py("mish", &["input", "inplace"], 1),
    py("hardswish", &["input", "inplace"], 1),
    py("hardsigmoid", &["input", "inplace"], 1),
    py("selu", &["input", "inplace"], 1),
    py("celu", &["input", "alpha", "inplace"], 1),
    py("logsigmoid", &["input"], 1),
    py("softmin", &["input", "dim", "_stacklevel", "dtype"], 1),
    py("relu6", &["input", "inplace"], 1),
    py("hardtanh", &["input", "min_val", "max_val", "inplace"], 1),
    py("tanh", &["input"], 1),
    py("one_hot", &["tensor", "num_classes"], 1),
    py(
        "nll_loss",
        &[
            "input",
            "target",
            "weight",
            "size_average",
            "ignore_index",
            "reduce",
            "reduction",
        ],
        2,
    ),
    py(
        "cross_entropy",
        &[
            "input",
            "target",
            "weight",
            "size_average",
            "ignore_index",
            "reduce",
            "reduction",
            "label_smoothing",
        ],
        2,
    ),
    py(
        "binary_cross_entropy",
        &[
            "input",
            "target",
            "weight",
            "size_average",
            "reduce",
            "reduction",
        ],
        2,
    ),
    py(
        "binary_cross_entropy_with_logits",
        &[
            "input",
            "target",
            "weight",
            "size_average",
            "reduce",
            "reduction",
            "pos_weight",
        ],
        2,
    ),
    py(
        "mse_loss",
        &[
            "input",
            "target",
            "size_average",
            "reduce",
            "reduction",
            "weight",
        ],
        2,
    ),
    py("pad", &["input", "pad", "mode", "value"], 2),
    py("normalize", &["input", "p", "dim", "eps", "out"], 1),
    py(
        "unfold",
        &["input", "kernel_size", "dilation", "padding", "stride"],
        2,
    ),
];

/// `torch.nn` layers (their `__init__` parameters, all with defaults).
const LAYERS: &[PyFn] = &[
    py("ReLU", &["inplace"], 0),
    py("Identity", &[], 0),
    py("Softmax", &["dim"], 0),
    py("LogSoftmax", &["dim"], 0),
    py("GELU", &["approximate"], 0),
    py("LeakyReLU", &["negative_slope", "inplace"], 0),
    py("ELU", &["alpha", "inplace"], 0),
    py("SiLU", &["inplace"], 0),
    py("Sigmoid", &[], 0),
    py("Tanh", &[], 0),
    py("Softplus", &["beta", "threshold"], 0),
    py("Mish", &["inplace"], 0),
    py("Hardswish", &["inplace"], 0),
    py("Hardsigmoid", &["inplace"], 0),
    py("SELU", &["inplace"], 0),
    py("CELU", &["alpha", "inplace"], 0),
    py("LogSigmoid", &[], 0),
    py("Softmin", &["dim"], 0),
    py("ReLU6", &["inplace"], 0),
    py("Hardtanh", &["min_val", "max_val", "inplace"], 0),
];

/// Whether `torch.nn.functional.name` exists here.
pub(crate) fn is_function(name: &str) -> bool {
    FUNCTIONS.iter().any(|f| f.name == name)
}

/// Whether `torch.nn.name` is a layer here.
pub(crate) fn is_layer(name: &str) -> bool {
    LAYERS.iter().any(|f| f.name == name)
}

/// Whether a layer's `repr` shows `inplace=True` (`Hardswish` and `Hardsigmoid` do not).
pub(crate) fn repr_shows_inplace(kind: &str) -> bool {
    !matches!(kind, "Hardswish" | "Hardsigmoid")
}

/// Binds arguments with Python's rules: `None` where a parameter was not given.
fn py_bind(
    spec: &PyFn,
    what: &str,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Vec<Option<Value>>> {
    let n = spec.positional;
    if pos.len() > n {
        // A method (`Softmax.__init__`) counts `self` in Python's message.
        let extra = usize::from(what.ends_with(".__init__"));
        let (most, least, given) = (n + extra, spec.required + extra, pos.len() + extra);
        let takes = if least == most {
            format!("{most}")
        } else {
            format!("from {least} to {most}")
        };
        return Err(ScriptError::Type(format!(
            "{what}() takes {takes} positional argument{} but {given} {} given",
            if most == 1 && least == most { "" } else { "s" },
            if given == 1 { "was" } else { "were" }
        )));
    }
    let mut values: Vec<Option<Value>> = vec![None; spec.params.len()];
    for (i, v) in pos.into_iter().enumerate() {
        values[i] = Some(v);
    }
    for (k, v) in kw {
        let Some(i) = spec.params.iter().position(|p| *p == k) else {
            return Err(ScriptError::Type(format!(
                "{what}() got an unexpected keyword argument '{k}'"
            )));
        };
        if values[i].is_some() {
            return Err(ScriptError::Type(format!(
                "{what}() got multiple values for argument '{k}'"
            )));
        }
        values[i] = Some(v);
    }
    let missing: Vec<String> = spec.params[..spec.required]
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(p, _)| format!("'{p}'"))
        .collect();
    if !missing.is_empty() {
        let list = match missing.len() {
            1 => missing[0].clone(),
            k => format!("{} and {}", missing[..k - 1].join(", "), missing[k - 1]),
        };
        return Err(ScriptError::Type(format!(
            "{what}() missing {} required positional argument{}: {list}",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" }
        )));
    }
    Ok(values)
}

/// A bound argument, `None` counting as not given.
fn given(values: &[Option<Value>], i: usize) -> Option<&Value> {
    values
        .get(i)
        .and_then(|v| v.as_ref())
        .filter(|v| !matches!(v, Value::None))
}

/// A loss's `reduction=` (`'mean'` when not given).
fn reduction_of(v: Option<&Value>) -> R<crate::interp::torch::ops::Reduction> {
    match v {
        Some(Value::Str(r)) => crate::interp::torch::ops::Reduction::parse(r),
        _ => Ok(crate::interp::torch::ops::Reduction::Mean),
    }
}

fn number(v: Option<&Value>, default: f64) -> f64 {
    match v {
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Float(f)) => *f,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        _ => default,
    }
}

fn tensor_arg(name: &str, param: &str, v: Option<&Value>) -> R<TensorRef> {
    match v {
        Some(Value::Tensor(t)) => Ok(std::rc::Rc::clone(t)),
        other => Err(ScriptError::Type(format!(
            "{name}(): argument '{param}' (position 1) must be Tensor, not {}",
            other.map_or("NoneType", Value::type_name)
        ))),
    }
}

/// `F.softmax`'s implicit dim (`_get_softmax_dim`).
fn softmax_dim(ndim: usize) -> i64 {
    if matches!(ndim, 0 | 1 | 3) {
        0
    } else {
        1
    }
}

fn gelu_kind(v: Option<&Value>) -> R<Activation> {
    match v {
        None => Ok(Activation::Gelu { tanh: false }),
        Some(Value::Str(s)) if s == "none" => Ok(Activation::Gelu { tanh: false }),
        Some(Value::Str(s)) if s == "tanh" => Ok(Activation::Gelu { tanh: true }),
        Some(Value::Str(_)) => Err(ScriptError::Runtime(
            "approximate argument must be either none or tanh.".into(),
        )),
        Some(other) => Err(ScriptError::Type(format!(
            "gelu(): argument 'approximate' must be str, not {}",
            other.type_name()
        ))),
    }
}

impl Evaluator {
    /// `torch.nn.functional.name(...)`.
    pub(crate) fn call_functional(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let params = FUNCTIONS
            .iter()
            .find(|f| f.name == name)
            .map_or(&[][..], |f| f.params);
        let mut named: Vec<(String, Value)> = pos
            .iter()
            .enumerate()
            .map(|(i, v)| (params.get(i).copied().unwrap_or("").to_string(), v.clone()))
            .collect();
        named.extend(kw.iter().cloned());
        named.retain(|(_, v)| !matches!(v, Value::None));
        let out = self.call_functional_unrecorded(name, pos, kw)?;
        let args: Vec<(&str, &Value)> = named.iter().map(|(n, v)| (n.as_str(), v)).collect();
        let inputs: Vec<&Value> = args.iter().map(|(_, v)| *v).collect();
        let grad_op = crate::interp::torch::autograd::GradOp::Named { name, args: &args };
        self.record_grad(grad_op, &inputs, &out);
        Ok(out)
    }

    /// Elementwise `losses` reduced by `reduction`. With `in_buffer`, as ATen's CPU kernels of
    /// `mse_loss` and `binary_cross_entropy` leave it: a 0-d view of the buffer of elementwise
    /// losses (its other elements unspecified; zeros here).
    fn reduce_loss(
        &mut self,
        losses: Value,
        reduction: crate::interp::torch::ops::Reduction,
        in_buffer: bool,
        name: &str,
    ) -> R<Value> {
        let method = match reduction {
            crate::interp::torch::ops::Reduction::None => return Ok(losses),
            crate::interp::torch::ops::Reduction::Mean => "mean",
            crate::interp::torch::ops::Reduction::Sum => "sum",
        };
        let elements = losses.as_tensor().map_or(1, |t| t.numel()).max(1);
        let reduced = self.call(
            Value::Method(Box::new(losses), method.into()),
            vec![],
            vec![],
        )?;
        let Some(scalar) = reduced.as_tensor().filter(|_| in_buffer) else {
            return Ok(reduced);
        };
        let mut values = vec![crate::core::tensor::Scalar::Float(0.0); elements as usize];
        if let (Some(first), Some(v)) = (values.first_mut(), self.engine.values(&scalar).first()) {
            *first = *v;
        }
        let buffer = self.tensor_from_values(&[elements], scalar.dtype, &values, name)?;
        let out = crate::core::tensor::Tensor {
            layout: crate::core::tensor::Layout::contiguous(&[]),
            ..buffer
        };
        Ok(Value::tensor(out, name, None))
    }

    /// `torch.nn.functional.<name>(...)`, before autograd's bookkeeping.
    fn call_functional_unrecorded(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let Some(spec) = FUNCTIONS.iter().find(|f| f.name == name) else {
            return Err(ScriptError::Attribute(format!(
                "module 'torch.nn.functional' has no attribute '{name}'"
            )));
        };
        let args = py_bind(spec, name, pos, kw)?;
        let input = tensor_arg(name, spec.params[0], given(&args, 0))?;
        let flag = |this: &mut Evaluator, i: usize| -> R<bool> {
            match given(&args, i) {
                Some(v) => this.truthy(v),
                None => Ok(false),
            }
        };
        match name {
            "relu" | "relu_" => {
                let method = if name == "relu_" || flag(self, 1)? {
                    "relu_"
                } else {
                    "relu"
                };
                self.call(
                    Value::Method(Box::new(Value::Tensor(input)), method.into()),
                    vec![],
                    vec![],
                )
            }
            "sigmoid" | "tanh" => self.call(
                Value::Method(Box::new(Value::Tensor(input)), name.into()),
                vec![],
                vec![],
            ),
            "nll_loss" | "cross_entropy" => {
                let target = tensor_arg(name, "target", given(&args, 1))?;
                if given(&args, 2).is_some_and(|w| !matches!(w, Value::None)) {
                    return Err(ScriptError::NotImplemented(format!(
                        "{name} with class weights (weight=) is not supported by Stridescope"
                    )));
                }
                if name == "cross_entropy" && number(given(&args, 7), 0.0) != 0.0 {
                    return Err(ScriptError::NotImplemented(
                        "cross_entropy with label_smoothing is not supported by Stridescope".into(),
                    ));
                }
                let ignore_index = number(given(&args, 4), -100.0) as i64;
                let reduction = reduction_of(given(&args, 6))?;
                let mut t = input.borrow().tensor.clone();
                if name == "cross_entropy" {
                    let dim = if t.ndim() == 1 { 0 } else { 1 };
                    t = self.softmax(&t, dim, None, true)?;
                }
                let target = target.borrow().tensor.clone();
                self.nll_loss(&t, &target, ignore_index, reduction)
            }
            "binary_cross_entropy" | "binary_cross_entropy_with_logits" => {
                let target = tensor_arg(name, "target", given(&args, 1))?;
                let extra = [(2, "weight"), (6, "pos_weight")];
                if let Some((_, what)) = extra
                    .iter()
                    .find(|(i, _)| given(&args, *i).is_some_and(|v| !matches!(v, Value::None)))
                {
                    return Err(ScriptError::NotImplemented(format!(
                        "{name} with {what}= is not supported by Stridescope"
                    )));
                }
                let reduction = reduction_of(given(&args, 5))?;
                let (x, y) = (
                    input.borrow().tensor.clone(),
                    target.borrow().tensor.clone(),
                );
                let logits = name == "binary_cross_entropy_with_logits";
                let elements = self.binary_cross_entropy_elements(&x, &y, logits)?;
                // ATen's CPU kernel of the plain loss reduces into its buffer of elementwise
                // losses; the logits one returns a fresh tensor.
                self.reduce_loss(
                    Value::tensor(elements, name, None),
                    reduction,
                    !logits,
                    name,
                )
            }
            "mse_loss" => {
                let target = tensor_arg(name, "target", given(&args, 1))?;
                let reduction = reduction_of(given(&args, 4))?;
                let (x, y) = (Value::Tensor(input), Value::Tensor(target));
                let diff = self.binary(crate::lang::ast::BinOp::Sub, x, y)?;
                let squared = self.binary(crate::lang::ast::BinOp::Mul, diff.clone(), diff)?;
                self.reduce_loss(squared, reduction, true, name)
            }
            "softmax" | "log_softmax" | "softmin" => {
                let mut t = input.borrow().tensor.clone();
                if name == "softmin" {
                    // `(-input).softmax(dim)`.
                    let negated = self.neg(&t)?;
                    t = negated
                        .as_tensor()
                        .ok_or_else(|| ScriptError::Runtime("softmin: no tensor".into()))?;
                }
                let dim = match given(&args, 1) {
                    Some(v) => {
                        let v = v.clone();
                        self.index_int(&v)?
                    }
                    None => softmax_dim(t.ndim()),
                };
                let dtype = match given(&args, 3) {
                    Some(Value::DType(d)) => Some(*d),
                    _ => None,
                };
                let out = self.softmax(&t, dim, dtype, name == "log_softmax")?;
                Ok(Value::tensor(out, name, None))
            }
            "gelu" => {
                let act = gelu_kind(given(&args, 1))?;
                self.activation(&input, act, false)
            }
            "leaky_relu" | "leaky_relu_" => {
                let slope = number(given(&args, 1), 0.01);
                let inplace = name == "leaky_relu_" || flag(self, 2)?;
                self.activation(&input, Activation::LeakyRelu(slope), inplace)
            }
            "elu" | "elu_" => {
                let alpha = number(given(&args, 1), 1.0);
                let inplace = name == "elu_" || flag(self, 2)?;
                self.activation(&input, Activation::Elu(alpha), inplace)
            }
            "silu" | "mish" | "hardswish" | "hardsigmoid" | "selu" => {
                let inplace = flag(self, 1)?;
                let act = match name {
                    "silu" => Activation::Silu,
                    "mish" => Activation::Mish,
                    "hardswish" => Activation::Hardswish,
                    "hardsigmoid" => Activation::Hardsigmoid,
                    _ => Activation::Selu,
                };
                self.activation(&input, act, inplace)
            }
            "celu" => {
                let alpha = number(given(&args, 1), 1.0);
                let inplace = flag(self, 2)?;
                self.activation(&input, Activation::Celu(alpha), inplace)
            }
            "softplus" => {
                let beta = number(given(&args, 1), 1.0);
                let threshold = number(given(&args, 2), 20.0);
                self.activation(&input, Activation::Softplus { beta, threshold }, false)
            }
            "logsigmoid" => self.activation(&input, Activation::LogSigmoid, false),
            "relu6" | "hardtanh" => {
                // `hardtanh` is a clamp (`relu6` is `hardtanh(0, 6)`), in place or not.
                let (low, high, inplace) = if name == "relu6" {
                    (Value::Float(0.0), Value::Float(6.0), flag(self, 1)?)
                } else {
                    (
                        given(&args, 1).cloned().unwrap_or(Value::Float(-1.0)),
                        given(&args, 2).cloned().unwrap_or(Value::Float(1.0)),
                        flag(self, 3)?,
                    )
                };
                // An integer input keeps its dtype: its bounds are cast to it.
                let integral = input.borrow().tensor.dtype.is_integral();
                let cast = |v: Value| match v {
                    Value::Float(f) if integral => Value::Int(f as i64),
                    v => v,
                };
                let (low, high) = (cast(low), cast(high));
                let method = if inplace { "clamp_" } else { "clamp" };
                self.call(
                    Value::Method(Box::new(Value::Tensor(input)), method.into()),
                    vec![low, high],
                    vec![],
                )
            }
            "one_hot" => {
                let t = input.borrow().tensor.clone();
                let classes = match given(&args, 1) {
                    Some(v) => {
                        let v = v.clone();
                        self.index_int(&v)?
                    }
                    None => -1,
                };
                self.one_hot(&t, classes)
            }
            "unfold" => {
                let t = input.borrow().tensor.clone();
                let mut pairs = [[1i64; 2]; 4];
                for (i, default) in [(1, 1), (2, 1), (3, 0), (4, 1)] {
                    pairs[i - 1] = match given(&args, i) {
                        Some(v) => {
                            let v = v.clone();
                            match self.int_list(&v, "unfold", "kernel_size")?.as_slice() {
                                [one] => [*one, *one],
                                [a, b] => [*a, *b],
                                _ => {
                                    return Err(ScriptError::Type(
                                        "unfold(): expected an int or a pair of ints".into(),
                                    ))
                                }
                            }
                        }
                        None => [default, default],
                    };
                }
                let [kernel, dilation, padding, stride] = pairs;
                self.im2col(&t, kernel, dilation, padding, stride)
            }
            "pad" => {
                let t = input.borrow().tensor.clone();
                let pad = match given(&args, 1) {
                    Some(v) => {
                        let v = v.clone();
                        self.int_list(&v, "pad", "pad")?
                    }
                    None => vec![],
                };
                let mode = match given(&args, 2) {
                    Some(Value::Str(s)) => s.clone(),
                    _ => "constant".into(),
                };
                let value = given(&args, 3).and_then(|v| self.scalar_of(v));
                self.pad(&t, &pad, &mode, value)
            }
            _ => {
                // normalize
                let t = input.borrow().tensor.clone();
                let p = number(given(&args, 1), 2.0);
                let dim = match given(&args, 2) {
                    Some(v) => {
                        let v = v.clone();
                        self.index_int(&v)?
                    }
                    None => 1,
                };
                let eps = number(given(&args, 3), 1e-12);
                self.normalize(&t, p, dim, eps)
            }
        }
    }

    /// `torch.nn.Name(...)`: a layer object holding its bound arguments.
    pub(crate) fn make_layer(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let Some(spec) = LAYERS.iter().find(|f| f.name == name) else {
            return Err(ScriptError::Attribute(format!(
                "module 'torch.nn' has no attribute '{name}'"
            )));
        };
        if name == "Identity" {
            return Ok(Value::Layer {
                kind: name.into(),
                inplace: false,
                args: vec![],
            });
        }
        let values = py_bind(spec, &format!("{name}.__init__"), pos, kw)?;
        let mut inplace = false;
        let mut args = Vec::new();
        for (p, v) in spec.params.iter().zip(values) {
            match (*p, v) {
                ("inplace", Some(v)) => inplace = self.truthy(&v)?,
                ("inplace", None) => {}
                ("dim", v) => args.push(("dim".to_string(), v.unwrap_or(Value::None))),
                ("approximate", v) => args.push((
                    "approximate".to_string(),
                    v.unwrap_or_else(|| Value::Str("none".into())),
                )),
                ("negative_slope", v) => args.push((
                    "negative_slope".to_string(),
                    v.unwrap_or(Value::Float(0.01)),
                )),
                (p, v) => {
                    let default = match p {
                        "min_val" => -1.0,
                        "threshold" => 20.0,
                        _ => 1.0,
                    };
                    args.push((p.to_string(), v.unwrap_or(Value::Float(default))))
                }
            }
        }
        Ok(Value::Layer {
            kind: name.into(),
            inplace,
            args,
        })
    }

    /// Calls an `nn` layer object on its input (`nn.ReLU(inplace=True)(x)`).
    pub(crate) fn call_layer(
        &mut self,
        kind: &str,
        inplace: bool,
        args: &[(String, Value)],
        pos: Vec<Value>,
    ) -> R<Value> {
        let [input] = <[Value; 1]>::try_from(pos).map_err(|p| {
            ScriptError::Type(format!(
                "{kind}.forward() takes 2 positional arguments but {} were given",
                p.len() + 1
            ))
        })?;
        if kind == "Identity" {
            return Ok(input);
        }
        let arg = args.first().map(|(_, v)| v.clone()).unwrap_or(Value::None);
        let arg2 = args.get(1).map(|(_, v)| v.clone()).unwrap_or(Value::None);
        let (function, mut pos) = match kind {
            "ReLU" => ("relu", vec![input, Value::Bool(inplace)]),
            "Softmax" => ("softmax", vec![input, arg]),
            "LogSoftmax" => ("log_softmax", vec![input, arg]),
            "GELU" => {
                return self.call_functional("gelu", vec![input], vec![("approximate".into(), arg)])
            }
            "LeakyReLU" => ("leaky_relu", vec![input, arg, Value::Bool(inplace)]),
            "ELU" => ("elu", vec![input, arg, Value::Bool(inplace)]),
            "SiLU" => ("silu", vec![input, Value::Bool(inplace)]),
            "Mish" => ("mish", vec![input, Value::Bool(inplace)]),
            "Hardswish" => ("hardswish", vec![input, Value::Bool(inplace)]),
            "Hardsigmoid" => ("hardsigmoid", vec![input, Value::Bool(inplace)]),
            "SELU" => ("selu", vec![input, Value::Bool(inplace)]),
            "ReLU6" => ("relu6", vec![input, Value::Bool(inplace)]),
            "CELU" => ("celu", vec![input, arg, Value::Bool(inplace)]),
            "Hardtanh" => ("hardtanh", vec![input, arg, arg2, Value::Bool(inplace)]),
            "Softplus" => ("softplus", vec![input, arg, arg2]),
            "LogSigmoid" => ("logsigmoid", vec![input]),
            "Softmin" => ("softmin", vec![input, arg]),
            "Sigmoid" => ("sigmoid", vec![input]),
            _ => ("tanh", vec![input]),
        };
        if matches!(kind, "Softmax" | "LogSoftmax" | "Softmin") {
            // `F.softmax(input, self.dim, _stacklevel=5)`.
            pos.push(Value::Int(5));
        }
        self.call_functional(function, pos, vec![])
    }
}
