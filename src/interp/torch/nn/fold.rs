//! `F.unfold` (ATen's `im2col`) and `F.fold` (`col2im`) as entries of the op table, with
//! their nodes: `Im2ColBackward0` keeps the four pairs and the input's last two sizes
//! (`_saved_self_sym_argsize_minus_2`/`_minus_1`) and its gradient is `col2im` of the
//! gradient; `Col2ImBackward0` keeps the pairs and its gradient is `im2col`.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::autograd::backward::unsupported;
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::{Grad, GradOp};
use crate::interp::torch::nn::functional::{functional, tensor_arg};
use crate::interp::torch::registry::{OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(
        &["unfold"],
        &["input, kernel_size, dilation=1, padding=0, stride=1"],
        unfold,
        Grad::UNTRACKED,
    ),
    functional(
        &["fold"],
        &["input, output_size, kernel_size, dilation=1, padding=0, stride=1"],
        fold,
        Grad::UNTRACKED,
    ),
];

/// `im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride)`.
pub(crate) static IM2COL: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &[
        "dilation",
        "kernel_size",
        "padding",
        "self_sym_argsize_minus_1",
        "self_sym_argsize_minus_2",
        "stride",
    ],
    backward: im2col_backward,
};

/// `col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2]
/// padding, int[2] stride)`.
pub(crate) static COL2IM: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["dilation", "kernel_size", "padding", "stride"],
    backward: col2im_backward,
};

const IM2COL_GRAD: Grad = Grad::named("Im2ColBackward0", &IM2COL);
const COL2IM_GRAD: Grad = Grad::named("Col2ImBackward0", &COL2IM);

/// `_pair(v)` of an argument: an int repeated, or a sequence of two ints.
fn pair(ev: &mut Evaluator, call: &OpCall, param: &str, default: i64) -> R<[i64; 2]> {
    let Some(v) = call.value(param) else {
        return Ok([default, default]);
    };
    let v = v.clone();
    match ev.int_list(&v, &call.name, param)?.as_slice() {
        [one] => Ok([*one, *one]),
        [a, b] => Ok([*a, *b]),
        _ => Err(ScriptError::Type(format!(
            "{}(): argument '{param}' must be tuple of 2 ints",
            call.name
        ))),
    }
}

fn tuple(v: [i64; 2]) -> Value {
    Value::Tuple(vec![Value::Int(v[0]), Value::Int(v[1])])
}

fn pairs_of(b: &Backward, name: &str) -> R<[i64; 2]> {
    match b.arg(name) {
        Some(Value::Tuple(items)) => match items.as_slice() {
            [Value::Int(a), Value::Int(c)] => Ok([*a, *c]),
            _ => Err(unsupported(b.node)),
        },
        _ => Err(unsupported(b.node)),
    }
}

/// `F.unfold(input, kernel_size, dilation=1, padding=0, stride=1)`.
fn unfold(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let t = input.borrow().tensor.clone();
    let kernel = pair(ev, call, "kernel_size", 1)?;
    let dilation = pair(ev, call, "dilation", 1)?;
    let padding = pair(ev, call, "padding", 0)?;
    let stride = pair(ev, call, "stride", 1)?;
    let out = ev.im2col(&t, kernel, dilation, padding, stride)?;
    let s = t.shape();
    let (h, w) = (s[s.len() - 2], s[s.len() - 1]);
    let args = [
        ("dilation", tuple(dilation)),
        ("kernel_size", tuple(kernel)),
        ("padding", tuple(padding)),
        ("self_sym_argsize_minus_1", Value::Int(w)),
        ("self_sym_argsize_minus_2", Value::Int(h)),
        ("stride", tuple(stride)),
    ];
    let named: Vec<(&str, &Value)> = args.iter().map(|(n, v)| (*n, v)).collect();
    let op = GradOp::Named {
        name: "im2col",
        grad: &IM2COL_GRAD,
        args: &named,
    };
    ev.record_grad(op, &[&Value::Tensor(Rc::clone(&input))], &out);
    Ok(out)
}

/// `F.fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1)`.
fn fold(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = tensor_arg(call, "input")?;
    let t = input.borrow().tensor.clone();
    let output = pair(ev, call, "output_size", 1)?;
    let kernel = pair(ev, call, "kernel_size", 1)?;
    let dilation = pair(ev, call, "dilation", 1)?;
    let padding = pair(ev, call, "padding", 0)?;
    let stride = pair(ev, call, "stride", 1)?;
    let out = ev.col2im(&t, output, kernel, dilation, padding, stride)?;
    let args = [
        ("dilation", tuple(dilation)),
        ("kernel_size", tuple(kernel)),
        ("padding", tuple(padding)),
        ("stride", tuple(stride)),
    ];
    let named: Vec<(&str, &Value)> = args.iter().map(|(n, v)| (*n, v)).collect();
    let op = GradOp::Named {
        name: "col2im",
        grad: &COL2IM_GRAD,
        args: &named,
    };
    ev.record_grad(op, &[&Value::Tensor(Rc::clone(&input))], &out);
    Ok(out)
}

fn im2col_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let g = b.grad.as_tensor().ok_or_else(|| unsupported(b.node))?;
    let size = |name: &str| match b.arg(name) {
        Some(Value::Int(v)) => Ok(*v),
        _ => Err(unsupported(b.node)),
    };
    let output = [
        size("self_sym_argsize_minus_2")?,
        size("self_sym_argsize_minus_1")?,
    ];
    out[0] = Some(ev.col2im(
        &g,
        output,
        pairs_of(b, "kernel_size")?,
        pairs_of(b, "dilation")?,
        pairs_of(b, "padding")?,
        pairs_of(b, "stride")?,
    )?);
    Ok(out)
}

fn col2im_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let g = b.grad.as_tensor().ok_or_else(|| unsupported(b.node))?;
    out[0] = Some(ev.im2col(
        &g,
        pairs_of(b, "kernel_size")?,
        pairs_of(b, "dilation")?,
        pairs_of(b, "padding")?,
        pairs_of(b, "stride")?,
    )?);
    Ok(out)
}
