//! Autograd: which tensors require grad, the `grad_fn` node of the op that made each non-leaf
//! one (`tensor([...], grad_fn=<MulBackward0>)`, `y.requires_grad`, `y.is_leaf`), and
//! `backward()` through the nodes of [`backward`], into the leaves' `.grad`.
//!
//! An op's output requires grad when grad mode is on, one of its tensor inputs requires grad,
//! and the output is a floating (or complex) tensor: integer and bool outputs never do. The
//! node's name is PyTorch's (recorded from torch 2.15): most are the op's name in CamelCase
//! plus `Backward0`; [`NAMED`] lists the others, and [`GradOp`] carries what the name depends
//! on (an operator's operands, a reduction's `dim`, whether a reshape copied). A node keeps
//! what its backward needs (the op's operands or its result, as host values, like the
//! tensors PyTorch saves) and the inputs that require grad; ops whose backward is not
//! modelled still get their node, and `backward()` through one says so.

mod backward;
mod rules;

use std::cell::Cell;
use std::rc::Rc;

use crate::core::tensor::{DType, Scalar};
use crate::interp::value::{TensorObject, TensorRef, Value};
use crate::interp::Evaluator;
use crate::lang::ast::BinOp;
pub(crate) use rules::Rule;

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
    rule: Rule,
    /// The op's operands (tensors requiring grad keep their object, to reach their node or
    /// their `.grad`), each with its shape and dtype.
    operands: Vec<Operand>,
    /// The op's result, for the rules that differentiate through it (`exp`, `sigmoid`).
    result: Saved,
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

/// Ops whose node is not `<CamelCase>Backward0`, as torch 2.15 names them.
const NAMED: &[(&str, &str)] = &[
    ("true_divide", "DivBackward0"),
    ("divide", "DivBackward0"),
    ("multiply", "MulBackward0"),
    ("subtract", "SubBackward0"),
    ("square", "PowBackward0"),
    ("rsub", "RsubBackward1"),
    ("mm", "MmBackward0"),
    ("bmm", "BmmBackward0"),
    ("dot", "DotBackward0"),
    ("vdot", "DotBackward0"),
    ("mv", "MvBackward0"),
    ("inner", "DotBackward0"),
    ("outer", "MulBackward0"),
    ("ger", "MulBackward0"),
    ("einsum", "ViewBackward0"),
    ("view", "ViewBackward0"),
    ("view_as", "ViewBackward0"),
    ("reshape_as", "ViewBackward0"),
    ("unflatten", "ViewBackward0"),
    ("T", "PermuteBackward0"),
    ("movedim", "PermuteBackward0"),
    ("moveaxis", "PermuteBackward0"),
    ("mT", "TransposeBackward0"),
    ("swapaxes", "TransposeBackward0"),
    ("swapdims", "TransposeBackward0"),
    ("expand_as", "ExpandBackward0"),
    ("broadcast_to", "ExpandBackward0"),
    ("narrow", "SliceBackward0"),
    ("chunk", "SplitBackward0"),
    ("tensor_split", "SplitBackward0"),
    ("split_with_sizes", "SplitWithSizesBackward0"),
    ("tile", "RepeatBackward0"),
    ("clamp", "ClampBackward1"),
    ("clamp_min", "ClampBackward1"),
    ("clamp_max", "ClampBackward1"),
    ("clip", "ClampBackward1"),
    ("amax", "AmaxBackward0"),
    ("amin", "AminBackward0"),
    ("norm", "LinalgVectorNormBackward0"),
    ("linalg_vector_norm", "LinalgVectorNormBackward0"),
    ("linalg_norm", "LinalgVectorNormBackward0"),
    ("diag", "DiagonalBackward0_copy"),
    ("double", "ToCopyBackward0"),
    ("half", "ToCopyBackward0"),
    ("bfloat16", "ToCopyBackward0"),
    ("float", "ToCopyBackward0"),
    ("to", "ToCopyBackward0"),
    ("type", "ToCopyBackward0"),
    ("type_as", "ToCopyBackward0"),
    ("cross_entropy", "NllLossBackward0"),
    ("nll_loss", "NllLossBackward0"),
    ("mse_loss", "MseLossBackward0"),
    ("binary_cross_entropy", "BinaryCrossEntropyBackward0"),
    (
        "binary_cross_entropy_with_logits",
        "BinaryCrossEntropyWithLogitsBackward0",
    ),
    ("l1_loss", "MeanBackward0"),
    ("absolute", "AbsBackward0"),
    ("negative", "NegBackward0"),
    ("arccos", "AcosBackward0"),
    ("arcsin", "AsinBackward0"),
    ("arctan", "AtanBackward0"),
    ("fix", "TruncBackward0"),
];

/// Ops whose outputs never require grad, whatever their inputs: new tensors that only take
/// an input's shape or values as data, and what leaves the graph.
const UNTRACKED: &[&str] = &[
    "detach",
    "detach_",
    "data",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "rand_like",
    "randn_like",
    "randint_like",
    "new_zeros",
    "new_ones",
    "new_empty",
    "new_full",
    "new_tensor",
    "tensor",
    "as_tensor",
    "asarray",
    "requires_grad_",
    "bernoulli",
    "multinomial",
    "poisson",
    "normal",
];

