//! The backward formulas, one function each, as the entries of PyTorch's `derivatives.yaml`
//! (`FunctionsManual.cpp`) compute them, in the order ATen evaluates them. Each [`Formula`]
//! names the op's tensor inputs by PyTorch's slot names, what the node saves for backward
//! (`self`, `other`, `result`, ...) and the non-tensor arguments it reads (`dim`, `alpha`);
//! an op's table entry points at its formula ([`crate::interp::torch::autograd::Grad`]).
//!
//! The losses' formulas are beside their rules, in [`crate::interp::torch::nn::losses`].
//!
//! A formula runs as ordinary ops of the evaluator (so the engines' kernels compute it), on
//! the values the node saved, with grad mode off. It returns one gradient per operand of the
//! node (`None` where the operand needs none).

use crate::core::tensor::Scalar;
use crate::interp::torch::autograd::backward::{scalar, shape_value, unsupported};
use crate::interp::torch::autograd::{number, GradNode};
use crate::interp::torch::nn::dense_backward::{mm_mat1_backward, mm_mat2_backward};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// A backward formula: what a node keeps, and how it computes its inputs' gradients.
#[derive(Debug)]
pub(crate) struct Formula {
    /// The op's operands in order, by PyTorch's names (`self`, `other`, `mat2`, `target`).
    pub inputs: &'static [&'static str],
    /// The tensors the node saves for backward: operands by their names, `result`, or
    /// `indices` (the index output of an op returning values and indices, kept instead of
    /// its input and result: `max(dim)`, `sort`, `topk`).
    pub saves: &'static [&'static str],
    /// The non-tensor arguments the formula reads (`alpha`, `dim`, `keepdim`, `reduction`).
    pub args: &'static [&'static str],
    /// The gradient of each operand, from the output's gradient.
    pub backward: fn(&mut Evaluator, &Backward) -> R<Vec<Option<Value>>>,
}

/// The formulas of what is not an op of the table: Python's operators (`+ - * / ** @`,
/// unary `-`), indexing and the `T`/`mT` attributes.
#[cfg(test)]
pub(crate) static BUILTIN: &[&Formula] = &[
    &ADD,
    &SUB,
    &MUL,
    &DIV,
    &POW,
    &MATMUL,
    &NEG,
    &INDEX,
    &REVERSED_T,
    &MATRIX_T,
];

/// What a formula reads: its node and the gradient of the node's output.
pub(crate) struct Backward<'a> {
    /// The node being run.
    pub node: &'a GradNode,
    /// The gradient of its output.
    pub grad: &'a Value,
}

