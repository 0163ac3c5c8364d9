//! `tensor.backward()`: gradients flow from the tensor back through the recorded nodes, in
//! reverse topological order, and add up in the leaves' `.grad`. Each node runs its
//! formula ([`crate::interp::torch::autograd::formulas`]) with grad mode off; a node without
//! one raises a clear error when a gradient reaches it.

use std::collections::HashMap;
use std::rc::Rc;

use crate::core::tensor::{DType, Scalar, ScriptError};
use crate::interp::torch::autograd::formulas::Backward;
use crate::interp::torch::autograd::{tracks_grad, GradNode, Saved};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// Where a gradient goes: a node still to run, or a leaf's `.grad`.
enum Target {
    Node(Rc<GradNode>),
    Leaf(TensorRef),
}

fn target_of(t: &TensorRef) -> Option<Target> {
    let object = t.borrow();
    match &object.grad_fn {
        Some(node) => Some(Target::Node(Rc::clone(node))),
        None if object.requires_grad => Some(Target::Leaf(Rc::clone(t))),
        None => None,
    }
}

fn key(node: &Rc<GradNode>) -> usize {
    Rc::as_ptr(node) as usize
}

impl Evaluator {
    /// `tensor.backward(gradient=None, retain_graph=None)`.
    pub(crate) fn backward(
        &mut self,
        root: &TensorRef,
        gradient: Option<Value>,
        retain_graph: bool,
    ) -> R<()> {
        if !tracks_grad(&root.borrow()) {
            return Err(ScriptError::Runtime(
                "element 0 of tensors does not require grad and does not have a grad_fn".into(),
            ));
        }
        let root_tensor = root.borrow().tensor.clone();
        let seed = match gradient {
            Some(Value::Tensor(g)) => {
                let g_shape = g.borrow().tensor.shape().to_vec();
                if g_shape != root_tensor.shape() {
                    return Err(ScriptError::Runtime(format!(
                        "Mismatch in shape: grad_output[0] has a shape of {} and output[0] has a shape of {}.",
                        crate::interp::python::repr::size_repr(&g_shape),
                        crate::interp::python::repr::size_repr(root_tensor.shape())
                    )));
                }
                Value::Tensor(g)
            }
            Some(Value::None) | None => {
                if root_tensor.numel() != 1 {
                    return Err(ScriptError::Runtime(
                        "grad can be implicitly created only for scalar outputs".into(),
                    ));
                }
                let one = root_tensor.dtype.round(Scalar::Float(1.0));
                let ones = self.full(root_tensor.shape(), one, root_tensor.dtype, "backward")?;
                Value::tensor(ones, "backward", None)
            }
            Some(other) => {
                return Err(ScriptError::Type(format!(
                    "backward(): argument 'gradient' must be Tensor, not {}",
                    other.type_name()
                )))
            }
        };
        let was_enabled = std::mem::replace(&mut self.torch.grad_enabled, false);
        let result = self.run_backward(root, seed, retain_graph);
        self.torch.grad_enabled = was_enabled;
        result
    }

    fn run_backward(&mut self, root: &TensorRef, seed: Value, retain_graph: bool) -> R<()> {
        let start = match target_of(root) {
            Some(Target::Leaf(leaf)) => return self.accumulate(&leaf, seed),
            Some(Target::Node(node)) => node,
            None => return Ok(()),
        };
        // Reverse topological order: a node runs once every gradient for it has arrived.
        let mut order = Vec::new();
        let mut seen = HashMap::new();
        let mut stack = vec![(Rc::clone(&start), false)];
        while let Some((node, expanded)) = stack.pop() {
            if expanded {
                order.push(node);
                continue;
            }
            if seen.insert(key(&node), ()).is_some() {
                continue;
            }
            stack.push((Rc::clone(&node), true));
            for operand in &node.operands {
                if let Some(Target::Node(child)) = operand.tracked.as_ref().and_then(target_of) {
                    if !seen.contains_key(&key(&child)) {
                        stack.push((child, false));
                    }
                }
            }
        }
        order.reverse();
        let mut pending: HashMap<usize, Value> = HashMap::new();
        pending.insert(key(&start), seed);
        for node in &order {
            let Some(grad) = pending.remove(&key(node)) else {
                continue;
            };
            let saves = node.formula.is_some_and(|f| !f.saves.is_empty());
            if saves && node.freed.get() {
                return Err(ScriptError::Runtime(
                    "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.".into(),
                ));
            }
            let grads = self.node_grads(node, &grad)?;
            for (operand, g) in node.operands.iter().zip(grads) {
                let (Some(t), Some(g)) = (&operand.tracked, g) else {
                    continue;
                };
                match target_of(t) {
                    Some(Target::Leaf(leaf)) => self.accumulate(&leaf, g)?,
                    Some(Target::Node(child)) => {
                        let sum = match pending.remove(&key(&child)) {
                            Some(before) => self.binary(BinOp::Add, before, g)?,
                            None => g,
                        };
                        pending.insert(key(&child), sum);
                    }
                    None => {}
                }
            }
        }
        if !retain_graph {
            for node in &order {
                node.freed.set(true);
            }
        }
        Ok(())
    }

