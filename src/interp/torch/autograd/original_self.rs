//! In-place ops whose derivative reads the values they overwrite (`x.sin_()`, `x.mul_(w)`,
//! `x.clamp_(min=0)`): autograd saves a clone of the tensor from before the write, made
//! before the op runs and only when a gradient that reads it will be computed (the
//! `original_self` of PyTorch's generated `VariableType` code; `_saved_self` is that clone,
//! with a `CloneBackward0` node). The clone is an allocation of its own: it counts in the
//! step's peak and, while the node lives, in live memory.

use std::rc::{Rc, Weak};

use crate::interp::torch::autograd::{value_tracks_grad, Grad};
use crate::interp::value::{TensorObject, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// A clone of an in-place op's target, made before the op wrote: the target (weakly) and
/// the clone.
pub(crate) type OriginalSelf = (Weak<std::cell::RefCell<TensorObject>>, TensorRef);

/// Whether in-place op `name` keeps its target's values from before the write, given which
/// of its tensor inputs require grad (`tracked[0]` the target): its derivative reads `self`
/// (`derivatives.yaml`), for a gradient that will be computed.
fn keeps_original_self(name: &str, tracked: &[bool]) -> bool {
    let input = |i: usize| tracked.get(i).copied().unwrap_or(false);
    let any = tracked.iter().any(|&t| t);
    match name.trim_end_matches('_') {
        // `self` is read only by the other operand's gradient.
        "mul" | "multiply" | "div" | "divide" | "true_divide" => input(1),
        // Only a tensor weight's gradient reads `self` (`end - self`).
        "lerp" => input(2),
        "abs" | "absolute" | "log" | "log2" | "log10" | "log1p" | "sin" | "cos" | "sinh"
        | "cosh" | "asin" | "arcsin" | "acos" | "arccos" | "atan" | "arctan" | "erf" | "sgn"
        | "clamp" | "clip" | "clamp_min" | "clamp_max" | "pow" | "square" | "atan2" | "arctan2"
        | "hypot" | "xlogy" | "lgamma" | "digamma" | "erfinv" | "threshold" => any,
        _ => false,
    }
}

impl Evaluator {
    /// Before in-place op `name` (its table entry's `grad`) runs on `inputs` (the target
    /// first): clones the target when the op's node will keep its original values.
    pub(crate) fn clone_original_self(
        &mut self,
        name: &str,
        grad: &Grad,
        inputs: &[&Value],
    ) -> R<()> {
        self.torch.autograd.original_self = None;
        if !self.torch.grad_enabled || !grad.tracked || !name.ends_with('_') {
            return Ok(());
        }
        let Some(Value::Tensor(target)) = inputs.first() else {
            return Ok(());
        };
        let differentiable = target.try_borrow().is_ok_and(|t| {
            let dtype = t.tensor.dtype;
            dtype.is_floating() || dtype.is_complex()
        });
        let tracked: Vec<bool> = inputs.iter().map(|v| value_tracks_grad(v)).collect();
        if !differentiable || !keeps_original_self(name, &tracked) {
            return Ok(());
        }
        let method = Value::Method(Box::new(Value::Tensor(Rc::clone(target))), "clone".into());
        if let Value::Tensor(clone) = self.call(method, vec![], vec![])? {
            self.torch.autograd.original_self = Some((Rc::downgrade(target), clone));
        }
        Ok(())
    }

    /// The clone [`Evaluator::clone_original_self`] made of `target`, taken (once).
    pub(crate) fn take_original_self(&mut self, target: &TensorRef) -> Option<TensorRef> {
        let (made_for, clone) = self.torch.autograd.original_self.take()?;
        std::ptr::eq(made_for.as_ptr(), Rc::as_ptr(target)).then_some(clone)
    }
}

#[cfg(test)]
mod tests {
    use super::keeps_original_self;

    #[test]
    fn only_a_gradient_that_reads_self_keeps_it() {
        // `x.mul_(w)` keeps `x` for `w`'s gradient; `x.mul_(c)` by a constant keeps nothing.
        assert!(keeps_original_self("mul_", &[true, true]));
        assert!(keeps_original_self("mul_", &[false, true]));
        assert!(!keeps_original_self("mul_", &[true, false]));
        assert!(keeps_original_self("sin_", &[true]));
        assert!(keeps_original_self("clamp_", &[true]));
        // Those that read their result keep no clone.
        assert!(!keeps_original_self("exp_", &[true]));
        assert!(!keeps_original_self("sigmoid_", &[true]));
        assert!(!keeps_original_self("add_", &[true, true]));
        assert!(!keeps_original_self("lerp_", &[true, true]));
        assert!(keeps_original_self("lerp_", &[true, true, true]));
    }
}
