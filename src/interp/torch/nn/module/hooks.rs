//! Module hooks, as `torch/nn/modules/module.py` runs them around `Module.__call__`:
//! forward pre-hooks (`hook(module, args)`, which may replace the arguments), forward hooks
//! (`hook(module, args, output)`, which may replace the output), and full backward hooks
//! and backward pre-hooks (`hook(module, grad_input, grad_output)`,
//! `hook(module, grad_output)`), which run during `backward()`.
//!
//! The backward hooks work as `torch.utils.hooks.BackwardHook` does: the tensor arguments
//! and the output go through an identity node (`BackwardHookFunctionBackward`), and hooks on
//! those tensors see `grad_output` (the output's gradient, when it arrives) and
//! `grad_input` (the arguments' gradients). Each hook's handle is a `RemovableHandle`
//! whose `remove()` finds the module through the [`HookRegistry`].

use std::rc::{Rc, Weak};

use crate::core::tensor::ScriptError;
use crate::interp::torch::autograd::{formulas, Grad, GradOp};
use crate::interp::torch::nn::module::{arg, bind_python};
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The node of the identity PyTorch's `BackwardHookFunction` puts around a module.
static BACKWARD_HOOK: Grad = Grad::named("BackwardHookFunctionBackward", &formulas::IDENTITY);

/// Handle ids of module hooks start here, apart from the tensor hooks' ids.
const FIRST_ID: u64 = 1 << 32;

/// Where a relay's name starts (no script can name it: it holds a NUL).
const RELAY: &str = "\0module-hook:";

/// Which of a module's hook registries a hook is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HookKind {
    /// `_forward_pre_hooks`.
    ForwardPre,
    /// `_forward_hooks`.
    Forward,
    /// `_backward_hooks` (full).
    Backward,
    /// `_backward_pre_hooks`.
    BackwardPre,
}

/// One hook a module holds.
#[derive(Clone, Debug)]
pub(crate) struct ModuleHook {
    /// Its handle's id.
    pub id: u64,
    pub kind: HookKind,
    /// The callable.
    pub hook: Value,
    /// `with_kwargs=True`: it also gets (and may return) the keyword arguments.
    pub with_kwargs: bool,
    /// `always_call=True`: a forward hook that runs even when `forward` raised.
    pub always_call: bool,
}

/// One call of a module with backward hooks, between its forward and its backward.
#[derive(Debug)]
struct BackwardCall {
    id: u64,
    module: Rc<Instance>,
    /// The full backward hooks and the backward pre-hooks when the call was made.
    hooks: Vec<Value>,
    pre_hooks: Vec<Value>,
    /// The number of positional arguments, and where its tensors are (`None` when none
    /// requires grad).
    n_inputs: usize,
    input_index: Option<Vec<usize>>,
    /// The tensor arguments that require grad (their gradients to wait for), and those
    /// arrived so far.
    inputs_expected: usize,
    grad_inputs: Vec<Option<Value>>,
    /// The tensor arguments that do not require grad: their `grad_input` is zeros (the
    /// identity node's gradients are materialized).
    untracked: Vec<(usize, TensorRef)>,
    /// The number of outputs (1 for a tensor), where its tensors are, how many require
    /// grad, and the gradients arrived so far.
    n_outputs: usize,
    output_index: Vec<usize>,
    outputs_expected: usize,
    grad_outputs_in: Vec<Option<Value>>,
    /// `grad_output` once every output's gradient arrived (after the pre-hooks), until the
    /// backward hooks ran.
    grad_outputs: Option<Vec<Value>>,
}

/// The module hooks' handles and the calls waiting for their backward (part of the
/// evaluator's torch state).
#[derive(Debug, Default)]
pub(crate) struct HookRegistry {
    /// The last handle id given.
    last: u64,
    /// Which module holds each handle's hook.
    owners: Vec<(u64, Weak<Instance>)>,
    /// The calls whose backward hooks may still run.
    calls: Vec<BackwardCall>,
    /// The last call id given.
    last_call: u64,
}

