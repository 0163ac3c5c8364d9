//! Automatic mixed precision: `torch.autocast(device_type, dtype=None, enabled=True,
//! cache_enabled=None)` (also `torch.amp.autocast`, `torch.cpu.amp.autocast`,
//! `torch.cuda.amp.autocast`) as a `with` block, a decorator and a call, and
//! `torch.is_autocast_enabled`/`torch.get_autocast_dtype`, as ATen's `autocast_mode.cpp`
//! runs them:
//!
//! - an op of the device's lists casts its floating tensor arguments (never `float64` ones)
//!   before it runs: to the autocast dtype (`lower_precision_fp`: `mm`, `linear`, the
//!   convolutions, ...), to `float32` (`fp32`: the losses, `exp`/`log` on CUDA, ...), or to
//!   the widest of them (`promote`: `cat`, `stack`, ...); on CUDA, `softmax`, `sum` and
//!   friends get `dtype=torch.float32` when their input is a lower-precision float
//!   (`fp32_set_opt_dtype`), and `binary_cross_entropy` is refused with PyTorch's message;
//! - the casts are ordinary `to(dtype)` ops (their nodes are `ToCopyBackward0`), made from
//!   the last argument to the first, as the C++ wrapper's arguments are evaluated;
//! - a `float32` leaf that requires grad and is not a view (a parameter) is cast once per
//!   outermost `autocast` block: the cast is cached until the block ends, so its bytes stay
//!   allocated until then even where nothing else holds them;
//! - inside a listed op no other op casts (the wrapper's `ExcludeDispatchKeyGuard`), while
//!   the ops an unlisted composite calls (`einsum`'s `bmm`) do.
//!
//! Meta tensors are never cast (no autocast key reaches them).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::core::tensor::{DType, ScriptError};
use crate::interp::torch::device::Device;
use crate::interp::torch::ops::convert::DEVICE_TYPES;
use crate::interp::torch::registry::OpCall;
use crate::interp::value::{TensorObject, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// A `torch.autocast(...)` object: the device type it governs and what it sets.
#[derive(Clone, Debug, PartialEq)]
pub struct AutocastMode {
    /// The device type it governs (`cpu` or `cuda`).
    pub(crate) device: Device,
    /// The lower-precision dtype (`torch.bfloat16` on the CPU, `torch.float16` on CUDA by
    /// default).
    pub(crate) dtype: DType,
    /// Whether the block turns autocast on (`enabled=False` turns it off).
    pub(crate) enabled: bool,
    /// Whether parameters' casts are cached through the block.
    pub(crate) cache_enabled: bool,
}

/// The autocast state of the process: per device type, on or off and its dtype; the
/// nesting of `autocast` blocks and the cast cache.
pub(crate) struct AutocastState {
    cpu: Option<DType>,
    cuda: Option<DType>,
    cpu_dtype: DType,
    cuda_dtype: DType,
    cache_enabled: bool,
    nesting: u32,
    /// Inside a listed op: no op casts.
    excluded: bool,
    /// The cached casts: the source (weakly: the key) and its cast.
    cache: Vec<(Weak<RefCell<TensorObject>>, DType, TensorRef)>,
}

impl Default for AutocastState {
    fn default() -> Self {
        AutocastState {
            cpu: None,
            cuda: None,
            cpu_dtype: DType::BFloat16,
            cuda_dtype: DType::Float16,
            cache_enabled: true,
            nesting: 0,
            excluded: false,
            cache: Vec::new(),
        }
    }
}

/// How an op treats its floating arguments under autocast.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Policy {
    /// Cast to the autocast dtype.
    Lower,
    /// Cast lower-precision floats to `float32`.
    Fp32,
    /// `dtype=torch.float32` when the first argument is eligible and no dtype is given.
    Fp32OptDtype,
    /// Cast to the widest floating type among the arguments.
    Promote,
    /// Refused (`binary_cross_entropy` on CUDA).
    Banned,
}

/// `AutocastCPU`'s lists (ATen's names as the table spells them).
const CPU_LOWER: &[&str] = &[
    // Not listed, but its product is a `bmm` that is: the operands arrive cast.
    "einsum",
    "conv1d",
    "conv2d",
    "conv3d",
    "bmm",
    "mm",
    "linalg_vecdot",
    "vecdot",
    "baddbmm",
    "addmm",
    "addbmm",
    "linear",
    "matmul",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "prelu",
    "scaled_dot_product_attention",
];

