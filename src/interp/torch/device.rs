//! PyTorch's devices as Stridescope has them: the CPU, the meta device and, with the
//! evaluation option "as on a CUDA device" ([`Evaluator::set_cuda_device`]), a simulated CUDA
//! device. A meta tensor has a shape, strides, a dtype and a storage of so many bytes, but no
//! values: every op runs on it as on a CPU tensor (shapes, strides, promotion, errors) and the
//! engine skips the work (`engines::meta`). A CUDA tensor's values are computed by the CPU
//! engine (the same numbers); only its device, the errors of mixing devices and the caching
//! allocator's counters (`cuda_ops.rs`) differ. Without the option `cuda` names no device, as
//! in a PyTorch without a visible GPU.
//!
//! Which device an op runs on is decided where ops are dispatched (the op table, the Python
//! operators, `backward()`): from its `device=` argument, else from its tensors (mixing
//! devices gives PyTorch's error), else from the default device (`with
//! torch.device("meta"):`). While an op on the meta device runs, every storage it allocates
//! is a meta storage and the per-op work limit does not apply.

use std::cell::Cell;
use std::collections::BTreeSet;

use crate::core::tensor::{ScriptError, StorageId, Tensor};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// PyTorch's message for reading the values of a meta tensor into a CPU one.
pub(crate) const COPY_OUT_OF_META: &str = "Cannot copy out of meta tensor; no data!";

/// PyTorch's message for `.item()` (and `bool`, `int`, `float`) of a meta tensor.
pub(crate) const ITEM_OF_META: &str = "Tensor.item() cannot be called on meta tensors";

/// PyTorch's message for `nonzero` (and boolean-mask indexing) of a meta tensor.
pub(crate) const NONZERO_OF_META: &str = "The register_meta function for torch.nonzero() raises unimplemented by default, as a correct data-independent implementation does not exist. This implementation returns a fake value, assuming all elements of the tensor are non-zero. To enable this registration, please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.";

/// `torch.set_default_device(device)` and `torch.get_default_device()`.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["set_default_device"],
        schemas: &["Any? device"],
        forms: Forms::Function,
        rule: set_default_device,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["get_default_device"],
        schemas: &[""],
        forms: Forms::Function,
        rule: get_default_device,
        ..OpDef::PLAIN
    },
];

/// The device types PyTorch's device strings may start with, in its message's order.
const DEVICE_TYPES: &str = "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone";

/// `torch.set_default_device(device)`: the device factories use outside any `with
/// torch.device(...):` block (`None`: the CPU again). A CUDA device fails as on a machine
/// without a GPU.
fn set_default_device(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let device = match call.value("device") {
        None | Some(Value::None) => None,
        Some(v @ (Value::Str(_) | Value::Device(_))) => {
            let (Value::Str(text) | Value::Device(text)) = v else {
                return Ok(Value::None);
            };
            let kind = text.split(':').next().unwrap_or("");
            match Device::of_value(v) {
                Some(d) => Some(d),
                None if DEVICE_TYPES.split(", ").any(|t| t == kind) => {
                    return Err(ScriptError::Runtime(if kind == "cuda" {
                        "No CUDA GPUs are available".to_string()
                    } else {
                        format!("Stridescope has no '{kind}' device (only cpu and meta)")
                    }))
                }
                None => {
                    return Err(ScriptError::Runtime(format!(
                    "Expected one of {DEVICE_TYPES} device type at start of device string: {text}"
                )))
                }
            }
        }
        Some(Value::Int(_)) => {
            return Err(ScriptError::Runtime("No CUDA GPUs are available".into()))
        }
        Some(other) => {
            return Err(ScriptError::Type(format!(
                "set_default_device(): argument 'device' must be torch.device, not {}",
                other.type_name()
            )))
        }
    };
    ev.torch.device.global = device.filter(|d| *d != Device::Cpu);
    Ok(Value::None)
}

