//! The engine's side of a custom `torch.autograd.Function`: its node gets the gradients of
//! all its outputs at once (a missing one materialized as zeros unless
//! `ctx.set_materialize_grads(False)`; `None` for an output that is not a tensor), runs the
//! script's `backward(ctx, *grads)` (its statements are sub-steps, under the grad mode of
//! the engine: on with `create_graph=True`), and checks what it returns as PyTorch's
//! `PyNode::apply` and `validate_outputs` do: one gradient per argument of `apply` (extra
//! `None`s dropped), `None` for an argument that was not a tensor, a tensor or `None`
//! otherwise, and a shape the input's can be expanded to (summed back to it) in the input's
//! dtype.

use std::rc::Rc;

use crate::core::tensor::{Scalar, ScriptError};
use crate::interp::torch::autograd::objects::FnRef;
use crate::interp::torch::autograd::GradNode;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

impl Evaluator {
    /// The gradient of each argument of `apply` (`None` where none), from `grads`: the
    /// gradients of the node's outputs as a tuple (`None` for an output none reached).
    pub(crate) fn custom_node_grads(
        &mut self,
        node: &Rc<GradNode>,
        grads: &Value,
    ) -> R<Vec<Option<Value>>> {
        let Some(custom) = node.custom.clone() else {
            return Ok(vec![]);
        };
        let grads: Vec<Value> = match grads {
            Value::Tuple(items) => items.clone(),
            other => vec![other.clone()],
        };
        let (metas, materialize) = {
            let state = custom.state.borrow();
            (state.outputs.clone(), state.materialize)
        };
        let mut args = vec![Value::GradFn(FnRef::Node(Rc::clone(node)))];
        let count = metas.len().max(grads.len());
        for i in 0..count {
            let g = grads.get(i).cloned().unwrap_or(Value::None);
            let meta = metas.get(i).cloned().flatten();
            args.push(match (g, meta) {
                (Value::None, Some(m)) if materialize => {
                    let zero = m.dtype.round(Scalar::Float(0.0));
                    let t = self.full(&m.shape, zero, m.dtype, "backward")?;
                    Value::tensor(t, "backward", None)
                }
                (g, _) => g,
            });
        }
        let backward = match self.class_attribute(&custom.class, "backward") {
            Ok(f) => f,
            Err(ScriptError::Attribute(_)) => {
                return Err(ScriptError::NotImplemented(
                    "You must implement either the backward or vjp method for your custom autograd.Function to use it with backward mode AD.".into(),
                ))
            }
            Err(e) => return Err(e),
        };
        let result = self.call(backward, args, vec![])?;
        let mut returned = match result {
            Value::Tuple(items) => items,
            other => vec![other],
        };
        let expected = node.operands.len();
        if returned.len() > expected
            && returned[expected..]
                .iter()
                .all(|v| matches!(v, Value::None))
        {
            returned.truncate(expected);
        }
        if returned.len() != expected {
            return Err(ScriptError::Runtime(format!(
                "function {} returned an incorrect number of gradients (expected {expected}, got {})",
                node.name,
                returned.len()
            )));
        }
        let mut out = Vec::with_capacity(expected);
        let mut edge = 0usize;
        for (i, (operand, g)) in node.operands.iter().zip(returned).enumerate() {
            let Some(dtype) = operand.dtype else {
                if !matches!(g, Value::None) {
                    return Err(ScriptError::Runtime(format!(
                        "function {} returned a gradient different than None at position {}, but the corresponding forward input was not a Variable",
                        node.name,
                        i + 1
                    )));
                }
                out.push(None);
                continue;
            };
            let index = edge;
            edge += 1;
            let g = match g {
                Value::None => {
                    out.push(None);
                    continue;
                }
                Value::Tensor(t) => t,
                other => {
                    return Err(ScriptError::Runtime(format!(
                        "expected Variable or None (got {})",
                        other.type_name()
                    )))
                }
            };
            let g_shape = g.borrow().tensor.shape().to_vec();
            let mut g = Value::Tensor(g);
            if g_shape != operand.shape {
                if !expandable(&operand.shape, &g_shape) {
                    return Err(ScriptError::Runtime(format!(
                        "Function {} returned an invalid gradient at index {index} - got {} but expected shape compatible with {}",
                        node.name,
                        dims(&g_shape),
                        dims(&operand.shape)
                    )));
                }
                g = self.sum_to(g, &operand.shape)?;
            }
            if operand.tracked.is_some() {
                g = self.grad_in_dtype(g, dtype)?;
            }
            out.push(Some(g));
        }
        Ok(out)
    }
}

/// `[2, 3]`, as autograd's messages write a shape.
fn dims(shape: &[i64]) -> String {
    let inner: Vec<String> = shape.iter().map(i64::to_string).collect();
    format!("[{}]", inner.join(", "))
}

/// Whether `shape` can be expanded to `to` (ATen's `is_expandable_to`).
fn expandable(shape: &[i64], to: &[i64]) -> bool {
    if shape.len() > to.len() {
        return false;
    }
    shape
        .iter()
        .rev()
        .zip(to.iter().rev())
        .all(|(&s, &t)| s == t || s == 1)
}
