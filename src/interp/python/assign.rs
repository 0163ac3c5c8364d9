//! Assignment to targets: a name, a tuple to unpack (with one starred target), an item of a
//! tensor, array, list or dict, and the writable attributes (`x.grad`, `x.requires_grad`, a
//! module switch).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::{Expr, ExprKind, Target};

impl Evaluator {
    /// Assigns `value` to `target`, as `target = value` does.
    pub(crate) fn assign(&mut self, target: &Target, value: Value) -> R<()> {
        match target {
            Target::Name(name) => {
                self.scope.bind(name, value);
                Ok(())
            }
            Target::Starred(inner) => self.assign(inner, value),
            Target::Tuple(targets) if targets.iter().any(|t| matches!(t, Target::Starred(_))) => {
                let mut items = self.iterate(&value)?;
                let star = targets
                    .iter()
                    .position(|t| matches!(t, Target::Starred(_)))
                    .unwrap_or(0);
                let after = targets.len() - star - 1;
                if items.len() < targets.len() - 1 {
                    return Err(ScriptError::Value(format!(
                        "not enough values to unpack (expected at least {}, got {})",
                        targets.len() - 1,
                        items.len()
                    )));
                }
                let tail = items.split_off(items.len() - after);
                let middle = items.split_off(star);
                let values = items
                    .into_iter()
                    .chain(std::iter::once(Value::List(middle)))
                    .chain(tail);
                for (t, v) in targets.iter().zip(values) {
                    self.assign(t, v)?;
                }
                Ok(())
            }
            Target::Tuple(targets) => {
                let items = self.iterate(&value)?;
                if items.len() > targets.len() {
                    return Err(ScriptError::Value(format!(
                        "too many values to unpack (expected {})",
                        targets.len()
                    )));
                }
                if items.len() < targets.len() {
                    return Err(ScriptError::Value(format!(
                        "not enough values to unpack (expected {}, got {})",
                        targets.len(),
                        items.len()
                    )));
                }
                for (t, v) in targets.iter().zip(items) {
                    self.assign(t, v)?;
                }
                Ok(())
            }
            Target::Subscript {
                object: object_expr,
                index,
            } => {
                let object = self.eval(object_expr)?;
                let index = self.eval(index)?;
                match object {
                    Value::Tensor(t) => {
                        if t.borrow().requires_grad && self.torch.grad_enabled {
                            return Err(ScriptError::Runtime(
                                "a leaf Variable that requires grad is being used in an in-place operation."
                                    .into(),
                            ));
                        }
                        // The write goes through a view the index makes (`Select` for an
                        // int), which PyTorch checks as an in-place op on a view.
                        let requires_grad =
                            crate::interp::torch::autograd::tracks_grad(&t.borrow())
                                || crate::interp::torch::autograd::value_tracks_grad(&value);
                        let through = match &index {
                            Value::Int(_) => Some("Select"),
                            Value::Slice(..) => Some("Slice"),
                            _ => None,
                        };
                        self.check_in_place_view(
                            &Value::Tensor(Rc::clone(&t)),
                            requires_grad,
                            through,
                        )?;
                        let tensor = t.borrow().tensor.clone();
                        self.set_item(&tensor, &index, &value)?;
                        let before = t.borrow().grad_fn.clone();
                        self.record_setitem_grad(&t, &index, &value);
                        let after = t.borrow().grad_fn.clone();
                        if after.is_some()
                            && !matches!((&before, &after), (Some(a), Some(b)) if Rc::ptr_eq(a, b))
                        {
                            self.rebase_view(&t);
                        }
                        Ok(())
                    }
                    Value::NdArray(a) => self.ndarray_set_item(&a, &index, &value),
                    Value::Storage(id, dtype) => self.storage_set_item(id, dtype, &index, &value),
                    Value::Instance(o) => self.instance_set_item(&o, index, value),
                    Value::List(items) => self.set_list_item(object_expr, items, &index, value),
                    Value::OrderedDict(mut entries) => {
                        crate::interp::python::dict::insert(&mut entries, index, value)?;
                        self.store_back(object_expr, Value::OrderedDict(entries))
                    }
                    Value::Dict(mut entries) => {
                        crate::interp::python::dict::insert(&mut entries, index, value)?;
                        self.store_back(object_expr, Value::Dict(entries))
                    }
                    other => Err(ScriptError::Type(format!(
                        "'{}' object does not support item assignment",
                        other.type_name()
                    ))),
                }
            }
            Target::Attribute { object, name } => {
                let object = self.eval(object)?;
                self.set_attribute(object, name, value)
            }
        }
    }