/// `torch.get_default_device()`: the innermost `with torch.device(...):` block's device,
/// else the one `set_default_device` set, else the CPU.
fn get_default_device(ev: &mut Evaluator, _call: &OpCall) -> R<Value> {
    Ok(Value::Device(
        ev.torch.device.default_device().name().to_string(),
    ))
}

thread_local! {
    /// Whether the evaluator running on this thread runs as on a CUDA device (so that
    /// [`Device::of_value`], which sees no evaluator, knows whether `cuda` names a device).
    static CUDA_VISIBLE: Cell<bool> = const { Cell::new(false) };
}

/// Tells [`Device::of_value`] whether the evaluator about to run has the simulated CUDA
/// device.
pub(crate) fn activate_cuda(visible: bool) {
    CUDA_VISIBLE.with(|c| c.set(visible));
}

/// A device a tensor can be on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Device {
    Cpu,
    Meta,
    /// The simulated CUDA device `cuda:0` (only with the option "as on a CUDA device").
    Cuda,
}

impl Device {
    /// The device's type as PyTorch names it (`cpu`, `meta`, `cuda`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::Meta => "meta",
            Device::Cuda => "cuda",
        }
    }

    /// The device as `str(tensor.device)` prints it (`cpu`, `meta`, `cuda:0`).
    pub(crate) fn text(self) -> &'static str {
        match self {
            Device::Cuda => "cuda:0",
            other => other.name(),
        }
    }

    /// The device a `device=` value names (`"meta"`, `"meta:0"`, `torch.device("cpu")`, and
    /// `"cuda"`/`"cuda:0"` when the simulated CUDA device is on); `None` for any other value
    /// (the op's own checks refuse those).
    pub(crate) fn of_value(v: &Value) -> Option<Device> {
        let (Value::Str(text) | Value::Device(text)) = v else {
            return None;
        };
        match text.split_once(':').unwrap_or((text, "")) {
            ("cpu", _) => Some(Device::Cpu),
            ("meta", _) => Some(Device::Meta),
            ("cuda", "" | "0") if CUDA_VISIBLE.with(|c| c.get()) => Some(Device::Cuda),
            _ => None,
        }
    }
}

/// What the evaluator knows of devices between and during ops.
#[derive(Clone, Debug, Default)]
pub(crate) struct DeviceState {
    /// An op on the meta device is running: its allocations are meta storages and the
    /// per-op work limit does not refuse it.
    pub(crate) meta_op: bool,
    /// The default devices set by `with torch.device(...):` blocks, innermost last.
    pub(crate) defaults: Vec<Device>,
    /// How many ops run now, one inside another: an op that another op runs checks no
    /// devices (its caller did) and runs on the meta device when any tensor of it is meta.
    pub(crate) depth: usize,
    /// The process-wide default device `torch.set_default_device(d)` set (`None`: the CPU),
    /// under every `with torch.device(...):` block.
    pub(crate) global: Option<Device>,
    /// The evaluation option "as on a CUDA device": `cuda` names the simulated device.
    pub(crate) cuda: bool,
    /// An op on the simulated CUDA device is running: its allocations are CUDA storages.
    pub(crate) cuda_op: bool,
    /// The storages on the simulated CUDA device (freed ones are dropped when counted).
    pub(crate) cuda_storages: BTreeSet<StorageId>,
    /// The caching allocator's peak of allocated bytes since the start or the last
    /// `torch.cuda.reset_peak_memory_stats()`.
    pub(crate) cuda_peak: u64,
}

impl DeviceState {
    /// The device factories use when given no `device=` (the CPU outside any block).
    pub(crate) fn default_device(&self) -> Device {
        self.defaults
            .last()
            .copied()
            .or(self.global)
            .unwrap_or(Device::Cpu)
    }
}

/// The tensors among `values` (inside lists and tuples too), in order.
fn tensors_in<'a>(values: impl IntoIterator<Item = &'a Value>, out: &mut Vec<TensorRef>) {
    for v in values {
        match v {
            Value::Tensor(t) => out.push(std::rc::Rc::clone(t)),
            Value::List(items) | Value::Tuple(items) => tensors_in(items.iter(), out),
            _ => {}
        }
    }
}

