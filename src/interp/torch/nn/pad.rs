//! `F.pad`'s autograd: the node each mode's ATen op records (`ConstantPadNdBackward0` with
//! `_saved_pad`; `ReflectionPad{1,2,3}DBackward0` and `ReplicationPad{1,2,3}DBackward0` with
//! `_saved_padding` and `_saved_self`) and their backward formulas. The circular mode is
//! ATen's composite `_pad_circular`: `new_empty`, then `copy_`s between slices, so its nodes
//! are `CopySlices` and `SliceBackward0` (the ops are called as a script would call them).

use std::rc::Rc;

use crate::core::tensor::{Scalar, ScriptError};
use crate::interp::torch::autograd::backward::unsupported;
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::{Grad, GradOp};
use crate::interp::torch::nn::dense_backward::meta_grad;
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// `constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0)`: the gradient is
/// `constant_pad_nd(grad, -pad)`.
pub(crate) static CONSTANT_PAD: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["pad"],
    backward: constant_backward,
};

/// `reflection_padNd(Tensor self, SymInt[] padding)` and `replication_padNd`: the gradient
/// sums the output's gradient into the input element each output element read.
pub(crate) static MIRROR_PAD: Formula = Formula {
    inputs: &["self"],
    saves: &["self"],
    args: &["padding"],
    backward: mirror_backward,
};

const CONSTANT: Grad = Grad::named("ConstantPadNdBackward0", &CONSTANT_PAD);
const REFLECT: [Grad; 3] = [
    Grad::named("ReflectionPad1DBackward0", &MIRROR_PAD),
    Grad::named("ReflectionPad2DBackward0", &MIRROR_PAD),
    Grad::named("ReflectionPad3DBackward0", &MIRROR_PAD),
];
const REPLICATE: [Grad; 3] = [
    Grad::named("ReplicationPad1DBackward0", &MIRROR_PAD),
    Grad::named("ReplicationPad2DBackward0", &MIRROR_PAD),
    Grad::named("ReplicationPad3DBackward0", &MIRROR_PAD),
];

fn ints(v: &[i64]) -> Value {
    Value::Tuple(v.iter().map(|&i| Value::Int(i)).collect())
}

fn tuple_ints(b: &Backward, name: &str) -> Vec<i64> {
    match b.arg(name) {
        Some(Value::Tuple(items)) => items
            .iter()
            .map(|v| match v {
                Value::Int(i) => *i,
                _ => 0,
            })
            .collect(),
        _ => vec![],
    }
}

impl Evaluator {
    /// `F.pad(input, pad, mode, value)` with its node.
    pub(crate) fn pad_tracked(
        &mut self,
        input: &TensorRef,
        pad: &[i64],
        mode: &str,
        value: Option<Scalar>,
    ) -> R<Value> {
        let t = input.borrow().tensor.clone();
        if mode == "circular" && pad.len().is_multiple_of(2) && pad.len() / 2 <= t.ndim() {
            let n = t.ndim();
            let k = pad.len();
            if value.is_none_or(|v| v.to_f64() == 0.0)
                && matches!((k, n), (2, 2 | 3) | (4, 3 | 4) | (6, 4 | 5))
            {
                return self.pad_circular(input, pad);
            }
        }
        let out = self.pad(&t, pad, mode, value)?;
        let dims = (pad.len() / 2).clamp(1, 3) - 1;
        let (name, grad, slot) = match mode {
            "reflect" => ("reflection_pad", &REFLECT[dims], "padding"),
            "replicate" => ("replication_pad", &REPLICATE[dims], "padding"),
            _ => ("constant_pad_nd", &CONSTANT, "pad"),
        };
        let arg = ints(pad);
        let op = GradOp::Named {
            name,
            grad,
            args: &[(slot, &arg)],
        };
        self.record_grad(op, &[&Value::Tensor(Rc::clone(input))], &out);
        Ok(out)
    }

    /// ATen's `_pad_circular`: the middle copied in, then each padded dimension's left and
    /// right bands copied from the other end of the output.
    fn pad_circular(&mut self, input: &TensorRef, pad: &[i64]) -> R<Value> {
        let t = input.borrow().tensor.clone();
        let in_shape = t.shape().to_vec();
        let n = in_shape.len();
        let k = pad.len() / 2;
        let lead = n - k;
        let mut out_shape = in_shape.clone();
        for i in 0..k {
            let (l, r) = (pad[2 * (k - i - 1)], pad[2 * (k - i - 1) + 1]);
            let size = in_shape[lead + i];
            if l > size || r > size {
                return Err(ScriptError::Runtime(
                    "Padding value causes wrapping around more than once.".into(),
                ));
            }
            out_shape[lead + i] = size + l + r;
            if out_shape[lead + i] < 0 {
                return Err(ScriptError::Runtime(
                    "Negative padding value is resulting in an empty dimension".into(),
                ));
            }
        }
        let x = Value::Tensor(Rc::clone(input));
        let size = Value::Tuple(out_shape.iter().map(|&s| Value::Int(s)).collect());
        let out = self.pad_method(&x, "new_empty", vec![size])?;
        let mut out_slice = out.clone();
        let mut in_slice = x.clone();
        for i in 0..k {
            let dim = n - 1 - i;
            let (l, r) = (pad[2 * i], pad[2 * i + 1]);
            out_slice = self.pad_slice(&out_slice, dim, l.max(0), out_shape[dim] - r.max(0))?;
            in_slice = self.pad_slice(&in_slice, dim, (-l).max(0), in_shape[dim] - (-r).max(0))?;
        }
        self.pad_method(&out_slice, "copy_", vec![in_slice])?;
        for i in 0..k {
            let dim = n - 1 - i;
            let (l, r) = (pad[2 * i], pad[2 * i + 1]);
            let end = out_shape[dim];
            if l > 0 {
                let dst = self.pad_slice(&out, dim, 0, l)?;
                let src = self.pad_slice(&as_now(&out), dim, end - l - r.max(0), end - r.max(0))?;
                self.pad_method(&dst, "copy_", vec![src])?;
            }
            if r > 0 {
                let dst = self.pad_slice(&out, dim, end - r, end)?;
                let src = self.pad_slice(&as_now(&out), dim, l.max(0), l.max(0) + r)?;
                self.pad_method(&dst, "copy_", vec![src])?;
            }
        }
        Ok(out)
    }

