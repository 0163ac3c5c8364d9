//! The parts of `torch` a notebook touches before and around its tensors: the device probes
//! every tutorial starts with (`torch.cuda.is_available()`, `torch.accelerator`,
//! `torch.backends.mps`), seeding and
//! determinism switches (`torch.cuda.manual_seed_all`, `torch.backends.cudnn.deterministic =
//! True`), `torch.__version__`, the default dtype, and the legacy tensor classes
//! (`torch.Tensor([1, 2])`, `torch.FloatTensor(2, 3)`, `x.type(torch.DoubleTensor)`).
//! Stridescope runs on the CPU, as a machine without CUDA or MPS would, unless the evaluation
//! option "as on a CUDA device" is on (then `torch.cuda` answers for the simulated device).

use crate::core::tensor::{DType, ScriptError};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// What `torch.__version__` says: the PyTorch release Stridescope follows (PyPI's build).
pub(crate) const TORCH_VERSION: &str = "2.15.0+cu132";

/// The legacy tensor classes and their dtypes (`torch.Tensor` is the default dtype's).
const LEGACY_CLASSES: &[(&str, DType)] = &[
    ("Tensor", DType::Float32),
    ("FloatTensor", DType::Float32),
    ("DoubleTensor", DType::Float64),
    ("HalfTensor", DType::Float16),
    ("BFloat16Tensor", DType::BFloat16),
    ("ByteTensor", DType::UInt8),
    ("CharTensor", DType::Int8),
    ("ShortTensor", DType::Int16),
    ("IntTensor", DType::Int32),
    ("LongTensor", DType::Int64),
    ("BoolTensor", DType::Bool),
];

/// The dtype of legacy class `torch.<name>`, if it is one.
pub(crate) fn legacy_class_dtype(name: &str) -> Option<DType> {
    LEGACY_CLASSES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, d)| *d)
}

/// `torch.cuda`'s memory counters (`memory_allocated()`, ...), which read 0 where no GPU is
/// visible (a pattern, for the two matches that name them).
macro_rules! CUDA_MEMORY_COUNTERS {
    () => {
        "memory_allocated"
            | "max_memory_allocated"
            | "memory_reserved"
            | "max_memory_reserved"
            | "memory_cached"
            | "max_memory_cached"
    };
}

/// `torch.cuda`'s functions that only the simulated CUDA device has (with the evaluation
/// option "as on a CUDA device").
macro_rules! CUDA_DEVICE_QUERIES {
    () => {
        "current_device"
            | "get_device_name"
            | "reset_peak_memory_stats"
            | "reset_max_memory_allocated"
            | "synchronize"
            | "is_initialized"
            | "set_device"
    };
}

/// The `torch.backends.cudnn` switches a seeding cell sets, with their defaults.
const CUDNN_FLAGS: &[(&str, bool)] = &[
    ("deterministic", false),
    ("benchmark", false),
    ("enabled", true),
    ("allow_tf32", true),
];

impl Evaluator {
    /// `torch.<name>` for the names of this module, or `None`.
    pub(crate) fn torch_env_attribute(&self, name: &str) -> Option<Value> {
        Some(match name {
            "cuda" | "cpu" | "backends" | "accelerator" | "optim" | "utils" => {
                Value::Module(format!("torch.{name}"))
            }
            "__version__" => Value::Str(TORCH_VERSION.into()),
            "get_default_dtype"
            | "set_default_dtype"
            | "no_grad"
            | "enable_grad"
            | "inference_mode"
            | "set_grad_enabled"
            | "is_grad_enabled"
            | "is_inference_mode_enabled" => Value::Method(Box::new(Value::Torch), name.into()),
            n if crate::interp::torch::autocast::TORCH_NAMES.contains(&n) => {
                Value::Method(Box::new(Value::Torch), name.into())
            }
            "amp" => Value::Module("torch.amp".into()),
            n if legacy_class_dtype(n).is_some() => {
                Value::Method(Box::new(Value::Torch), name.into())
            }
            _ => return None,
        })
    }

