//! `tensor.backward()`: gradients flow from the tensor back through the recorded nodes, in
//! reverse topological order, and add up in the leaves' `.grad`, with PyTorch's formulas
//! (`FunctionsManual.cpp`, `derivatives.yaml`) in the order ATen evaluates them. Each formula
//! runs as ordinary ops of this evaluator (so the engines' kernels compute it), on the values
//! the node saved, with grad mode off.
//!
//! Modelled: `+ - * / **` and `neg`, `matmul` of vectors and matrices, `sum`/`mean`, the
//! view and shape ops, copies and dtype conversions, basic indexing, `exp`/`log`/`sqrt`,
//! `relu`/`sigmoid`/`tanh`, `mse_loss`, `nll_loss` and `cross_entropy`. A node of any other op
//! raises a clear error when a gradient reaches it.

use std::collections::HashMap;
use std::rc::Rc;

use crate::core::tensor::{DType, Scalar, ScriptError};
use crate::interp::torch::autograd::rules::{number, Rule};
use crate::interp::torch::autograd::{tracks_grad, GradNode, Saved};
use crate::interp::torch::ops::Reduction;
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
            let saves = node.rule.saves_operands() || node.rule.saves_result();
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
    fn method(&mut self, recv: Value, name: &str, pos: Vec<Value>) -> R<Value> {
        self.call(Value::Method(Box::new(recv), name.into()), pos, vec![])
    }

    fn grad_in_dtype(&mut self, v: Value, dtype: DType) -> R<Value> {
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

    fn operand_value(&mut self, node: &GradNode, i: usize) -> R<Value> {
        match node.operands.get(i) {
            Some(op) => self.saved(node, &op.saved),
            None => Ok(Value::None),
        }
    }

    /// `grad` summed down to `shape` (undoing broadcasting).
    fn sum_to(&mut self, grad: Value, shape: &[i64]) -> R<Value> {
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

    /// The gradient for each operand of `node` (None: the operand needs none).
    fn node_grads(&mut self, node: &GradNode, grad: &Value) -> R<Vec<Option<Value>>> {
        let ops = &node.operands;
        let needs = |i: usize| ops.get(i).is_some_and(|o| o.tracked.is_some());
        let shape = |i: usize| ops.get(i).map_or(vec![], |o| o.shape.clone());
        let g = grad.clone();
        let mut out: Vec<Option<Value>> = vec![None; ops.len()];
        match &node.rule {
            Rule::Add { alpha } | Rule::Sub { alpha } => {
                let sign = if matches!(node.rule, Rule::Sub { .. }) {
                    -1.0
                } else {
                    1.0
                };
                if needs(0) {
                    out[0] = Some(self.sum_to(g.clone(), &shape(0))?);
                }
                if needs(1) {
                    let mut other = if sign < 0.0 {
                        self.neg_value(&g)?
                    } else {
                        g.clone()
                    };
                    if *alpha != 1.0 {
                        other = self.binary(BinOp::Mul, other, scalar(*alpha))?;
                    }
                    out[1] = Some(self.sum_to(other, &shape(1))?);
                }
            }
            Rule::Mul => {
                if needs(0) {
                    let other = self.operand_value(node, 1)?;
                    let v = self.binary(BinOp::Mul, g.clone(), other)?;
                    out[0] = Some(self.sum_to(v, &shape(0))?);
                }
                if needs(1) {
                    let this = self.operand_value(node, 0)?;
                    let v = self.binary(BinOp::Mul, g.clone(), this)?;
                    out[1] = Some(self.sum_to(v, &shape(1))?);
                }
            }
            Rule::Div => {
                let other = self.operand_value(node, 1)?;
                if needs(0) {
                    let v = self.binary(BinOp::Div, g.clone(), other.clone())?;
                    out[0] = Some(self.sum_to(v, &shape(0))?);
                }
                if needs(1) {
                    // -grad * ((self / other) / other)
                    let this = self.operand_value(node, 0)?;
                    let q = self.binary(BinOp::Div, this, other.clone())?;
                    let q = self.binary(BinOp::Div, q, other)?;
                    let minus = self.neg_value(&g)?;
                    let v = self.binary(BinOp::Mul, minus, q)?;
                    out[1] = Some(self.sum_to(v, &shape(1))?);
                }
            }
            Rule::Pow | Rule::Square => {
                let base = self.operand_value(node, 0)?;
                let exponent = match node.rule {
                    Rule::Square => Value::Float(2.0),
                    _ => self.operand_value(node, 1)?,
                };
                if needs(0) {
                    // grad * (exponent * self.pow(exponent - 1))
                    let e1 = self.binary(BinOp::Sub, exponent.clone(), Value::Int(1))?;
                    let p = self.binary(BinOp::Pow, base.clone(), e1)?;
                    let d = self.binary(BinOp::Mul, exponent.clone(), p)?;
                    let v = self.binary(BinOp::Mul, g.clone(), d)?;
                    // `x ** 0` has a zero gradient everywhere (ATen: `zeros_like(self)`).
                    let v = if number(&exponent) == Some(0.0) {
                        self.binary(BinOp::Mul, v, Value::Float(0.0))?
                    } else {
                        v
                    };
                    out[0] = Some(self.sum_to(v, &shape(0))?);
                }
                if needs(1) {
                    // grad * (result * self.log())
                    let result = self.binary(BinOp::Pow, base.clone(), exponent)?;
                    let log = match base {
                        Value::Tensor(_) => self.method(base, "log", vec![])?,
                        other => Value::Float(number(&other).unwrap_or(0.0).ln()),
                    };
                    let d = self.binary(BinOp::Mul, result, log)?;
                    let v = self.binary(BinOp::Mul, g.clone(), d)?;
                    out[1] = Some(self.sum_to(v, &shape(1))?);
                }
            }
            Rule::Neg => {
                if needs(0) {
                    out[0] = Some(self.neg_value(&g)?);
                }
            }
            Rule::MatMul => {
                let (a, b) = (self.operand_value(node, 0)?, self.operand_value(node, 1)?);
                let (da, db) = (shape(0).len(), shape(1).len());
                let t = |ev: &mut Evaluator, v: Value| ev.method(v, "t", vec![]);
                let (ga, gb) = match (da, db) {
                    (2, 2) => {
                        let bt = t(self, b)?;
                        let at = t(self, a)?;
                        (
                            self.binary(BinOp::MatMul, g.clone(), bt)?,
                            self.binary(BinOp::MatMul, at, g.clone())?,
                        )
                    }
                    (1, 1) => (
                        self.binary(BinOp::Mul, g.clone(), b)?,
                        self.binary(BinOp::Mul, g.clone(), a)?,
                    ),
                    (2, 1) => {
                        let at = t(self, a)?;
                        (
                            self.method(g.clone(), "outer", vec![b])?,
                            self.binary(BinOp::MatMul, at, g.clone())?,
                        )
                    }
                    (1, 2) => (
                        self.binary(BinOp::MatMul, b, g.clone())?,
                        self.method(a, "outer", vec![g.clone()])?,
                    ),
                    _ => return Err(unsupported(node)),
                };
                if needs(0) {
                    out[0] = Some(ga);
                }
                if needs(1) {
                    out[1] = Some(gb);
                }
            }
            Rule::Sum { dims, keepdim } | Rule::Mean { dims, keepdim } => {
                if needs(0) {
                    let input = shape(0);
                    let mut v = g.clone();
                    let count: i64 = match dims {
                        None => input.iter().product(),
                        Some(dims) => {
                            let n = input.len() as i64;
                            let mut norm: Vec<i64> = dims
                                .iter()
                                .map(|d| if *d < 0 { d + n } else { *d })
                                .collect();
                            norm.sort_unstable();
                            let count = norm
                                .iter()
                                .map(|d| input.get(*d as usize).copied().unwrap_or(1))
                                .product();
                            if !keepdim {
                                for &d in &norm {
                                    v = self.method(v, "unsqueeze", vec![Value::Int(d)])?;
                                }
                            }
                            count
                        }
                    };
                    v = self.method(v, "expand", vec![shape_value(&input)])?;
                    if matches!(node.rule, Rule::Mean { .. }) {
                        v = self.binary(BinOp::Div, v, Value::Int(count))?;
                    }
                    out[0] = Some(v);
                }
            }
            Rule::Reshape => {
                if needs(0) {
                    out[0] = Some(self.method(g, "reshape", vec![shape_value(&shape(0))])?);
                }
            }
            Rule::Transpose(a, b) => {
                if needs(0) {
                    let v = self.method(g, "transpose", vec![Value::Int(*a), Value::Int(*b)])?;
                    out[0] = Some(v);
                }
            }
            Rule::Permute(dims) => {
                if needs(0) {
                    let n = dims.len() as i64;
                    let mut inverse = vec![0i64; dims.len()];
                    for (i, d) in dims.iter().enumerate() {
                        let d = if *d < 0 { d + n } else { *d };
                        if let Some(slot) = inverse.get_mut(d as usize) {
                            *slot = i as i64;
                        }
                    }
                    let dims = Value::Tuple(inverse.into_iter().map(Value::Int).collect());
                    out[0] = Some(self.method(g, "permute", vec![dims])?);
                }
            }
            Rule::Expand => {
                if needs(0) {
                    out[0] = Some(self.sum_to(g, &shape(0))?);
                }
            }
            Rule::Identity => {
                if needs(0) {
                    let dtype = ops[0].dtype.unwrap_or(node.out_dtype);
                    out[0] = Some(self.grad_in_dtype(g, dtype)?);
                }
            }
            Rule::Index(index) => {
                if needs(0) {
                    // zeros(input's shape), then the gradient written where the index read.
                    let dtype = g.as_tensor().map_or(node.out_dtype, |t| t.dtype);
                    let zeros = self.full(&shape(0), Scalar::Float(0.0), dtype, "backward")?;
                    self.set_item(&zeros, index, &g)?;
                    out[0] = Some(Value::tensor(zeros, "backward", None));
                }
            }
            Rule::Exp | Rule::Sqrt | Rule::Relu | Rule::Sigmoid | Rule::Tanh => {
                if needs(0) {
                    let y = self.saved(node, &node.result)?;
                    let v = match node.rule {
                        Rule::Exp => self.binary(BinOp::Mul, g, y)?,
                        Rule::Sqrt => {
                            let twice = self.binary(BinOp::Mul, Value::Int(2), y)?;
                            self.binary(BinOp::Div, g, twice)?
                        }
                        Rule::Relu => {
                            let off = self.binary(BinOp::Le, y, Value::Int(0))?;
                            self.method(g, "masked_fill", vec![off, Value::Float(0.0)])?
                        }
                        Rule::Sigmoid => {
                            let one_minus = self.binary(BinOp::Sub, Value::Int(1), y.clone())?;
                            let v = self.binary(BinOp::Mul, g, one_minus)?;
                            self.binary(BinOp::Mul, v, y)?
                        }
                        _ => {
                            let sq = self.binary(BinOp::Mul, y.clone(), y)?;
                            let one_minus = self.binary(BinOp::Sub, Value::Int(1), sq)?;
                            self.binary(BinOp::Mul, g, one_minus)?
                        }
                    };
                    out[0] = Some(v);
                }
            }
            Rule::Log => {
                if needs(0) {
                    let x = self.operand_value(node, 0)?;
                    out[0] = Some(self.binary(BinOp::Div, g, x)?);
                }
            }
            Rule::MseLoss(reduction) => {
                let (x, y) = (self.operand_value(node, 0)?, self.operand_value(node, 1)?);
                let n = ops.first().map_or(1, |o| o.shape.iter().product::<i64>());
                let norm = match reduction {
                    Reduction::Mean => 2.0 / n as f64,
                    _ => 2.0,
                };
                let diff = self.binary(BinOp::Sub, x, y)?;
                let scaled = self.binary(BinOp::Mul, diff, scalar(norm))?;
                let v = self.binary(BinOp::Mul, scaled, g)?;
                if needs(1) {
                    out[1] = Some(self.neg_value(&v)?);
                }
                if needs(0) {
                    out[0] = Some(v);
                }
            }
            Rule::Bce { reduction, logits } => {
                if needs(0) {
                    let (x, y) = (self.operand_value(node, 0)?, self.operand_value(node, 1)?);
                    let n = shape(0).iter().product::<i64>();
                    let v = if *logits {
                        // (sigmoid(x) - y) * grad
                        let s = self.method(x, "sigmoid", vec![])?;
                        let d = self.binary(BinOp::Sub, s, y)?;
                        self.binary(BinOp::Mul, d, g.clone())?
                    } else {
                        // grad * (x - y) / max((1 - x) * x, 1e-12)
                        let d = self.binary(BinOp::Sub, x.clone(), y)?;
                        let num = self.binary(BinOp::Mul, g.clone(), d)?;
                        let one_minus = self.binary(BinOp::Sub, Value::Int(1), x.clone())?;
                        let den = self.binary(BinOp::Mul, one_minus, x)?;
                        let den = self.method(den, "clamp_min", vec![Value::Float(1e-12)])?;
                        self.binary(BinOp::Div, num, den)?
                    };
                    out[0] = Some(match reduction {
                        Reduction::Mean => self.binary(BinOp::Div, v, Value::Int(n))?,
                        _ => v,
                    });
                }
            }
            Rule::Nll {
                reduction,
                ignore_index,
                log_softmax,
            } => {
                if needs(0) {
                    out[0] =
                        Some(self.nll_grad(node, &g, *reduction, *ignore_index, *log_softmax)?);
                }
            }
            Rule::Unsupported => return Err(unsupported(node)),
        }
        Ok(out)
    }

    fn neg_value(&mut self, v: &Value) -> R<Value> {
        match v {
            Value::Tensor(t) => {
                let t = t.borrow().tensor.clone();
                self.neg(&t)
            }
            other => self.binary(BinOp::Mul, other.clone(), Value::Int(-1)),
        }
    }

    /// `nll_loss`'s (and `cross_entropy`'s) input gradient, as ATen computes it: `-grad /
    /// total_weight` at each row's target, then, for `cross_entropy`, `log_softmax`'s
    /// backward `g - exp(log_probs) * g.sum(1)`.
    fn nll_grad(
        &mut self,
        node: &GradNode,
        grad: &Value,
        reduction: Reduction,
        ignore_index: i64,
        log_softmax: bool,
    ) -> R<Value> {
        let input = self.operand_value(node, 0)?;
        let target = self.operand_value(node, 1)?;
        let (Some(x), Some(t)) = (input.as_tensor(), target.as_tensor()) else {
            return Err(unsupported(node));
        };
        let dtype = x.dtype;
        let round = |v: f64| dtype.round(Scalar::Float(v)).to_f64();
        let (rows, classes) = match x.shape() {
            [c] => (1, *c),
            [n, c] => (*n, *c),
            _ => return Err(unsupported(node)),
        };
        let log_probs = if log_softmax {
            let lsm = self.softmax(&x, if x.ndim() == 1 { 0 } else { 1 }, None, true)?;
            self.engine.values(&lsm)
        } else {
            self.engine.values(&x)
        };
        let targets: Vec<i64> = self
            .engine
            .values(&t)
            .iter()
            .map(|s| s.to_f64() as i64)
            .collect();
        let g_values: Vec<f64> = match grad.as_tensor() {
            Some(g) => self.engine.values(&g).iter().map(|s| s.to_f64()).collect(),
            None => vec![number(grad).unwrap_or(1.0)],
        };
        let counted = targets.iter().filter(|t| **t != ignore_index).count();
        let mut values = vec![0f64; (rows * classes) as usize];
        for (i, &target) in targets.iter().enumerate().take(rows as usize) {
            if target == ignore_index || target < 0 || target >= classes {
                continue;
            }
            let up = match reduction {
                Reduction::None => g_values.get(i).copied().unwrap_or(0.0),
                Reduction::Sum => g_values.first().copied().unwrap_or(0.0),
                Reduction::Mean => round(g_values.first().copied().unwrap_or(0.0) / counted as f64),
            };
            values[i * classes as usize + target as usize] = round(-up);
        }
        if log_softmax {
            for i in 0..rows as usize {
                let row = i * classes as usize..(i + 1) * classes as usize;
                let sum = values[row.clone()].iter().fold(0.0, |a, v| round(a + v));
                for j in row {
                    let p = round(log_probs.get(j).map_or(0.0, |s| s.to_f64()).exp());
                    values[j] = round(values[j] - round(p * sum));
                }
            }
        }
        let scalars: Vec<Scalar> = values.into_iter().map(Scalar::Float).collect();
        let out = self.tensor_from_values(x.shape(), dtype, &scalars, "backward")?;
        Ok(Value::tensor(out, "backward", None))
    }
}

fn scalar(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        Value::Int(x as i64)
    } else {
        Value::Float(x)
    }
}

fn shape_value(shape: &[i64]) -> Value {
    Value::Tuple(shape.iter().map(|&n| Value::Int(n)).collect())
}

fn unsupported(node: &GradNode) -> ScriptError {
    ScriptError::NotImplemented(format!(
        "backward through {} is not supported by Stridescope (its gradient is not modelled)",
        node.name
    ))
}
