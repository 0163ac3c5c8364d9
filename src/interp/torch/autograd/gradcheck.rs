//! `torch.autograd.gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3,
//! raise_exception=True, ...)` as PyTorch's slow mode runs it: for each differentiable
//! output and each input that requires grad, the numerical Jacobian (central differences,
//! `(f(x + eps) - f(x - eps)) / (2 eps)` per element of the input) against the analytical
//! one (`torch.autograd.grad` with each one-hot gradient of the output), compared as
//! `allclose(analytical, numerical, rtol, atol)` (rows: the input's elements, columns: the
//! output's). A mismatch raises `GradcheckError`, or returns `False` with
//! `raise_exception=False`.

use std::rc::Rc;

use crate::core::tensor::{DType, ScriptError};
use crate::interp::torch::autograd::tracks_grad;
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The keyword arguments of `gradcheck`, with their defaults where read.
const KEYWORDS: &[&str] = &[
    "eps",
    "atol",
    "rtol",
    "raise_exception",
    "nondet_tol",
    "check_undefined_grad",
    "check_grad_dtypes",
    "check_batched_grad",
    "check_batched_forward_grad",
    "check_forward_ad",
    "check_backward_ad",
    "fast_mode",
    "masked",
];

/// A tuple's items (PyTorch's `_as_tuple`): a tuple or list as is, another value alone.
fn as_tuple(v: Value) -> Vec<Value> {
    match v {
        Value::Tuple(items) | Value::List(items) => items,
        other => vec![other],
    }
}

impl Evaluator {
    /// `torch.autograd.gradcheck(...)`: see the module documentation.
    pub(crate) fn gradcheck(&mut self, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<Value> {
        let mut pos = pos.into_iter();
        let mut func = pos.next();
        let mut inputs = pos.next();
        if let Some(extra) = pos.next() {
            let _ = extra;
            return Err(ScriptError::Type(
                "gradcheck() takes 2 positional arguments but 3 were given".into(),
            ));
        }
        let (mut eps, mut atol, mut rtol, mut raise) = (1e-6, 1e-5, 1e-3, true);
        for (k, v) in kw {
            match k.as_str() {
                "func" if func.is_none() => func = Some(v),
                "inputs" if inputs.is_none() => inputs = Some(v),
                "eps" => eps = self.float_arg(&v)?,
                "atol" => atol = self.float_arg(&v)?,
                "rtol" => rtol = self.float_arg(&v)?,
                "raise_exception" => raise = self.truthy(&v)?,
                k if KEYWORDS.contains(&k) => {}
                k => {
                    return Err(ScriptError::Type(format!(
                        "gradcheck() got an unexpected keyword argument '{k}'"
                    )))
                }
            }
        }
        let (Some(func), Some(inputs)) = (func, inputs) else {
            return Err(ScriptError::Type(
                "gradcheck() missing 2 required positional arguments: 'func' and 'inputs'".into(),
            ));
        };
        let inputs = as_tuple(inputs);
        let diff: Vec<(usize, TensorRef)> = inputs
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match v {
                Value::Tensor(t) if t.borrow().requires_grad => Some((i, Rc::clone(t))),
                _ => None,
            })
            .collect();
        if diff.is_empty() {
            return Err(ScriptError::Value(
                "gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True.".into(),
            ));
        }
        let was = std::mem::replace(&mut self.torch.grad_enabled, true);
        let result = self.check_jacobians(&func, &inputs, &diff, eps, atol, rtol);
        self.torch.grad_enabled = was;
        match result? {
            None => Ok(Value::Bool(true)),
            Some(_) if !raise => Ok(Value::Bool(false)),
            Some(message) => Err(ScriptError::Other {
                class: "GradcheckError".into(),
                message,
            }),
        }
    }

    fn float_arg(&mut self, v: &Value) -> R<f64> {
        crate::interp::torch::autograd::number(v)
            .ok_or_else(|| ScriptError::Type(format!("must be real number, not {}", v.type_name())))
    }

