//! Autograd: which tensors require grad, the `grad_fn` node of the op that made each non-leaf
//! one (`tensor([...], grad_fn=<MulBackward0>)`, `y.requires_grad`, `y.is_leaf`), and
//! `backward()` through the nodes of [`backward`], into the leaves' `.grad`.
//!
//! An op's output requires grad when grad mode is on, one of its tensor inputs requires grad,
//! and the output is a floating (or complex) tensor: integer and bool outputs never do. What
//! an op does for autograd is data of its table entry, a [`Grad`]: the node's name
//! ([`Node`], see [`nodes`]), its backward [`Formula`] (see [`formulas`]), or that its
//! outputs are never tracked. A node keeps what its formula saves (the op's inputs or its
//! result by PyTorch's slot names, as host values, like the tensors PyTorch saves), the
//! non-tensor arguments the formula reads, and the inputs that require grad; ops whose
//! backward is not modelled still get their node, and `backward()` through one says so.

pub(crate) mod backward;
pub(crate) mod formulas;
pub(crate) mod nodes;

use std::cell::Cell;
use std::rc::Rc;

use crate::core::tensor::{DType, Scalar};
use crate::interp::value::{TensorObject, TensorRef, Value};
use crate::interp::Evaluator;
use crate::lang::ast::BinOp;
pub(crate) use formulas::Formula;

/// Saved tensors larger than this are not kept (their node's backward then says so).
const MAX_SAVED_ELEMENTS: usize = 1 << 20;

/// A value a node keeps for its backward: a tensor's values (row-major) or a number.
#[derive(Clone, Debug)]
pub(crate) enum Saved {
    Tensor {
        shape: Vec<i64>,
        dtype: DType,
        values: Rc<[Scalar]>,
    },
    Number(f64),
    /// Not kept (too large, or not a tensor or number).
    Missing,
}

/// An autograd node: what made a non-leaf tensor, and how gradients flow back through it.
#[derive(Debug)]
pub struct GradNode {
    name: Rc<str>,
    /// Its backward formula; `None` when not modelled.
    formula: Option<&'static Formula>,
    /// The op's operands (tensors requiring grad keep their object, to reach their node or
    /// their `.grad`), each with its shape and dtype.
    operands: Vec<Operand>,
    /// The op's result, for the formulas that differentiate through it (`exp`, `sigmoid`).
    result: Saved,
    /// The non-tensor arguments its formula reads ([`Formula::args`]), by name.
    args: Vec<(String, Value)>,
    /// The output's dtype.
    out_dtype: DType,
    /// Set once a `backward()` without `retain_graph=True` went through it.
    freed: Cell<bool>,
}

/// One operand of a recorded op.
#[derive(Debug)]
pub(crate) struct Operand {
    /// The tensor, when it requires grad.
    pub tracked: Option<TensorRef>,
    pub saved: Saved,
    pub shape: Vec<i64>,
    pub dtype: Option<DType>,
}

impl GradNode {
    /// PyTorch's name of the node (`MulBackward0`).
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// What an op does for autograd: part of its table entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Grad {
    /// How its node is named.
    pub node: Node,
    /// Its backward formula; `None` when not modelled (`backward()` through it says so).
    pub formula: Option<&'static Formula>,
    /// `false` for ops whose outputs never require grad, whatever their inputs: new tensors
    /// that only take an input's shape or values as data, and what leaves the graph.
    pub tracked: bool,
}

/// How an op's node is named.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Node {
    /// `<CamelCase of the name it was called by>Backward0` (`leaky_relu` -> `LeakyReluBackward0`).
    Camel,
    /// A name of its own (`divide` -> `DivBackward0`).
    Fixed(&'static str),
    /// A name that depends on the call (`sum(dim=0)` -> `SumBackward1`), see [`nodes`].
    By(fn(&nodes::NodeQuery) -> String),
}

impl Grad {
    /// Named after the op, backward not modelled.
    pub(crate) const NONE: Grad = Grad {
        node: Node::Camel,
        formula: None,
        tracked: true,
    };

    /// Outputs that never require grad.
    pub(crate) const UNTRACKED: Grad = Grad {
        node: Node::Camel,
        formula: None,
        tracked: false,
    };

    /// Named after the op, with `formula`.
    pub(crate) const fn formula(formula: &'static Formula) -> Grad {
        Grad {
            node: Node::Camel,
            formula: Some(formula),
            tracked: true,
        }
    }

    /// Named `node`, backward not modelled.
    pub(crate) const fn node(node: &'static str) -> Grad {
        Grad {
            node: Node::Fixed(node),
            formula: None,
            tracked: true,
        }
    }

    /// Named `node`, with `formula`.
    pub(crate) const fn named(node: &'static str, formula: &'static Formula) -> Grad {
        Grad {
            node: Node::Fixed(node),
            formula: Some(formula),
            tracked: true,
        }
    }

    /// Named by `node` from the call, with `formula` if any.
    pub(crate) const fn by(
        node: fn(&nodes::NodeQuery) -> String,
        formula: Option<&'static Formula>,
    ) -> Grad {
        Grad {
            node: Node::By(node),
            formula,
            tracked: true,
        }
    }
}

