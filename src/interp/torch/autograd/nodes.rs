//! The names PyTorch gives autograd nodes (recorded from torch 2.15): most are the op's name
//! in CamelCase plus `Backward0` ([`Node::Camel`]); an op's table entry names the others
//! ([`Node::Fixed`]), or points at one of the functions here when the name depends on the
//! call ([`Node::By`]: a reduction's `dim`, whether a reshape copied, `matmul`'s operands).

use crate::interp::torch::autograd::{GradOp, Node};
use crate::interp::value::{TensorObject, TensorRef, Value};
use crate::lang::ast::BinOp;

/// What a [`Node::By`] function reads: the op as called, its output and the inputs that
/// require grad.
pub(crate) struct NodeQuery<'a> {
    /// The name it was called by, without an in-place `_`.
    pub name: &'a str,
    /// The arguments given, by name.
    pub args: &'a [(&'a str, &'a Value)],
    /// The output the node is recorded on.
    pub out: &'a TensorObject,
    /// The tensor inputs that require grad, in order.
    pub tracked: &'a [TensorRef],
}

impl NodeQuery<'_> {
    /// Whether the argument `name` was given.
    fn has(&self, name: &str) -> bool {
        self.args.iter().any(|(n, _)| *n == name)
    }
}

/// `leaky_relu` -> `LeakyRelu`.
pub(crate) fn camel(name: &str) -> String {
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

/// The node PyTorch records for `op`, when `out` is the output and `tracked` the inputs
/// that require grad.
pub(super) fn node_name(op: &GradOp, out: &TensorObject, tracked: &[TensorRef]) -> String {
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
        } => matmul_dims(*left_dims, *right_dims).to_string(),
        GradOp::Neg => "NegBackward0".to_string(),
        GradOp::Index(index) => index_node(index).to_string(),
        GradOp::Named { name, grad, args } => {
            let name = name.trim_end_matches('_');
            match grad.node {
                Node::Camel => format!("{}Backward0", camel(name)),
                Node::Fixed(node) => node.to_string(),
                Node::By(f) => f(&NodeQuery {
                    name,
                    args,
                    out,
                    tracked,
                }),
            }
        }
    }
}

/// `sum`, `mean`, `nansum`, `nanmean`: `Backward1` when reducing over `dim` (NumPy's `axis`
/// binds as `dim`).
pub(crate) fn reduction(q: &NodeQuery) -> String {
    let overload = if q.has("dim") { 1 } else { 0 };
    format!("{}Backward{overload}", camel(q.name))
}

/// `max`, `min`: `Backward1` for the full reduction, `Backward0` along a `dim`, and
/// `MaximumBackward0` against `other`.
pub(crate) fn max_min(q: &NodeQuery) -> String {
    if q.has("other") {
        // `torch.max(a, b)` is `torch.maximum(a, b)`.
        return format!("{}imumBackward0", camel(q.name));
    }
    let overload = if !q.has("dim") { 1 } else { 0 };
    format!("{}Backward{overload}", camel(q.name))
}

/// `squeeze`: `SqueezeBackward1` along a `dim`.
pub(crate) fn squeeze(q: &NodeQuery) -> String {
    if q.has("dim") {
        "SqueezeBackward1".into()
    } else {
        "SqueezeBackward0".into()
    }
}

/// `reshape`, `flatten`, `ravel`: a view when the output shares an input's storage, else a
/// copy (`UnsafeViewBackward0`).
pub(crate) fn reshape(q: &NodeQuery) -> String {
    let shares_input = q.tracked.iter().any(|i| {
        i.try_borrow()
            .is_ok_and(|i| i.tensor.storage == q.out.tensor.storage)
    });
    if shares_input {
        "ViewBackward0".into()
    } else {
        "UnsafeViewBackward0".into()
    }
}

/// `matmul`: by its operands' dimensions.
pub(crate) fn matmul(q: &NodeQuery) -> String {
    let dims = |i: usize| q.tracked.get(i).map_or(2, |t| t.borrow().tensor.ndim());
    matmul_dims(dims(0), dims(1)).into()
}

/// `pow`: `PowBackward1` when both operands are tensors that require grad.
pub(crate) fn pow(q: &NodeQuery) -> String {
    if q.tracked.len() >= 2 {
        "PowBackward1".into()
    } else {
        "PowBackward0".into()
    }
}

/// `torch.matmul`'s node by its operands' dimensions.
fn matmul_dims(left: usize, right: usize) -> &'static str {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_names_become_pytorch_node_names() {
        assert_eq!(camel("leaky_relu"), "LeakyRelu");
        assert_eq!(camel("exp2"), "Exp2");
        assert_eq!(camel("log_softmax_"), "LogSoftmax");
        assert_eq!(matmul_dims(1, 2), "SqueezeBackward4");
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
