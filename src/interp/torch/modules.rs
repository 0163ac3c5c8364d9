//! The modules a notebook imports beside `torch`: `torch.nn` (its activation layers),
//! `torch.nn.functional`, `torch.linalg` (the table's `linalg_*` ops), and `math`. NumPy lives in `numpy.rs`.

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// `math` functions.
const MATH: &[&str] = &["sqrt", "floor", "ceil", "prod", "isclose", "log", "exp"];

impl Evaluator {
    /// `module.name`.
    pub(crate) fn module_attribute(&mut self, module: &str, name: &str) -> R<Value> {
        let method = || {
            Ok(Value::Method(
                Box::new(Value::Module(module.into())),
                name.into(),
            ))
        };
        if let Some(value) = self.utils_module_attribute(module, name) {
            return value;
        }
        if let Some(value) = self.torch_env_module_attribute(module, name) {
            return Ok(value);
        }
        if let Some(value) = self.autograd_module_attribute(module, name) {
            return value;
        }
        if let Some(value) = self.stdlib_attribute(module, name) {
            return value;
        }
        match (module, name) {
            ("torch.nn", "functional") => Ok(Value::Module("torch.nn.functional".into())),
            ("torch.nn", "init") => Ok(Value::Module("torch.nn.init".into())),
            ("torch.nn", "utils") => Ok(Value::Module("torch.nn.utils".into())),
            // `nn.Transformer`'s static mask helper, which encoder tutorials call.
            ("torch.nn", "Transformer") => Ok(Value::Module("torch.nn.Transformer".into())),
            ("torch.nn.Transformer", "generate_square_subsequent_mask") => method(),
            ("torch.nn.utils", "rnn") => Ok(Value::Module("torch.nn.utils.rnn".into())),
            ("torch.nn.utils", n) if crate::interp::torch::nn::NN_UTILS.contains(&n) => method(),
            ("torch.nn.utils.rnn", n) if crate::interp::torch::nn::NN_UTILS_RNN.contains(&n) => {
                method()
            }
            ("torch.nn.init", n) if crate::interp::torch::nn::init::is_init(n) => method(),
            ("torch.nn", "Parameter") => method(),
            ("torch.optim" | "torch.optim.lr_scheduler", n)
                if crate::interp::torch::optim::exports(module, n) =>
            {
                self.nn_class(n).map(Value::Class).ok_or_else(|| {
                    ScriptError::Attribute(format!("module '{module}' has no attribute '{n}'"))
                })
            }
            ("torch.nn", n)
                if crate::interp::torch::nn::module::find(n)
                    .is_some_and(|d| d.path.starts_with("torch.nn")) =>
            {
                self.nn_class(n).map(Value::Class).ok_or_else(|| {
                    ScriptError::Attribute(format!("module 'torch.nn' has no attribute '{n}'"))
                })
            }
            ("torch.nn.functional", n) if crate::interp::torch::registry::is_functional(n) => {
                method()
            }
            ("torch.linalg", n)
                if crate::interp::torch::registry::is_function(&format!("linalg_{n}")) =>
            {
                method()
            }
            ("torch.autograd", "grad" | "backward") => method(),
            ("collections", "OrderedDict") => method(),
            ("math", "pi") => Ok(Value::Float(std::f64::consts::PI)),
            ("math", "e") => Ok(Value::Float(std::f64::consts::E)),
            ("math", "inf") => Ok(Value::Float(f64::INFINITY)),
            ("math", "nan") => Ok(Value::Float(f64::NAN)),
            ("math", n) if MATH.contains(&n) => method(),
            ("numpy", _) => self.numpy_attribute(name),
            ("torchvision", "io" | "transforms") => {
                Ok(Value::Module(format!("torchvision.{name}")))
            }
            ("torchvision.io" | "torchvision.io.ImageReadMode", _) => {
                self.torchvision_io_attribute(module, name)
            }
            _ => Err(ScriptError::Attribute(format!(
                "module '{module}' has no attribute '{name}'"
            ))),
        }
    }

