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

pub(crate) mod accumulate;
pub(crate) mod api;
pub(crate) mod backward;
mod coverage;
pub(crate) mod custom_backward;
pub(crate) mod custom_function;
pub(crate) mod formulas;
pub(crate) mod formulas_index;
pub(crate) mod formulas_pointwise;
pub(crate) mod formulas_reduce;
pub(crate) mod functions;
pub(crate) mod gradcheck;
pub(crate) mod hooks;
pub(crate) mod nodes;
pub(crate) mod objects;
pub(crate) mod original_self;
pub(crate) mod piece_group;
pub(crate) mod saved_hooks;
pub(crate) mod setitem;
pub(crate) mod view_base;
pub mod views;

use std::cell::Cell;
use std::rc::Rc;

use crate::core::tensor::DType;
use crate::interp::value::{TensorObject, TensorRef, Value};
use crate::interp::Evaluator;
use crate::lang::ast::BinOp;
pub(crate) use formulas::Formula;

/// A value a node keeps for its backward: a tensor (as PyTorch's `SavedVariable` keeps it:
/// the same storage, checked against its version counter when unpacked) or a number.
#[derive(Clone, Debug)]
pub(crate) enum Saved {
    Tensor(SavedTensor),
    /// A Python number operand (`x * 3`): its value and the dtype PyTorch wraps it in.
    Number(f64),
    /// Not kept (not a tensor or number, or not needed by the formula).
    Missing,
}

/// A tensor a node saved: the tensor as it was (storage, dtype, layout), the version of its
/// storage then, and the tensor object itself (an input) or a weak link to it (the node's own
/// output, which holds the node), so that `create_graph=True` differentiates through it.
#[derive(Clone, Debug)]
pub(crate) struct SavedTensor {
    pub(crate) tensor: crate::core::tensor::Tensor,
    pub(crate) version: u64,
    pub(crate) object: SavedObject,
}

/// Which object a [`SavedTensor`] came from.
#[derive(Clone, Debug)]
pub(crate) enum SavedObject {
    /// An input of the op (`_saved_self is x`).
    Input(TensorRef),
    /// The op's output (`_saved_result`), which holds the node: held weakly.
    Output(std::rc::Weak<std::cell::RefCell<TensorObject>>),
    /// One of the above, saved under `saved_tensors_hooks`: the node keeps what the pack
    /// hook returned (see [`saved_hooks`]).
    Packed(Rc<saved_hooks::Packed>),
}

/// An autograd node: what made a non-leaf tensor, and how gradients flow back through it.
#[derive(Debug)]
pub struct GradNode {
    pub(crate) name: Rc<str>,
    /// Its backward formula; `None` when not modelled.
    pub(crate) formula: Option<&'static Formula>,
    /// The op's operands (tensors requiring grad keep their object, to reach their node or
    /// their `.grad`), each with its shape and dtype.
    pub(crate) operands: Vec<Operand>,
    /// The op's result, for the formulas that differentiate through it (`exp`, `sigmoid`).
    pub(crate) result: Saved,
    /// The non-tensor arguments its formula reads ([`Formula::args`]), by name.
    pub(crate) args: Vec<(String, Value)>,
    /// The output's dtype.
    pub(crate) out_dtype: DType,
    /// The output's shape.
    pub(crate) out_shape: Vec<i64>,
    /// Set once a `backward()` without `retain_graph=True` went through it.
    pub(crate) freed: Cell<bool>,
    /// The order nodes were made in: the engine runs the newest ready node first.
    pub(crate) seq: u64,
    /// A custom `torch.autograd.Function`'s `ctx` (see [`custom_function`]).
    pub(crate) custom: Option<Rc<custom_function::CustomNode>>,
    /// What the op saved besides its operands and its output, by PyTorch's slot names: the
    /// other outputs of the ATen function (`NativeLayerNormBackward0.result1`, the mean), or
    /// tensors it made or took that are not operands of the node here
    /// (`NativeBatchNormBackward0.running_mean`, `NllLossBackward0.total_weight`). Set by
    /// [`Evaluator::save_extras`] right after the node is recorded.
    pub(crate) extras: std::cell::OnceCell<Vec<(&'static str, Saved)>>,
}

/// One operand of a recorded op.
#[derive(Clone, Debug)]
pub(crate) struct Operand {
    /// The tensor, when it requires grad.
    pub tracked: Option<TensorRef>,
    pub saved: Saved,
    pub shape: Vec<i64>,
    /// A tensor's dtype, or the dtype PyTorch wraps a number operand in.
    pub dtype: Option<DType>,
}

impl GradNode {
    /// A node named `name` with `formula` over `operands`, keeping `args`, for an output of
    /// `out_dtype` and `out_shape`; `seq` is its place in the order nodes were made. It saved
    /// no result and no extras yet.
    pub(crate) fn built(
        name: &str,
        formula: &'static Formula,
        operands: Vec<Operand>,
        args: Vec<(String, Value)>,
        out_dtype: DType,
        out_shape: Vec<i64>,
        seq: u64,
    ) -> GradNode {
        GradNode {
            name: name.into(),
            formula: Some(formula),
            operands,
            result: Saved::Missing,
            args,
            out_dtype,
            out_shape,
            freed: Cell::new(false),
            seq,
            custom: None,
            extras: Default::default(),
        }
    }