impl HookRegistry {
    fn next_id(&mut self) -> u64 {
        self.last += 1;
        FIRST_ID + self.last
    }
}

/// A module's hooks of `kind`, in the order they run.
fn hooks_of(o: &Rc<Instance>, kind: HookKind) -> Vec<ModuleHook> {
    o.module
        .borrow()
        .as_ref()
        .map(|s| s.hooks.iter().filter(|h| h.kind == kind).cloned().collect())
        .unwrap_or_default()
}

/// `register_forward_hook` and the others: adds the hook (at the front with `prepend`)
/// and returns its handle.
fn register(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    kind: HookKind,
    args: &[(String, Value)],
) -> R<Value> {
    let flag = |ev: &mut Evaluator, name: &str| ev.truthy(&arg(args, name));
    let prepend = flag(ev, "prepend")?;
    let with_kwargs = flag(ev, "with_kwargs")?;
    let always_call = flag(ev, "always_call")?;
    let id = ev.torch.module_hooks.next_id();
    let hook = ModuleHook {
        id,
        kind,
        hook: arg(args, "hook"),
        with_kwargs,
        always_call,
    };
    let mut state = o.module.borrow_mut();
    let Some(state) = state.as_mut() else {
        return Err(ScriptError::Attribute(format!(
            "'{}' object has no attribute '_forward_hooks'",
            o.class.name
        )));
    };
    if prepend {
        state.hooks.insert(0, hook);
    } else {
        state.hooks.push(hook);
    }
    let registry = &mut ev.torch.module_hooks;
    registry.owners.retain(|(_, m)| m.strong_count() > 0);
    registry.owners.push((id, Rc::downgrade(o)));
    Ok(Value::HookHandle(id))
}

impl HookKind {
    /// The Python signature and the qualified name of the method that registers this kind.
    fn method(self) -> (&'static str, &'static str) {
        match self {
            HookKind::Forward => (
                "hook, *, prepend=False, with_kwargs=False, always_call=False",
                "Module.register_forward_hook",
            ),
            HookKind::ForwardPre => (
                "hook, *, prepend=False, with_kwargs=False",
                "Module.register_forward_pre_hook",
            ),
            HookKind::Backward => ("hook, prepend=False", "Module.register_full_backward_hook"),
            HookKind::BackwardPre => (
                "hook, prepend=False",
                "Module.register_full_backward_pre_hook",
            ),
        }
    }
}

/// Binds the arguments of the method that registers `kind` and registers the hook.
fn bind_and_register(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    kind: HookKind,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let (signature, name) = kind.method();
    let args = bind_python(signature, name, &pos, &kw)?;
    register(ev, o, kind, &args)
}

/// `Module.register_forward_hook(hook, *, prepend=False, with_kwargs=False,
/// always_call=False)`.
pub(super) fn register_forward_hook(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    bind_and_register(ev, o, HookKind::Forward, pos, kw)
}

/// `Module.register_forward_pre_hook(hook, *, prepend=False, with_kwargs=False)`.
pub(super) fn register_forward_pre_hook(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    bind_and_register(ev, o, HookKind::ForwardPre, pos, kw)
}

/// `Module.register_full_backward_hook(hook, prepend=False)`.
pub(super) fn register_full_backward_hook(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    bind_and_register(ev, o, HookKind::Backward, pos, kw)
}

/// `Module.register_full_backward_pre_hook(hook, prepend=False)`.
pub(super) fn register_full_backward_pre_hook(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    bind_and_register(ev, o, HookKind::BackwardPre, pos, kw)
}

/// `Module.register_backward_hook(hook)`: the deprecated hook on the output's node, whose
/// `grad_input` is that node's inputs' gradients.
pub(super) fn register_backward_hook(
    _: &mut Evaluator,
    _: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    bind_python("hook", "Module.register_backward_hook", &pos, &kw)?;
    Err(ScriptError::NotImplemented(
        "Module.register_backward_hook (deprecated: its grad_input is the last node's) is not supported by Stridescope; use register_full_backward_hook".into(),
    ))
}