impl Evaluator {
    /// The device tensor `t` is on.
    pub(crate) fn device_of(&self, t: &Tensor) -> Device {
        if self.memory.is_meta(t.storage) {
            Device::Meta
        } else if self.torch.device.cuda_storages.contains(&t.storage) {
            Device::Cuda
        } else {
            Device::Cpu
        }
    }

    /// The device of the op running now (the CPU between ops).
    pub(crate) fn device_of_op(&self) -> Device {
        if self.torch.device.meta_op {
            Device::Meta
        } else if self.torch.device.cuda_op {
            Device::Cuda
        } else {
            Device::Cpu
        }
    }

    /// Whether `t` is on the simulated CUDA device.
    pub(crate) fn is_cuda(&self, t: &Tensor) -> bool {
        self.device_of(t) == Device::Cuda
    }

    /// Turns the evaluation option "as on a CUDA device" on or off (before a run): with it,
    /// `torch.cuda.is_available()` is true, `cuda` is a device whose tensors the CPU engine
    /// computes, and `torch.cuda.memory_allocated()` counts them by the caching allocator's
    /// rule. Off (the default), the script runs as on a machine without a GPU.
    pub fn set_cuda_device(&mut self, on: bool) {
        self.torch.device.cuda = on;
        activate_cuda(on);
    }

    /// Whether the evaluation option "as on a CUDA device" is on.
    pub fn cuda_device(&self) -> bool {
        self.torch.device.cuda
    }

    /// Whether `t` is a meta tensor.
    pub(crate) fn is_meta(&self, t: &Tensor) -> bool {
        self.memory.is_meta(t.storage)
    }

    /// The device of an op on `values` that takes no `device=`: the device of its tensors,
    /// where a 0-d CPU tensor goes with any device (as a Python number would); PyTorch's
    /// error when two devices meet; `None` when it has no tensor.
    pub(crate) fn common_device(&self, values: &[&Value]) -> R<Option<Device>> {
        let mut tensors = Vec::new();
        tensors_in(values.iter().copied(), &mut tensors);
        let devices: Vec<(Device, bool)> = tensors
            .iter()
            .map(|t| {
                let t = &t.borrow().tensor;
                (self.device_of(t), t.ndim() == 0)
            })
            .collect();
        let Some(expected) = devices
            .iter()
            .find(|(d, scalar)| !(*d == Device::Cpu && *scalar))
            .or(devices.first())
            .map(|(d, _)| *d)
        else {
            return Ok(None);
        };
        let any = |device: Device| devices.iter().any(|(d, _)| *d == device);
        if self.torch.device.depth > 0 {
            return Ok(Some(if any(Device::Meta) {
                Device::Meta
            } else if any(Device::Cuda) {
                Device::Cuda
            } else {
                expected
            }));
        }
        for (d, scalar) in &devices {
            if *d != expected && !(*d == Device::Cpu && *scalar) {
                if any(Device::Cuda) && !any(Device::Meta) {
                    // TensorIterator's check: the first device that is not the CPU is the
                    // common one.
                    return Err(ScriptError::Runtime(format!(
                        "Expected all tensors to be on the same device, but found at least two devices, {} and {}!",
                        Device::Cuda.text(),
                        Device::Cpu.text()
                    )));
                }
                return Err(ScriptError::Runtime(format!(
                    "Tensor on device {} is not on the expected device {}!",
                    d.name(),
                    expected.name()
                )));
            }
        }
        Ok(Some(expected))
    }