const CPU_FP32: &[&str] = &[
    "avg_pool3d",
    "binary_cross_entropy",
    "grid_sample",
    "polar",
    "prod",
    "quantile",
    "nanquantile",
    "stft",
    "cdist",
    "trace",
    "view_as_complex",
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "inverse",
    "lu_solve",
    "pinverse",
    "max_pool3d",
    "max_unpool2d",
    "max_unpool3d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool3d",
    "fractional_max_pool2d",
    "fractional_max_pool3d",
    "mse_loss",
    "cosine_embedding_loss",
    "nll_loss",
    "hinge_embedding_loss",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "cross_entropy",
    "l1_loss",
    "huber_loss",
    "margin_ranking_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "multi_margin_loss",
    "ctc_loss",
    "kl_div",
    "multilabel_margin_loss",
    "binary_cross_entropy_with_logits",
    "qr",
    "svd",
    "triangular_solve",
    "linalg_cond",
    "linalg_matrix_rank",
    "linalg_solve",
    "linalg_cholesky",
    "linalg_svdvals",
    "linalg_eigvals",
    "linalg_eigvalsh",
    "linalg_inv",
    "linalg_qr",
    "linalg_svd",
    "linalg_eig",
    "linalg_eigh",
    "linalg_lstsq",
];

const CPU_PROMOTE: &[&str] = &["stack", "cat", "index_copy"];

/// `AutocastCUDA`'s lists.
const CUDA_LOWER: &[&str] = &[
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "convolution",
    "prelu",
    "addmm",
    "addmv",
    "addr",
    "matmul",
    "einsum",
    "mm",
    "mv",
    "linear",
    "addbmm",
    "baddbmm",
    "bmm",
    "chain_matmul",
    "linalg_multi_dot",
    "lstm_cell",
    "gru_cell",
    "rnn_tanh_cell",
    "rnn_relu_cell",
    "scaled_dot_product_attention",
];

const CUDA_FP32: &[&str] = &[
    "acos",
    "asin",
    "cosh",
    "erfinv",
    "exp",
    "expm1",
    "log",
    "log10",
    "log2",
    "log1p",
    "reciprocal",
    "rsqrt",
    "sinh",
    "tan",
    "pow",
    "softplus",
    "layer_norm",
    "group_norm",
    "norm",
    "nuclear_norm",
    "cosine_similarity",
    "poisson_nll_loss",
    "cosine_embedding_loss",
    "nll_loss",
    "hinge_embedding_loss",
    "kl_div",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "mse_loss",
    "margin_ranking_loss",
    "multilabel_margin_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "multi_margin_loss",
    "binary_cross_entropy_with_logits",
    "dist",
    "pdist",
    "cdist",
    "renorm",
    "logsumexp",
];

const CUDA_FP32_OPT_DTYPE: &[&str] = &[
    "prod",
    "softmax",
    "log_softmax",
    "cumprod",
    "cumsum",
    "linalg_vector_norm",
    "linalg_matrix_norm",
    "sum",
];

const CUDA_PROMOTE: &[&str] = &[
    "addcdiv",
    "addcmul",
    "atan2",
    "bilinear",
    "cross",
    "dot",
    "grid_sample",
    "index_put",
    "tensordot",
    "scatter_add",
];

/// PyTorch's refusal of `binary_cross_entropy` under CUDA autocast.
const BCE_BANNED: &str = "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\nMany models use a sigmoid layer right before the binary cross entropy layer.\nIn this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\nor torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\nsafe to autocast.";

/// The policy of `op` on `device`, or `None` when it is not listed (a fall-through).
fn policy(device: Device, op: &str) -> Option<Policy> {
    let has = |list: &[&str]| list.contains(&op);
    match device {
        Device::Cpu if has(CPU_LOWER) => Some(Policy::Lower),
        Device::Cpu if has(CPU_FP32) => Some(Policy::Fp32),
        Device::Cpu if has(CPU_PROMOTE) => Some(Policy::Promote),
        Device::Cuda if op == "binary_cross_entropy" => Some(Policy::Banned),
        Device::Cuda if has(CUDA_LOWER) => Some(Policy::Lower),
        Device::Cuda if has(CUDA_FP32) => Some(Policy::Fp32),
        Device::Cuda if has(CUDA_FP32_OPT_DTYPE) => Some(Policy::Fp32OptDtype),
        Device::Cuda if has(CUDA_PROMOTE) => Some(Policy::Promote),
        _ => None,
    }
}