/// The hooks of a module as its `_forward_hooks` (and the other registries) show them: an
/// `OrderedDict` from handle id to hook.
pub(super) fn hook_dict(o: &Rc<Instance>, name: &str) -> Option<Value> {
    let kind = match name {
        "_forward_pre_hooks" => HookKind::ForwardPre,
        "_forward_hooks" => HookKind::Forward,
        "_backward_hooks" => HookKind::Backward,
        "_backward_pre_hooks" => HookKind::BackwardPre,
        _ => return None,
    };
    o.module.borrow().as_ref()?;
    Some(Value::OrderedDict(
        hooks_of(o, kind)
            .into_iter()
            .map(|h| (Value::Int((h.id - FIRST_ID - 1) as i64), h.hook))
            .collect(),
    ))
}

/// The tensors at the top level of a module's arguments or output: their places, and
/// whether one requires grad.
fn tensor_places(values: &[Value]) -> (Vec<usize>, bool) {
    let mut places = Vec::new();
    let mut requires = false;
    for (i, v) in values.iter().enumerate() {
        if let Value::Tensor(t) = v {
            places.push(i);
            requires |= crate::interp::torch::autograd::tracks_grad(&t.borrow());
        }
    }
    (places, requires)
}

/// Whether a tensor requires grad.
fn tracks(t: &TensorRef) -> bool {
    crate::interp::torch::autograd::tracks_grad(&t.borrow())
}

impl Evaluator {
    /// `handle.remove()` of a module hook (nothing when it is gone already).
    pub(crate) fn remove_module_hook(&mut self, id: u64) {
        let registry = &mut self.torch.module_hooks;
        let Some(at) = registry.owners.iter().position(|(h, _)| *h == id) else {
            return;
        };
        let (_, module) = registry.owners.remove(at);
        if let Some(module) = module.upgrade() {
            if let Some(state) = module.module.borrow_mut().as_mut() {
                state.hooks.retain(|h| h.id != id);
            }
        }
    }

    /// `module(*args, **kwargs)` with its hooks: PyTorch's `Module._call_impl`.
    pub(super) fn call_with_hooks(
        &mut self,
        object: &Rc<Instance>,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let mut args = pos;
        let mut kwargs = kw;
        let module = Value::Instance(Rc::clone(object));
        for hook in hooks_of(object, HookKind::ForwardPre) {
            if hook.with_kwargs {
                let result = self.call(
                    hook.hook,
                    vec![
                        module.clone(),
                        Value::Tuple(args.clone()),
                        kwargs_dict(&kwargs),
                    ],
                    vec![],
                )?;
                match result {
                    Value::None => {}
                    Value::Tuple(pair) if pair.len() == 2 => {
                        args = self.iterate(&pair[0])?;
                        kwargs = self
                            .dict_pairs(&pair[1])?
                            .into_iter()
                            .filter_map(|(k, v)| match k {
                                Value::Str(k) => Some((k, v)),
                                _ => None,
                            })
                            .collect();
                    }
                    other => {
                        return Err(ScriptError::Runtime(format!(
                            "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {}.",
                            self.str_of(&other)?
                        )))
                    }
                }
            } else {
                let result = self.call(
                    hook.hook,
                    vec![module.clone(), Value::Tuple(args.clone())],
                    vec![],
                )?;
                match result {
                    Value::None => {}
                    Value::Tuple(items) => args = items,
                    other => args = vec![other],
                }
            }
        }
        let backward = hooks_of(object, HookKind::Backward);
        let backward_pre = hooks_of(object, HookKind::BackwardPre);
        let call = if (!backward.is_empty() || !backward_pre.is_empty()) && self.torch.grad_enabled
        {
            Some(self.setup_input_hook(object, &mut args, backward, backward_pre)?)
        } else {
            None
        };
        let forward = self.instance_attribute(object, "forward")?;
        let forward_hooks = hooks_of(object, HookKind::Forward);
        let mut result = match self.call(forward, args.clone(), kwargs.clone()) {
            Ok(result) => result,
            Err(e) => {
                // `always_call=True` hooks run though `forward` raised (their own errors
                // are silenced); the error goes on.
                for hook in forward_hooks.iter().filter(|h| h.always_call) {
                    let mut call_args = vec![module.clone(), Value::Tuple(args.clone())];
                    if hook.with_kwargs {
                        call_args.push(kwargs_dict(&kwargs));
                    }
                    call_args.push(Value::None);
                    let _ = self.call(hook.hook.clone(), call_args, vec![]);
                }
                return Err(e);
            }
        };
        for hook in forward_hooks {
            let mut call_args = vec![module.clone(), Value::Tuple(args.clone())];
            if hook.with_kwargs {
                call_args.push(kwargs_dict(&kwargs));
            }
            call_args.push(result.clone());
            let out = self.call(hook.hook, call_args, vec![])?;
            if !matches!(out, Value::None) {
                result = out;
            }
        }
        match call {
            Some(call) => self.setup_output_hook(call, result),
            None => Ok(result),
        }
    }