    /// `object.name = value` (also `setattr`): an instance's or a class's attribute, or
    /// one of the few writable attributes of the builtin objects.
    pub(crate) fn set_attribute(&mut self, object: Value, name: &str, value: Value) -> R<()> {
        if self.set_class_attribute(&object, name, value.clone())? {
            return Ok(());
        }
        match (&object, name) {
            (Value::Module(m), _) => self.set_module_attribute(m, name, value),
            (Value::Tensor(t), "grad") => {
                let grad = match value {
                    Value::None => None,
                    Value::Tensor(g) => Some(g),
                    other => {
                        return Err(ScriptError::Type(format!(
                            "assigned grad expected to be a Tensor or None but got grad of type {}",
                            other.type_name()
                        )))
                    }
                };
                t.borrow_mut().grad = grad;
                Ok(())
            }
            (Value::Tensor(t), "data") => self.set_data(t, value),
            (Value::Tensor(t), "requires_grad") => {
                let Value::Bool(flag) = value else {
                    return Err(ScriptError::Runtime("requires_grad must be a bool".into()));
                };
                let dtype = t.borrow().tensor.dtype;
                if flag && !(dtype.is_floating() || dtype.is_complex()) {
                    return Err(ScriptError::Runtime(
                        "only Tensors of floating point and complex dtype can require gradients"
                            .into(),
                    ));
                }
                t.borrow_mut().requires_grad = flag;
                Ok(())
            }
            _ => Err(ScriptError::Attribute(format!(
                "attribute '{}' of '{}' objects is not writable",
                name,
                match object {
                    Value::Tensor(_) => "torch._C.TensorBase".into(),
                    ref other => other.type_name(),
                }
            ))),
        }
    }

    /// `xs[i] = v` on a Python list. Lists are values here, so the changed list is stored
    /// back where it was read from: the name it is bound to (`xs[0] = 5`), or, for a nested
    /// list (`lst[0][0] = 9`), the item of the enclosing list, and so on outwards. A list
    /// that is no name's or item's (a call's result) is changed and dropped, as in Python.
    pub(crate) fn set_list_item(
        &mut self,
        object: &Expr,
        mut items: Vec<Value>,
        index: &Value,
        value: Value,
    ) -> R<()> {
        let i = match index {
            Value::Int(i) => *i,
            Value::Bool(b) => i64::from(*b),
            Value::Slice(..) => {
                return Err(ScriptError::NotImplemented(
                    "assigning to a slice of a list is not supported here".into(),
                ))
            }
            other => {
                return Err(ScriptError::Type(format!(
                    "list indices must be integers or slices, not {}",
                    other.type_name()
                )))
            }
        };
        let n = items.len() as i64;
        let at = if i < 0 { i + n } else { i };
        if at < 0 || at >= n {
            return Err(ScriptError::Index(
                "list assignment index out of range".into(),
            ));
        }
        items[at as usize] = value;
        let changed = Value::List(items);
        match &object.kind {
            ExprKind::Name(name) => {
                self.scope.rebind(name, changed);
                Ok(())
            }
            ExprKind::Subscript {
                object: outer,
                index: outer_index,
            } => {
                let container = self.eval(outer)?;
                let outer_index = self.eval(outer_index)?;
                match container {
                    Value::List(outer_items) => {
                        self.set_list_item(outer, outer_items, &outer_index, changed)
                    }
                    _ => Ok(()),
                }
            }
            ExprKind::Attribute { .. } => self.store_back(object, changed),
            _ => Ok(()),
        }
    }
}