/// `tensor.T`: all dimensions reversed.
pub(crate) const T_ATTRIBUTE: Grad = Grad::named("PermuteBackward0", &formulas::REVERSED_T);

/// `tensor.mT`: the last two dimensions swapped.
pub(crate) const MT_ATTRIBUTE: Grad = Grad::named("TransposeBackward0", &formulas::MATRIX_T);

/// What a node's name depends on, besides the op's name.
pub(crate) enum GradOp<'a> {
    /// A table op (`torch.nn.functional` included) or a tensor attribute (`x.T`): the name
    /// it was called by, its entry's [`Grad`], and the arguments given, by name.
    Named {
        name: &'a str,
        grad: &'a Grad,
        args: &'a [(&'a str, &'a Value)],
    },
    /// `a <op> b`, with whether each side is a tensor.
    Binary {
        op: BinOp,
        left_tensor: bool,
        right_tensor: bool,
    },
    /// `a @ b`, by the operands' dimensions.
    MatMul { left_dims: usize, right_dims: usize },
    /// `-a`.
    Neg,
    /// `a[index]`: the node of the last indexing step.
    Index(&'a Value),
}

/// Whether the tensor requires grad: a leaf marked so, or the output of a tracked op.
pub(crate) fn tracks_grad(t: &TensorObject) -> bool {
    t.requires_grad || t.grad_fn.is_some()
}

/// A Python number's value.
pub(crate) fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// Whether `v` holds a tensor (a node keeps only arguments that do not).
fn holds_tensor(v: &Value) -> bool {
    match v {
        Value::Tensor(_) => true,
        Value::Tuple(items) | Value::List(items) => items.iter().any(holds_tensor),
        _ => false,
    }
}

/// The tensors in `v` (a tensor, or a tuple or list of them).
fn tensors_in(v: &Value, out: &mut Vec<TensorRef>) {
    match v {
        Value::Tensor(t) => out.push(Rc::clone(t)),
        Value::Tuple(items) | Value::List(items) => {
            for item in items {
                tensors_in(item, out);
            }
        }
        _ => {}
    }
}