    /// The device a table op runs on (see the module's docs), with the errors PyTorch gives
    /// before running it: moving a meta tensor's values to the CPU, mixing devices.
    pub(crate) fn op_device(&self, op: &OpCall) -> R<Device> {
        let explicit = op.value("device").and_then(Device::of_value);
        let this = op.this.as_ref().map(|t| self.device_of(&t.borrow().tensor));
        let given: Vec<&Value> = op.args.values.iter().flatten().collect();
        match op.name.as_str() {
            // `to(device)`, `to(other)`: the target's device, whatever `self`'s is.
            "to" => {
                let target = explicit
                    .or_else(|| match op.value("tensor") {
                        Some(Value::Tensor(o)) => Some(self.device_of(&o.borrow().tensor)),
                        _ => None,
                    })
                    .or(this)
                    .unwrap_or(Device::Cpu);
                return self.move_to(this, target);
            }
            "cpu" => return self.move_to(this, Device::Cpu),
            "cuda" if self.torch.device.cuda => return self.move_to(this, Device::Cuda),
            // `dst.copy_(src)`: any source into a meta tensor; a meta source into a CPU one
            // has no values to give.
            "copy_" => {
                let src = match op.value("src") {
                    Some(Value::Tensor(s)) => Some(self.device_of(&s.borrow().tensor)),
                    _ => None,
                };
                let dst = this.unwrap_or(Device::Cpu);
                if dst == Device::Cpu && src == Some(Device::Meta) {
                    return Err(ScriptError::NotImplemented(COPY_OUT_OF_META.into()));
                }
                return Ok(dst);
            }
            "matmul" | "mm" | "linear" | "bmm" | "addmm" if self.torch.device.cuda => {
                self.check_cuda_matmul(op)?;
            }
            _ => {}
        }
        match op.name.as_str() {
            "matmul" | "mm" | "linear" | "bmm" => {
                let first = |name: &str| match op.value(name) {
                    Some(Value::Tensor(t)) => Some(t.borrow().tensor.clone()),
                    _ => None,
                };
                let a = op.this.as_ref().map(|t| t.borrow().tensor.clone());
                let b = first("other")
                    .or_else(|| first("mat2"))
                    .or_else(|| first("weight"));
                if let (Some(a), Some(b)) = (a, b) {
                    if let Some(device) = self.matmul_device(&op.name, &a, &b) {
                        return Ok(device);
                    }
                }
            }
            // Index tensors may be on the CPU whatever the indexed tensor's device is.
            name if name.starts_with("index") => {
                if let Some(device) = this {
                    return Ok(device);
                }
            }
            _ => {}
        }
        if let Some(device) = explicit {
            return Ok(device);
        }
        Ok(self.common_device(&given)?.unwrap_or_else(|| {
            // A factory that a CUDA op runs makes its tensor on that device.
            if self.torch.device.depth > 0 && self.torch.device.cuda_op {
                Device::Cuda
            } else {
                self.torch.device.default_device()
            }
        }))
    }

    /// The device check ATen's generated CUDA wrappers make for the matrix products (with
    /// the simulated CUDA device): the first tensor argument's device is the common one,
    /// and the first argument elsewhere is named in PyTorch's message.
    fn check_cuda_matmul(&self, op: &OpCall) -> R<()> {
        if self.torch.device.depth > 0 {
            return Ok(());
        }
        let tensor = |name: &str| match op.value(name) {
            Some(Value::Tensor(t)) => Some(t.borrow().tensor.clone()),
            _ => None,
        };
        let this = op.this.as_ref().map(|t| t.borrow().tensor.clone());
        // Which kernel runs, and its arguments in order.
        let (method, args): (&str, Vec<(&str, Option<Tensor>)>) = match op.name.as_str() {
            "linear" => {
                let input = this.or_else(|| tensor("input"));
                let bias = tensor("bias");
                match (&input, bias) {
                    (Some(i), Some(b)) if i.ndim() == 2 => (
                        "addmm",
                        vec![
                            ("self", Some(b)),
                            ("mat1", input.clone()),
                            ("mat2", tensor("weight")),
                        ],
                    ),
                    _ => ("mm", vec![("self", input), ("mat2", tensor("weight"))]),
                }
            }
            "addmm" => (
                "addmm",
                vec![
                    ("self", tensor("self").or(this)),
                    ("mat1", tensor("mat1")),
                    ("mat2", tensor("mat2")),
                ],
            ),
            "bmm" => ("bmm", vec![("self", this), ("mat2", tensor("mat2"))]),
            _ => (
                "mm",
                vec![
                    ("self", this),
                    ("mat2", tensor("mat2").or_else(|| tensor("other"))),
                ],
            ),
        };
        let args: Vec<(&str, Tensor)> = args
            .into_iter()
            .filter_map(|(n, t)| t.map(|t| (n, t)))
            .collect();
        // A vector operand takes other kernels (mv, dot), whose checks differ: left to
        // the common rule.
        if op.name != "linear" && args.iter().any(|(_, t)| t.ndim() < 2) {
            return Ok(());
        }
        self.check_cuda_wrapper(method, &args)
    }

