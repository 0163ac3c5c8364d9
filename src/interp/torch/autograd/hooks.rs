//! What autograd remembers of tensor objects beside the tensors themselves: the hooks a
//! script registered (`t.register_hook(fn)`, removed through their `RemovableHandle`),
//! which non-leaf tensors retain their gradient (`t.retain_grad()`), and the order nodes
//! were made in. The table is keyed by the tensor object and holds it weakly, so an entry
//! lives as long as its tensor.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use crate::interp::value::{TensorObject, TensorRef, Value};

/// The hooks and the `retain_grad()` flag of one tensor object.
#[derive(Debug, Default)]
pub(crate) struct TensorHooks {
    /// The hooks in registration order, each with its handle's id.
    pub(crate) hooks: Vec<(u64, Value)>,
    /// `t.retain_grad()` was called on this non-leaf tensor.
    pub(crate) retains_grad: bool,
}

/// Autograd's state between statements (part of [`crate::interp::torch::state::TorchState`]).
#[derive(Debug, Default)]
pub(crate) struct AutogradState {
    /// Per tensor object: its hooks and flags (objects without any have no entry).
    tensors: Vec<(Weak<RefCell<TensorObject>>, TensorHooks)>,
    /// The next hook handle's id.
    next_hook: u64,
    /// The next node's sequence number.
    next_seq: Cell<u64>,
    /// Whether `torch.inference_mode()` is on.
    pub(crate) inference: bool,
    /// The `saved_tensors_hooks` managers entered, innermost last: (pack, unpack).
    pub(crate) saved_hooks: Vec<(Value, Value)>,
    /// The tensors `x.data` made, each with its own version counter (their in-place writes
    /// do not count for `x`).
    data_aliases: Vec<(Weak<RefCell<TensorObject>>, u64)>,
    /// An in-place op through a `x.data` tensor running now: its storage and the storage's
    /// version before it.
    pub(crate) data_write: Option<(crate::core::tensor::StorageId, u64)>,
    /// Whether the script turned grad mode off (`torch.no_grad()`, `set_grad_enabled(False)`,
    /// `inference_mode()`): unlike the evaluator's own layers, which turn it off while they
    /// compute, this decides whether a view counts as made under `no_grad`.
    pub(crate) script_no_grad: bool,
    /// The next table op or indexing is one the script wrote (a call or subscript in its
    /// code), not one the evaluator's own layers run: only those make views autograd tracks
    /// and are checked as writes through views (taken by the op).
    pub(crate) from_script: bool,
    /// The clone of an in-place op's target made before it wrote, for its node
    /// ([`super::original_self`]).
    pub(crate) original_self: Option<super::original_self::OriginalSelf>,
    /// The storages made in inference mode: their tensors are inference tensors.
    inference_storages: std::collections::BTreeSet<crate::core::tensor::StorageId>,
}

impl AutogradState {
    /// Notes a new storage: made in inference mode, its tensors are inference tensors.
    pub(crate) fn note_storage(&mut self, id: crate::core::tensor::StorageId) {
        if self.inference {
            self.inference_storages.insert(id);
        } else {
            self.inference_storages.remove(&id);
        }
    }

    /// Whether tensors on storage `id` are inference tensors (`t.is_inference()`).
    pub(crate) fn is_inference(&self, id: crate::core::tensor::StorageId) -> bool {
        self.inference_storages.contains(&id)
    }

    /// The sequence number of the newest node so far.
    pub(crate) fn current_seq(&self) -> u64 {
        self.next_seq.get()
    }

    /// The sequence number the last node made got.
    pub(crate) fn peek_seq(&self) -> u64 {
        self.next_seq.get()
    }

    /// A new node's sequence number (later nodes run first among the ready ones).
    pub(crate) fn next_seq(&self) -> u64 {
        let n = self.next_seq.get() + 1;
        self.next_seq.set(n);
        n
    }

    /// The entry of tensor `t`, if it has one.
    pub(crate) fn get(&self, t: &TensorRef) -> Option<&TensorHooks> {
        self.tensors
            .iter()
            .find(|(w, _)| std::ptr::eq(w.as_ptr(), Rc::as_ptr(t)))
            .map(|(_, h)| h)
    }

    /// The entry of tensor `t`, made if it has none (entries of dropped tensors go).
    fn entry(&mut self, t: &TensorRef) -> &mut TensorHooks {
        self.tensors.retain(|(w, _)| w.strong_count() > 0);
        let at = match self
            .tensors
            .iter()
            .position(|(w, _)| std::ptr::eq(w.as_ptr(), Rc::as_ptr(t)))
        {
            Some(at) => at,
            None => {
                self.tensors
                    .push((Rc::downgrade(t), TensorHooks::default()));
                self.tensors.len() - 1
            }
        };
        &mut self.tensors[at].1
    }

    /// Registers `t`, made by `x.data` (or an `unsafe_split` part), with a version counter of
    /// its own.
    pub(crate) fn note_data_alias(&mut self, t: &TensorRef) {
        self.data_aliases.retain(|(w, _)| w.strong_count() > 0);
        self.data_aliases.push((Rc::downgrade(t), 0));
    }

    /// The version counter of `t` when `x.data` made it.
    pub(crate) fn data_alias(&mut self, t: &TensorRef) -> Option<&mut u64> {
        self.data_aliases
            .iter_mut()
            .find(|(w, _)| std::ptr::eq(w.as_ptr(), Rc::as_ptr(t)))
            .map(|(_, v)| v)
    }

    /// Registers `hook` on `t`; returns its handle's id.
    pub(crate) fn add_hook(&mut self, t: &TensorRef, hook: Value) -> u64 {
        self.next_hook += 1;
        let id = self.next_hook;
        self.entry(t).hooks.push((id, hook));
        id
    }

    /// Removes the hook of handle `id` (nothing when already removed).
    pub(crate) fn remove_hook(&mut self, id: u64) {
        for (_, entry) in &mut self.tensors {
            entry.hooks.retain(|(h, _)| *h != id);
        }
    }

    /// Marks non-leaf `t` as retaining its gradient.
    pub(crate) fn retain_grad(&mut self, t: &TensorRef) {
        self.entry(t).retains_grad = true;
    }

    /// The hooks of `t`, in order.
    pub(crate) fn hooks_of(&self, t: &TensorRef) -> Vec<Value> {
        self.get(t)
            .map(|e| e.hooks.iter().map(|(_, h)| h.clone()).collect())
            .unwrap_or_default()
    }

    /// Whether `t.retain_grad()` was called.
    pub(crate) fn retains_grad(&self, t: &TensorRef) -> bool {
        self.get(t).is_some_and(|e| e.retains_grad)
    }
}