/// ATen's `is_eligible`: a floating dtype other than `float64`.
fn eligible(dtype: DType) -> bool {
    dtype.is_floating() && dtype != DType::Float64
}

/// Whether a tensor of `dtype` is cast to `to`.
fn needs_cast(dtype: DType, to: DType) -> bool {
    eligible(dtype) && dtype != to
}

impl Evaluator {
    /// The autocast dtype on `device` when autocast is on there and no listed op is
    /// running.
    fn autocast_dtype(&self, device: Device) -> Option<DType> {
        let state = &self.torch.autocast;
        if state.excluded {
            return None;
        }
        match device {
            Device::Cpu => state.cpu,
            Device::Cuda => state.cuda,
            Device::Meta => None,
        }
    }

    /// A listed table op's call with its arguments cast by its policy, or `None` when
    /// autocast leaves the op alone. The caller runs it with [`Self::autocast_excluded`].
    pub(crate) fn autocast_prepare(&mut self, op: &OpCall) -> Option<R<OpCall>> {
        if self.torch.autocast.excluded
            || (self.torch.autocast.cpu.is_none() && self.torch.autocast.cuda.is_none())
        {
            return None;
        }
        let device = self.op_device(op).ok()?;
        let lower = self.autocast_dtype(device)?;
        let policy = policy(device, &op.name)?;
        Some(self.autocast_excluded(|ev| ev.autocast_cast(device, lower, policy, op)))
    }

    /// Runs `f` as inside a listed op: no op casts.
    pub(crate) fn autocast_excluded<T>(&mut self, f: impl FnOnce(&mut Evaluator) -> T) -> T {
        let was = std::mem::replace(&mut self.torch.autocast.excluded, true);
        let out = f(self);
        self.torch.autocast.excluded = was;
        out
    }

    /// `a @ b` under autocast (`matmul` is listed on both devices): the operands cast, or
    /// `None` when autocast is off there.
    pub(crate) fn autocast_matmul(
        &mut self,
        a: &TensorRef,
        b: &TensorRef,
    ) -> Option<R<(Value, Value)>> {
        if self.torch.autocast.excluded {
            return None;
        }
        let device = self.device_of(&a.borrow().tensor);
        let lower = self.autocast_dtype(device)?;
        Some(self.autocast_excluded(|ev| {
            // The right operand first, as the C++ wrapper evaluates its arguments.
            let b = ev.cached_cast(device, lower, lower, b)?;
            let a = ev.cached_cast(device, lower, lower, a)?;
            Ok((a, b))
        }))
    }

