//! What a script calls of autograd: `tensor.backward(...)`, `torch.autograd.grad(...)` and
//! `torch.autograd.backward(...)`, `t.register_hook(fn)` (and its handle's `remove()`),
//! `t.retain_grad()`, and the grad-mode managers used as decorators (`@torch.no_grad()`).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::autograd::backward::Run;
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// Binds `pos` and `kw` to `params` (by position, then by name) for `func`.
fn bind(
    func: &str,
    params: &[&str],
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Vec<(String, Value)>> {
    if pos.len() > params.len() {
        return Err(ScriptError::Type(format!(
            "{func}() takes from 1 to {} positional arguments but {} were given",
            params.len(),
            pos.len()
        )));
    }
    let mut args: Vec<(String, Value)> = params
        .iter()
        .zip(pos)
        .map(|(n, v)| (n.to_string(), v))
        .collect();
    for (k, v) in kw {
        if !params.contains(&k.as_str()) {
            return Err(ScriptError::Type(format!(
                "{func}() got an unexpected keyword argument '{k}'"
            )));
        }
        args.push((k, v));
    }
    Ok(args)
}

fn get(args: &[(String, Value)], name: &str) -> Option<Value> {
    args.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
        .filter(|v| !matches!(v, Value::None))
}

fn flag(args: &[(String, Value)], name: &str) -> bool {
    matches!(get(args, name), Some(Value::Bool(true)))
}

/// A tensor or a sequence of tensors, as a list (`outputs`, `inputs`).
fn tensor_list(v: &Value, what: &str) -> R<Vec<TensorRef>> {
    match v {
        Value::Tensor(t) => Ok(vec![Rc::clone(t)]),
        Value::Tuple(items) | Value::List(items) => items
            .iter()
            .map(|i| match i {
                Value::Tensor(t) => Ok(Rc::clone(t)),
                other => Err(ScriptError::Type(format!(
                    "{what}: expected a Tensor, got {}",
                    other.type_name()
                ))),
            })
            .collect(),
        other => Err(ScriptError::Type(format!(
            "'{}' object is not iterable",
            other.type_name()
        ))),
    }
}

/// The gradients given for each output (`None` for one not given).
fn gradient_list(v: Option<Value>, n: usize) -> Vec<Option<Value>> {
    match v {
        None => vec![None; n],
        Some(Value::Tuple(items)) | Some(Value::List(items)) => {
            let mut out: Vec<Option<Value>> = items
                .into_iter()
                .map(|v| (!matches!(v, Value::None)).then_some(v))
                .collect();
            out.resize(n, None);
            out
        }
        Some(one) => {
            let mut out = vec![Some(one)];
            out.resize(n, None);
            out
        }
    }
}

impl Evaluator {
    /// `tensor.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)`.
    pub(crate) fn backward_call(
        &mut self,
        t: &TensorRef,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let mut pos = pos;
        pos.insert(0, Value::Tensor(Rc::clone(t)));
        self.autograd_backward(pos, kw)
    }

    /// `torch.autograd.backward(tensors, grad_tensors=None, retain_graph=None,
    /// create_graph=False, inputs=None)` (and `tensor.backward`).
    pub(crate) fn autograd_backward(
        &mut self,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let given: Vec<&Value> = pos.iter().chain(kw.iter().map(|(_, v)| v)).collect();
        if let Some(device) = self.device_to_enter(&given)? {
            return self.on_device(device, |ev| ev.autograd_backward(pos, kw));
        }
        let kw = kw
            .into_iter()
            .map(|(k, v)| match k.as_str() {
                "gradient" => ("grad_tensors".to_string(), v),
                _ => (k, v),
            })
            .collect();
        const PARAMS: [&str; 5] = [
            "tensors",
            "grad_tensors",
            "retain_graph",
            "create_graph",
            "inputs",
        ];
        let args = bind("backward", &PARAMS, pos, kw)?;
        let inputs = match get(&args, "inputs") {
            Some(v) => {
                let inputs = tensor_list(&v, "backward")?;
                if inputs.is_empty() {
                    return Err(ScriptError::Runtime(
                        "`inputs` argument to `backward()` cannot be empty.".into(),
                    ));
                }
                Some(inputs)
            }
            None => None,
        };
        let Some(tensors) = get(&args, "tensors") else {
            return Err(ScriptError::Type(
                "backward() missing required argument 'tensors'".into(),
            ));
        };
        let roots = tensor_list(&tensors, "backward")?;
        let grads = gradient_list(get(&args, "grad_tensors"), roots.len());
        let create_graph = flag(&args, "create_graph");
        if create_graph {
            self.recorder.warn_once("UserWarning: Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after use to break the cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1445.)");
        }
        let retain_graph = match get(&args, "retain_graph") {
            Some(v) => self.truthy(&v)?,
            None => create_graph,
        };
        let mut seeded = Vec::new();
        for (i, (root, g)) in roots.into_iter().zip(grads).enumerate() {
            let seed = self.seed_gradient(&root, g, i)?;
            seeded.push((root, seed));
        }
        let run = Run {
            retain_graph,
            create_graph,
            inputs: inputs.as_deref(),
        };
        let found = self.run_engine(seeded, &run)?;
        // `inputs=`: only those tensors' `.grad` accumulate (a non-leaf's too).
        for (t, g) in inputs.iter().flatten().zip(found) {
            if let Some(g) = g {
                self.accumulate(t, g, create_graph)?;
            }
        }
        Ok(Value::None)
    }

    /// `torch.autograd.grad(outputs, inputs, grad_outputs=None, retain_graph=None,
    /// create_graph=False, allow_unused=None)`: the gradients of `inputs`, as a tuple.
    pub(crate) fn autograd_grad(&mut self, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<Value> {
        let given: Vec<&Value> = pos.iter().chain(kw.iter().map(|(_, v)| v)).collect();
        if let Some(device) = self.device_to_enter(&given)? {
            return self.on_device(device, |ev| ev.autograd_grad(pos, kw));
        }
        const PARAMS: [&str; 8] = [
            "outputs",
            "inputs",
            "grad_outputs",
            "retain_graph",
            "create_graph",
            "only_inputs",
            "allow_unused",
            "is_grads_batched",
        ];
        let args = bind("grad", &PARAMS, pos, kw)?;
        let (Some(outputs), Some(inputs)) = (get(&args, "outputs"), get(&args, "inputs")) else {
            return Err(ScriptError::Type(
                "grad() missing required positional arguments: 'outputs' and 'inputs'".into(),
            ));
        };
        let outputs = tensor_list(&outputs, "grad")?;
        let inputs = tensor_list(&inputs, "grad")?;
        let grads = gradient_list(get(&args, "grad_outputs"), outputs.len());
        let create_graph = flag(&args, "create_graph");
        let retain_graph = match get(&args, "retain_graph") {
            Some(v) => self.truthy(&v)?,
            None => create_graph,
        };
        let allow_unused = flag(&args, "allow_unused");
        if inputs
            .iter()
            .any(|t| !crate::interp::torch::autograd::tracks_grad(&t.borrow()))
        {
            return Err(ScriptError::Runtime(
                "One of the differentiated Tensors does not require grad".into(),
            ));
        }
        let mut seeded = Vec::new();
        for (i, (root, g)) in outputs.into_iter().zip(grads).enumerate() {
            let seed = self.seed_gradient(&root, g, i)?;
            seeded.push((root, seed));
        }
        let run = Run {
            retain_graph,
            create_graph,
            inputs: Some(&inputs),
        };
        let found = self.run_engine(seeded, &run)?;
        if !allow_unused {
            if let Some(i) = found.iter().position(Option::is_none) {
                return Err(ScriptError::Runtime(format!(
                    "The differentiated Tensor at index {i} appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
                )));
            }
        }
        Ok(Value::Tuple(
            found
                .into_iter()
                .map(|g| g.unwrap_or(Value::None))
                .collect(),
        ))
    }

    /// `torch.autograd.<name>(...)`.
    pub(crate) fn call_autograd(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        match name {
            "grad" => self.autograd_grad(pos, kw),
            "backward" => self.autograd_backward(pos, kw),
            _ => Err(ScriptError::Attribute(format!(
                "module 'torch.autograd' has no attribute '{name}'"
            ))),
        }
    }

    /// `t.register_hook(fn)`: `fn(grad)` runs on `t`'s gradient during backward; what it
    /// returns (unless `None`) replaces the gradient.
    pub(crate) fn register_hook(&mut self, t: &TensorRef, pos: &[Value]) -> R<Value> {
        let [hook] = pos else {
            return Err(ScriptError::Type(format!(
                "register_hook() takes 2 positional arguments but {} were given",
                pos.len() + 1
            )));
        };
        if !crate::interp::torch::autograd::tracks_grad(&t.borrow()) {
            return Err(ScriptError::Runtime(
                "cannot register a hook on a tensor that doesn't require gradient".into(),
            ));
        }
        let id = self.torch.autograd.add_hook(t, hook.clone());
        Ok(Value::HookHandle(id))
    }

    /// `t.retain_grad()`: a non-leaf keeps its gradient in `.grad` (a leaf already does).
    pub(crate) fn retain_grad(&mut self, t: &TensorRef) -> R<Value> {
        let (tracks, leaf) = {
            let object = t.borrow();
            (
                crate::interp::torch::autograd::tracks_grad(&object),
                object.grad_fn.is_none(),
            )
        };
        if !tracks {
            return Err(ScriptError::Runtime(
                "can't retain_grad on Tensor that has requires_grad=False".into(),
            ));
        }
        if !leaf {
            self.torch.autograd.retain_grad(t);
        }
        Ok(Value::None)
    }

    /// `t.retains_grad`: `True` for a non-leaf after `retain_grad()`.
    pub(crate) fn retains_grad(&self, t: &TensorRef) -> bool {
        t.borrow().grad_fn.is_some() && self.torch.autograd.retains_grad(t)
    }

    /// Calls a function a grad-mode manager decorated: it runs under the manager's mode.
    pub(crate) fn call_mode_wrapped(
        &mut self,
        manager: &Value,
        function: &Value,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        if let Value::Autocast(mode) = manager {
            return self.call_under_autocast(mode, function, pos, kw);
        }
        let before = (self.torch.grad_enabled, self.torch.autograd.inference);
        let script = self.torch.autograd.script_no_grad;
        self.enter_mode(manager);
        let result = self.call(function.clone(), pos, kw);
        (self.torch.grad_enabled, self.torch.autograd.inference) = before;
        self.torch.autograd.script_no_grad = script;
        result
    }

    /// Sets the mode a grad-mode manager stands for; `false` when `manager` is not one.
    pub(crate) fn enter_mode(&mut self, manager: &Value) -> bool {
        match manager {
            Value::GradMode(mode) | Value::SetGradEnabled(mode) => self.torch.grad_enabled = *mode,
            Value::InferenceMode(true) => {
                self.torch.grad_enabled = false;
                self.torch.autograd.inference = true;
            }
            // `inference_mode(False)` changes nothing.
            Value::InferenceMode(false) => {}
            _ => return false,
        }
        self.torch.autograd.script_no_grad = !self.torch.grad_enabled;
        true
    }

    /// `torch.no_grad()(f)` and friends: `f` wrapped to run under the manager's mode.
    pub(crate) fn decorate_with_mode(&mut self, manager: Value, pos: &[Value]) -> R<Value> {
        match pos {
            [f @ (Value::Function(_) | Value::BoundMethod(..) | Value::ModeWrapped(..))] => {
                Ok(Value::ModeWrapped(Box::new(manager), Box::new(f.clone())))
            }
            _ => Err(ScriptError::Type(format!(
                "'{}' object is not callable",
                manager.type_name()
            ))),
        }
    }
}

/// The tensor methods of autograd that are not ops of the table.
pub(crate) const TENSOR_METHODS: &[&str] =
    &["backward", "register_hook", "retain_grad", "is_inference"];

/// PyTorch's warning when a script reads `.grad` of a non-leaf that does not retain it.
pub(crate) const NON_LEAF_GRAD: &str = "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:488.)";

impl Evaluator {
    /// A method of [`TENSOR_METHODS`] on tensor `t`.
    pub(crate) fn call_autograd_method(
        &mut self,
        t: &TensorRef,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        match name {
            "backward" => self.backward_call(t, pos, kw),
            "register_hook" => self.register_hook(t, &pos),
            "retain_grad" => self.retain_grad(t),
            _ => {
                let storage = t.borrow().tensor.storage;
                Ok(Value::Bool(self.torch.autograd.is_inference(storage)))
            }
        }
    }
}

impl Evaluator {
    /// `x.data = other`: `x` now views `other`'s storage with its shape and dtype, keeping
    /// its autograd flags.
    pub(crate) fn set_data(&mut self, t: &TensorRef, value: Value) -> R<()> {
        let Value::Tensor(other) = value else {
            return Err(ScriptError::Type(format!(
                "Variable data has to be a tensor, but got {}",
                value.type_name()
            )));
        };
        let tensor = other.borrow().tensor.clone();
        t.borrow_mut().tensor = tensor;
        Ok(())
    }
}

impl Evaluator {
    /// PyTorch's refusals of inference tensors outside inference mode, before op `name`
    /// runs on `inputs` (in order; `formula` says which of them its node would save): an
    /// in-place op on one, and saving one for backward.
    pub(crate) fn check_inference(
        &mut self,
        name: &str,
        formula: Option<&crate::interp::torch::autograd::Formula>,
        inputs: &[&Value],
    ) -> R<()> {
        self.note_data_write(name, inputs.first().copied());
        if self.torch.autograd.inference {
            return Ok(());
        }
        let inference = |v: &Value| match v {
            Value::Tensor(t) => t
                .try_borrow()
                .is_ok_and(|t| self.torch.autograd.is_inference(t.tensor.storage)),
            _ => false,
        };
        if !inputs.iter().any(|v| inference(v)) {
            return Ok(());
        }
        if name.ends_with('_') && inputs.first().is_some_and(|v| inference(v)) {
            // PyTorch refuses it after the op wrote (see `check_inference_inplace`).
            return Ok(());
        }
        let tracked = inputs
            .iter()
            .any(|v| crate::interp::torch::autograd::value_tracks_grad(v));
        let saved = formula.is_some_and(|f| {
            inputs
                .iter()
                .zip(f.inputs)
                .any(|(v, slot)| inference(v) && f.saves.contains(slot))
        });
        if self.torch.grad_enabled && tracked && saved {
            return Err(ScriptError::Runtime(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.".into(),
            ));
        }
        Ok(())
    }

    /// After in-place op `name` wrote into `target`: PyTorch's refusal of an inference
    /// tensor updated in place outside inference mode (the values are written already).
    pub(crate) fn check_inference_inplace(&mut self, name: &str, target: Option<&Value>) -> R<()> {
        self.end_data_write(target);
        let inference = matches!(target, Some(Value::Tensor(t)) if t
            .try_borrow()
            .is_ok_and(|t| self.torch.autograd.is_inference(t.tensor.storage)));
        if name.ends_with('_') && inference && !self.torch.autograd.inference {
            return Err(ScriptError::Runtime(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.".into(),
            ));
        }
        Ok(())
    }

    /// [`Evaluator::check_inference`] for Python's operators (`a * b`).
    pub(crate) fn check_inference_operator(
        &mut self,
        op: crate::lang::ast::BinOp,
        a: &Value,
        b: &Value,
    ) -> R<()> {
        let formula = crate::interp::torch::autograd::operator_formula(op);
        self.check_inference("", formula, &[a, b])
    }
}

impl Evaluator {
    /// `x.data`: a new tensor on `x`'s storage and layout that autograd does not track,
    /// with a version counter of its own.
    pub(crate) fn data_attribute(&mut self, tensor: crate::core::tensor::Tensor) -> Value {
        let alias = Value::tensor(tensor, "data", None);
        if let Value::Tensor(t) = &alias {
            self.torch.autograd.note_data_alias(t);
        }
        alias
    }

    /// `t._version`: its storage's in-place writes (a `x.data` tensor counts its own).
    pub(crate) fn tensor_version(&mut self, t: &TensorRef) -> u64 {
        if let Some(v) = self.torch.autograd.data_alias(t) {
            return *v;
        }
        let storage = t.borrow().tensor.storage;
        self.memory.version(storage)
    }

    /// Before in-place op `name` on `target`: remembers the storage's version when the
    /// target is a `x.data` tensor.
    fn note_data_write(&mut self, name: &str, target: Option<&Value>) {
        self.torch.autograd.data_write = None;
        let Some(Value::Tensor(t)) = target else {
            return;
        };
        if !name.ends_with('_') || self.torch.autograd.data_alias(t).is_none() {
            return;
        }
        let storage = t.borrow().tensor.storage;
        self.torch.autograd.data_write = Some((storage, self.memory.version(storage)));
    }

    /// After an in-place op: a write through a `x.data` tensor counts for it, not for the
    /// storage's other tensors.
    fn end_data_write(&mut self, target: Option<&Value>) {
        let Some((storage, before)) = self.torch.autograd.data_write.take() else {
            return;
        };
        if self.memory.version(storage) == before {
            return;
        }
        self.memory.set_version(storage, before);
        if let Some(Value::Tensor(t)) = target {
            if let Some(v) = self.torch.autograd.data_alias(t) {
                *v += 1;
            }
        }
    }
}