    /// `module.name` for `torch.cuda`, `torch.backends` and its submodules, or `None`.
    pub(crate) fn torch_env_module_attribute(&self, module: &str, name: &str) -> Option<Value> {
        let method = || Value::Method(Box::new(Value::Module(module.into())), name.into());
        Some(match (module, name) {
            ("torch.cuda", CUDA_DEVICE_QUERIES!()) if self.torch.device.cuda => method(),
            ("torch.cuda", "is_available" | "device_count" | "is_bf16_supported")
            | ("torch.accelerator", "is_available" | "device_count" | "current_accelerator")
            | ("torch.cuda", "manual_seed" | "manual_seed_all" | "empty_cache")
            | ("torch.cuda", CUDA_MEMORY_COUNTERS!())
            | ("torch.backends.mps" | "torch.backends.cuda", "is_available" | "is_built") => {
                method()
            }
            ("torch.optim", "lr_scheduler") => Value::Module("torch.optim.lr_scheduler".into()),
            ("torch.cuda" | "torch.cpu", "amp") => Value::Module(format!("{module}.amp")),
            ("torch.amp", "autocast_mode") => Value::Module("torch.amp.autocast_mode".into()),
            (m, "autocast" | "GradScaler")
                if crate::interp::torch::autocast::amp_module_device(m).is_some() =>
            {
                method()
            }
            ("torch.backends", "mps" | "cudnn" | "cuda") => {
                Value::Module(format!("torch.backends.{name}"))
            }
            ("torch.backends.cudnn", flag) => {
                let (_, default) = CUDNN_FLAGS.iter().find(|(f, _)| *f == flag)?;
                let key = format!("{module}.{flag}");
                self.torch
                    .module_settings
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map_or(Value::Bool(*default), |(_, v)| v.clone())
            }
            _ => return None,
        })
    }

    /// `module.name = value` on a module (only the cudnn switches are settable).
    pub(crate) fn set_module_attribute(&mut self, module: &str, name: &str, value: Value) -> R<()> {
        if module == "torch.backends.cudnn" && CUDNN_FLAGS.iter().any(|(f, _)| *f == name) {
            let key = format!("{module}.{name}");
            self.torch.module_settings.retain(|(k, _)| *k != key);
            self.torch.module_settings.push((key, value));
            return Ok(());
        }
        Err(ScriptError::Attribute(format!(
            "Stridescope cannot set '{module}.{name}'"
        )))
    }

    /// Calls `torch.cuda.*` / `torch.backends.*.*` functions: no GPU is visible here.
    pub(crate) fn call_torch_env_module(&mut self, module: &str, name: &str) -> Option<Value> {
        // As on a CUDA device: the simulated device answers (see `cuda_ops.rs`).
        if self.torch.device.cuda {
            match (module, name) {
                ("torch.cuda", _) => {
                    if let Some(v) = self.cuda_counter(name) {
                        return Some(v);
                    }
                }
                ("torch.accelerator", "is_available") => return Some(Value::Bool(true)),
                ("torch.accelerator", "device_count") => return Some(Value::Int(1)),
                _ => {}
            }
        }
        Some(match (module, name) {
            (_, "is_available" | "is_built" | "is_bf16_supported") => Value::Bool(false),
            ("torch.cuda" | "torch.accelerator", "device_count") => Value::Int(0),
            // PyTorch's CUDA build names CUDA even where no GPU is visible.
            ("torch.accelerator", "current_accelerator") => Value::Device("cuda".into()),
            ("torch.cuda", "manual_seed" | "manual_seed_all" | "empty_cache") => Value::None,
            // The caching allocator's counters: no CUDA memory was ever allocated.
            ("torch.cuda", CUDA_MEMORY_COUNTERS!()) => Value::Int(0),
            _ => return None,
        })
    }