    fn autocast_cast(
        &mut self,
        device: Device,
        lower: DType,
        policy: Policy,
        op: &OpCall,
    ) -> R<OpCall> {
        // The receiver of a method call is the first argument of the C++ op.
        let method_self = op.this.as_ref().filter(|this| {
            !op.args
                .values
                .first()
                .and_then(|v| v.as_ref())
                .is_some_and(|v| matches!(v, Value::Tensor(t) if Rc::ptr_eq(t, this)))
        });
        let eligible = |t: &TensorRef| eligible(t.borrow().tensor.dtype);
        let tensors = op
            .args
            .values
            .iter()
            .flatten()
            .flat_map(|v| match v {
                Value::Tensor(t) => vec![Rc::clone(t)],
                Value::List(items) | Value::Tuple(items) => {
                    items.iter().filter_map(tensor_ref).collect()
                }
                _ => Vec::new(),
            })
            .chain(method_self.cloned())
            .filter(|t| self.device_of(&t.borrow().tensor) == device && eligible(t))
            .collect::<Vec<_>>();
        let to = match policy {
            Policy::Lower => lower,
            Policy::Fp32 => DType::Float32,
            Policy::Promote => {
                if tensors
                    .iter()
                    .any(|t| t.borrow().tensor.dtype == DType::Float32)
                {
                    DType::Float32
                } else {
                    lower
                }
            }
            Policy::Fp32OptDtype => {
                let first = method_self
                    .cloned()
                    .or_else(|| op.args.values.first().and_then(|v| tensor_ref(v.as_ref()?)));
                let given = op.value("dtype").is_some_and(|d| !matches!(d, Value::None));
                let lower_input = first
                    .is_some_and(|t| eligible(&t) && t.borrow().tensor.dtype != DType::Float32);
                let mut call = op.clone_call();
                if !given && lower_input {
                    call.set_value("dtype", Value::DType(DType::Float32));
                }
                return Ok(call);
            }
            Policy::Banned => return Err(ScriptError::Runtime(BCE_BANNED.into())),
        };
        let mut call = op.clone_call();
        if !tensors
            .iter()
            .any(|t| needs_cast(t.borrow().tensor.dtype, to))
        {
            return Ok(call);
        }
        // The C++ wrapper evaluates its arguments from the last to the first.
        for slot in (0..call.args.values.len()).rev() {
            let Some(value) = call.args.values[slot].clone() else {
                continue;
            };
            let cast = self.autocast_value(device, to, lower, value)?;
            call.args.values[slot] = Some(cast);
        }
        if let Some(this) = method_self {
            let cast = self.cached_cast(device, to, lower, this)?;
            call.this = tensor_ref(&cast);
        } else if call.this.is_some() {
            call.this = call
                .args
                .values
                .first()
                .and_then(|v| tensor_ref(v.as_ref()?));
        }
        Ok(call)
    }