    /// The node, shared, and registered with memory accounting (which tells what its
    /// references keep alive from what the script's do).
    pub(crate) fn shared(node: GradNode) -> Rc<GradNode> {
        let node = Rc::new(node);
        crate::interp::runtime::accounting::register_node(&node);
        node
    }

    /// PyTorch's name of the node (`MulBackward0`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The same node (operands, formula, saved tensors, order) under another name.
    pub(crate) fn with_name(&self, name: &str) -> GradNode {
        GradNode {
            name: name.into(),
            formula: self.formula,
            operands: self.operands.clone(),
            result: self.result.clone(),
            args: self.args.clone(),
            out_dtype: self.out_dtype,
            out_shape: self.out_shape.clone(),
            freed: Cell::new(self.freed.get()),
            seq: self.seq,
            custom: self.custom.clone(),
            extras: self.extras.clone(),
        }
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

/// Adds the storages the graph behind `node` keeps alive to `live`: the tensors its nodes
/// saved and their inputs (and their `.grad`), walked from a list, each node once.
pub(crate) fn graph_storages(
    node: &Rc<GradNode>,
    live: &mut std::collections::BTreeSet<crate::core::tensor::StorageId>,
    seen: &mut std::collections::BTreeSet<usize>,
) {
    let mut pending = vec![Rc::clone(node)];
    while let Some(node) = pending.pop() {
        if !seen.insert(Rc::as_ptr(&node) as *const () as usize) {
            continue;
        }
        if let Saved::Tensor(s) = &node.result {
            saved_hooks::saved_storages(s, live);
        }
        if let Some(custom) = &node.custom {
            custom.storages(live);
        }
        for (_, saved) in node.extras.get().into_iter().flatten() {
            if let Saved::Tensor(s) = saved {
                saved_hooks::saved_storages(s, live);
            }
        }
        for operand in &node.operands {
            if let Saved::Tensor(s) = &operand.saved {
                saved_hooks::saved_storages(s, live);
            }
            let Some(t) = &operand.tracked else {
                continue;
            };
            let Ok(t) = t.try_borrow() else {
                continue;
            };
            live.insert(t.tensor.storage);
            if let Some(g) = &t.grad {
                if let Ok(g) = g.try_borrow() {
                    live.insert(g.tensor.storage);
                }
            }
            if let Some(next) = &t.grad_fn {
                pending.push(Rc::clone(next));
            }
        }
    }
}

/// Whether the tensor requires grad: a leaf marked so, or the output of a tracked op.
pub(crate) fn tracks_grad(t: &TensorObject) -> bool {
    t.requires_grad || t.grad_fn.is_some()
}

/// Whether `v` is a tensor that requires grad ([`tracks_grad`]; anything else does not).
pub(crate) fn value_tracks_grad(v: &Value) -> bool {
    matches!(v, Value::Tensor(t) if t.try_borrow().is_ok_and(|t| tracks_grad(&t)))
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

/// Whether `v` holds a tensor (a node keeps only arguments that do not, but an index).
fn holds_tensor(v: &Value) -> bool {
    match v {
        Value::Tensor(_) => true,
        Value::Tuple(items) | Value::List(items) => items.iter().any(holds_tensor),
        Value::NamedTuple(_, items) => items.iter().any(|(_, v)| holds_tensor(v)),
        _ => false,
    }
}

/// An op's argument as operands of its node: a list of tensors (`cat`'s `tensors`) gives one
/// operand per tensor, anything else one operand.
fn list_operands(v: &Value) -> Vec<Value> {
    match v {
        Value::List(items) | Value::Tuple(items)
            if !items.is_empty() && items.iter().all(|i| matches!(i, Value::Tensor(_))) =>
        {
            items.clone()
        }
        other => vec![other.clone()],
    }
}

/// The tensors in `v` (a tensor, or a tuple or list of them).
pub(crate) fn tensors_in(v: &Value, out: &mut Vec<TensorRef>) {
    match v {
        Value::Tensor(t) => out.push(Rc::clone(t)),
        Value::Tuple(items) | Value::List(items) => {
            for item in items {
                tensors_in(item, out);
            }
        }
        Value::NamedTuple(_, items) => {
            for (_, item) in items {
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
        // An op returning (values, indices) whose formula keeps `indices` (`max(dim)`,
        // `sort`, `topk`, `median(dim)`, `kthvalue`) saves them, not its input or result.
        let indices = formula_of(&op)
            .filter(|f| f.saves.contains(&"indices"))
            .and_then(|_| {
                outs.iter()
                    .find(|t| t.try_borrow().is_ok_and(|t| t.tensor.dtype == DType::Int64))
                    .cloned()
            });
        // The pieces of one split share a group: the sequence number of the first.
        let group = formula_of(&op)
            .filter(|f| std::ptr::eq(*f, &formulas_index::PIECE))
            .map(|_| self.torch.autograd.peek_seq() as i64 + 1);
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
            let formula = formula_of(&op);
            let saves = |slot: &str| {
                formula.is_some_and(|f| f.saves.contains(&slot))
                    && !(indices.is_some() && matches!(slot, "self" | "other" | "result"))
            };
            // An in-place op on a non-leaf gives it a new node, whose input is the tensor as
            // it was: an object on the same storage with the node before.
            let before: Vec<Value> = if same {
                let previous = Value::tensor(out_tensor.clone(), "inplace", None);
                if let (Value::Tensor(p), Ok(object)) = (&previous, t.try_borrow()) {
                    p.borrow_mut().grad_fn = object.grad_fn.clone();
                }
                inputs
                    .iter()
                    .map(|v| match v {
                        Value::Tensor(x) if Rc::ptr_eq(x, &t) => previous.clone(),
                        other => (*other).clone(),
                    })
                    .collect()
            } else {
                inputs.iter().flat_map(|v| list_operands(v)).collect()
            };
            // `where` keeps only its condition (bound first by the function, second by the
            // method).
            let is_where = formula.is_some_and(|f| std::ptr::eq(f, &formulas_index::WHERE));
            let is_bool = |v: &Value| {
                v.as_tensor()
                    .is_some_and(|t| t.dtype == crate::core::tensor::DType::Bool)
            };
            let mut operands: Vec<Operand> = before
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let slot = formula.and_then(|f| f.inputs.get(i));
                    let kept = slot.is_some_and(|s| saves(s)) && (!is_where || is_bool(v));
                    self.grad_operand(v, kept)
                })
                .collect();
            // The values an in-place op overwrote, where its node keeps them: the clone
            // made before it wrote.
            if in_place {
                if let Some(clone) = self.take_original_self(&t) {
                    let tensor = clone.borrow().tensor.clone();
                    if let Some(operand) = operands.first_mut() {
                        operand.saved =
                            self.save_tensor(&tensor, SavedObject::Input(Rc::clone(&clone)));
                    }
                }
            }
            if same {
                // What the op overwrote was saved before its write.
                for operand in &mut operands {
                    if let Saved::Tensor(s) = &mut operand.saved {
                        if s.tensor.storage == out_tensor.storage {
                            s.version = s.version.saturating_sub(1);
                        }
                    }
                }
            }
            let result = if saves("result") {
                self.save_tensor(&out_tensor, SavedObject::Output(Rc::downgrade(&t)))
            } else {
                Saved::Missing
            };
            let node = GradNode {
                name: name.into(),
                formula,
                operands,
                result,
                args: {
                    let mut args = kept_args(&op, formula);
                    if let Some(g) = group {
                        args.push((piece_group::GROUP_ARG.into(), Value::Int(g)));
                    }
                    args
                },
                out_dtype: out_tensor.dtype,
                out_shape: out_tensor.shape().to_vec(),
                freed: Cell::new(false),
                seq: self.torch.autograd.next_seq(),
                custom: None,
                extras: Default::default(),
            };
            let node = GradNode::shared(node);
            if let Ok(mut object) = t.try_borrow_mut() {
                object.grad_fn = Some(Rc::clone(&node));
            }
            self.pack_saved(&node);
            if let Some(indices) = &indices {
                let indices = Value::Tensor(Rc::clone(indices));
                self.save_extras(&Value::Tensor(Rc::clone(&t)), &[("indices", &indices)]);
            }
        }
    }

    /// Saves `tensors` on the node of `out` (the op's output, when a node was recorded on it)
    /// under their slots, as an ATen function's other outputs or tensors it kept: the node
    /// holds the tensor objects, and memory accounting counts them while it is not freed.
    /// A node takes its extras once (later calls change nothing).
    pub(crate) fn save_extras(&mut self, out: &Value, tensors: &[(&'static str, &Value)]) {
        let Value::Tensor(o) = out else {
            return;
        };
        let Some(node) = o.try_borrow().ok().and_then(|o| o.grad_fn.clone()) else {
            return;
        };
        let mut saved = Vec::new();
        for (slot, tensor) in tensors {
            let Value::Tensor(t) = tensor else { continue };
            let inner = t.borrow().tensor.clone();
            saved.push((
                *slot,
                self.save_tensor(&inner, SavedObject::Input(Rc::clone(t))),
            ));
        }
        for (_, s) in &saved {
            if let Saved::Tensor(s) = s {
                self.pack_one(s);
            }
        }
        let _ = node.extras.set(saved);
    }

    /// Whether `out` got a node (its op was recorded for autograd).
    pub(crate) fn has_node(out: &Value) -> bool {
        matches!(out, Value::Tensor(o) if o.try_borrow().is_ok_and(|o| o.grad_fn.is_some()))
    }

    /// Gives the node recorded on `out` the name PyTorch gives the ATen overload that ran
    /// (`MulBackward1` for `mul(Tensor, Scalar)` called from C++, `SafeSoftmaxBackward0`):
    /// the same operands, formula and saved tensors under another name.
    pub(crate) fn rename_node(&mut self, out: &Value, name: &str) {
        let Value::Tensor(t) = out else {
            return;
        };
        let Ok(mut object) = t.try_borrow_mut() else {
            return;
        };
        let Some(node) = object.grad_fn.take() else {
            return;
        };
        object.grad_fn = Some(GradNode::shared(node.with_name(name)));
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
                        self.save_tensor(&tensor, SavedObject::Input(Rc::clone(t)))
                    } else {
                        Saved::Missing
                    },
                    shape: tensor.shape().to_vec(),
                    dtype: Some(tensor.dtype),
                }
            }
            Value::Int(i) => number_operand(*i as f64, DType::Int64),
            Value::Float(f) => number_operand(*f, DType::Float64),
            Value::Bool(b) => number_operand(f64::from(u8::from(*b)), DType::Bool),
            _ => Operand {
                tracked: None,
                saved: Saved::Missing,
                shape: vec![],
                dtype: None,
            },
        }
    }

