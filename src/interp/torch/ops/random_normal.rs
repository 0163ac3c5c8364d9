//! `torch.normal` in its four overloads, as ATen's `normal_impl`/`normal_out_impl`
//! (`DistributionTemplates.h`) computes them on the CPU, bit for bit with the generator:
//!
//! - `normal(mean: float, std: float, size)`: `empty(size).normal_(mean, std)`;
//! - `normal(mean: Tensor, std: float = 1)`: `empty_like(mean).normal_(0, std)`, then `add_(mean)`;
//! - `normal(mean: float, std: Tensor)`: `empty_like(std).normal_(0, 1)`, then
//!   `mul_(std).add_(full((), mean))`;
//! - `normal(mean: Tensor, std: Tensor)`: `empty(broadcast shape, mean's dtype).normal_(0, 1)`,
//!   then `mul_(std).add_(mean)`.
//!
//! The size overload makes its tensor on `device=` or the CPU, whatever the default device
//! (as PyTorch 2.15 does). Each new tensor is contiguous; the draws go through [`random::sample`] as `normal_`'s do.
//! With a tensor argument that requires grad the node is `NormalBackward1` (tensor mean),
//! `NormalBackward2` (tensor std) or `NormalBackward3` (both), whose gradients are zeros.

use crate::core::tensor::layout::broadcast_shapes;
use crate::core::tensor::random::{self, cpp_double, Distribution};
use crate::core::tensor::{DType, Layout, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::formulas::Backward;
use crate::interp::torch::autograd::nodes::NodeQuery;
use crate::interp::torch::autograd::{Formula, Grad};
use crate::interp::torch::device::Device;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table entry of `torch.normal`.
pub(crate) static OPS: &[OpDef] = &[OpDef {
    names: &["normal"],
    schemas: &[
        "Tensor mean, Tensor std, *, Any? generator=None, Tensor? out=None",
        "Tensor mean, float std=1, *, Any? generator=None, Tensor? out=None",
        "float mean, Tensor std, *, Any? generator=None, Tensor? out=None",
        "float mean, float std, int[] size, *, Any? generator=None, Tensor? out=None, ScalarType? dtype=None, Any? layout=None, Device? device=None, bool pin_memory=False, bool requires_grad=False",
    ],
    forms: Forms::Function,
    rule: normal,
    grad: Grad::by(node_name, Some(&NORMAL)),
    ..OpDef::PLAIN
}];

/// `NormalBackward1/2/3`: by which of `mean` and `std` are tensors.
fn node_name(q: &NodeQuery) -> String {
    let is_tensor = |name: &str| {
        q.args
            .iter()
            .any(|(n, v)| *n == name && matches!(v, Value::Tensor(_)))
    };
    match (is_tensor("mean"), is_tensor("std")) {
        (true, true) => "NormalBackward3",
        (false, true) => "NormalBackward2",
        _ => "NormalBackward1",
    }
    .into()
}

/// The gradients of `normal`'s tensor arguments: zeros of their shapes (`derivatives.yaml`).
static NORMAL: Formula = Formula {
    inputs: &["mean", "std"],
    saves: &[],
    args: &[],
    backward: |ev, b: &Backward| {
        let mut out = b.none();
        let dtype = b.grad.as_tensor().map_or(DType::Float32, |g| g.dtype);
        for (i, slot) in out.iter_mut().enumerate() {
            if b.needs(i) {
                let zeros = ev.full(&b.shape(i), Scalar::Float(0.0), dtype, "backward")?;
                *slot = Some(Value::tensor(zeros, "backward", None));
            }
        }
        Ok(out)
    },
};

fn normal(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let result = match call.overload() {
        3 => {
            let mean = ev.arg_float(call, "mean", 0.0)?;
            let std = ev.arg_float(call, "std", 1.0)?;
            let shape = ev.arg_ints(call, "size")?.unwrap_or_default();
            let dtype = call.dtype("dtype").unwrap_or(DType::Float32);
            ev.check_shape(&shape)?;
            // This overload ignores the default device (`torch.set_default_device`, `with
            // torch.device(...)`): it makes its tensor on `device=`, else on the CPU.
            let device = call
                .value("device")
                .and_then(Device::of_value)
                .unwrap_or(Device::Cpu);
            let t = ev.on_device(device, |ev| ev.drawn_normal(&shape, dtype, mean, std))?;
            let v = Value::tensor(t, "normal", None);
            if let Value::Tensor(t) = &v {
                t.borrow_mut().requires_grad = call.flag("requires_grad", false);
            }
            v
        }
        overload => {
            let mean = call.value("mean").cloned().unwrap_or(Value::None);
            let std = call.value("std").cloned().unwrap_or(Value::None);
            ev.normal_from_tensors(overload, mean, std)?
        }
    };
    if let (Some(out), Value::Tensor(r)) = (call.tensor("out"), &result) {
        let src = r.borrow().tensor.clone();
        ev.copy_into(&out, &src, false)?;
        return Ok(call.value("out").cloned().unwrap_or(Value::None));
    }
    Ok(result)
}

impl Evaluator {
    /// A new contiguous tensor of `shape` drawn as `normal_(mean, std)` draws it (nothing is
    /// drawn on the meta device).
    fn drawn_normal(&mut self, shape: &[i64], dtype: DType, mean: f64, std: f64) -> R<Tensor> {
        let numel = crate::core::tensor::layout::numel_of(shape);
        self.check_work(numel, "normal")?;
        let dist = Distribution::Normal { mean, std };
        if self.torch.device.meta_op {
            // PyTorch checks the arguments before it returns early.
            random::sample(&mut self.torch.generator.clone(), &dist, dtype, 0, true)?;
            return self.empty(shape, dtype, MemoryFormat::Contiguous, "normal");
        }
        if dtype.is_complex() {
            // ATen draws a complex tensor as its `view_as_real`.
            let dist = super::complex::real_distribution(&dist, "normal")?;
            let mut halves = shape.to_vec();
            halves.push(2);
            let n = numel as usize * 2;
            let values =
                random::sample(&mut self.torch.generator, &dist, dtype.real_part(), n, true)?;
            let f = self.tensor_from_values(&halves, dtype.real_part(), &values, "normal")?;
            return Ok(Tensor {
                storage: f.storage,
                dtype,
                layout: Layout::contiguous(shape),
            });
        }
        let values = random::sample(
            &mut self.torch.generator,
            &dist,
            dtype,
            numel as usize,
            true,
        )?;
        self.tensor_from_values(shape, dtype, &values, "normal")
    }

    /// The overloads with a tensor `mean` (0), a tensor `std` (2) or both (0 with two
    /// tensors): draws, then ATen's in-place arithmetic with grad mode off.
    fn normal_from_tensors(&mut self, overload: usize, mean: Value, std: Value) -> R<Value> {
        let tensor_of = |v: &Value| v.as_tensor();
        // CHECK_NORMAL_TENSOR_STD / CHECK_NORMAL_STD come first.
        match (&std, overload) {
            (Value::Tensor(_), _) => {
                let s = tensor_of(&std).ok_or_else(|| ScriptError::Runtime("std".into()))?;
                if s.dtype.is_complex() {
                    return Err(ScriptError::Runtime(
                        "normal expects standard deviation to be non-complex".into(),
                    ));
                }
                if s.numel() > 0 && !self.is_meta(&s) {
                    let negative = self
                        .engine
                        .values(&s)
                        .iter()
                        .any(|v| v.to_f64().is_nan() || v.to_f64() < 0.0);
                    if negative {
                        return Err(ScriptError::Runtime(
                            "normal expects all elements of std >= 0.0".into(),
                        ));
                    }
                }
            }
            _ => {
                let s = self.scalar_of(&std).map_or(1.0, Scalar::to_f64);
                if s.is_nan() || s < 0.0 {
                    return Err(ScriptError::Runtime(format!(
                        "normal expects std >= 0.0, but found std {}",
                        cpp_double(s)
                    )));
                }
            }
        }
        let (shape, dtype, std_draw) = match (tensor_of(&mean), tensor_of(&std)) {
            (Some(m), Some(s)) => {
                let shape = broadcast_shapes(m.shape(), s.shape()).map_err(ScriptError::Runtime)?;
                (shape, m.dtype, 1.0)
            }
            (Some(m), None) => {
                let s = self.scalar_of(&std).map_or(1.0, Scalar::to_f64);
                (m.shape().to_vec(), m.dtype, s)
            }
            (None, Some(s)) => (s.shape().to_vec(), s.dtype, 1.0),
            (None, None) => {
                return Err(ScriptError::Type(
                    "normal(): mean or std must be a Tensor".into(),
                ))
            }
        };
        let t = self.drawn_normal(&shape, dtype, 0.0, std_draw)?;
        let out = Value::tensor(t, "normal", None);
        let was = std::mem::replace(&mut self.torch.grad_enabled, false);
        let result = self.normal_arithmetic(&out, &mean, &std);
        self.torch.grad_enabled = was;
        result?;
        Ok(out)
    }

    /// `out.add_(mean)` or `out.mul_(std).add_(mean)`, a number `mean` as a 0-dim tensor of
    /// `out`'s dtype.
    fn normal_arithmetic(&mut self, out: &Value, mean: &Value, std: &Value) -> R<()> {
        let method = |name: &str| Value::Method(Box::new(out.clone()), name.into());
        if let Value::Tensor(_) = std {
            self.call(method("mul_"), vec![std.clone()], vec![])?;
        }
        let mean = match mean {
            Value::Tensor(_) => mean.clone(),
            number => {
                let dtype = out.as_tensor().map_or(DType::Float32, |t| t.dtype);
                let m = self.scalar_of(number).unwrap_or(Scalar::Float(0.0));
                let t = self.full(&[], dtype.round(m), dtype, "normal")?;
                Value::tensor(t, "normal", None)
            }
        };
        self.call(method("add_"), vec![mean], vec![])?;
        Ok(())
    }
}
