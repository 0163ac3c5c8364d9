//! `t._base`: the tensor a view was made from (the root of a chain of views), `None` for a
//! tensor that is not a view. Tensor objects keep no link to their base, so it is found the
//! way the graph and the names show it: through a view's autograd node (`ViewBackward0`'s
//! input), else among the tensors the script's names hold, the one on the same storage that
//! is not itself a view (the storage's first holder first).

use std::rc::Rc;

use crate::interp::value::{TensorRef, Value};
use crate::interp::Evaluator;

/// The ops whose result is a view of their input (`made_by`), as PyTorch's view ops list
/// them (`detach()` and `.data` share the storage but have no `_base`).
const VIEW_OPS: &[&str] = &[
    "view",
    "view_as",
    "index",
    "t",
    "T",
    "mT",
    "H",
    "mH",
    "transpose",
    "swapaxes",
    "swapdims",
    "permute",
    "movedim",
    "moveaxis",
    "unsqueeze",
    "squeeze",
    "expand",
    "expand_as",
    "narrow",
    "select",
    "split",
    "split_with_sizes",
    "chunk",
    "tensor_split",
    "unbind",
    "unfold",
    "unflatten",
    "flatten",
    "reshape",
    "reshape_as",
    "as_strided",
    "diagonal",
    "real",
    "imag",
    "view_as_real",
    "view_as_complex",
    "hsplit",
    "vsplit",
    "dsplit",
    "slice",
    "alias",
    "adjoint",
    "ravel",
];

/// The autograd nodes of view ops: their first input is what the view was made from.
const VIEW_NODES: &[&str] = &[
    "ViewBackward0",
    "TBackward0",
    "TransposeBackward0",
    "PermuteBackward0",
    "UnsqueezeBackward0",
    "SqueezeBackward0",
    "SqueezeBackward1",
    "SqueezeBackward2",
    "ExpandBackward0",
    "NarrowBackward0",
    "SelectBackward0",
    "SliceBackward0",
    "SplitBackward0",
    "SplitWithSizesBackward0",
    "UnbindBackward0",
    "UnfoldBackward0",
    "AsStridedBackward0",
    "DiagonalBackward0",
    "AliasBackward0",
    "NumpyTBackward0",
];

/// Whether `op` makes views of its input (as PyTorch's view ops).
pub(crate) fn is_view_op(op: &str) -> bool {
    VIEW_OPS.contains(&op)
}

/// Whether tensor object `t` is a view (made by a view op, on a storage it shares).
pub(crate) fn is_view(t: &TensorRef) -> bool {
    t.try_borrow()
        .is_ok_and(|o| o.copied_from.is_none() && VIEW_OPS.contains(&o.made_by.as_str()))
}

impl Evaluator {
    /// `t._base`.
    pub(crate) fn tensor_base(&self, t: &TensorRef) -> Value {
        if let Some(base) = t.try_borrow().ok().and_then(|o| o.view_of.as_ref()?.base()) {
            return Value::Tensor(base);
        }
        if !is_view(t) {
            return Value::None;
        }
        self.find_base(t, 0).map_or(Value::None, Value::Tensor)
    }

    /// The root of `t`'s chain of views, if it can be found.
    fn find_base(&self, t: &TensorRef, depth: usize) -> Option<TensorRef> {
        let storage = t.borrow().tensor.storage;
        let from_node = t.borrow().grad_fn.as_ref().and_then(|node| {
            if !VIEW_NODES.contains(&node.name()) {
                return None;
            }
            node.operands.first()?.tracked.clone()
        });
        if let Some(input) = from_node {
            if input.borrow().tensor.storage == storage && !Rc::ptr_eq(&input, t) {
                if is_view(&input) && depth < 64 {
                    return self.find_base(&input, depth + 1);
                }
                return Some(input);
            }
        }
        let candidate = |v: &Value| match v {
            Value::Tensor(c)
                if !Rc::ptr_eq(c, t)
                    && c.try_borrow().is_ok_and(|o| o.tensor.storage == storage)
                    && !is_view(c) =>
            {
                Some(Rc::clone(c))
            }
            _ => None,
        };
        let owner = self
            .memory
            .owner(storage)
            .and_then(|name| self.scope.get(name))
            .and_then(candidate);
        owner.or_else(|| {
            let mut holders: Vec<TensorRef> =
                self.scope.all_values().filter_map(candidate).collect();
            // A tensor `detach()` or `.data` made is never the base when another is there.
            holders.sort_by_key(|c| {
                let made_by = c.borrow().made_by.clone();
                u8::from(made_by == "detach" || made_by == "data")
            });
            holders.into_iter().next()
        })
    }
}