    /// The first mismatch's message, or `None` when every Jacobian matches.
    fn check_jacobians(
        &mut self,
        func: &Value,
        inputs: &[Value],
        diff: &[(usize, TensorRef)],
        eps: f64,
        atol: f64,
        rtol: f64,
    ) -> R<Option<String>> {
        let outputs: Vec<TensorRef> = as_tuple(self.call(func.clone(), inputs.to_vec(), vec![])?)
            .into_iter()
            .filter_map(|v| match v {
                Value::Tensor(t) if tracks_grad(&t.borrow()) => Some(t),
                _ => None,
            })
            .collect();
        let diff_values: Vec<Value> = diff
            .iter()
            .map(|(_, t)| Value::Tensor(Rc::clone(t)))
            .collect();
        for (o, out) in outputs.iter().enumerate() {
            let (out_shape, out_dtype) = {
                let t = out.borrow();
                (t.tensor.shape().to_vec(), t.tensor.dtype)
            };
            let n_out: usize = out_shape.iter().product::<i64>().max(0) as usize;
            // Analytical: one backward per element of the output.
            let mut analytical: Vec<Vec<f64>> = diff
                .iter()
                .map(|(_, t)| vec![0.0; t.borrow().tensor.numel().max(0) as usize * n_out])
                .collect();
            for k in 0..n_out {
                let mut onehot = vec![0.0; n_out];
                onehot[k] = 1.0;
                let g = self.host_tensor(&out_shape, out_dtype, &onehot)?;
                let grads = self.autograd_grad(
                    vec![
                        Value::Tensor(Rc::clone(out)),
                        Value::Tuple(diff_values.clone()),
                        g,
                    ],
                    vec![
                        ("retain_graph".into(), Value::Bool(true)),
                        ("allow_unused".into(), Value::Bool(true)),
                    ],
                )?;
                for (j, g) in as_tuple(grads).into_iter().enumerate() {
                    if matches!(g, Value::None) {
                        continue;
                    }
                    let values = self.host(&g).values;
                    if let Some(jac) = analytical.get_mut(j) {
                        for (e, v) in values.into_iter().enumerate() {
                            if let Some(cell) = jac.get_mut(e * n_out + k) {
                                *cell = v;
                            }
                        }
                    }
                }
            }
            for (j, (at, t)) in diff.iter().enumerate() {
                let numerical = self.numerical_jacobian(func, inputs, *at, t, o, n_out, eps)?;
                let close = numerical
                    .iter()
                    .zip(&analytical[j])
                    .all(|(n, a)| (a - n).abs() <= atol + rtol * n.abs());
                if !close {
                    // Errors keep the first line of their message, as the oracle records
                    // them (PyTorch's goes on with both Jacobians).
                    return Ok(Some(format!(
                        "Jacobian mismatch for output {o} with respect to input {j},"
                    )));
                }
            }
        }
        Ok(None)
    }

    /// The numerical Jacobian of output `o` with respect to input `at` (`t`), by central
    /// differences on copies of the input, in its dtype.
    #[allow(clippy::too_many_arguments)]
    fn numerical_jacobian(
        &mut self,
        func: &Value,
        inputs: &[Value],
        at: usize,
        t: &TensorRef,
        o: usize,
        n_out: usize,
        eps: f64,
    ) -> R<Vec<f64>> {
        let (shape, dtype) = {
            let t = t.borrow();
            (t.tensor.shape().to_vec(), t.tensor.dtype)
        };
        let base = self.host(&Value::Tensor(Rc::clone(t))).values;
        let mut jac = vec![0.0; base.len() * n_out];
        for e in 0..base.len() {
            let side = |ev: &mut Evaluator, x: f64| -> R<Vec<f64>> {
                let mut values = base.clone();
                values[e] = x;
                let perturbed = ev.host_tensor(&shape, dtype, &values)?;
                let mut args = inputs.to_vec();
                args[at] = perturbed;
                let out = as_tuple(ev.call(func.clone(), args, vec![])?);
                let tensors: Vec<Value> = out
                    .into_iter()
                    .filter(|v| matches!(v, Value::Tensor(_)))
                    .collect();
                Ok(tensors
                    .get(o)
                    .map(|v| ev.host(v).values)
                    .unwrap_or_default())
            };
            let below = side(self, base[e] - eps)?;
            let above = side(self, base[e] + eps)?;
            for k in 0..n_out {
                let (a, b) = (
                    below.get(k).copied().unwrap_or(0.0),
                    above.get(k).copied().unwrap_or(0.0),
                );
                jac[e * n_out + k] = round_to(dtype, (round_to(dtype, b - a)) / (2.0 * eps));
            }
        }
        Ok(jac)
    }
}

/// `x` as a value of `dtype` (float32 arithmetic rounds each step).
fn round_to(dtype: DType, x: f64) -> f64 {
    match dtype {
        DType::Float32 => x as f32 as f64,
        _ => x,
    }
}
