//! `torch.autograd.Function`: a script class derived from it defines its own `forward` and
//! `backward` (`@staticmethod forward(ctx, ...)`, or the 2.x `forward(...)` with
//! `setup_context(ctx, inputs, output)`), and `F.apply(...)` runs it as PyTorch 2.15 does.
//!
//! `apply` makes the node first (`FBackward`, PyTorch's class name plus `Backward`): it is
//! also the `ctx` the script's methods receive, so `y.grad_fn is ctx` and what the forward
//! put on `ctx` (`ctx.constant = 3`, `save_for_backward`, `mark_dirty`,
//! `mark_non_differentiable`, `set_materialize_grads`) is the node's [`CtxState`]. The
//! forward runs with grad mode off (its statements are sub-steps as any call's); then its
//! tensor outputs get the node as their `grad_fn` when grad mode is on and an input requires
//! grad (an output that is an input not marked dirty becomes a new tensor on the same
//! storage; one marked dirty keeps its object). The saved tensors are kept as other nodes
//! keep theirs ([`SavedTensor`], checked against their storage's version when read). The
//! engine's side (all the outputs' gradients at once, the script's `backward`, PyTorch's
//! checks of what it returns) is [`crate::interp::torch::autograd::custom_backward`].

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::rc::{Rc, Weak};

use crate::core::tensor::{DType, ScriptError, StorageId};
use crate::interp::torch::autograd::objects::{FnRef, FREED};
use crate::interp::torch::autograd::{
    tracks_grad, GradNode, Operand, Saved, SavedObject, SavedTensor,
};
use crate::interp::torch::nn::module::ModuleDef;
use crate::interp::value::{ClassObject, TensorObject, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// `torch.autograd.Function`, the built-in base of custom functions: `apply` is its class
/// method.
pub(crate) static CLASSES: &[ModuleDef] = &[ModuleDef {
    name: "Function",
    path: "torch.autograd.function",
    base: None,
    init: None,
    forward: None,
    extra_repr: None,
    methods: &[],
    class_methods: &[("apply", apply)],
}];

/// The part of a node that a custom function's `ctx` is: the class and what the script
/// stored.
pub(crate) struct CustomNode {
    /// The script's `Function` subclass.
    pub(crate) class: Rc<ClassObject>,
    /// What `forward` and `setup_context` put on `ctx`.
    pub(crate) state: RefCell<CtxState>,
}

impl std::fmt::Debug for CustomNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CustomNode({})", self.class.name)
    }
}

/// What a `ctx` holds.
#[derive(Debug, Default)]
pub(crate) struct CtxState {
    /// Attributes the script set (`ctx.constant = 3`), in assignment order.
    pub(crate) attrs: Vec<(String, Value)>,
    /// `save_for_backward(...)`'s arguments, until the forward returns.
    pub(crate) to_save: Vec<Value>,
    /// The tensors saved for backward (`None` for a `None` saved), once the forward returned.
    pub(crate) saved: Vec<Option<SavedTensor>>,
    /// `ctx.needs_input_grad`: per argument of `apply`, a tensor that requires grad.
    pub(crate) needs_input_grad: Vec<bool>,
    /// `mark_dirty(...)`'s tensors.
    pub(crate) dirty: Vec<TensorRef>,
    /// `mark_non_differentiable(...)`'s tensors.
    pub(crate) non_differentiable: Vec<TensorRef>,
    /// `set_materialize_grads(...)`: missing output gradients become zeros (the default).
    pub(crate) materialize: bool,
    /// The forward's outputs, in order (`None` for one that is not a tensor).
    pub(crate) outputs: Vec<Option<OutputMeta>>,
    /// The node of the outputs (`ctx` is the node made before the forward ran).
    pub(crate) node: Weak<GradNode>,
}

/// One tensor output of a custom function.
#[derive(Clone, Debug)]
pub(crate) struct OutputMeta {
    /// The output object (weak: it holds the node).
    pub(crate) object: Weak<RefCell<TensorObject>>,
    /// Its dtype and shape, for a gradient materialized as zeros.
    pub(crate) dtype: DType,
    pub(crate) shape: Vec<i64>,
}

