//! `torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook)` and
//! `save_on_cpu(pin_memory=False, device_type='cuda')`: context managers under which every
//! tensor a node saves for backward goes through `pack_hook` once its node is made (the
//! node keeps what it returns, not the tensor) and `unpack_hook` each time backward,
//! `grad_fn._saved_x` or `ctx.saved_tensors` reads it. The innermost manager applies;
//! `save_on_cpu` keeps a CPU tensor as it is. What `unpack_hook` returns must be a tensor;
//! it comes back as a new tensor on its storage with the saved tensor's autograd identity
//! (`requires_grad` of a leaf, the `grad_fn` of a non-leaf or of the node's own output).

use std::cell::RefCell;
use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::python::statements::Flow;
use crate::interp::torch::autograd::{GradNode, Saved, SavedObject, SavedTensor};
use crate::interp::torch::nn::module::ModuleDef;
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// The managers' classes, built-in classes of `torch.autograd.graph`.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        name: "saved_tensors_hooks",
        path: "torch.autograd.graph",
        base: None,
        init: None,
        forward: None,
        extra_repr: None,
        methods: &[],
        class_methods: &[],
    },
    ModuleDef {
        name: "save_on_cpu",
        path: "torch.autograd.graph",
        base: Some("saved_tensors_hooks"),
        init: None,
        forward: None,
        extra_repr: None,
        methods: &[],
        class_methods: &[],
    },
];

/// A tensor saved under `saved_tensors_hooks`: the object it came from, its hooks, and what
/// `pack_hook` returned (once its node is made).
#[derive(Debug)]
pub(crate) struct Packed {
    /// The object it came from (never itself `Packed`).
    pub(crate) original: SavedObject,
    /// `pack_hook`, or `None` for `save_on_cpu`'s (the tensor itself).
    pub(crate) pack: Value,
    /// `unpack_hook`, or `None` for `save_on_cpu`'s.
    pub(crate) unpack: Value,
    /// What `pack_hook` returned.
    pub(crate) value: RefCell<Option<Value>>,
}

impl Packed {
    /// The object the tensor came from, when it is still there.
    pub(crate) fn object(&self) -> Option<crate::interp::value::TensorRef> {
        match &self.original {
            SavedObject::Input(t) => Some(Rc::clone(t)),
            SavedObject::Output(w) => w.upgrade(),
            SavedObject::Packed(p) => p.object(),
        }
    }
}

impl Evaluator {
    /// `saved_tensors_hooks(pack_hook, unpack_hook)` or `save_on_cpu(...)`: the manager.
    pub(crate) fn saved_hooks_manager(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let (params, hooks): (&[&str], bool) = match name {
            "saved_tensors_hooks" => (&["pack_hook", "unpack_hook"], true),
            _ => (&["pin_memory", "device_type"], false),
        };
        if pos.len() > params.len() {
            return Err(ScriptError::Type(format!(
                "{name}.__init__() takes from 1 to {} positional arguments but {} were given",
                params.len() + 1,
                pos.len() + 1
            )));
        }
        let mut args: Vec<(String, Value)> = params
            .iter()
            .zip(pos)
            .map(|(p, v)| (p.to_string(), v))
            .collect();
        for (k, v) in kw {
            if !params.contains(&k.as_str()) {
                return Err(ScriptError::Type(format!(
                    "{name}.__init__() got an unexpected keyword argument '{k}'"
                )));
            }
            args.push((k, v));
        }
        if hooks {
            let missing: Vec<String> = params
                .iter()
                .filter(|p| !args.iter().any(|(k, _)| k == *p))
                .map(|p| format!("'{p}'"))
                .collect();
            if !missing.is_empty() {
                return Err(ScriptError::Type(format!(
                    "saved_tensors_hooks.__init__() missing {} required positional argument{}: {}",
                    missing.len(),
                    if missing.len() == 1 { "" } else { "s" },
                    missing.join(" and ")
                )));
            }
        } else {
            args = vec![
                ("pack_hook".into(), Value::None),
                ("unpack_hook".into(), Value::None),
            ];
        }
        let Some(class) = self.nn_class(name) else {
            return Err(ScriptError::Attribute(format!(
                "module 'torch.autograd.graph' has no attribute '{name}'"
            )));
        };
        let hook = |n: &str| {
            args.iter()
                .find(|(k, _)| k == n)
                .map_or(Value::None, |(_, v)| v.clone())
        };
        let attrs = vec![
            ("pack_hook".to_string(), hook("pack_hook")),
            ("unpack_hook".to_string(), hook("unpack_hook")),
        ];
        Ok(Value::Instance(Rc::new(Instance {
            class,
            attrs: RefCell::new(attrs),
            module: RefCell::new(None),
        })))
    }