    /// `torch.get_default_dtype()`, `torch.set_default_dtype(d)` and the legacy tensor class
    /// constructors; `None` for other names.
    pub(crate) fn call_torch_env(
        &mut self,
        name: &str,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> Option<R<Value>> {
        if name == "autocast" {
            return Some(self.autocast_object(None, pos, kw));
        }
        if let Some(result) = self.autocast_query(name, pos, kw) {
            return Some(result);
        }
        match name {
            "get_default_dtype" => Some(Ok(Value::DType(DType::Float32))),
            "is_grad_enabled" => Some(Ok(Value::Bool(self.torch.grad_enabled))),
            "is_inference_mode_enabled" => Some(Ok(Value::Bool(self.torch.autograd.inference))),
            // `@torch.no_grad` without parentheses decorates the function itself.
            "no_grad" | "enable_grad" | "inference_mode"
                if matches!(pos, [Value::Function(_) | Value::ModeWrapped(..)]) =>
            {
                let manager = match name {
                    "no_grad" => Value::GradMode(false),
                    "enable_grad" => Value::GradMode(true),
                    _ => Value::InferenceMode(true),
                };
                Some(self.decorate_with_mode(manager, pos))
            }
            "no_grad" => Some(Ok(Value::GradMode(false))),
            "enable_grad" => Some(Ok(Value::GradMode(true))),
            "inference_mode" => Some(match pos.first().or(kw.first().map(|(_, v)| v)) {
                None => Ok(Value::InferenceMode(true)),
                Some(v) => self.truthy(v).map(Value::InferenceMode),
            }),
            // A function and a context manager: the mode changes at the call.
            "set_grad_enabled" => Some(match pos.first().or(kw.first().map(|(_, v)| v)) {
                Some(Value::Bool(mode)) => {
                    self.torch.grad_enabled = *mode;
                    self.torch.autograd.script_no_grad = !*mode;
                    Ok(Value::SetGradEnabled(*mode))
                }
                _ => Err(ScriptError::Type(
                    "set_grad_enabled(): argument 'mode' must be bool".into(),
                )),
            }),
            "set_default_dtype" => Some(match pos.first() {
                Some(Value::DType(DType::Float32)) => Ok(Value::None),
                Some(Value::DType(d)) if d.is_floating() => Err(ScriptError::NotImplemented(
                    format!(
                        "Stridescope keeps torch.float32 as the default dtype; set_default_dtype({}) is not supported",
                        d.torch_repr()
                    ),
                )),
                Some(Value::DType(_)) => Err(ScriptError::Type(
                    "only floating-point types are supported as the default type".into(),
                )),
                _ => Err(ScriptError::Type(
                    "set_default_dtype(): argument 'd' must be torch.dtype".into(),
                )),
            }),
            n => {
                let dtype = legacy_class_dtype(n)?;
                Some(self.legacy_constructor(n, dtype, pos, kw))
            }
        }
    }

    /// Runs a `with` block under a grad-mode context manager; the mode before the `with`
    /// comes back after it, however the block ends.
    pub(crate) fn exec_with(
        &mut self,
        context: &crate::lang::ast::Expr,
        name: Option<&str>,
        body: &[crate::lang::ast::Statement],
    ) -> R<crate::interp::python::statements::Flow> {
        let before = (self.torch.grad_enabled, self.torch.autograd.inference);
        let script = self.torch.autograd.script_no_grad;
        let manager = self.eval(context)?;
        if let Value::Device(_) = manager {
            return self.exec_with_device(&manager, name, body);
        }
        if let Value::Autocast(mode) = &manager {
            return self.exec_with_autocast(mode, name, body);
        }
        if let Some(flow) = self.exec_with_saved_hooks(&manager, name, body) {
            return flow;
        }
        if !self.enter_mode(&manager) {
            (self.torch.grad_enabled, self.torch.autograd.inference) = before;
            self.torch.autograd.script_no_grad = script;
            return Err(ScriptError::Type(format!(
                "'{}' object does not support the context manager protocol",
                manager.type_name()
            )));
        }
        if let Some(name) = name {
            self.scope.bind(name, Value::None);
        }
        self.pins.push(manager);
        let result = self.exec_block(body);
        self.pins.pop();
        (self.torch.grad_enabled, self.torch.autograd.inference) = before;
        self.torch.autograd.script_no_grad = script;
        result
    }

    /// `torch.FloatTensor(data)` is `torch.tensor(data, dtype=float32)`; with sizes
    /// (`torch.Tensor(2, 3)`, `torch.Tensor(torch.Size([2]))`) an uninitialized tensor of that
    /// shape; without arguments an empty one.
    fn legacy_constructor(
        &mut self,
        name: &str,
        dtype: DType,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> R<Value> {
        if let Some((k, _)) = kw.iter().find(|(k, _)| k != "device") {
            return Err(ScriptError::Type(format!(
                "new() received an invalid combination of arguments - got (..., {k}=...), but expected one of:"
            )));
        }
        if let [Value::Storage(id, storage_dtype)] = pos {
            return self.tensor_from_storage(dtype, *id, *storage_dtype);
        }
        let dtype_kw = vec![("dtype".to_string(), Value::DType(dtype))];
        let sizes = match pos {
            [] => Some(vec![Value::Int(0)]),
            [Value::Size(dims)] => Some(dims.iter().map(|d| Value::Int(*d)).collect()),
            items if items.iter().all(|v| matches!(v, Value::Int(_))) => Some(items.to_vec()),
            _ => None,
        };
        let result = match sizes {
            Some(sizes) => self.call_table_function("empty", &sizes, &dtype_kw),
            None => match pos {
                [data] => self.call_table_function("tensor", std::slice::from_ref(data), &dtype_kw),
                _ => {
                    return Err(ScriptError::Type(format!(
                        "{name}(): new() received an invalid combination of arguments"
                    )))
                }
            },
        };
        result.unwrap_or_else(|| Err(ScriptError::Runtime(format!("{name}: no factory"))))
    }
}