impl CustomNode {
    /// The storages the `ctx` keeps alive: saved tensors and tensors in its attributes.
    pub(crate) fn storages(&self, live: &mut BTreeSet<StorageId>) {
        let Ok(state) = self.state.try_borrow() else {
            return;
        };
        for s in state.saved.iter().flatten() {
            crate::interp::torch::autograd::saved_hooks::saved_storages(s, live);
        }
        let mut values: Vec<&Value> = state.attrs.iter().map(|(_, v)| v).collect();
        values.extend(state.to_save.iter());
        while let Some(v) = values.pop() {
            match v {
                Value::Tensor(t) => {
                    if let Ok(t) = t.try_borrow() {
                        live.insert(t.tensor.storage);
                    }
                }
                Value::Tuple(items) | Value::List(items) => values.extend(items.iter()),
                _ => {}
            }
        }
    }
}

/// Which output of its node `t` is (0 unless it is a later output of a custom function).
pub(crate) fn output_nr(t: &TensorRef) -> usize {
    let Ok(object) = t.try_borrow() else {
        return 0;
    };
    let Some(custom) = object.grad_fn.as_ref().and_then(|n| n.custom.as_ref()) else {
        return 0;
    };
    let Ok(state) = custom.state.try_borrow() else {
        return 0;
    };
    state
        .outputs
        .iter()
        .position(|m| {
            m.as_ref()
                .is_some_and(|m| std::ptr::eq(m.object.as_ptr(), Rc::as_ptr(t)))
        })
        .unwrap_or(0)
}

/// The output objects of a custom node, one per output (`None` for a non-tensor or one
/// dropped since).
pub(crate) fn output_objects(node: &GradNode) -> Vec<Option<TensorRef>> {
    let Some(custom) = &node.custom else {
        return vec![None];
    };
    let state = custom.state.borrow();
    let out: Vec<Option<TensorRef>> = state
        .outputs
        .iter()
        .map(|m| m.as_ref().and_then(|m| m.object.upgrade()))
        .collect();
    if out.is_empty() {
        vec![None]
    } else {
        out
    }
}

/// `F.apply(*args, **kwargs)`.
fn apply(
    ev: &mut Evaluator,
    class: &Rc<ClassObject>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    ev.function_apply(class, pos, kw)
}

impl Evaluator {
    /// `F.apply(*args, **kwargs)`: see the module documentation.
    pub(crate) fn function_apply(
        &mut self,
        class: &Rc<ClassObject>,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let forward = match self.class_attribute(class, "forward") {
            Ok(f) => f,
            Err(ScriptError::Attribute(_)) => {
                return Err(ScriptError::NotImplemented(
                    "You must implement the forward function for custom autograd.Function.".into(),
                ))
            }
            Err(e) => return Err(e),
        };
        let setup = self.class_attribute(class, "setup_context").ok();
        let inputs = match &setup {
            Some(_) => bind_defaults(&forward, &pos, &kw)?,
            // PyTorch's inputs are the positional arguments, then the keywords' values (so a
            // keyword argument counts in `needs_input_grad` and among the gradients).
            None => pos
                .iter()
                .chain(kw.iter().map(|(_, v)| v))
                .cloned()
                .collect(),
        };
        let node = GradNode::shared(GradNode {
            name: format!("{}Backward", class.name).into(),
            formula: None,
            operands: inputs.iter().map(|v| custom_operand(v, &[])).collect(),
            result: Saved::Missing,
            args: vec![],
            out_dtype: DType::Float32,
            out_shape: vec![],
            freed: Cell::new(false),
            seq: self.torch.autograd.next_seq(),
            extras: Default::default(),
            custom: Some(Rc::new(CustomNode {
                class: Rc::clone(class),
                state: RefCell::new(CtxState {
                    needs_input_grad: inputs
                        .iter()
                        .map(crate::interp::torch::autograd::value_tracks_grad)
                        .collect(),
                    materialize: true,
                    ..CtxState::default()
                }),
            })),
        });
        let executable =
            self.torch.grad_enabled && node.operands.iter().any(|o| o.tracked.is_some());
        let ctx = Value::GradFn(FnRef::Node(Rc::clone(&node)));
        let was = std::mem::replace(&mut self.torch.grad_enabled, false);
        let result = match setup {
            Some(setup) => self.call(forward, inputs.clone(), vec![]).and_then(|out| {
                let args = vec![ctx, Value::Tuple(inputs.clone()), out.clone()];
                self.call(setup, args, vec![]).map(|_| out)
            }),
            None => {
                let mut args = vec![ctx];
                args.extend(pos);
                let bound = forward.clone();
                self.call(forward, args, kw)
                    .map_err(|e| forward_binding_error(&bound, e))
            }
        };
        self.torch.grad_enabled = was;
        let out = result?;
        self.wrap_outputs(&node, &inputs, out, executable)
    }