    /// One argument cast (a tensor, or each tensor of a list).
    fn autocast_value(
        &mut self,
        device: Device,
        to: DType,
        lower: DType,
        value: Value,
    ) -> R<Value> {
        match value {
            Value::Tensor(t) => self.cached_cast(device, to, lower, &t),
            Value::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.autocast_value(device, to, lower, item)?);
                }
                Ok(Value::List(out))
            }
            Value::Tuple(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.autocast_value(device, to, lower, item)?);
                }
                Ok(Value::Tuple(out))
            }
            other => Ok(other),
        }
    }

    /// ATen's `cached_cast`: `t.to(to)` for an eligible tensor of another dtype, cached
    /// for a `float32` leaf that requires grad and is not a view, when casting to the
    /// autocast dtype.
    fn cached_cast(&mut self, device: Device, to: DType, lower: DType, t: &TensorRef) -> R<Value> {
        let (dtype, cacheable) = {
            let object = t.borrow();
            let dtype = object.tensor.dtype;
            let leaf = object.requires_grad && object.grad_fn.is_none();
            (dtype, leaf)
        };
        if self.device_of(&t.borrow().tensor) != device || !needs_cast(dtype, to) {
            return Ok(Value::Tensor(Rc::clone(t)));
        }
        let cacheable = cacheable
            && to == lower
            && dtype == DType::Float32
            && self.torch.autocast.cache_enabled
            && !crate::interp::torch::autograd::view_base::is_view(t);
        if cacheable {
            let key = Rc::downgrade(t);
            if let Some((_, _, cast)) = self
                .torch
                .autocast
                .cache
                .iter()
                .find(|(k, d, _)| *d == to && k.ptr_eq(&key))
            {
                return Ok(Value::Tensor(Rc::clone(cast)));
            }
        }
        let cast = self.method(Value::Tensor(Rc::clone(t)), "to", vec![Value::DType(to)])?;
        if cacheable {
            if let Value::Tensor(c) = &cast {
                self.torch
                    .autocast
                    .cache
                    .push((Rc::downgrade(t), to, Rc::clone(c)));
            }
        }
        Ok(cast)
    }

    /// `torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)` and the
    /// device-specific forms (`torch.cuda.amp.autocast(enabled=True, dtype=torch.float16,
    /// cache_enabled=True)`): checks its arguments as PyTorch's `__init__` does.
    pub(crate) fn autocast_object(
        &mut self,
        fixed_device: Option<Device>,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> R<Value> {
        let mut pos = pos.iter();
        let device = match fixed_device {
            Some(d) => {
                let name = d.name();
                self.recorder.warn(format!(
                    "FutureWarning: `torch.{name}.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('{name}', args...)` instead."
                ));
                d
            }
            None => {
                let given = pos
                    .next()
                    .or_else(|| kw.iter().find(|(k, _)| k == "device_type").map(|(_, v)| v));
                match given {
                    Some(Value::Str(s)) if s == "cpu" => Device::Cpu,
                    Some(Value::Str(s)) if s == "cuda" => Device::Cuda,
                    Some(Value::Str(s)) if DEVICE_TYPES.contains(&s.as_str()) => {
                        return Err(ScriptError::NotImplemented(format!(
                            "Stridescope runs autocast on 'cpu' and 'cuda' only, not on '{s}'"
                        )))
                    }
                    Some(Value::Str(s)) => {
                        return Err(ScriptError::Runtime(format!(
                            "Expected one of {} device type at start of device string: {s}",
                            DEVICE_TYPES.join(", ")
                        )))
                    }
                    Some(other) => {
                        return Err(ScriptError::Value(format!(
                            "Expected `device_type` of type `str`, got: `<class '{}'>`",
                            other.type_name()
                        )))
                    }
                    None => return Err(ScriptError::Type(
                        "autocast.__init__() missing 1 required positional argument: 'device_type'"
                            .into(),
                    )),
                }
            }
        };
        // The device forms take (enabled, dtype, cache_enabled); torch.autocast takes
        // (device_type, dtype, enabled, cache_enabled).
        let names: &[&str] = if fixed_device.is_some() {
            &["enabled", "dtype", "cache_enabled"]
        } else {
            &["dtype", "enabled", "cache_enabled"]
        };
        let get = |name: &str, i: usize| -> Option<Value> {
            kw.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .or_else(|| {
                    (i < names.len())
                        .then(|| pos.clone().nth(i).cloned())
                        .flatten()
                })
        };
        let index = |n: &str| names.iter().position(|x| *x == n).unwrap_or(0);
        let dtype = get("dtype", index("dtype"));
        let enabled = get("enabled", index("enabled"));
        let cache = get("cache_enabled", index("cache_enabled"));
        let default_dtype = match device {
            Device::Cuda => self.torch.autocast.cuda_dtype,
            _ => self.torch.autocast.cpu_dtype,
        };
        let dtype = match dtype {
            None | Some(Value::None) => default_dtype,
            Some(Value::DType(d)) => d,
            Some(other) => {
                return Err(ScriptError::Type(format!(
                    "autocast(): argument 'dtype' must be torch.dtype, not {}",
                    other.type_name()
                )))
            }
        };
        let mut enabled = match enabled {
            None => true,
            Some(v) => self.truthy(&v)?,
        };
        let cache_enabled = match cache {
            None | Some(Value::None) => true,
            Some(v) => self.truthy(&v)?,
        };
        if device == Device::Cpu && !matches!(dtype, DType::BFloat16 | DType::Float16) && enabled {
            self.recorder.warn(
                "UserWarning: In CPU autocast, but the target dtype is not supported. Disabling autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.".into(),
            );
            enabled = false;
        }
        if device == Device::Cuda && enabled && !self.torch.device.cuda {
            self.recorder.warn(
                "UserWarning: CUDA is not available or torch_xla is imported. Disabling autocast."
                    .into(),
            );
            enabled = false;
        }
        Ok(Value::Autocast(Box::new(AutocastMode {
            device,
            dtype,
            enabled,
            cache_enabled,
        })))
    }

    /// Enters an autocast block: what it replaces comes back from [`Self::exit_autocast`].
    pub(crate) fn enter_autocast(&mut self, mode: &AutocastMode) -> (Option<DType>, bool) {
        let state = &mut self.torch.autocast;
        let slot = match mode.device {
            Device::Cuda => &mut state.cuda,
            _ => &mut state.cpu,
        };
        let before = (*slot, state.cache_enabled);
        *slot = mode.enabled.then_some(mode.dtype);
        match mode.device {
            Device::Cuda => state.cuda_dtype = mode.dtype,
            _ => state.cpu_dtype = mode.dtype,
        }
        state.cache_enabled = mode.cache_enabled;
        state.nesting += 1;
        before
    }

    /// Leaves an autocast block: the state before it comes back, and the cache is cleared
    /// when the outermost block ends.
    pub(crate) fn exit_autocast(&mut self, mode: &AutocastMode, before: (Option<DType>, bool)) {
        let state = &mut self.torch.autocast;
        state.nesting = state.nesting.saturating_sub(1);
        match mode.device {
            Device::Cuda => state.cuda = before.0,
            _ => state.cpu = before.0,
        }
        state.cache_enabled = before.1;
        if state.nesting == 0 {
            state.cache.clear();
        }
    }

    /// Runs a `with` block under an autocast object.
    pub(crate) fn exec_with_autocast(
        &mut self,
        mode: &AutocastMode,
        name: Option<&str>,
        body: &[crate::lang::ast::Statement],
    ) -> R<crate::interp::python::statements::Flow> {
        if let Some(name) = name {
            self.scope
                .bind(name, Value::Autocast(Box::new(mode.clone())));
        }
        let before = self.enter_autocast(mode);
        let result = self.exec_block(body);
        self.exit_autocast(mode, before);
        result
    }

    /// Calls `function` under an autocast object (`@torch.autocast(...)`).
    pub(crate) fn call_under_autocast(
        &mut self,
        mode: &AutocastMode,
        function: &Value,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let before = self.enter_autocast(mode);
        let result = self.call(function.clone(), pos, kw);
        self.exit_autocast(mode, before);
        result
    }

    /// `torch.is_autocast_enabled(device_type=None)` (no argument: CUDA's),
    /// `torch.get_autocast_dtype(device_type)` and the per-device getters.
    pub(crate) fn autocast_query(
        &mut self,
        name: &str,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> Option<R<Value>> {
        let device = || {
            match pos.first().or(kw.first().map(|(_, v)| v)) {
            Some(Value::Str(s)) if s == "cpu" => Ok(Device::Cpu),
            Some(Value::Str(s)) if s == "cuda" => Ok(Device::Cuda),
            None => Ok(Device::Cuda),
            Some(Value::Str(s)) => Err(ScriptError::Runtime(format!(
                "unknown device type for autocast in get_autocast_dispatch_key_from_device_type: {s}"
            ))),
            Some(other) => Err(ScriptError::Type(format!(
                "is_autocast_enabled(): argument 'device_type' must be str, not {}",
                other.type_name()
            ))),
        }
        };
        let state = &self.torch.autocast;
        Some(match name {
            "is_autocast_enabled" => device().map(|d| {
                Value::Bool(match d {
                    Device::Cpu => state.cpu.is_some(),
                    _ => state.cuda.is_some(),
                })
            }),
            "is_autocast_cpu_enabled" => Ok(Value::Bool(state.cpu.is_some())),
            "get_autocast_dtype" => device().map(|d| {
                Value::DType(match d {
                    Device::Cpu => state.cpu_dtype,
                    _ => state.cuda_dtype,
                })
            }),
            "get_autocast_cpu_dtype" => Ok(Value::DType(state.cpu_dtype)),
            "get_autocast_gpu_dtype" => Ok(Value::DType(state.cuda_dtype)),
            "is_autocast_cache_enabled" => Ok(Value::Bool(state.cache_enabled)),
            _ => return None,
        })
    }
}

/// The tensor a value is, shared.
fn tensor_ref(v: &Value) -> Option<TensorRef> {
    match v {
        Value::Tensor(t) => Some(Rc::clone(t)),
        _ => None,
    }
}

/// The names `torch.<name>` this module answers.
pub(crate) const TORCH_NAMES: &[&str] = &[
    "autocast",
    "is_autocast_enabled",
    "is_autocast_cpu_enabled",
    "get_autocast_dtype",
    "get_autocast_cpu_dtype",
    "get_autocast_gpu_dtype",
    "is_autocast_cache_enabled",
];

/// `torch.amp`, `torch.cpu.amp`, `torch.cuda.amp`: the device an `autocast` of that module
/// governs (`None`: `torch.amp.autocast` takes it as its first argument).
pub(crate) fn amp_module_device(module: &str) -> Option<Option<Device>> {
    match module {
        "torch.amp" | "torch.amp.autocast_mode" => Some(None),
        "torch.cpu.amp" => Some(Some(Device::Cpu)),
        "torch.cuda.amp" => Some(Some(Device::Cuda)),
        _ => None,
    }
}
