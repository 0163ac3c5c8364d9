//! Where gradients add up: the engine's input buffers (`InputBuffer::accumulate`: a second
//! gradient for the same input is added in place when nothing else can see the first) and
//! the leaves' `AccumulateGrad` (a first gradient taken as it is when it obeys the leaf's
//! layout, else copied; later ones added in place).

use std::collections::HashMap;
use std::rc::Rc;

use crate::interp::torch::autograd::backward::{renamed, target_of};
use crate::interp::torch::autograd::custom_function::output_nr;
use crate::interp::torch::autograd::GradNode;
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

impl Evaluator {
    /// Adds each of `node`'s input gradients to what the input's item has.
    pub(super) fn deliver(
        &mut self,
        node: &GradNode,
        grads: Vec<Option<Value>>,
        children: &[usize],
        pending: &mut HashMap<(usize, usize), Value>,
    ) -> R<()> {
        let tracked = node.operands.iter().zip(grads).filter_map(|(o, g)| {
            o.tracked.as_ref()?;
            Some(g)
        });
        // `children` has one key per tracked operand that reaches a node or a leaf.
        let mut keys = children.iter();
        for (operand, g) in node
            .operands
            .iter()
            .filter(|o| o.tracked.is_some())
            .zip(tracked)
        {
            let Some(t) = &operand.tracked else {
                continue;
            };
            if target_of(t).is_none() {
                continue;
            }
            let Some(&k) = keys.next() else {
                break;
            };
            let Some(g) = g else {
                continue;
            };
            let slot = (k, output_nr(t));
            let sum = match pending.remove(&slot) {
                Some(before) if self.can_accumulate_in_place(&before, &g) => {
                    self.method(before.clone(), "add_", vec![g])?;
                    before
                }
                Some(before) => self.binary(BinOp::Add, before, g)?,
                None => g,
            };
            pending.insert(slot, sum);
        }
        Ok(())
    }

    /// `InputBuffer::accumulate`'s test for adding a second gradient into the first in
    /// place: grad mode off (no `create_graph`), the buffer's only reference to a dense,
    /// non-overlapping tensor, not a view, whose storage no other tensor shares, of the same shape and
    /// dtype as what is added.
    fn can_accumulate_in_place(&self, before: &Value, g: &Value) -> bool {
        let (Value::Tensor(b), Value::Tensor(n)) = (before, g) else {
            return false;
        };
        if self.torch.grad_enabled
            || Rc::strong_count(b) != 1
            || crate::interp::torch::autograd::view_base::is_view(b)
        {
            return false;
        }
        let (Ok(b), Ok(n)) = (b.try_borrow(), n.try_borrow()) else {
            return false;
        };
        // A view keeps its base alive (PyTorch's view metadata holds it): two tensors on
        // the storage.
        b.view_of.is_none()
            && b.tensor.layout.is_non_overlapping_and_dense()
            && b.tensor.shape() == n.tensor.shape()
            && b.tensor.dtype == n.tensor.dtype
            && crate::interp::runtime::accounting::objects_on(b.tensor.storage) == 1
    }

    /// Adds `grad` into `leaf.grad` (in place, as AccumulateGrad does; out of place with
    /// `create_graph`), or makes it the leaf's gradient: a dense copy in the leaf's dtype.
    pub(crate) fn accumulate(
        &mut self,
        leaf: &TensorRef,
        grad: Value,
        create_graph: bool,
    ) -> R<()> {
        let existing = leaf.borrow().grad.clone();
        match existing {
            Some(g) if create_graph => {
                if let Value::Tensor(sum) = self.binary(BinOp::Add, Value::Tensor(g), grad)? {
                    leaf.borrow_mut().grad = Some(sum);
                }
            }
            Some(g) => {
                self.method(Value::Tensor(g), "add_", vec![grad])?;
            }
            None if steals(leaf, &grad) => {
                // AccumulateGrad takes a gradient nothing else holds, in the leaf's layout,
                // as it is (no copy).
                if let Value::Tensor(g) = grad {
                    g.borrow_mut().made_by = "grad".into();
                    leaf.borrow_mut().grad = Some(g);
                }
            }
            None if dense_not_contiguous(leaf, &grad) => {
                // `clone_obey_contract`: a channels-last (or otherwise permuted) dense leaf
                // gets its gradient copied into its own strides.
                let (shape, strides, dtype) = {
                    let l = leaf.borrow();
                    let layout = &l.tensor.layout;
                    (layout.shape.clone(), layout.strides.clone(), l.tensor.dtype)
                };
                let t = self.empty_strided(&shape, &strides, dtype, "grad")?;
                let copy = Value::tensor(t, "grad", None);
                self.method(copy.clone(), "copy_", vec![grad])?;
                if let Value::Tensor(g) = copy {
                    leaf.borrow_mut().grad = Some(g);
                }
            }
            None => {
                let dtype = leaf.borrow().tensor.dtype;
                let copy = self.method(grad, "clone", vec![])?;
                let copy = self.method(copy, "contiguous", vec![])?;
                let copy = self.grad_in_dtype(copy, dtype)?;
                if let Value::Tensor(g) = copy {
                    let renamed = g.borrow().grad_fn.as_ref().map(copy_backwards);
                    let mut object = g.borrow_mut();
                    object.made_by = "grad".into();
                    if let Some(node) = renamed {
                        object.grad_fn = Some(node);
                    }
                    drop(object);
                    leaf.borrow_mut().grad = Some(g);
                }
            }
        }
        Ok(())
    }
}

/// Whether a leaf's first gradient (outside any graph) is copied into the leaf's strides:
/// the leaf is dense but not contiguous (channels-last), and the gradient's strides differ.
fn dense_not_contiguous(leaf: &TensorRef, grad: &Value) -> bool {
    let Value::Tensor(g) = grad else {
        return false;
    };
    let (Ok(g), Ok(leaf)) = (g.try_borrow(), leaf.try_borrow()) else {
        return false;
    };
    let layout = &leaf.tensor.layout;
    g.grad_fn.is_none()
        && !layout.is_contiguous()
        && layout.is_non_overlapping_and_dense()
        && g.tensor.layout.shape == layout.shape
}

/// Whether AccumulateGrad takes `grad` as the leaf's first gradient without a copy: a
/// tensor only the engine holds, outside any graph, of the leaf's dtype and layout, alone
/// on its storage (`obeys_layout_contract` in ATen's `accumulate_grad.h`).
fn steals(leaf: &TensorRef, grad: &Value) -> bool {
    let Value::Tensor(g) = grad else {
        return false;
    };
    if Rc::strong_count(g) != 1 || Rc::ptr_eq(g, leaf) {
        return false;
    }
    let (Ok(g), Ok(leaf)) = (g.try_borrow(), leaf.try_borrow()) else {
        return false;
    };
    g.grad_fn.is_none()
        && !g.requires_grad
        && g.tensor.dtype == leaf.tensor.dtype
        && g.tensor.layout.shape == leaf.tensor.layout.shape
        && g.tensor.layout.strides == leaf.tensor.layout.strides
        && g.tensor.layout.offset == 0
        && (g.tensor.layout.is_contiguous() || g.tensor.layout.is_non_overlapping_and_dense())
}

/// The node of a leaf's first gradient under `create_graph`: PyTorch's `CopyBackwards`.
fn copy_backwards(node: &Rc<GradNode>) -> Rc<GradNode> {
    renamed(node, "CopyBackwards")
}