impl Backward<'_> {
    /// Whether operand `i` needs a gradient (it requires grad).
    pub(crate) fn needs(&self, i: usize) -> bool {
        self.node
            .operands
            .get(i)
            .is_some_and(|o| o.tracked.is_some())
    }

    /// Operand `i`'s shape.
    pub(crate) fn shape(&self, i: usize) -> Vec<i64> {
        self.node
            .operands
            .get(i)
            .map_or(vec![], |o| o.shape.clone())
    }

    /// A non-tensor argument the node kept (see [`Formula::args`]).
    pub(crate) fn arg(&self, name: &str) -> Option<&Value> {
        self.node
            .args
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }

    /// A list of ints the node kept (`stride`, `size`), empty when it kept none.
    pub(crate) fn int_list(&self, name: &str) -> Vec<i64> {
        match self.arg(name) {
            Some(Value::Tuple(items)) => items
                .iter()
                .filter_map(|v| match v {
                    Value::Int(i) => Some(*i),
                    _ => None,
                })
                .collect(),
            _ => vec![],
        }
    }

    /// Whether operand `i` is a number the node saved as a wrapped-number tensor
    /// (`x * 2` keeps `2` as an int64 0-d tensor).
    pub(crate) fn saved_number(&self, i: usize) -> bool {
        self.node
            .operands
            .get(i)
            .is_some_and(|o| matches!(o.saved, crate::interp::torch::autograd::Saved::Number(_)))
    }

    /// One `None` per operand: the gradients before the formula fills them.
    pub(crate) fn none(&self) -> Vec<Option<Value>> {
        vec![None; self.node.operands.len()]
    }

    /// The gradient of the output.
    pub(crate) fn g(&self) -> Value {
        self.grad.clone()
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

// ----- arithmetic -----

/// `add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)`.
pub(crate) static ADD: Formula = Formula {
    inputs: &["self", "other"],
    saves: &[],
    args: &["alpha"],
    backward: add,
};

/// `sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)`.
pub(crate) static SUB: Formula = Formula {
    inputs: &["self", "other"],
    saves: &[],
    args: &["alpha"],
    backward: sub,
};

fn add(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    add_sub(ev, b, 1.0)
}

fn sub(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    add_sub(ev, b, -1.0)
}

fn add_sub(ev: &mut Evaluator, b: &Backward, sign: f64) -> R<Vec<Option<Value>>> {
    let alpha = b.arg("alpha").and_then(number).unwrap_or(1.0);
    let mut out = b.none();
    if b.needs(0) {
        out[0] = Some(ev.sum_to(b.g(), &b.shape(0))?);
    }
    if b.needs(1) {
        let mut other = if sign < 0.0 {
            ev.neg_value(b.grad)?
        } else {
            b.g()
        };
        if alpha != 1.0 {
            other = ev.binary(BinOp::Mul, other, scalar(alpha))?;
        }
        out[1] = Some(ev.sum_to(other, &b.shape(1))?);
    }
    Ok(out)
}

/// `mul.Tensor(Tensor self, Tensor other)`.
pub(crate) static MUL: Formula = Formula {
    inputs: &["self", "other"],
    saves: &["self", "other"],
    args: &[],
    backward: mul,
};

fn mul(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        let other = ev.saved_input(b, "other")?;
        ev.accounting.prewrapped = b.saved_number(1);
        let v = ev.binary(BinOp::Mul, b.g(), other);
        ev.accounting.prewrapped = false;
        let v = v?;
        out[0] = Some(ev.sum_to(v, &b.shape(0))?);
    }
    if b.needs(1) {
        let this = ev.saved_input(b, "self")?;
        let v = ev.binary(BinOp::Mul, b.g(), this)?;
        out[1] = Some(ev.sum_to(v, &b.shape(1))?);
    }
    Ok(out)
}

/// `div.Tensor(Tensor self, Tensor other)`; with a `rounding_mode` its gradient is not
/// modelled.
pub(crate) static DIV: Formula = Formula {
    inputs: &["self", "other"],
    saves: &["self", "other"],
    args: &["rounding_mode"],
    backward: div,
};

fn div(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    if b.arg("rounding_mode").is_some() {
        return Err(unsupported(b.node));
    }
    let mut out = b.none();
    let other = ev.saved_input(b, "other")?;
    if b.needs(0) {
        ev.accounting.prewrapped = b.saved_number(1);
        let v = ev.binary(BinOp::Div, b.g(), other.clone());
        ev.accounting.prewrapped = false;
        let v = v?;
        out[0] = Some(ev.sum_to(v, &b.shape(0))?);
    }
    if b.needs(1) {
        // -grad * ((self / other) / other)
        let this = ev.saved_input(b, "self")?;
        let q = ev.binary(BinOp::Div, this, other.clone())?;
        let q = ev.binary(BinOp::Div, q, other)?;
        let minus = ev.neg_value(b.grad)?;
        let v = ev.binary(BinOp::Mul, minus, q)?;
        out[1] = Some(ev.sum_to(v, &b.shape(1))?);
    }
    Ok(out)
}

/// `pow.Tensor_Tensor(Tensor self, Tensor exponent)` (and its `Scalar` overloads).
pub(crate) static POW: Formula = Formula {
    inputs: &["self", "exponent"],
    // `PowBackward1` (a tensor exponent) keeps its result too.
    saves: &["self", "exponent", "result"],
    args: &[],
    backward: pow,
};

/// `square(Tensor self)`: `self ** 2`, the exponent not an operand.
pub(crate) static SQUARE: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: &[],
    backward: square,
};

fn pow(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let exponent = ev.saved_input(b, "exponent")?;
    pow_with(ev, b, exponent)
}

fn square(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    pow_with(ev, b, Value::Float(2.0))
}