    /// Adds `grad` into `leaf.grad` (in place, as AccumulateGrad does), or makes it the
    /// leaf's gradient: a dense copy in the leaf's dtype.
    fn accumulate(&mut self, leaf: &TensorRef, grad: Value) -> R<()> {
        let existing = leaf.borrow().grad.clone();
        match existing {
            Some(g) => {
                self.method(Value::Tensor(g), "add_", vec![grad])?;
            }
            None => {
                let dtype = leaf.borrow().tensor.dtype;
                let copy = self.method(grad, "clone", vec![])?;
                let copy = self.method(copy, "contiguous", vec![])?;
                let copy = self.grad_in_dtype(copy, dtype)?;
                if let Value::Tensor(g) = copy {
                    g.borrow_mut().made_by = "grad".into();
                    leaf.borrow_mut().grad = Some(g);
                }
            }
        }
        Ok(())
    }

    /// `recv.name(*pos)`.
    pub(crate) fn method(&mut self, recv: Value, name: &str, pos: Vec<Value>) -> R<Value> {
        self.call(Value::Method(Box::new(recv), name.into()), pos, vec![])
    }

    pub(crate) fn grad_in_dtype(&mut self, v: Value, dtype: DType) -> R<Value> {
        if v.as_tensor().is_some_and(|t| t.dtype == dtype) {
            return Ok(v);
        }
        self.method(v, "to", vec![Value::DType(dtype)])
    }

    /// A saved tensor, rebuilt.
    fn saved(&mut self, node: &GradNode, saved: &Saved) -> R<Value> {
        match saved {
            Saved::Tensor {
                shape,
                dtype,
                values,
            } => {
                let t = self.tensor_from_values(shape, *dtype, values, "backward")?;
                Ok(Value::tensor(t, "backward", None))
            }
            Saved::Number(x) => Ok(Value::Float(*x)),
            Saved::Missing => Err(ScriptError::NotImplemented(format!(
                "backward through {}: its saved tensor is too large for Stridescope (more than {} elements)",
                node.name,
                crate::interp::torch::autograd::MAX_SAVED_ELEMENTS
            ))),
        }
    }

    /// The tensor (or number) a node saved under a slot name of its formula: one of its
    /// inputs (`self`, `other`) or `result`.
    pub(crate) fn saved_input(&mut self, b: &Backward, slot: &str) -> R<Value> {
        if slot == "result" {
            return self.saved(b.node, &b.node.result);
        }
        let at = b
            .node
            .formula
            .and_then(|f| f.inputs.iter().position(|s| *s == slot));
        match at.and_then(|i| b.node.operands.get(i)) {
            Some(op) => self.saved(b.node, &op.saved),
            None => Ok(Value::None),
        }
    }

    /// `grad` summed down to `shape` (undoing broadcasting).
    pub(crate) fn sum_to(&mut self, grad: Value, shape: &[i64]) -> R<Value> {
        let Some(g) = grad.as_tensor() else {
            return Ok(grad);
        };
        let g_shape = g.shape().to_vec();
        if g_shape == shape {
            return Ok(grad);
        }
        let lead = g_shape.len().saturating_sub(shape.len());
        let mut dims: Vec<Value> = (0..lead as i64).map(Value::Int).collect();
        for (i, &n) in shape.iter().enumerate() {
            if n == 1 && g_shape[lead + i] != 1 {
                dims.push(Value::Int((lead + i) as i64));
            }
        }
        let summed = if dims.is_empty() {
            grad
        } else {
            self.call(
                Value::Method(Box::new(grad), "sum".into()),
                vec![Value::Tuple(dims)],
                vec![("keepdim".into(), Value::Bool(true))],
            )?
        };
        self.method(summed, "reshape", vec![shape_value(shape)])
    }

    /// The gradient for each operand of `node` (None: the operand needs none), by its
    /// formula.
    fn node_grads(&mut self, node: &GradNode, grad: &Value) -> R<Vec<Option<Value>>> {
        match node.formula {
            Some(formula) => (formula.backward)(self, &Backward { node, grad }),
            None => Err(unsupported(node)),
        }
    }

    pub(crate) fn neg_value(&mut self, v: &Value) -> R<Value> {
        match v {
            Value::Tensor(t) => {
                let t = t.borrow().tensor.clone();
                self.neg(&t)
            }
            other => self.binary(BinOp::Mul, other.clone(), Value::Int(-1)),
        }
    }
}

/// A number as the formulas write it: an int when it is whole.
pub(crate) fn scalar(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        Value::Int(x as i64)
    } else {
        Value::Float(x)
    }
}

/// A shape as a tuple of ints.
pub(crate) fn shape_value(shape: &[i64]) -> Value {
    Value::Tuple(shape.iter().map(|&n| Value::Int(n)).collect())
}

/// The error of a gradient that reaches a node whose backward is not modelled.
pub(crate) fn unsupported(node: &GradNode) -> ScriptError {
    ScriptError::NotImplemented(format!(
        "backward through {} is not supported by Stridescope (its gradient is not modelled)",
        node.name
    ))
}