    /// The forward's outputs as `apply` returns them (see the module documentation), and
    /// the tensors it saved, kept. The outputs' node is `ctx`'s made again with the same
    /// state, now that the forward said which inputs it wrote: such an input's edge is its
    /// history before (PyTorch's `rebase_history`).
    fn wrap_outputs(
        &mut self,
        ctx: &Rc<GradNode>,
        inputs: &[Value],
        out: Value,
        executable: bool,
    ) -> R<Value> {
        let Some(custom) = ctx.custom.clone() else {
            return Ok(out);
        };
        let dirty = custom.state.borrow().dirty.clone();
        let node = GradNode::shared(GradNode {
            name: ctx.name.clone(),
            formula: None,
            operands: inputs.iter().map(|v| custom_operand(v, &dirty)).collect(),
            result: Saved::Missing,
            args: vec![],
            out_dtype: ctx.out_dtype,
            out_shape: vec![],
            freed: Cell::new(false),
            seq: ctx.seq,
            extras: Default::default(),
            custom: Some(Rc::clone(&custom)),
        });
        let node = &node;
        let (items, tuple) = match out {
            Value::Tuple(items) => (items, true),
            other => (vec![other], false),
        };
        let input_objects: Vec<&TensorRef> = inputs
            .iter()
            .filter_map(|v| match v {
                Value::Tensor(t) => Some(t),
                _ => None,
            })
            .collect();
        let non_diff = custom.state.borrow().non_differentiable.clone();
        let mut wrapped = Vec::with_capacity(items.len());
        let mut metas = Vec::with_capacity(items.len());
        for item in items {
            let Value::Tensor(t) = item else {
                metas.push(None);
                wrapped.push(item);
                continue;
            };
            if !executable {
                metas.push(None);
                wrapped.push(Value::Tensor(t));
                continue;
            }
            let is_input = input_objects.iter().any(|i| Rc::ptr_eq(i, &t));
            let is_dirty = dirty.iter().any(|d| Rc::ptr_eq(d, &t));
            let tensor = t.borrow().tensor.clone();
            let differentiable = (tensor.dtype.is_floating() || tensor.dtype.is_complex())
                && !non_diff.iter().any(|n| Rc::ptr_eq(n, &t));
            let object = if is_dirty {
                let leaf = {
                    let o = t.borrow();
                    o.requires_grad && o.grad_fn.is_none()
                };
                if leaf {
                    return Err(ScriptError::Runtime(
                        "a leaf Variable that requires grad has been used in an in-place operation."
                            .into(),
                    ));
                }
                let v = self.memory.version(tensor.storage);
                self.memory.set_version(tensor.storage, v + 1);
                t
            } else if is_input {
                match Value::tensor(tensor.clone(), "apply", None) {
                    Value::Tensor(view) => view,
                    _ => t,
                }
            } else {
                t
            };
            if differentiable {
                object.borrow_mut().grad_fn = Some(Rc::clone(node));
            }
            metas.push(Some(OutputMeta {
                object: Rc::downgrade(&object),
                dtype: tensor.dtype,
                shape: tensor.shape().to_vec(),
            }));
            wrapped.push(Value::Tensor(object));
        }
        let to_save = std::mem::take(&mut custom.state.borrow_mut().to_save);
        let mut saved = Vec::with_capacity(to_save.len());
        if executable {
            for (i, v) in to_save.iter().enumerate() {
                match v {
                    Value::None => saved.push(None),
                    Value::Tensor(t) => {
                        let is_output = metas
                            .iter()
                            .flatten()
                            .any(|m| std::ptr::eq(m.object.as_ptr(), Rc::as_ptr(t)));
                        let object = if is_output {
                            SavedObject::Output(Rc::downgrade(t))
                        } else {
                            SavedObject::Input(Rc::clone(t))
                        };
                        let tensor = t.borrow().tensor.clone();
                        saved.push(Some(SavedTensor {
                            version: self.memory.version(tensor.storage),
                            tensor,
                            object: self.with_saved_hooks(object),
                        }));
                    }
                    other => {
                        return Err(ScriptError::Type(format!(
                        "save_for_backward can only save variables, but argument {i} is of type {}",
                        other.type_name()
                    )))
                    }
                }
            }
        }
        {
            let mut state = custom.state.borrow_mut();
            state.saved = saved;
            state.outputs = metas;
            state.node = Rc::downgrade(node);
        }
        self.pack_saved(node);
        Ok(if tuple {
            Value::Tuple(wrapped)
        } else {
            wrapped.into_iter().next().unwrap_or(Value::None)
        })
    }