fn pow_with(ev: &mut Evaluator, b: &Backward, exponent: Value) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    let base = ev.saved_input(b, "self")?;
    if b.needs(0) {
        // grad * (exponent * self.pow(exponent - 1))
        let e1 = ev.binary(BinOp::Sub, exponent.clone(), Value::Int(1))?;
        // The formula's temporaries live until it returns (one C++ expression).
        let p = ev.binary(BinOp::Pow, base.clone(), e1)?;
        let d = ev.binary(BinOp::Mul, exponent.clone(), p.clone())?;
        if !matches!(exponent, Value::Tensor(_)) {
            // A C++ `Scalar` times a tensor: `MulBackward1`, which keeps the number.
            ev.rename_node(&d, "MulBackward1");
        }
        let v = ev.binary(BinOp::Mul, b.g(), d)?;
        drop(p);
        // `x ** 0` has a zero gradient everywhere (ATen: `zeros_like(self)`).
        let v = if number(&exponent) == Some(0.0) {
            ev.binary(BinOp::Mul, v, Value::Float(0.0))?
        } else {
            v
        };
        out[0] = Some(ev.sum_to(v, &b.shape(0))?);
    }
    if b.needs(1) {
        // grad * (result * self.log())
        let result = match ev.saved_input(b, "result") {
            Ok(saved @ Value::Tensor(_)) => saved,
            _ => ev.binary(BinOp::Pow, base.clone(), exponent)?,
        };
        let log = match base {
            Value::Tensor(_) => ev.method(base, "log", vec![])?,
            other => Value::Float(number(&other).unwrap_or(0.0).ln()),
        };
        let d = ev.binary(BinOp::Mul, result, log)?;
        let v = ev.binary(BinOp::Mul, b.g(), d)?;
        out[1] = Some(ev.sum_to(v, &b.shape(1))?);
    }
    Ok(out)
}

/// `neg(Tensor self)`.
pub(crate) static NEG: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &[],
    backward: neg,
};

fn neg(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        out[0] = Some(ev.neg_value(b.grad)?);
    }
    Ok(out)
}

/// `matmul(Tensor self, Tensor other)` of vectors and matrices (`mm`, `mv`, `dot`).
pub(crate) static MATMUL: Formula = Formula {
    inputs: &["self", "other"],
    saves: &["self", "other"],
    args: &[],
    backward: matmul,
};

fn matmul(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let g = b.g();
    let t = |ev: &mut Evaluator, v: Value| ev.method(v, "t", vec![]);
    let ranks = (b.shape(0).len(), b.shape(1).len());
    if !matches!(ranks, (2, 2) | (1, 1) | (2, 1) | (1, 2)) {
        return Err(unsupported(b.node));
    }
    // Each gradient only where its input needs one, as ATen's node computes them; each
    // operand read only while its gradient needs it (a node keeps no inputs of its own).
    let mut out = b.none();
    if b.needs(0) {
        let m = ev.saved_input(b, "other")?;
        let g = g.clone();
        out[0] = Some(match ranks {
            (2, 2) => {
                let a = ev.saved_input(b, "self")?;
                mm_mat1_backward(ev, g, a, m)?
            }
            (1, 1) => ev.binary(BinOp::Mul, g, m)?,
            (2, 1) => ev.method(g, "outer", vec![m])?,
            _ => ev.binary(BinOp::MatMul, m, g)?,
        });
    }
    if b.needs(1) {
        let a = ev.saved_input(b, "self")?;
        let m = if ranks == (2, 2) {
            ev.saved_input(b, "other")?
        } else {
            Value::None
        };
        out[1] = Some(match ranks {
            (2, 2) => mm_mat2_backward(ev, g, a, m)?,
            (1, 1) => ev.binary(BinOp::Mul, g, a)?,
            (2, 1) => {
                let at = t(ev, a)?;
                ev.binary(BinOp::MatMul, at, g)?
            }
            _ => ev.method(a, "outer", vec![g])?,
        });
    }
    Ok(out)
}

// ----- reductions -----

/// `sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)`.
pub(crate) static SUM: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["dim", "keepdim"],
    backward: sum,
};

/// `mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)`.
pub(crate) static MEAN: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["dim", "keepdim"],
    backward: mean,
};

fn sum(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    sum_mean(ev, b, false)
}

fn mean(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    sum_mean(ev, b, true)
}

fn sum_mean(ev: &mut Evaluator, b: &Backward, mean: bool) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let dims = b.arg("dim").and_then(ints);
    let keepdim = matches!(b.arg("keepdim"), Some(Value::Bool(true)));
    let input = b.shape(0);
    let mut v = b.g();
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
                    v = ev.method(v, "unsqueeze", vec![Value::Int(d)])?;
                }
            }
            count
        }
    };
    v = ev.method(v, "expand", vec![shape_value(&input)])?;
    if mean {
        v = ev.binary(BinOp::Div, v, Value::Int(count))?;
    }
    out[0] = Some(v);
    Ok(out)
}

