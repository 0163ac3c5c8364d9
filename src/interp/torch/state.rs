//! PyTorch's process state as a script changes it: the grad mode, the default generator and
//! the module switches. It belongs to the torch layer, apart from Python's names
//! ([`crate::interp::runtime::scope`]) and from memory.

use crate::core::tensor::random::CpuGenerator;
use crate::interp::value::Value;

/// What `torch` remembers between statements.
pub(crate) struct TorchState {
    /// Whether autograd records now (`False` inside `with torch.no_grad():`).
    pub(crate) grad_enabled: bool,
    /// Module switches the script set (`torch.backends.cudnn.deterministic = True`).
    pub(crate) module_settings: Vec<(String, Value)>,
    /// The default CPU generator (`torch.manual_seed`, `rand`, `randn`, ...).
    pub(crate) generator: CpuGenerator,
    /// The built-in `torch.nn` classes made so far, one object each (see
    /// [`crate::interp::torch::nn::module`]).
    pub(crate) nn_classes: Vec<(&'static str, std::rc::Rc<crate::interp::value::ClassObject>)>,
    /// Autograd's hooks, retained gradients, node order and inference mode.
    pub(crate) autograd: crate::interp::torch::autograd::hooks::AutogradState,
    /// The device of the op running now and the default device (`with torch.device(..)`).
    pub(crate) device: crate::interp::torch::device::DeviceState,
    /// The module hooks' handles and the module calls waiting for their backward hooks.
    pub(crate) module_hooks: crate::interp::torch::nn::module::hooks::HookRegistry,
    /// The files `torch.save` wrote (see [`crate::interp::torch::serialization`]).
    pub(crate) files: crate::interp::torch::serialization::Files,
    /// Autocast's per-device modes and its cast cache (see [`crate::interp::torch::autocast`]).
    pub(crate) autocast: crate::interp::torch::autocast::AutocastState,
}

impl TorchState {
    /// A fresh process: grad mode on, no switch set, the generator at its default seed.
    pub(crate) fn new() -> TorchState {
        TorchState {
            grad_enabled: true,
            module_settings: Vec::new(),
            generator: CpuGenerator::new(CpuGenerator::DEFAULT_SEED),
            nn_classes: Vec::new(),
            autograd: Default::default(),
            device: Default::default(),
            module_hooks: Default::default(),
            files: Default::default(),
            autocast: Default::default(),
        }
    }
}