    /// `ctx.name` on a custom function's node, before the attributes every node has;
    /// `None` for a name it leaves to them.
    pub(crate) fn ctx_attribute(&mut self, node: &Rc<GradNode>, name: &str) -> Option<R<Value>> {
        let custom = node.custom.as_ref()?;
        let method = || {
            Some(Ok(Value::Method(
                Box::new(Value::GradFn(FnRef::Node(Rc::clone(node)))),
                name.into(),
            )))
        };
        let tensors = |ts: &[TensorRef]| {
            Value::Tuple(ts.iter().map(|t| Value::Tensor(Rc::clone(t))).collect())
        };
        match name {
            "saved_tensors" | "saved_variables" => return Some(self.saved_tensors(node)),
            "save_for_backward"
            | "mark_dirty"
            | "mark_non_differentiable"
            | "set_materialize_grads"
            | "save_for_forward"
            | "mark_shared_storage" => return method(),
            "__class__" => {
                return Some(Ok(Value::Printed(format!(
                    "<class 'torch.autograd.function.{}'>",
                    node.name
                ))))
            }
            _ => {}
        }
        let state = custom.state.borrow();
        if let Some((_, v)) = state.attrs.iter().find(|(n, _)| n == name) {
            return Some(Ok(v.clone()));
        }
        Some(Ok(match name {
            "needs_input_grad" => Value::Tuple(
                state
                    .needs_input_grad
                    .iter()
                    .map(|b| Value::Bool(*b))
                    .collect(),
            ),
            "to_save" => Value::Tuple(state.to_save.clone()),
            "dirty_tensors" => tensors(&state.dirty),
            "non_differentiable" => tensors(&state.non_differentiable),
            "materialize_grads" => Value::Bool(state.materialize),
            _ => return None,
        }))
    }

    /// `ctx.name = value` on a custom function's node; `false` for other nodes.
    pub(crate) fn set_ctx_attribute(&mut self, f: &FnRef, name: &str, value: Value) -> bool {
        let FnRef::Node(node) = f else {
            return false;
        };
        let Some(custom) = &node.custom else {
            return false;
        };
        let mut state = custom.state.borrow_mut();
        match state.attrs.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => state.attrs.push((name.to_string(), value)),
        }
        true
    }

    /// `ctx.method(...)` on a custom function's node; `None` for a method it leaves to
    /// every node's.
    pub(crate) fn call_ctx_method(
        &mut self,
        node: &Rc<GradNode>,
        name: &str,
        pos: &[Value],
    ) -> Option<R<Value>> {
        let custom = node.custom.as_ref()?;
        let tensors = |what: &str| -> R<Vec<TensorRef>> {
            pos.iter()
                .map(|v| match v {
                    Value::Tensor(t) => Ok(Rc::clone(t)),
                    other => Err(ScriptError::Type(format!(
                        "{what}() only accepts Tensors, got {}",
                        other.type_name()
                    ))),
                })
                .collect()
        };
        let mut state = custom.state.borrow_mut();
        let result = match name {
            "save_for_backward" => {
                state.to_save = pos.to_vec();
                Ok(Value::None)
            }
            "save_for_forward" | "mark_shared_storage" => Ok(Value::None),
            "mark_dirty" => tensors("mark_dirty").map(|ts| {
                state.dirty = ts;
                Value::None
            }),
            "mark_non_differentiable" => tensors("mark_non_differentiable").map(|ts| {
                state.non_differentiable = ts;
                Value::None
            }),
            "set_materialize_grads" => match pos {
                [Value::Bool(b)] => {
                    state.materialize = *b;
                    Ok(Value::None)
                }
                [other] => Err(ScriptError::Type(format!(
                    "set_materialize_grads() expected a bool, got {}",
                    other.type_name()
                ))),
                _ => Err(ScriptError::Type(format!(
                    "set_materialize_grads() takes exactly one argument ({} given)",
                    pos.len()
                ))),
            },
            _ => return None,
        };
        Some(result)
    }

    /// `ctx.saved_tensors`: each saved tensor, checked against its storage's version (a
    /// saved output comes back as a new tensor object with the node as its `grad_fn`).
    fn saved_tensors(&mut self, node: &Rc<GradNode>) -> R<Value> {
        let Some(custom) = &node.custom else {
            return Ok(Value::Tuple(vec![]));
        };
        let (saved, outputs_node) = {
            let state = custom.state.borrow();
            (state.saved.clone(), state.node.upgrade())
        };
        let node = &outputs_node.unwrap_or_else(|| Rc::clone(node));
        if node.freed.get() {
            return Err(ScriptError::Runtime(FREED.into()));
        }
        let mut out = Vec::with_capacity(saved.len());
        for s in saved {
            let Some(s) = s else {
                out.push(Value::None);
                continue;
            };
            if let Some(unpacked) = self.unpack_saved(Some(node), &s) {
                out.push(unpacked?);
                continue;
            }
            self.check_version(node, &s)?;
            let value = match &s.object {
                SavedObject::Input(t) => Value::Tensor(Rc::clone(t)),
                SavedObject::Packed(p) => p.object().map_or(Value::None, Value::Tensor),
                SavedObject::Output(w) => {
                    let copy = Value::tensor(s.tensor.clone(), "saved", None);
                    if let Value::Tensor(c) = &copy {
                        let grad_fn = w
                            .upgrade()
                            .and_then(|t| t.borrow().grad_fn.clone())
                            .or_else(|| Some(Rc::clone(node)));
                        c.borrow_mut().grad_fn = grad_fn;
                    }
                    copy
                }
            };
            out.push(value);
        }
        Ok(Value::Tuple(out))
    }
}