    /// The tensor `t` through a `BackwardHookFunctionBackward` node: a new tensor object on
    /// the same tensor, whose gradient `relay` sees.
    fn hook_alias(&mut self, t: &TensorRef, relay: String, module: &Rc<Instance>) -> TensorRef {
        let (tensor, made_by, copied_from) = {
            let o = t.borrow();
            (o.tensor.clone(), o.made_by.clone(), o.copied_from)
        };
        let alias = Value::tensor(tensor, &made_by, copied_from);
        let original = Value::Tensor(Rc::clone(t));
        self.record_grad(
            GradOp::Named {
                name: "BackwardHookFunction",
                grad: &BACKWARD_HOOK,
                args: &[],
            },
            &[&original],
            &alias,
        );
        let Value::Tensor(alias) = alias else {
            return Rc::clone(t);
        };
        let relay = Value::Method(Box::new(Value::Instance(Rc::clone(module))), relay);
        self.torch.autograd.add_hook(&alias, relay);
        alias
    }

    /// `BackwardHook.setup_input_hook`: the tensor arguments go through the identity node
    /// when one requires grad; the call is remembered for its backward.
    fn setup_input_hook(
        &mut self,
        object: &Rc<Instance>,
        args: &mut [Value],
        hooks: Vec<ModuleHook>,
        pre_hooks: Vec<ModuleHook>,
    ) -> R<u64> {
        let registry = &mut self.torch.module_hooks;
        registry.last_call += 1;
        let id = registry.last_call;
        let (places, requires) = tensor_places(args);
        let mut expected = 0;
        let mut untracked = Vec::new();
        if requires {
            for &i in &places {
                let Value::Tensor(t) = &args[i] else { continue };
                if !tracks(t) {
                    untracked.push((i, Rc::clone(t)));
                    continue;
                }
                expected += 1;
                let t = Rc::clone(t);
                let alias = self.hook_alias(&t, format!("{RELAY}in:{id}:{i}"), object);
                args[i] = Value::Tensor(alias);
            }
        }
        let registry = &mut self.torch.module_hooks;
        // Calls whose backward never came are forgotten after a while.
        if registry.calls.len() >= 256 {
            registry.calls.remove(0);
        }
        registry.calls.push(BackwardCall {
            id,
            module: Rc::clone(object),
            hooks: hooks.into_iter().map(|h| h.hook).collect(),
            pre_hooks: pre_hooks.into_iter().map(|h| h.hook).collect(),
            n_inputs: args.len(),
            input_index: requires.then_some(places),
            inputs_expected: expected,
            grad_inputs: vec![None; args.len()],
            untracked,
            n_outputs: 0,
            output_index: Vec::new(),
            outputs_expected: 0,
            grad_outputs_in: Vec::new(),
            grad_outputs: None,
        });
        Ok(id)
    }

