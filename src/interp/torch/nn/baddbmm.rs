//! `torch.baddbmm(self, batch1, batch2, *, beta=1, alpha=1)`: `beta * self + alpha *
//! (batch1 @ batch2)` over a batch of matrices, as ATen computes it (the product is the
//! output, `self` broadcast into it: one allocation), with its node `BaddbmmBackward0`
//! (`derivatives.yaml`: it keeps `batch1` and `batch2`, each where the other needs a
//! gradient). `F.multi_head_attention_forward` adds a mask to the attention scores with it.

use crate::core::tensor::{Scalar, ScriptError};
use crate::interp::torch::autograd::backward::scalar;
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::{number, Grad};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[OpDef {
    names: &["baddbmm"],
    schemas: &["Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1"],
    forms: Forms::Both,
    rule: baddbmm,
    grad: Grad::formula(&BADDBMM),
    ..OpDef::PLAIN
}];

/// `self: maybe_multiply(grad, beta)` summed to `self`'s shape, `batch1: grad.bmm(batch2ᵀ) *
/// alpha`, `batch2: batch1ᵀ.bmm(grad) * alpha`.
static BADDBMM: Formula = Formula {
    inputs: &["self", "batch1", "batch2"],
    saves: &["batch1", "batch2"],
    args: &["beta", "alpha"],
    backward: baddbmm_backward,
};

fn no_grad<T>(ev: &mut Evaluator, f: impl FnOnce(&mut Evaluator) -> R<T>) -> R<T> {
    let was = std::mem::replace(&mut ev.torch.grad_enabled, false);
    let out = f(ev);
    ev.torch.grad_enabled = was;
    out
}

fn scaled(ev: &mut Evaluator, v: Value, by: f64) -> R<Value> {
    if by == 1.0 {
        Ok(v)
    } else {
        ev.binary(BinOp::Mul, v, scalar(by))
    }
}

fn baddbmm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_tensor()?;
    let (Some(b1), Some(b2)) = (call.tensor("batch1"), call.tensor("batch2")) else {
        return Err(ScriptError::Type("baddbmm(): missing a batch".into()));
    };
    for (what, t) in [("batch1", &b1), ("batch2", &b2)] {
        if t.ndim() != 3 {
            return Err(ScriptError::Runtime(format!("{what} must be a 3D tensor")));
        }
    }
    let (s1, s2) = (b1.shape(), b2.shape());
    if s1[0] != s2[0] || s1[2] != s2[1] {
        return Err(ScriptError::Runtime(format!(
            "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
            s1[0], s1[2], s2[0], s2[1]
        )));
    }
    if this.dtype != b1.dtype || b1.dtype != b2.dtype {
        return Err(ScriptError::Runtime(format!(
            "Expected self and batch1 to have the same dtype, but got: {} != {}",
            this.dtype.scalar_type_name(),
            b1.dtype.scalar_type_name()
        )));
    }
    let beta = ev.arg_scalar(call, "beta")?.map_or(1.0, Scalar::to_f64);
    let alpha = ev.arg_scalar(call, "alpha")?.map_or(1.0, Scalar::to_f64);
    let out_shape = Value::Tuple([s1[0], s1[1], s2[2]].map(Value::Int).to_vec());
    let this_value = Value::Tensor(call.self_ref()?);
    let (b1, b2) = (
        Value::tensor(b1, "baddbmm", None),
        Value::tensor(b2, "baddbmm", None),
    );
    no_grad(ev, |ev| {
        let expanded = ev.method(this_value, "expand", vec![out_shape])?;
        let product = ev.method(b1, "bmm", vec![b2])?;
        let product = scaled(ev, product, alpha)?;
        if beta == 0.0 {
            return Ok(product);
        }
        let base = scaled(ev, expanded, beta)?;
        // The product is the output: `self` is added into it (one allocation, as ATen's).
        ev.method(product, "add_", vec![base])
    })
}

fn arg(b: &Backward, name: &str) -> f64 {
    b.arg(name).and_then(number).unwrap_or(1.0)
}

fn baddbmm_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let (beta, alpha) = (arg(b, "beta"), arg(b, "alpha"));
    let mut out = b.none();
    let swap = vec![Value::Int(1), Value::Int(2)];
    if b.needs(1) {
        let b2 = ev.saved_input(b, "batch2")?;
        let b2t = ev.method(b2, "transpose", swap.clone())?;
        let g = ev.method(b.g(), "bmm", vec![b2t])?;
        out[1] = Some(scaled(ev, g, alpha)?);
    }
    if b.needs(2) {
        let b1 = ev.saved_input(b, "batch1")?;
        let b1t = ev.method(b1, "transpose", swap)?;
        let g = ev.method(b1t, "bmm", vec![b.g()])?;
        out[2] = Some(scaled(ev, g, alpha)?);
    }
    if b.needs(0) {
        let g = scaled(ev, b.g(), beta)?;
        out[0] = Some(ev.sum_to(g, &b.shape(0))?);
    }
    Ok(out)
}