    /// `a @ b` with the simulated CUDA device: the check of `mm`'s CUDA wrapper (see
    /// [`Evaluator::check_cuda_wrapper`]) for two matrices.
    pub(crate) fn check_cuda_mm(&self, a: &Tensor, b: &Tensor) -> R<()> {
        if !self.torch.device.cuda || self.torch.device.depth > 0 || a.ndim() < 2 || b.ndim() < 2 {
            return Ok(());
        }
        let method = if a.ndim() == 3 && b.ndim() == 3 {
            "bmm"
        } else {
            "mm"
        };
        self.check_cuda_wrapper(method, &[("self", a.clone()), ("mat2", b.clone())])
    }

    /// The device check of ATen's generated CUDA wrapper `wrapper_CUDA_<method>` on its
    /// tensor arguments in order: the first one's device is the common one.
    fn check_cuda_wrapper(&self, method: &str, args: &[(&str, Tensor)]) -> R<()> {
        let devices: Vec<Device> = args.iter().map(|(_, t)| self.device_of(t)).collect();
        if !devices.contains(&Device::Cuda) || devices.contains(&Device::Meta) {
            return Ok(());
        }
        let common = devices[0];
        for ((name, _), device) in args.iter().zip(&devices).skip(1) {
            if *device != common {
                return Err(ScriptError::Runtime(format!(
                    "Expected all tensors to be on the same device, but got {name} is on {}, different from other tensors on {} (when checking argument in method wrapper_CUDA_{method})",
                    device.text(),
                    common.text()
                )));
            }
        }
        Ok(())
    }

    /// The device of a move from `from` to `to`: the values of a meta tensor cannot go to
    /// the CPU.
    fn move_to(&self, from: Option<Device>, to: Device) -> R<Device> {
        if from == Some(Device::Meta) && to == Device::Cpu {
            return Err(ScriptError::NotImplemented(COPY_OUT_OF_META.into()));
        }
        Ok(to)
    }

    /// The device of a matrix product of matrices `a` and `b` on two devices, where
    /// PyTorch gives no error: `mm`/`matmul`/`linear` run on `a`'s device (on the CPU they
    /// write uninitialized memory; here zeros), `bmm` on the meta device. `None` when the
    /// common rule applies (one device, or a vector, whose product checks devices).
    pub(crate) fn matmul_device(&self, name: &str, a: &Tensor, b: &Tensor) -> Option<Device> {
        let (da, db) = (self.device_of(a), self.device_of(b));
        if da == db || a.ndim() < 2 || b.ndim() < 2 {
            return None;
        }
        Some(if name == "bmm" { Device::Meta } else { da })
    }

    /// For an entry point outside the op table (a Python operator, `backward()`) on
    /// `values`: `Some(Device::Meta)` when its tensors are meta tensors and no meta op runs
    /// yet, `Some(Device::Cuda)` likewise for CUDA tensors (the caller then runs again
    /// inside [`Evaluator::on_device`]); PyTorch's error when devices are mixed.
    pub(crate) fn device_to_enter(&self, values: &[&Value]) -> R<Option<Device>> {
        let device = self.common_device(values)?;
        Ok(device.filter(|d| {
            (*d == Device::Meta && !self.torch.device.meta_op)
                || (*d == Device::Cuda && !self.torch.device.cuda_op && !self.torch.device.meta_op)
        }))
    }