    /// `module.name(...)`.
    pub(crate) fn call_module(
        &mut self,
        module: &str,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        if module.starts_with("torch.utils") {
            return self.call_utils_module(module, name, pos, kw);
        }
        if let (Some(device), "autocast") = (
            crate::interp::torch::autocast::amp_module_device(module),
            name,
        ) {
            return self.autocast_object(device, &pos, &kw);
        }
        if let (Some(device), "GradScaler") = (
            crate::interp::torch::autocast::amp_module_device(module),
            name,
        ) {
            return self.grad_scaler(device, pos, kw);
        }
        if let Some(value) = self.call_torch_env_module(module, name) {
            return Ok(value);
        }
        if let Some(value) = self.call_stdlib(module, name, &pos, &kw) {
            return value;
        }
        if crate::interp::torch::autograd::functions::handles(module, name) {
            return self.call_autograd_function(module, name, pos, kw);
        }
        match module {
            "torch.nn" if name == "Parameter" => self.parameter_call(pos, kw),
            "torch.nn" => Err(ScriptError::Attribute(format!(
                "module 'torch.nn' has no attribute '{name}'"
            ))),
            "torch.nn.init" => self.call_nn_init(name, &pos, &kw),
            "torch.nn.utils" => self.call_nn_utils(name, pos, kw),
            "torch.nn.utils.rnn" => self.call_nn_utils_rnn(name, pos, kw),
            "torch.nn.Transformer" => self.square_subsequent_mask(pos, kw),
            "torch.nn.functional" => {
                self.call_table_functional(name, &pos, &kw)
                    .unwrap_or_else(|| {
                        Err(ScriptError::Attribute(format!(
                            "module 'torch.nn.functional' has no attribute '{name}'"
                        )))
                    })
            }
            "torch.linalg" => self
                .call_table_function(&format!("linalg_{name}"), &pos, &kw)
                .unwrap_or_else(|| {
                    Err(ScriptError::Attribute(format!(
                        "module 'torch.linalg' has no attribute '{name}'"
                    )))
                }),
            "torch.autograd" => self.call_autograd(name, pos, kw),
            "math" => self.call_math(name, &pos),
            "collections" if name == "OrderedDict" => self.ordered_dict(pos, kw),
            "numpy" => self.call_numpy(name, pos, kw),
            "torchvision.io" => self.call_torchvision_io(name, pos, kw),
            _ => Err(ScriptError::Type(format!(
                "'{module}.{name}' is not callable here"
            ))),
        }
    }

    fn call_math(&mut self, name: &str, pos: &[Value]) -> R<Value> {
        let num = |v: &Value| -> R<f64> {
            match v {
                Value::Int(i) => Ok(*i as f64),
                Value::Bool(b) => Ok(f64::from(u8::from(*b))),
                Value::Float(f) => Ok(*f),
                other => Err(ScriptError::Type(format!(
                    "must be real number, not {}",
                    other.type_name()
                ))),
            }
        };
        match name {
            "prod" => {
                let items = match pos.first() {
                    Some(v) => self.iterate(v)?,
                    None => vec![],
                };
                let mut acc = Value::Int(1);
                for item in items {
                    acc = self.binary(crate::lang::ast::BinOp::Mul, acc, item)?;
                }
                Ok(acc)
            }
            "floor" | "ceil" => {
                let x = num(pos.first().unwrap_or(&Value::None))?;
                if let Some(Value::Int(i)) = pos.first() {
                    return Ok(Value::Int(*i));
                }
                let r = if name == "floor" { x.floor() } else { x.ceil() };
                if !r.is_finite() {
                    return Err(ScriptError::Overflow(
                        "cannot convert float infinity to integer".into(),
                    ));
                }
                Ok(Value::Int(r as i64))
            }
            "isclose" => {
                let a = num(pos.first().unwrap_or(&Value::None))?;
                let b = num(pos.get(1).unwrap_or(&Value::None))?;
                Ok(Value::Bool(
                    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()),
                ))
            }
            _ => {
                let x = num(pos.first().unwrap_or(&Value::None))?;
                let y = match name {
                    "sqrt" if x < 0.0 => {
                        return Err(ScriptError::Value("math domain error".into()))
                    }
                    "sqrt" => x.sqrt(),
                    "log" if x <= 0.0 => {
                        return Err(ScriptError::Value("math domain error".into()))
                    }
                    "log" => x.ln(),
                    _ => x.exp(),
                };
                Ok(Value::Float(y))
            }
        }
    }
}

impl Evaluator {
    /// `collections.OrderedDict(items=(), **kw)`: from a dict, or an iterable of pairs.
    fn ordered_dict(&mut self, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<Value> {
        if pos.len() > 1 {
            return Err(ScriptError::Type(format!(
                "expected at most 1 arguments, got {}",
                pos.len()
            )));
        }
        let mut entries: Vec<(Value, Value)> = Vec::new();
        if let Some(items) = pos.into_iter().next() {
            let pairs = match items {
                Value::Dict(e) | Value::OrderedDict(e) => e,
                other => {
                    let mut out = Vec::new();
                    for item in self.iterate(&other)? {
                        let kv = match item {
                            Value::Tuple(kv) | Value::List(kv) => kv,
                            _ => {
                                return Err(ScriptError::Type(format!(
                                    "cannot convert dictionary update sequence element #{} to a sequence",
                                    out.len()
                                )))
                            }
                        };
                        let [k, v] = <[Value; 2]>::try_from(kv).map_err(|kv| {
                            ScriptError::Value(format!(
                                "dictionary update sequence element #{} has length {}; 2 is required",
                                out.len(),
                                kv.len()
                            ))
                        })?;
                        out.push((k, v));
                    }
                    out
                }
            };
            for (k, v) in pairs {
                crate::interp::python::dict::insert(&mut entries, k, v)?;
            }
        }
        for (k, v) in kw {
            crate::interp::python::dict::insert(&mut entries, Value::Str(k), v)?;
        }
        Ok(Value::OrderedDict(entries))
    }
}