    /// `BackwardHook.setup_output_hook`: the output's tensors go through the identity node.
    fn setup_output_hook(&mut self, id: u64, result: Value) -> R<Value> {
        let (mut outputs, is_tuple) = match result {
            Value::Tuple(items) => (items, true),
            other => (vec![other], false),
        };
        let (places, requires) = tensor_places(&outputs);
        let mut expected = 0;
        if requires && self.torch.grad_enabled {
            let module = self.call_record(id).map(|c| Rc::clone(&c.module));
            if let Some(module) = module {
                for &j in &places {
                    let Value::Tensor(t) = &outputs[j] else {
                        continue;
                    };
                    if !tracks(t) {
                        continue;
                    }
                    expected += 1;
                    let t = Rc::clone(t);
                    let alias = self.hook_alias(&t, format!("{RELAY}out:{id}:{j}"), &module);
                    outputs[j] = Value::Tensor(alias);
                }
            }
        }
        if let Some(call) = self.call_record(id) {
            call.n_outputs = outputs.len();
            call.output_index = places;
            call.outputs_expected = expected;
            call.grad_outputs_in = vec![None; outputs.len()];
        }
        Ok(if is_tuple {
            Value::Tuple(outputs)
        } else {
            outputs.pop().unwrap_or(Value::None)
        })
    }

    fn call_record(&mut self, id: u64) -> Option<&mut BackwardCall> {
        self.torch
            .module_hooks
            .calls
            .iter_mut()
            .find(|c| c.id == id)
    }

    /// A relay's call (`module.<relay name>(grad)`): the tensor hook on an identity node's
    /// output, which runs the module's backward hooks. `None` when `name` is no relay.
    pub(crate) fn module_hook_relay(&mut self, name: &str, pos: &[Value]) -> Option<R<Value>> {
        let rest = name.strip_prefix(RELAY)?;
        let mut parts = rest.split(':');
        let side = parts.next()?;
        let id: u64 = parts.next()?.parse().ok()?;
        let at: usize = parts.next()?.parse().ok()?;
        let grad = pos.first().cloned().unwrap_or(Value::None);
        Some(match side {
            "out" => self.output_grad_arrived(id, at, grad),
            _ => self.input_grad_arrived(id, at, grad),
        })
    }

    /// An output's gradient arrived: once all have, the pre-hooks run on `grad_output`
    /// (and the backward hooks, when no argument requires grad).
    fn output_grad_arrived(&mut self, id: u64, at: usize, grad: Value) -> R<Value> {
        let Some(call) = self.call_record(id) else {
            return Ok(Value::None);
        };
        if let Some(slot) = call.grad_outputs_in.get_mut(at) {
            *slot = Some(grad);
        }
        let arrived = call.grad_outputs_in.iter().filter(|g| g.is_some()).count();
        if arrived < call.outputs_expected {
            return Ok(Value::None);
        }
        let module = Value::Instance(Rc::clone(&call.module));
        let pre_hooks = call.pre_hooks.clone();
        let hooks = call.hooks.clone();
        let no_input = call.input_index.is_none();
        let n_inputs = call.n_inputs;
        let mut grad_outputs: Vec<Value> = std::mem::take(&mut call.grad_outputs_in)
            .into_iter()
            .map(|g| g.unwrap_or(Value::None))
            .collect();
        let n_outputs = call.n_outputs;
        call.grad_outputs_in = vec![None; n_outputs];
        for hook in pre_hooks {
            let out = self.call(
                hook,
                vec![module.clone(), Value::Tuple(grad_outputs.clone())],
                vec![],
            )?;
            if matches!(out, Value::None) {
                continue;
            }
            let items = self.iterate(&out)?;
            if items.len() != grad_outputs.len() {
                return Err(ScriptError::Runtime(format!(
                    "Backward pre hook returned an invalid number of grad_output, got {}, but expected {}",
                    items.len(),
                    grad_outputs.len()
                )));
            }
            grad_outputs = items;
        }
        if no_input {
            let grad_inputs = Value::Tuple(vec![Value::None; n_inputs]);
            for hook in hooks {
                let res = self.call(
                    hook,
                    vec![
                        module.clone(),
                        grad_inputs.clone(),
                        Value::Tuple(grad_outputs.clone()),
                    ],
                    vec![],
                )?;
                let all_none = match &res {
                    Value::None => true,
                    Value::Tuple(items) => items.iter().all(|v| matches!(v, Value::None)),
                    _ => false,
                };
                if !all_none {
                    return Err(ScriptError::Runtime(
                        "Backward hook for Modules where no input requires gradient should always return None or None for all gradients.".into(),
                    ));
                }
            }
            self.forget_call(id);
        } else if let Some(call) = self.call_record(id) {
            call.grad_outputs = Some(grad_outputs.clone());
        }
        Ok(grad_outputs.get(at).cloned().unwrap_or(Value::None))
    }