/// What a node's name depends on, besides the op's name.
pub(crate) enum GradOp<'a> {
    /// A table op or `torch.nn.functional` function: its name and the arguments given, by
    /// name (`dim` of a reduction, `bias` of `linear`).
    Named {
        name: &'a str,
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

/// `leaky_relu` -> `LeakyRelu`.
fn camel(name: &str) -> String {
    name.trim_end_matches('_')
        .split('_')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// The node PyTorch records for a `name` op with `given` named arguments, when `out` is the
/// output and `inputs` the tensors it read.
fn node_name(op: &GradOp, out: &TensorObject, inputs: &[TensorRef]) -> String {
    let shares_input = || {
        inputs.iter().any(|i| {
            i.try_borrow()
                .is_ok_and(|i| i.tensor.storage == out.tensor.storage)
        })
    };
    match op {
        GradOp::Binary {
            op,
            left_tensor,
            right_tensor,
        } => match (op, left_tensor, right_tensor) {
            (BinOp::Add, ..) => "AddBackward0",
            (BinOp::Sub, true, _) => "SubBackward0",
            (BinOp::Sub, false, _) => "RsubBackward1",
            (BinOp::Mul, ..) => "MulBackward0",
            (BinOp::Div, true, _) => "DivBackward0",
            // `2 / a` is `a.reciprocal() * 2`.
            (BinOp::Div, false, _) => "MulBackward0",
            (BinOp::Pow, true, true) => "PowBackward1",
            (BinOp::Pow, true, false) => "PowBackward0",
            (BinOp::Pow, false, _) => "PowBackward2",
            (BinOp::FloorDiv, ..) => "DivBackward1",
            (BinOp::Mod, ..) => "RemainderBackward0",
            _ => "NotImplemented",
        }
        .to_string(),
        GradOp::MatMul {
            left_dims,
            right_dims,
        } => matmul_node(*left_dims, *right_dims).to_string(),
        GradOp::Neg => "NegBackward0".to_string(),
        GradOp::Index(index) => index_node(index).to_string(),
        GradOp::Named { name, args } => {
            let name = name.trim_end_matches('_');
            let has = |arg: &str| args.iter().any(|(n, _)| *n == arg);
            match name {
                "sum" | "mean" | "nansum" | "nanmean" if has("dim") || has("axis") => {
                    format!("{}Backward1", camel(name))
                }
                "max" | "min" if !has("dim") && !has("other") => {
                    format!("{}Backward1", camel(name))
                }
                "squeeze" if has("dim") => "SqueezeBackward1".into(),
                "reshape" | "flatten" | "ravel" => {
                    if shares_input() {
                        "ViewBackward0".into()
                    } else {
                        "UnsafeViewBackward0".into()
                    }
                }
                "contiguous" => "CloneBackward0".into(),
                "matmul" => {
                    let dims = |i: usize| inputs.get(i).map_or(2, |t| t.borrow().tensor.ndim());
                    matmul_node(dims(0), dims(1)).into()
                }
                "linear" if has("bias") => "AddmmBackward0".into(),
                "linear" => "MmBackward0".into(),
                "pow" => {
                    let tensors = inputs.len();
                    if tensors >= 2 {
                        "PowBackward1".into()
                    } else {
                        "PowBackward0".into()
                    }
                }
                _ => match NAMED.iter().find(|(n, _)| *n == name) {
                    Some((_, node)) => (*node).to_string(),
                    None => format!("{}Backward0", camel(name)),
                },
            }
        }
    }
}

/// `torch.matmul`'s node by its operands' dimensions.
fn matmul_node(left: usize, right: usize) -> &'static str {
    match (left, right) {
        (1, 1) => "DotBackward0",
        (2, 2) => "MmBackward0",
        (2, 1) => "MvBackward0",
        (1, 2) => "SqueezeBackward4",
        _ => "UnsafeViewBackward0",
    }
}

/// The node of `a[index]`: advanced indexing comes last, else the last basic step.
fn index_node(index: &Value) -> &'static str {
    let items: Vec<&Value> = match index {
        Value::Tuple(items) => items.iter().collect(),
        other => vec![other],
    };
    if items
        .iter()
        .any(|v| matches!(v, Value::Tensor(_) | Value::List(_) | Value::NdArray(_)))
    {
        return "IndexBackward0";
    }
    match items.iter().rev().find(|v| !matches!(v, Value::Ellipsis)) {
        Some(Value::None) => "UnsqueezeBackward0",
        Some(Value::Slice(..)) => "SliceBackward0",
        Some(Value::Bool(_)) => "IndexBackward0",
        _ => "SelectBackward0",
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
        if let GradOp::Named { name, .. } = &op {
            if UNTRACKED.contains(name) {
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
                (node_name(&op, &object, &tracked), object.tensor.clone())
            };
            let rule = if same {
                Rule::Unsupported
            } else {
                rules::rule_of(&op, inputs, &out_tensor)
            };
            let operands = inputs
                .iter()
                .map(|v| self.grad_operand(v, rule.saves_operands()))
                .collect();
            let result = if rule.saves_result() {
                self.save_tensor(&out_tensor)
            } else {
                Saved::Missing
            };
            let node = GradNode {
                name: name.into(),
                rule,
                operands,
                result,
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
                rule: Rule::Unsupported,
                operands: vec![],
                result: Saved::Missing,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_names_become_pytorch_node_names() {
        assert_eq!(camel("leaky_relu"), "LeakyRelu");
        assert_eq!(camel("exp2"), "Exp2");
        assert_eq!(camel("log_softmax_"), "LogSoftmax");
        assert_eq!(matmul_node(1, 2), "SqueezeBackward4");
        assert_eq!(
            index_node(&Value::Tuple(vec![
                Value::Int(0),
                Value::Slice(Some(1), None, None)
            ])),
            "SliceBackward0"
        );
        assert_eq!(
            index_node(&Value::Tuple(vec![Value::Ellipsis, Value::None])),
            "UnsqueezeBackward0"
        );
    }
}