// ----- views, shapes and copies -----

/// Any op that only changes the shape (`view`, `reshape`, `squeeze`, ...): the gradient is
/// reshaped back.
pub(crate) static RESHAPE: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &[],
    backward: reshape,
};

fn reshape(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        out[0] = Some(ev.method(b.g(), "reshape", vec![shape_value(&b.shape(0))])?);
    }
    Ok(out)
}

/// `transpose.int(Tensor self, int dim0, int dim1)` (`swapaxes`, `swapdims`).
pub(crate) static TRANSPOSE: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["dim0", "dim1"],
    backward: transpose,
};

fn transpose(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let first = b.arg("dim0").and_then(number);
    let second = b.arg("dim1").and_then(number);
    match (first, second) {
        (Some(d0), Some(d1)) => transposed(ev, b, d0 as i64, d1 as i64),
        _ => Err(unsupported(b.node)),
    }
}

fn transposed(ev: &mut Evaluator, b: &Backward, d0: i64, d1: i64) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        let v = ev.method(b.g(), "transpose", vec![Value::Int(d0), Value::Int(d1)])?;
        out[0] = Some(v);
    }
    Ok(out)
}

/// `t(Tensor self)`: a transpose of a matrix, the identity below two dimensions.
pub(crate) static T: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &[],
    backward: t,
};

fn t(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    if b.shape(0).len() < 2 {
        return identity(ev, b);
    }
    transposed(ev, b, 0, 1)
}

/// `tensor.mT`: the last two dimensions swapped.
pub(crate) static MATRIX_T: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &[],
    backward: matrix_t,
};

fn matrix_t(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    transposed(ev, b, -2, -1)
}

/// `tensor.T`: every dimension reversed, the identity below two dimensions.
pub(crate) static REVERSED_T: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &[],
    backward: reversed_t,
};

fn reversed_t(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let ndim = b.shape(0).len();
    if ndim < 2 {
        return identity(ev, b);
    }
    permuted(ev, b, &(0..ndim as i64).rev().collect::<Vec<_>>())
}

/// `permute(Tensor self, int[] dims)`.
pub(crate) static PERMUTE: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["dims"],
    backward: permute,
};

fn permute(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    match b.arg("dims").and_then(ints) {
        Some(dims) => permuted(ev, b, &dims),
        None => Err(unsupported(b.node)),
    }
}

fn permuted(ev: &mut Evaluator, b: &Backward, dims: &[i64]) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        let n = dims.len() as i64;
        let mut inverse = vec![0i64; dims.len()];
        for (i, d) in dims.iter().enumerate() {
            let d = if *d < 0 { d + n } else { *d };
            if let Some(slot) = inverse.get_mut(d as usize) {
                *slot = i as i64;
            }
        }
        let dims = Value::Tuple(inverse.into_iter().map(Value::Int).collect());
        out[0] = Some(ev.method(b.g(), "permute", vec![dims])?);
    }
    Ok(out)
}

/// `expand(Tensor self, int[] size)` (`expand_as`, `broadcast_to`): the gradient summed back.
pub(crate) static EXPAND: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &[],
    backward: expand,
};

fn expand(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        out[0] = Some(ev.sum_to(b.g(), &b.shape(0))?);
    }
    Ok(out)
}

/// Copies and dtype conversions (`clone`, `contiguous`, `to`, `float`): the gradient in the
/// input's dtype.
pub(crate) static IDENTITY: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &[],
    backward: identity,
};

fn identity(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        let dtype = b
            .node
            .operands
            .first()
            .and_then(|o| o.dtype)
            .unwrap_or(b.node.out_dtype);
        out[0] = Some(ev.grad_in_dtype(b.g(), dtype)?);
    }
    Ok(out)
}

/// `x[index]` with basic indexing (advanced indexing is not modelled).
pub(crate) static INDEX: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["index"],
    backward: index,
};

fn index(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let Some(index) = b.arg("index") else {
        return Err(unsupported(b.node));
    };
    let mut out = b.none();
    if b.needs(0) {
        // zeros(input's shape), then the gradient added where the index read: ATen's
        // `index_backward` (`_index_put_impl_(zeros, indices, grad, accumulate=True)`), so an
        // element read twice gets both gradients.
        let dtype = b.grad.as_tensor().map_or(b.node.out_dtype, |t| t.dtype);
        let zeros = ev.full(&b.shape(0), Scalar::Float(0.0), dtype, "backward")?;
        ev.add_at_index(&zeros, index, b.grad)?;
        out[0] = Some(Value::tensor(zeros, "backward", None));
    }
    Ok(out)
}