    /// An argument's gradient arrived: once all have, the backward hooks run on
    /// `grad_input` and `grad_output`; what a hook returns replaces `grad_input`.
    fn input_grad_arrived(&mut self, id: u64, at: usize, grad: Value) -> R<Value> {
        let Some(call) = self.call_record(id) else {
            return Ok(Value::None);
        };
        if let Some(slot) = call.grad_inputs.get_mut(at) {
            *slot = Some(grad);
        }
        let arrived = call.grad_inputs.iter().filter(|g| g.is_some()).count();
        if arrived < call.inputs_expected {
            return Ok(Value::None);
        }
        // A gradient that reached the arguments without passing the output (double
        // backward) runs no hook.
        let Some(grad_outputs) = call.grad_outputs.take() else {
            call.grad_inputs = vec![None; call.n_inputs];
            return Ok(Value::None);
        };
        let module = Value::Instance(Rc::clone(&call.module));
        let hooks = call.hooks.clone();
        let untracked = call.untracked.clone();
        let mut res: Vec<Value> = std::mem::take(&mut call.grad_inputs)
            .into_iter()
            .map(|g| g.unwrap_or(Value::None))
            .collect();
        call.grad_inputs = vec![None; call.n_inputs];
        for (i, t) in untracked {
            let shape: Vec<Value> = t
                .borrow()
                .tensor
                .shape()
                .iter()
                .map(|&d| Value::Int(d))
                .collect();
            let zeros = self.method(Value::Tensor(t), "new_zeros", vec![Value::Tuple(shape)])?;
            if let Some(slot) = res.get_mut(i) {
                *slot = zeros;
            }
        }
        for hook in hooks {
            let out = self.call(
                hook,
                vec![
                    module.clone(),
                    Value::Tuple(res.clone()),
                    Value::Tuple(grad_outputs.clone()),
                ],
                vec![],
            )?;
            if matches!(out, Value::None) {
                continue;
            }
            let items = self.iterate(&out)?;
            if items.len() != res.len() {
                return Err(ScriptError::Runtime(format!(
                    "Backward hook returned an invalid number of grad_input, got {}, but expected {}",
                    items.len(),
                    res.len()
                )));
            }
            res = items;
        }
        Ok(res.get(at).cloned().unwrap_or(Value::None))
    }

    fn forget_call(&mut self, id: u64) {
        if let Some(call) = self.call_record(id) {
            call.grad_outputs = None;
        }
    }
}

/// Keyword arguments as the dict a `with_kwargs` hook gets.
fn kwargs_dict(kwargs: &[(String, Value)]) -> Value {
    Value::Dict(
        kwargs
            .iter()
            .map(|(k, v)| (Value::Str(k.clone()), v.clone()))
            .collect(),
    )
}