impl Evaluator {
    /// Records the node of `op` on its output `out`, when autograd would (see the module
    /// documentation). `inputs` are the op's operands in order.
    pub(crate) fn record_grad(&mut self, op: GradOp, inputs: &[&Value], out: &Value) {
        if !self.torch.grad_enabled {
            return;
        }
        if let GradOp::Named { grad, .. } = &op {
            if !grad.tracked {
                return;
            }
        }
        let mut read = Vec::new();
        for v in inputs {
            tensors_in(v, &mut read);
        }
        let tracked: Vec<TensorRef> = read
            .into_iter()
            .filter(|t| t.try_borrow().is_ok_and(|t| tracks_grad(&t)))
            .collect();
        if tracked.is_empty() {
            return;
        }
        let in_place = matches!(&op, GradOp::Named { name, .. } if name.ends_with('_'));
        let mut outs = Vec::new();
        tensors_in(out, &mut outs);
        for t in outs {
            let same = tracked.iter().any(|i| Rc::ptr_eq(i, &t));
            // An op that returns its input (`contiguous()` of a contiguous tensor) records
            // nothing; an in-place op on a non-leaf renames its node.
            if same && !in_place {
                continue;
            }
            let (name, out_tensor) = {
                let Ok(object) = t.try_borrow() else {
                    continue;
                };
                let dtype = object.tensor.dtype;
                if !(dtype.is_floating() || dtype.is_complex()) {
                    continue;
                }
                if same && object.grad_fn.is_none() {
                    continue;
                }
                (
                    nodes::node_name(&op, &object, &tracked),
                    object.tensor.clone(),
                )
            };
            // An in-place op on a non-leaf renames its node; its backward is not modelled.
            let formula = if same { None } else { formula_of(&op) };
            let saves = |slot: &str| formula.is_some_and(|f| f.saves.contains(&slot));
            let operands = inputs
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let slot = formula.and_then(|f| f.inputs.get(i));
                    self.grad_operand(v, slot.is_some_and(|s| saves(s)))
                })
                .collect();
            let result = if saves("result") {
                self.save_tensor(&out_tensor)
            } else {
                Saved::Missing
            };
            let node = GradNode {
                name: name.into(),
                formula,
                operands,
                result,
                args: kept_args(&op, formula),
                out_dtype: out_tensor.dtype,
                freed: Cell::new(false),
            };
            if let Ok(mut object) = t.try_borrow_mut() {
                object.grad_fn = Some(Rc::new(node));
            }
        }
    }

    /// `tensor.backward(gradient=None, retain_graph=None, create_graph=False, inputs=None)`.
    pub(crate) fn backward_call(
        &mut self,
        t: &TensorRef,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> crate::interp::R<Value> {
        const PARAMS: [&str; 4] = ["gradient", "retain_graph", "create_graph", "inputs"];
        if pos.len() > PARAMS.len() {
            return Err(crate::core::tensor::ScriptError::Type(format!(
                "backward() takes from 1 to 5 positional arguments but {} were given",
                pos.len() + 1
            )));
        }
        let mut args: Vec<(String, Value)> = PARAMS
            .iter()
            .zip(pos)
            .map(|(n, v)| (n.to_string(), v))
            .collect();
        for (k, v) in kw {
            if !PARAMS.contains(&k.as_str()) {
                return Err(crate::core::tensor::ScriptError::Type(format!(
                    "backward() got an unexpected keyword argument '{k}'"
                )));
            }
            args.push((k, v));
        }
        let get = |n: &str| args.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        if get("create_graph").is_some_and(|v| matches!(v, Value::Bool(true))) {
            return Err(crate::core::tensor::ScriptError::NotImplemented(
                "backward(create_graph=True) (higher-order gradients) is not supported by Stridescope".into(),
            ));
        }
        if get("inputs").is_some_and(|v| !matches!(v, Value::None)) {
            return Err(crate::core::tensor::ScriptError::NotImplemented(
                "backward(inputs=...) is not supported by Stridescope".into(),
            ));
        }
        let retain = get("retain_graph").is_some_and(|v| matches!(v, Value::Bool(true)));
        self.backward(t, get("gradient"), retain)?;
        Ok(Value::None)
    }

    /// An operand as a node keeps it.
    fn grad_operand(&mut self, v: &Value, save: bool) -> Operand {
        match v {
            Value::Tensor(t) => {
                let tensor = t.borrow().tensor.clone();
                let tracked = tracks_grad(&t.borrow()).then(|| Rc::clone(t));
                Operand {
                    tracked,
                    saved: if save {
                        self.save_tensor(&tensor)
                    } else {
                        Saved::Missing
                    },
                    shape: tensor.shape().to_vec(),
                    dtype: Some(tensor.dtype),
                }
            }
            Value::Int(i) => number_operand(*i as f64),
            Value::Float(f) => number_operand(*f),
            Value::Bool(b) => number_operand(f64::from(u8::from(*b))),
            _ => Operand {
                tracked: None,
                saved: Saved::Missing,
                shape: vec![],
                dtype: None,
            },
        }
    }

    /// A tensor's values, as a node keeps them.
    fn save_tensor(&mut self, t: &crate::core::tensor::Tensor) -> Saved {
        if t.numel() as usize > MAX_SAVED_ELEMENTS {
            return Saved::Missing;
        }
        Saved::Tensor {
            shape: t.shape().to_vec(),
            dtype: t.dtype,
            values: self.engine.values(t).into(),
        }
    }

    /// `a[index] = value` on a non-leaf that requires grad: its node becomes `CopySlices`.
    pub(crate) fn record_setitem_grad(&self, target: &TensorRef, value: &Value) {
        if !self.torch.grad_enabled {
            return;
        }
        let value_tracks =
            matches!(value, Value::Tensor(v) if v.try_borrow().is_ok_and(|v| tracks_grad(&v)));
        let Ok(mut object) = target.try_borrow_mut() else {
            return;
        };
        if object.grad_fn.is_some() || (value_tracks && !object.requires_grad) {
            let dtype = object.tensor.dtype;
            object.grad_fn = Some(Rc::new(GradNode {
                name: "CopySlices".into(),
                formula: None,
                operands: vec![],
                result: Saved::Missing,
                args: vec![],
                out_dtype: dtype,
                freed: Cell::new(false),
            }));
        }
    }
}

fn number_operand(x: f64) -> Operand {
    Operand {
        tracked: None,
        saved: Saved::Number(x),
        shape: vec![],
        dtype: None,
    }
}

/// The formula of a recorded op.
fn formula_of(op: &GradOp) -> Option<&'static Formula> {
    match op {
        GradOp::Binary { op, .. } => match op {
            BinOp::Add => Some(&formulas::ADD),
            BinOp::Sub => Some(&formulas::SUB),
            BinOp::Mul => Some(&formulas::MUL),
            BinOp::Div => Some(&formulas::DIV),
            BinOp::Pow => Some(&formulas::POW),
            _ => None,
        },
        GradOp::MatMul { .. } => Some(&formulas::MATMUL),
        GradOp::Neg => Some(&formulas::NEG),
        GradOp::Index(_) => Some(&formulas::INDEX),
        GradOp::Named { grad, .. } => grad.formula,
    }
}

/// The non-tensor arguments a node keeps for its formula, in the order given.
fn kept_args(op: &GradOp, formula: Option<&'static Formula>) -> Vec<(String, Value)> {
    let Some(formula) = formula else {
        return vec![];
    };
    let given: Vec<(&str, &Value)> = match op {
        GradOp::Named { args, .. } => args.to_vec(),
        GradOp::Index(index) => vec![("index", *index)],
        _ => vec![],
    };
    given
        .into_iter()
        .filter(|(n, v)| formula.args.contains(n) && !holds_tensor(v))
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect()
}