/// An argument of `apply` as the node keeps it: a tensor (tracked when it requires grad;
/// one of `dirty` with a history as an object of its own on that history), or nothing for
/// another value (it gets no gradient and no `next_functions` entry).
fn custom_operand(v: &Value, dirty: &[TensorRef]) -> Operand {
    match v {
        Value::Tensor(t) => {
            let object = t.borrow();
            let before = match &object.grad_fn {
                Some(history) if dirty.iter().any(|d| Rc::ptr_eq(d, t)) => {
                    match Value::tensor(object.tensor.clone(), "inplace", None) {
                        Value::Tensor(b) => {
                            b.borrow_mut().grad_fn = Some(Rc::clone(history));
                            b
                        }
                        _ => Rc::clone(t),
                    }
                }
                _ => Rc::clone(t),
            };
            Operand {
                tracked: tracks_grad(&object).then_some(before),
                saved: Saved::Missing,
                shape: object.tensor.shape().to_vec(),
                dtype: Some(object.tensor.dtype),
            }
        }
        _ => Operand {
            tracked: None,
            saved: Saved::Missing,
            shape: vec![],
            dtype: None,
        },
    }
}

/// The arguments of `apply` bound to `forward`'s parameters with their defaults (PyTorch's
/// `bind_default_args`, `inspect.signature(forward).bind`, when `setup_context` is defined):
/// the inputs `setup_context` sees, or `inspect`'s error.
fn bind_defaults(forward: &Value, pos: &[Value], kw: &[(String, Value)]) -> R<Vec<Value>> {
    let Value::Function(f) = forward else {
        return Ok(pos.to_vec());
    };
    let params = &f.def.params;
    let varargs = f.def.star.as_deref().is_some_and(|s| !s.is_empty());
    if pos.len() > params.len() && !varargs {
        return Err(ScriptError::Type("too many positional arguments".into()));
    }
    if f.def.double_star.is_none() {
        if let Some((k, _)) = kw.iter().find(|(k, _)| !params.iter().any(|(p, _)| p == k)) {
            return Err(ScriptError::Type(format!(
                "got an unexpected keyword argument '{k}'"
            )));
        }
    }
    let mut out = pos.to_vec();
    for (i, (name, _)) in params.iter().enumerate().skip(pos.len()) {
        let given = kw.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        match given.or_else(|| f.defaults.get(i).cloned().flatten()) {
            Some(v) => out.push(v),
            None => {
                return Err(ScriptError::Type(format!(
                    "missing a required argument: '{name}'"
                )))
            }
        }
    }
    Ok(out)
}

/// An error of binding `apply`'s keywords to `forward` names it `forward()`, as PyTorch's
/// call from C does.
fn forward_binding_error(forward: &Value, e: ScriptError) -> ScriptError {
    let (Value::Function(f), ScriptError::Type(message)) = (forward, &e) else {
        return e;
    };
    let prefix = format!("{}() got ", f.qualname);
    match message.strip_prefix(&prefix) {
        Some(rest)
            if rest.starts_with("an unexpected keyword argument")
                || rest.starts_with("multiple values") =>
        {
            ScriptError::Type(format!("forward() got {rest}"))
        }
        _ => e,
    }
}