    /// `with torch.device("meta"):`: the factories of the block (and what layers create in
    /// it) default to that device; the default before comes back however the block ends.
    pub(crate) fn exec_with_device(
        &mut self,
        manager: &Value,
        name: Option<&str>,
        body: &[crate::lang::ast::Statement],
    ) -> R<crate::interp::python::statements::Flow> {
        let device = Device::of_value(manager).unwrap_or(Device::Cpu);
        self.torch.device.defaults.push(device);
        if let Some(name) = name {
            self.scope.bind(name, manager.clone());
        }
        let result = self.exec_block(body);
        self.torch.device.defaults.pop();
        result
    }

    /// Runs `f` as an op on `device`: on the meta device its allocations are meta storages
    /// and its kernels do nothing.
    pub(crate) fn on_device<T>(
        &mut self,
        device: Device,
        f: impl FnOnce(&mut Evaluator) -> R<T>,
    ) -> R<T> {
        let before = (self.torch.device.meta_op, self.torch.device.cuda_op);
        self.torch.device.meta_op = device == Device::Meta;
        self.torch.device.cuda_op = device == Device::Cuda;
        self.torch.device.depth += 1;
        let result = f(self);
        self.torch.device.depth -= 1;
        (self.torch.device.meta_op, self.torch.device.cuda_op) = before;
        result
    }

    /// A copy of `t` on `device` (`t.to(device)`): `t` itself when it is there already; a
    /// meta tensor's values cannot go to the CPU. For callers outside the op table
    /// (`Module.to("meta")`).
    pub(crate) fn move_to_device(&mut self, t: &TensorRef, device: Device) -> R<Value> {
        let tensor = t.borrow().tensor.clone();
        let from = self.device_of(&tensor);
        if from == device {
            return Ok(Value::Tensor(std::rc::Rc::clone(t)));
        }
        self.move_to(Some(from), device)?;
        self.on_device(device, |ev| {
            let out = ev.convert(
                &tensor,
                tensor.dtype,
                crate::core::tensor::MemoryFormat::Preserve,
                "to",
            )?;
            Ok(Value::tensor(out, "to", Some(tensor.storage)))
        })
    }

    /// The error of reading one value out of a meta tensor (`item()`, `bool(t)`), after
    /// PyTorch's check of the number of elements.
    pub(crate) fn check_item_not_meta(&self, t: &Tensor) -> R<()> {
        if self.is_meta(t) && t.numel() == 1 {
            return Err(ScriptError::Runtime(ITEM_OF_META.into()));
        }
        Ok(())
    }

    /// `tensor(..., device='meta', size=(3, 4), dtype=torch.int64, requires_grad=True)`:
    /// how PyTorch prints a meta tensor (it has no values to print).
    pub(crate) fn meta_repr(&self, t: &TensorRef) -> String {
        let object = t.borrow();
        let tensor = &object.tensor;
        let dims: Vec<String> = tensor.shape().iter().map(|d| d.to_string()).collect();
        let size = match dims.len() {
            1 => format!("({},)", dims[0]),
            _ => format!("({})", dims.join(", ")),
        };
        let mut text = format!("tensor(..., device='meta', size={size}");
        if tensor.dtype != crate::core::tensor::DType::Float32 {
            text.push_str(&format!(", dtype={}", tensor.dtype.torch_repr()));
        }
        match (&object.grad_fn, object.requires_grad) {
            (Some(node), _) => text.push_str(&format!(", grad_fn=<{}>", node.name())),
            (None, true) => text.push_str(", requires_grad=True"),
            (None, false) => {}
        }
        text.push(')');
        text
    }
}