// ----- pointwise functions -----

/// A formula of one input whose gradient is `f(grad, saved)`, `saved` being `self` or
/// `result` as `saves` says.
macro_rules! unary {
    ($(#[$doc:meta])* $name:ident, $saves:literal, $f:ident) => {
        $(#[$doc])*
        pub(crate) static $name: Formula = Formula {
            inputs: &["self"],
            saves: &[$saves],
            args: &[],
            backward: |ev, b| {
                let mut out = b.none();
                if b.needs(0) {
                    let saved = ev.saved_input(b, $saves)?;
                    out[0] = Some($f(ev, b.g(), saved)?);
                }
                Ok(out)
            },
        };
    };
}

unary!(
    /// `exp(Tensor self)`: `grad * result`.
    EXP,
    "result",
    exp
);
unary!(
    /// `log(Tensor self)`: `grad / self`.
    LOG,
    "self",
    log
);
unary!(
    /// `sqrt(Tensor self)`: `grad / (2 * result)`.
    SQRT,
    "result",
    sqrt
);
unary!(
    /// `relu(Tensor self)`: `grad` where `result > 0`.
    RELU,
    "result",
    relu
);
unary!(
    /// `sigmoid(Tensor self)`: `grad * (1 - result) * result`.
    SIGMOID,
    "result",
    sigmoid
);
unary!(
    /// `tanh(Tensor self)`: `grad * (1 - result * result)`.
    TANH,
    "result",
    tanh
);

unary!(
    /// `sin(Tensor self)`: `grad * self.cos()`.
    SIN,
    "self",
    sin
);
unary!(
    /// `cos(Tensor self)`: `grad * -self.sin()`.
    COS,
    "self",
    cos
);

fn sin(ev: &mut Evaluator, g: Value, x: Value) -> R<Value> {
    let d = ev.method(x, "cos", vec![])?;
    ev.binary(BinOp::Mul, g, d)
}

fn cos(ev: &mut Evaluator, g: Value, x: Value) -> R<Value> {
    let s = ev.method(x, "sin", vec![])?;
    let d = ev.neg_value(&s)?;
    ev.binary(BinOp::Mul, g, d)
}

fn exp(ev: &mut Evaluator, g: Value, y: Value) -> R<Value> {
    ev.binary(BinOp::Mul, g, y)
}

fn log(ev: &mut Evaluator, g: Value, x: Value) -> R<Value> {
    ev.binary(BinOp::Div, g, x)
}

fn sqrt(ev: &mut Evaluator, g: Value, y: Value) -> R<Value> {
    let twice = ev.binary(BinOp::Mul, Value::Int(2), y)?;
    ev.binary(BinOp::Div, g, twice)
}

fn relu(ev: &mut Evaluator, g: Value, y: Value) -> R<Value> {
    // ATen's `threshold_backward` is one kernel: the mask is not an allocation of its.
    let off = ev.uncounted(|ev| ev.binary(BinOp::Le, y.clone(), Value::Int(0)))?;
    let masked = ev.method(g, "masked_fill", vec![off, Value::Float(0.0)])?;
    if !ev.torch.grad_enabled {
        return Ok(masked);
    }
    // With `create_graph`, ATen's `threshold_backward(grad, result)` depends on `result`
    // with a zero gradient: the same values, on the graph.
    let zero = ev.binary(BinOp::Mul, y, Value::Int(0))?;
    ev.binary(BinOp::Add, masked, zero)
}

fn sigmoid(ev: &mut Evaluator, g: Value, y: Value) -> R<Value> {
    // ATen's `sigmoid_backward` is one kernel: only its output is allocated.
    let v = ev.uncounted(|ev| {
        let one_minus = ev.binary(BinOp::Sub, Value::Int(1), y.clone())?;
        ev.binary(BinOp::Mul, g, one_minus)
    })?;
    ev.binary(BinOp::Mul, v, y)
}

fn tanh(ev: &mut Evaluator, g: Value, y: Value) -> R<Value> {
    // ATen's `tanh_backward` is one kernel: only its output is allocated.
    let one_minus = ev.uncounted(|ev| {
        let sq = ev.binary(BinOp::Mul, y.clone(), y)?;
        ev.binary(BinOp::Sub, Value::Int(1), sq)
    })?;
    ev.binary(BinOp::Mul, g, one_minus)
}