    /// `with manager:` for a saved-tensor hooks manager: the body runs with its hooks
    /// innermost (`as name` binds `None`); `None` for another manager.
    pub(crate) fn exec_with_saved_hooks(
        &mut self,
        manager: &Value,
        name: Option<&str>,
        body: &[crate::lang::ast::Statement],
    ) -> Option<R<Flow>> {
        let Value::Instance(object) = manager else {
            return None;
        };
        let native = object.class.mro().iter().find_map(|c| c.native)?;
        if native.path != "torch.autograd.graph" {
            return None;
        }
        let attr = |n: &str| {
            object
                .attrs
                .borrow()
                .iter()
                .find(|(k, _)| k == n)
                .map_or(Value::None, |(_, v)| v.clone())
        };
        let pair = (attr("pack_hook"), attr("unpack_hook"));
        if let Some(name) = name {
            self.scope.bind(name, Value::None);
        }
        self.torch.autograd.saved_hooks.push(pair);
        let result = self.exec_block(body);
        self.torch.autograd.saved_hooks.pop();
        Some(result)
    }

    /// How a tensor saved now from `object` is kept: under the innermost manager's hooks
    /// if one is on.
    pub(crate) fn with_saved_hooks(&self, object: SavedObject) -> SavedObject {
        let Some((pack, unpack)) = self.torch.autograd.saved_hooks.last().cloned() else {
            return object;
        };
        SavedObject::Packed(Rc::new(Packed {
            original: object,
            pack,
            unpack,
            value: RefCell::new(None),
        }))
    }

    /// Runs the pack hooks of what `node` saved (its operands in order, then its output),
    /// now that it is made. A pack hook runs with grad mode off and no saved-tensor hooks; an
    /// exception in one leaves the tensor saved as it is.
    pub(crate) fn pack_saved(&mut self, node: &GradNode) {
        let mut saved: Vec<&SavedTensor> = node
            .operands
            .iter()
            .filter_map(|o| match &o.saved {
                Saved::Tensor(s) => Some(s),
                _ => None,
            })
            .collect();
        if let Saved::Tensor(s) = &node.result {
            saved.push(s);
        }
        let custom = node.custom.as_ref().map(|c| c.state.borrow().saved.clone());
        let custom: Vec<SavedTensor> = custom.into_iter().flatten().flatten().collect();
        saved.extend(custom.iter());
        for s in saved {
            self.pack_one(s);
        }
    }

    /// Runs the pack hook of one saved tensor (once).
    pub(crate) fn pack_one(&mut self, s: &SavedTensor) {
        let SavedObject::Packed(p) = &s.object else {
            return;
        };
        if p.value.borrow().is_some() {
            return;
        }
        let tensor = match p.object() {
            Some(t) => Value::Tensor(t),
            None => Value::tensor(s.tensor.clone(), "saved", None),
        };
        let packed = if matches!(p.pack, Value::None) {
            tensor
        } else {
            // PyTorch packs with grad mode off.
            let hooks = std::mem::take(&mut self.torch.autograd.saved_hooks);
            let grad_mode = std::mem::replace(&mut self.torch.grad_enabled, false);
            let out = self.call(p.pack.clone(), vec![tensor.clone()], vec![]);
            self.torch.grad_enabled = grad_mode;
            self.torch.autograd.saved_hooks = hooks;
            out.unwrap_or(tensor)
        };
        *p.value.borrow_mut() = Some(packed);
    }

    /// A saved tensor read through its unpack hook (`None` when it has no hooks).
    pub(crate) fn unpack_saved(
        &mut self,
        node: Option<&Rc<GradNode>>,
        s: &SavedTensor,
    ) -> Option<R<Value>> {
        let SavedObject::Packed(p) = &s.object else {
            return None;
        };
        let packed = p.value.borrow().clone();
        let packed = packed.unwrap_or_else(|| match p.object() {
            Some(t) => Value::Tensor(t),
            None => Value::tensor(s.tensor.clone(), "saved", None),
        });
        if matches!(p.unpack, Value::None) {
            return Some(Ok(packed));
        }
        let out = match self.call(p.unpack.clone(), vec![packed], vec![]) {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        let Value::Tensor(u) = out else {
            return Some(Err(ScriptError::Type(format!(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {}",
                out.type_name()
            ))));
        };
        let copy = Value::tensor(u.borrow().tensor.clone(), "saved", None);
        if let Value::Tensor(c) = &copy {
            let (requires_grad, grad_fn) = match p.object() {
                Some(t) => {
                    let t = t.borrow();
                    (t.requires_grad, t.grad_fn.clone())
                }
                None => (false, node.cloned()),
            };
            let mut c = c.borrow_mut();
            c.requires_grad = requires_grad && grad_fn.is_none();
            c.grad_fn = grad_fn;
        }
        Some(Ok(copy))
    }
}

/// The storages a saved tensor keeps alive: what its pack hook returned, else the tensor.
pub(crate) fn saved_storages(
    s: &SavedTensor,
    live: &mut std::collections::BTreeSet<crate::core::tensor::StorageId>,
) {
    let packed = match &s.object {
        SavedObject::Packed(p) => p.value.borrow().clone(),
        _ => None,
    };
    let Some(packed) = packed else {
        live.insert(s.tensor.storage);
        return;
    };
    let mut values = vec![packed];
    while let Some(v) = values.pop() {
        match v {
            Value::Tensor(t) => {
                if let Ok(t) = t.try_borrow() {
                    live.insert(t.tensor.storage);
                }
            }
            Value::Tuple(items) | Value::List(items) => values.extend(items),
            _ => {}
        }
    }
}
