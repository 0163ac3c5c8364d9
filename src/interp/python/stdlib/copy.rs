//! `copy.copy` and `copy.deepcopy` as PyTorch's objects answer them.
//!
//! A tensor's `__deepcopy__` copies its whole storage (a view of 2 elements of a 6-element
//! storage gets a new 6-element storage, with the same offset and strides), keeps
//! `requires_grad` and deep-copies `.grad`; tensors sharing a storage share the new one
//! (the memo is keyed by storage), and only leaves may be deep-copied. A parameter's
//! `__deepcopy__` is `Parameter(self.data.clone(), self.requires_grad)` instead: a storage
//! of its own elements, no gradient. A module (or any script object) is a new instance whose
//! attributes, parameters, buffers and submodules are deep copies, shared ones shared.
//! `copy.copy` of a tensor is a new tensor object on the same storage.

use std::collections::HashMap;
use std::rc::Rc;

use crate::core::tensor::{Layout, ScriptError, StorageId, Tensor};
use crate::interp::torch::nn::module::ModuleState;
use crate::interp::value::{Instance, TensorObject, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// What `deepcopy` copied so far: storages, tensor objects and instances.
#[derive(Default)]
struct Memo {
    storages: HashMap<StorageId, StorageId>,
    tensors: HashMap<*const std::cell::RefCell<TensorObject>, TensorRef>,
    instances: HashMap<*const Instance, Rc<Instance>>,
}

/// PyTorch's refusal to deep-copy a tensor that an op made.
const NON_LEAF: &str = "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001";

impl Evaluator {
    /// `copy.copy(x)` / `copy.deepcopy(x)`.
    pub(super) fn call_copy(&mut self, name: &str, pos: &[Value]) -> R<Value> {
        let Some(x) = pos.first() else {
            return Err(ScriptError::Type(format!(
                "{name}() missing 1 required positional argument: 'x'"
            )));
        };
        if name == "deepcopy" {
            return self.deep_copy(x, &mut Memo::default());
        }
        Ok(match x {
            Value::Tensor(t) => Value::Tensor(TensorObject::new_ref(t.borrow().clone())),
            Value::Instance(object) => {
                if object.module.borrow().is_some() {
                    return Err(ScriptError::NotImplemented(
                        "copy.copy of an nn.Module is not supported by Stridescope (copy.deepcopy is)"
                            .into(),
                    ));
                }
                Value::Instance(Rc::new(Instance {
                    class: Rc::clone(&object.class),
                    attrs: std::cell::RefCell::new(object.attrs.borrow().clone()),
                    module: std::cell::RefCell::new(None),
                }))
            }
            // Lists and dicts are values here: a copy is the same items.
            other => other.clone(),
        })
    }

    fn deep_copy(&mut self, x: &Value, memo: &mut Memo) -> R<Value> {
        Ok(match x {
            Value::List(items) => Value::List(self.deep_copy_all(items, memo)?),
            Value::Tuple(items) => Value::Tuple(self.deep_copy_all(items, memo)?),
            Value::Dict(entries) | Value::OrderedDict(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    out.push((self.deep_copy(k, memo)?, self.deep_copy(v, memo)?));
                }
                if matches!(x, Value::Dict(_)) {
                    Value::Dict(out)
                } else {
                    Value::OrderedDict(out)
                }
            }
            Value::NamedTuple(name, fields) => {
                let mut out = Vec::with_capacity(fields.len());
                for (k, v) in fields {
                    out.push((k.clone(), self.deep_copy(v, memo)?));
                }
                Value::NamedTuple(name.clone(), out)
            }
            Value::Tensor(t) => Value::Tensor(self.deep_copy_tensor(t, memo)?),
            Value::Instance(object) => Value::Instance(self.deep_copy_instance(object, memo)?),
            Value::NdArray(_) | Value::Storage(..) => {
                return Err(ScriptError::NotImplemented(format!(
                    "copy.deepcopy of a {} is not supported by Stridescope",
                    x.type_name()
                )))
            }
            // Numbers, strings, functions, classes, modules, dtypes: atomic.
            other => other.clone(),
        })
    }

    fn deep_copy_all(&mut self, items: &[Value], memo: &mut Memo) -> R<Vec<Value>> {
        items.iter().map(|v| self.deep_copy(v, memo)).collect()
    }

    fn deep_copy_tensor(&mut self, t: &TensorRef, memo: &mut Memo) -> R<TensorRef> {
        if let Some(done) = memo.tensors.get(&Rc::as_ptr(t)) {
            return Ok(Rc::clone(done));
        }
        let object = t.borrow().clone();
        if object.grad_fn.is_some() {
            return Err(ScriptError::Runtime(NON_LEAF.into()));
        }
        let src = object.tensor.clone();
        let (tensor, grad) = if object.is_parameter {
            // `Parameter.__deepcopy__`: `self.data.clone()`, no gradient.
            let nbytes = src.numel() as usize * src.dtype.item_size();
            let id = self.allocate(nbytes, src.dtype, "deepcopy")?;
            let dst = Tensor {
                storage: id,
                dtype: src.dtype,
                layout: Layout::contiguous(src.shape()),
            };
            self.engine.copy(&dst, &src);
            (dst, None)
        } else {
            let id = match memo.storages.get(&src.storage) {
                Some(id) => *id,
                None => {
                    let id = self.copy_storage(src.storage, &src)?;
                    memo.storages.insert(src.storage, id);
                    id
                }
            };
            let grad = match &object.grad {
                Some(g) => Some(self.deep_copy_tensor(g, memo)?),
                None => None,
            };
            (
                Tensor {
                    storage: id,
                    dtype: src.dtype,
                    layout: src.layout.clone(),
                },
                grad,
            )
        };
        let copied = TensorObject::new_ref(TensorObject {
            tensor,
            made_by: "deepcopy".into(),
            copied_from: Some(src.storage),
            requires_grad: object.requires_grad,
            grad_fn: None,
            grad,
            is_parameter: object.is_parameter,
            view_of: None,
        });
        memo.tensors.insert(Rc::as_ptr(t), Rc::clone(&copied));
        Ok(copied)
    }

    /// A new storage holding a copy of `id`'s bytes (`UntypedStorage.__deepcopy__`).
    fn copy_storage(&mut self, id: StorageId, view: &Tensor) -> R<StorageId> {
        let bytes = self.engine.read_storage(id);
        self.allocate_with(bytes, view.dtype, "deepcopy")
    }

    fn deep_copy_instance(&mut self, object: &Rc<Instance>, memo: &mut Memo) -> R<Rc<Instance>> {
        if let Some(done) = memo.instances.get(&Rc::as_ptr(object)) {
            return Ok(Rc::clone(done));
        }
        let copied = Rc::new(Instance {
            class: Rc::clone(&object.class),
            attrs: std::cell::RefCell::new(Vec::new()),
            module: std::cell::RefCell::new(None),
        });
        memo.instances
            .insert(Rc::as_ptr(object), Rc::clone(&copied));
        let attrs = object.attrs.borrow().clone();
        let mut new_attrs = Vec::with_capacity(attrs.len());
        for (k, v) in attrs {
            new_attrs.push((k, self.deep_copy(&v, memo)?));
        }
        *copied.attrs.borrow_mut() = new_attrs;
        let state = object.module.borrow().as_ref().map(|s| {
            (
                s.training,
                s.parameters.clone(),
                s.buffers.clone(),
                s.non_persistent.clone(),
                s.modules.clone(),
            )
        });
        if let Some((training, parameters, buffers, non_persistent, modules)) = state {
            let mut new_state = ModuleState {
                training,
                non_persistent,
                ..ModuleState::default()
            };
            for (k, p) in parameters {
                let p = p.map(|p| self.deep_copy_tensor(&p, memo)).transpose()?;
                new_state.parameters.push((k, p));
            }
            for (k, b) in buffers {
                let b = b.map(|b| self.deep_copy_tensor(&b, memo)).transpose()?;
                new_state.buffers.push((k, b));
            }
            for (k, m) in modules {
                let m = m.map(|m| self.deep_copy_instance(&m, memo)).transpose()?;
                new_state.modules.push((k, m));
            }
            *copied.module.borrow_mut() = Some(new_state);
        }
        Ok(copied)
    }
}