    /// `t.narrow(dim, start, end - start)` (ATen's `slice`).
    fn pad_slice(&mut self, t: &Value, dim: usize, start: i64, end: i64) -> R<Value> {
        let args = vec![
            Value::Int(dim as i64),
            Value::Int(start),
            Value::Int((end - start).max(0)),
        ];
        self.pad_method(t, "narrow", args)
    }

    /// `value.name(*args)`, run as the script's own call so that a view is marked as one and
    /// a write through it reaches its base's graph (`CopySlices`).
    fn pad_method(&mut self, value: &Value, name: &str, args: Vec<Value>) -> R<Value> {
        self.torch.autograd.from_script = true;
        let out = self.call(
            Value::Method(Box::new(value.clone()), name.into()),
            args,
            vec![],
        );
        self.torch.autograd.from_script = false;
        out
    }
}

/// The tensor `v` as it is now: an object on its storage with its present node, so that a
/// view read from it keeps leading to that node after a later write into `v` gives `v` a
/// new one (PyTorch's `SliceBackward0` of the source leads to the `CopySlices` before).
fn as_now(v: &Value) -> Value {
    let Value::Tensor(t) = v else {
        return v.clone();
    };
    let object = t.borrow();
    let now = Value::tensor(object.tensor.clone(), "inplace", None);
    if let Value::Tensor(n) = &now {
        let mut n = n.borrow_mut();
        n.grad_fn = object.grad_fn.clone();
        n.requires_grad = object.requires_grad;
    }
    now
}

fn constant_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let g = b.grad.as_tensor().ok_or_else(|| unsupported(b.node))?;
    let negated: Vec<i64> = tuple_ints(b, "pad").iter().map(|p| -p).collect();
    out[0] = Some(ev.pad(&g, &negated, "constant", None)?);
    Ok(out)
}

fn mirror_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let saved = ev.saved_input(b, "self")?;
    let x = saved.as_tensor().ok_or_else(|| unsupported(b.node))?;
    let g = b.grad.as_tensor().ok_or_else(|| unsupported(b.node))?;
    let in_shape = x.shape().to_vec();
    let out_shape = g.shape().to_vec();
    let pad = tuple_ints(b, "padding");
    let n = in_shape.len();
    let k = pad.len() / 2;
    if k == 0 || k > n || out_shape.len() != n {
        return Err(unsupported(b.node));
    }
    if let Some(dx) = meta_grad(ev, &in_shape, g.dtype)? {
        out[0] = Some(dx);
        return Ok(out);
    }
    let reflect = b.node.name.starts_with("Reflection");
    let gv: Vec<f64> = ev.engine.values(&g).iter().map(|v| v.to_f64()).collect();
    let mut left = vec![0i64; n];
    for i in 0..k {
        left[n - 1 - i] = pad[2 * i];
    }
    let in_strides = crate::core::tensor::layout::contiguous_strides(&in_shape);
    let total: usize = in_shape.iter().product::<i64>().max(0) as usize;
    let mut dx = vec![0.0f64; total];
    let round = |v: f64| g.dtype.round(Scalar::Float(v)).to_f64();
    let mut index = vec![0i64; n];
    for &gv in &gv {
        let mut at = 0i64;
        for d in 0..n {
            let size = in_shape[d];
            let i = index[d] - left[d];
            let src = if reflect {
                if i < 0 {
                    -i
                } else if i >= size {
                    2 * (size - 1) - i
                } else {
                    i
                }
            } else {
                i.clamp(0, size - 1)
            };
            at += src * in_strides[d];
        }
        if let Some(slot) = dx.get_mut(at as usize) {
            *slot = round(*slot + gv);
        }
        for d in (0..n).rev() {
            index[d] += 1;
            if index[d] < out_shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    let result = ev.host_tensor(&in_shape, g.dtype, &dx)?;
    // The kernel reads a contiguous gradient: a copy of one that is not.
    if !g.layout.is_contiguous() {
        let bytes = g.numel() * g.dtype.item_size() as i64;
        ev.note_kernel_events(&[bytes, -bytes]);
    }
    out[0] = Some(result);
    Ok(out)
}