    /// A tensor as a node keeps it: the same storage, at its version now.
    fn save_tensor(&mut self, t: &crate::core::tensor::Tensor, object: SavedObject) -> Saved {
        Saved::Tensor(SavedTensor {
            tensor: t.clone(),
            version: self.memory.version(t.storage),
            object: self.with_saved_hooks(object),
        })
    }
}

fn number_operand(x: f64, dtype: DType) -> Operand {
    Operand {
        tracked: None,
        saved: Saved::Number(x),
        shape: vec![],
        dtype: Some(dtype),
    }
}

/// The formula of Python's operator `op` on tensors.
pub(crate) fn operator_formula(op: BinOp) -> Option<&'static Formula> {
    match op {
        BinOp::Add => Some(&formulas::ADD),
        BinOp::Sub => Some(&formulas::SUB),
        BinOp::Mul => Some(&formulas::MUL),
        BinOp::Div => Some(&formulas::DIV),
        BinOp::Pow => Some(&formulas::POW),
        BinOp::MatMul => Some(&formulas::MATMUL),
        _ => None,
    }
}

/// The formula of a recorded op.
fn formula_of(op: &GradOp) -> Option<&'static Formula> {
    match op {
        GradOp::Binary { op, .. } => operator_formula(*op),
        GradOp::MatMul { .. } => Some(&formulas::MATMUL),
        GradOp::Neg => Some(&formulas::NEG),
        GradOp::Index(_) => Some(&formulas::INDEX),
        GradOp::Named { grad, name, .. } => grad.formula.or_else(|| in_place_formula(name)),
    }
}

/// The formula of an in-place op whose table entry has none: its out-of-place op's.
pub(crate) fn in_place_formula(name: &str) -> Option<&'static Formula> {
    Some(match name {
        "add_" => &formulas::ADD,
        "sub_" | "subtract_" => &formulas::SUB,
        "mul_" | "multiply_" => &formulas::MUL,
        "div_" | "divide_" | "true_divide_" => &formulas::DIV,
        "exp_" => &formulas::EXP,
        "log_" => &formulas::LOG,
        "sqrt_" => &formulas::SQRT,
        "sigmoid_" => &formulas::SIGMOID,
        "tanh_" => &formulas::TANH,
        "relu_" => &formulas::RELU,
        "sin_" => &formulas::SIN,
        "cos_" => &formulas::COS,
        _ => return None,
    })
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
        // An index keeps its index tensors, as IndexBackward0 saves `indices`.
        .filter(|(n, v)| {
            formula.args.contains(n) && (!holds_tensor(v) || matches!(op, GradOp::Index(_)))
        })
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect()
}
