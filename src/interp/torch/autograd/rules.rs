//! Which backward formula each recorded op gets ([`Rule`]), from the op and its arguments,
//! and what a node must keep for it.

use crate::core::tensor::Tensor;
use crate::interp::torch::autograd::GradOp;
use crate::interp::torch::ops::Reduction;
use crate::interp::value::Value;
use crate::lang::ast::BinOp;

/// How gradients flow back through a node (its operands are the op's, in order).
#[derive(Clone, Debug)]
pub(crate) enum Rule {
    Add {
        alpha: f64,
    },
    Sub {
        alpha: f64,
    },
    Mul,
    Div,
    Pow,
    /// `x.square()`: `x ** 2` with the exponent not an operand.
    Square,
    Neg,
    MatMul,
    Sum {
        dims: Option<Vec<i64>>,
        keepdim: bool,
    },
    Mean {
        dims: Option<Vec<i64>>,
        keepdim: bool,
    },
    /// Any op that only changes the shape: the gradient is reshaped back.
    Reshape,
    Transpose(i64, i64),
    Permute(Vec<i64>),
    Expand,
    /// Copies and dtype conversions: the gradient in the input's dtype.
    Identity,
    /// `x[index]` with basic indexing.
    Index(Value),
    Exp,
    Log,
    Sqrt,
    Relu,
    Sigmoid,
    Tanh,
    MseLoss(Reduction),
    /// `binary_cross_entropy` (`logits: false`) or `binary_cross_entropy_with_logits`.
    Bce {
        reduction: Reduction,
        logits: bool,
    },
    /// `nll_loss` (`log_softmax: false`) or `cross_entropy` of class indices.
    Nll {
        reduction: Reduction,
        ignore_index: i64,
        log_softmax: bool,
    },
    Unsupported,
}

impl Rule {
    /// Whether the node keeps its operands' values.
    pub(crate) fn saves_operands(&self) -> bool {
        matches!(
            self,
            Rule::Mul
                | Rule::Div
                | Rule::Pow
                | Rule::Square
                | Rule::MatMul
                | Rule::Log
                | Rule::MseLoss(_)
                | Rule::Bce { .. }
                | Rule::Nll { .. }
        )
    }

    /// Whether the node keeps its result's values.
    pub(crate) fn saves_result(&self) -> bool {
        matches!(
            self,
            Rule::Exp | Rule::Sqrt | Rule::Relu | Rule::Sigmoid | Rule::Tanh
        )
    }
}

pub(super) fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

fn ints(v: &Value) -> Option<Vec<i64>> {
    match v {
        Value::Int(i) => Some(vec![*i]),
        Value::Tuple(items) | Value::List(items) => items
            .iter()
            .map(|i| match i {
                Value::Int(i) => Some(*i),
                _ => None,
            })
            .collect(),
        Value::Size(dims) => Some(dims.clone()),
        _ => None,
    }
}

/// The rule of a recorded op.
pub(super) fn rule_of(op: &GradOp, inputs: &[&Value], out: &Tensor) -> Rule {
    match op {
        GradOp::Binary { op, .. } => match op {
            BinOp::Add => Rule::Add { alpha: 1.0 },
            BinOp::Sub => Rule::Sub { alpha: 1.0 },
            BinOp::Mul => Rule::Mul,
            BinOp::Div => Rule::Div,
            BinOp::Pow => Rule::Pow,
            _ => Rule::Unsupported,
        },
        GradOp::MatMul { .. } => Rule::MatMul,
        GradOp::Neg => Rule::Neg,
        GradOp::Index(index) => {
            let advanced = |v: &Value| matches!(v, Value::Tensor(_) | Value::List(_));
            let any_advanced = match index {
                Value::Tuple(items) => items.iter().any(advanced),
                other => advanced(other),
            };
            if any_advanced {
                Rule::Unsupported
            } else {
                Rule::Index((*index).clone())
            }
        }
        GradOp::Named { name, args } => {
            let arg = |n: &str| args.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
            let flag = |n: &str| matches!(arg(n), Some(Value::Bool(true)));
            let reduction = || match arg("reduction") {
                Some(Value::Str(r)) => Reduction::parse(r.as_str()).unwrap_or(Reduction::Mean),
                _ => Reduction::Mean,
            };
            let dims = || arg("dim").or(arg("axis")).and_then(ints);
            let ndim = inputs
                .first()
                .and_then(|v| v.as_tensor())
                .map_or(out.ndim(), |t| t.ndim());
            match *name {
                "add" => Rule::Add {
                    alpha: arg("alpha").and_then(number).unwrap_or(1.0),
                },
                "sub" | "subtract" => Rule::Sub {
                    alpha: arg("alpha").and_then(number).unwrap_or(1.0),
                },
                "mul" | "multiply" => Rule::Mul,
                "div" | "divide" | "true_divide" if arg("rounding_mode").is_none() => Rule::Div,
                "pow" => Rule::Pow,
                "square" => Rule::Square,
                "neg" | "negative" => Rule::Neg,
                "matmul" | "mm" | "mv" | "dot" => Rule::MatMul,
                "sum" => Rule::Sum {
                    dims: dims(),
                    keepdim: flag("keepdim"),
                },
                "mean" => Rule::Mean {
                    dims: dims(),
                    keepdim: flag("keepdim"),
                },
                "view" | "reshape" | "flatten" | "ravel" | "view_as" | "reshape_as"
                | "unflatten" | "squeeze" | "unsqueeze" => Rule::Reshape,
                "t" | "T" if ndim < 2 => Rule::Identity,
                "t" => Rule::Transpose(0, 1),
                "T" => Rule::Permute((0..ndim as i64).rev().collect()),
                "mT" => Rule::Transpose(-2, -1),
                "transpose" | "swapaxes" | "swapdims" => {
                    let first = arg("dim0").or(arg("axis0")).and_then(number);
                    let second = arg("dim1").or(arg("axis1")).and_then(number);
                    match (first, second) {
                        (Some(a), Some(b)) => Rule::Transpose(a as i64, b as i64),
                        _ => Rule::Unsupported,
                    }
                }
                "permute" => match arg("dims").and_then(ints) {
                    Some(dims) => Rule::Permute(dims),
                    None => Rule::Unsupported,
                },
                "expand" | "expand_as" | "broadcast_to" => Rule::Expand,
                "clone" | "contiguous" | "float" | "double" | "half" | "bfloat16" | "to"
                | "type" | "type_as" => Rule::Identity,
                "exp" => Rule::Exp,
                "log" => Rule::Log,
                "sqrt" => Rule::Sqrt,
                "relu" => Rule::Relu,
                "sigmoid" => Rule::Sigmoid,
                "tanh" => Rule::Tanh,
                "mse_loss" => Rule::MseLoss(reduction()),
                "binary_cross_entropy" => Rule::Bce {
                    reduction: reduction(),
                    logits: false,
                },
                "binary_cross_entropy_with_logits" => Rule::Bce {
                    reduction: reduction(),
                    logits: true,
                },
                "nll_loss" | "cross_entropy" => Rule::Nll {
                    reduction: reduction(),
                    ignore_index: arg("ignore_index").and_then(number).unwrap_or(-100.0) as i64,
                    log_softmax: *name == "cross_entropy",
                },
                _ => Rule::Unsupported,
            }
        }
    }
}
