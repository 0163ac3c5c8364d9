//! Names: the script's globals and the locals of the functions running now. Binding and
//! looking up a name happen here; what a name means when it is bound nowhere (`torch`, a
//! builtin, an exception class) is Python's business (`python::expressions`).

use crate::core::tensor::StorageId;
use crate::interp::value::{TensorObject, Value};
use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// A tensor object a name held before a statement ran, without keeping it alive (a loop
/// that rebinds the name frees the old tensor then, as Python does), and its storage.
#[derive(Clone, Debug)]
pub(crate) struct BoundTensor {
    object: Weak<RefCell<TensorObject>>,
    /// The storage it viewed.
    pub storage: StorageId,
}

impl BoundTensor {
    /// Whether `t` is the same tensor object.
    pub(crate) fn is(&self, t: &Rc<RefCell<TensorObject>>) -> bool {
        std::ptr::eq(self.object.as_ptr(), Rc::as_ptr(t))
    }
}

/// The variables of a script: globals in first-assignment order, and a frame of locals per
/// running function call, innermost last.
#[derive(Default)]
pub(crate) struct Scope {
    /// Variables in first-assignment order.
    globals: Vec<(String, Value)>,
    /// The locals of the functions running now, innermost last.
    frames: Vec<Vec<(String, Value)>>,
}

impl Scope {
    /// The global variables, in first-assignment order (what memory's reachability walk
    /// starts from, and what the trace shows).
    pub(crate) fn globals(&self) -> &[(String, Value)] {
        &self.globals
    }

    /// Every value a name holds now: the globals and the locals of every running call.
    pub(crate) fn all_values(&self) -> impl Iterator<Item = &Value> {
        self.globals
            .iter()
            .chain(self.frames.iter().flatten())
            .map(|(_, v)| v)
    }

    /// Every local of every running call, by name (innermost frames last).
    pub(crate) fn frame_values(&self) -> Vec<(String, Value)> {
        self.frames.iter().flatten().cloned().collect()
    }

    /// A global's value (ignoring the running function's locals).
    pub(crate) fn global(&self, name: &str) -> Option<&Value> {
        self.globals.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// A name's value: the running function's locals, then the globals.
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        let locals = self.frames.last().map_or(&[][..], Vec::as_slice);
        locals
            .iter()
            .chain(&self.globals)
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// The running function's locals (empty outside functions).
    pub(crate) fn frame_locals(&self) -> Vec<(String, Value)> {
        self.frames.last().cloned().unwrap_or_default()
    }

    /// Binds `name` in the running function's locals, or globally outside functions.
    pub(crate) fn bind(&mut self, name: &str, value: Value) {
        let scope = self.frames.last_mut().unwrap_or(&mut self.globals);
        if let Some(slot) = scope.iter_mut().find(|(n, _)| n == name) {
            slot.1 = value;
        } else {
            scope.push((name.to_string(), value));
        }
    }

    /// Stores a changed value (a list changed in place) where `name` is bound now: the
    /// running function's locals, else the globals.
    pub(crate) fn rebind(&mut self, name: &str, value: Value) {
        let in_frame = self
            .frames
            .last()
            .is_some_and(|f| f.iter().any(|(n, _)| n == name));
        let scope = match self.frames.last_mut() {
            Some(frame) if in_frame => frame,
            _ if self.globals.iter().any(|(n, _)| n == name) => &mut self.globals,
            Some(frame) => frame,
            None => &mut self.globals,
        };
        match scope.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => scope.push((name.to_string(), value)),
        }
    }

    /// Removes `name` from the scope [`Scope::bind`] writes to; whether it was bound there.
    pub(crate) fn unbind(&mut self, name: &str) -> bool {
        let scope = self.frames.last_mut().unwrap_or(&mut self.globals);
        let Some(i) = scope.iter().position(|(n, _)| n == name) else {
            return false;
        };
        scope.remove(i);
        true
    }

    /// How many function calls are running.
    pub(crate) fn depth(&self) -> usize {
        self.frames.len()
    }

    /// Enters a function call with its bound arguments as locals.
    pub(crate) fn push_frame(&mut self, locals: Vec<(String, Value)>) {
        self.frames.push(locals);
    }

    /// Leaves the innermost function call (or class body), returning its locals.
    pub(crate) fn pop_frame(&mut self) -> Vec<(String, Value)> {
        self.frames.pop().unwrap_or_default()
    }

    /// Every global with the tensor object it holds (for telling new bindings apart).
    pub(crate) fn tensor_bindings(&self) -> Vec<(String, Option<BoundTensor>)> {
        self.globals
            .iter()
            .map(|(n, v)| {
                (
                    n.clone(),
                    match v {
                        Value::Tensor(t) => Some(BoundTensor {
                            object: Rc::downgrade(t),
                            storage: t.borrow().tensor.storage,
                        }),
                        _ => None,
                    },
                )
            })
            .collect()
    }
}
