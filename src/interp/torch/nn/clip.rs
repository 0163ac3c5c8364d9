//! `torch.nn.utils`'s gradient clipping and parameter flattening, as `clip_grad.py` and
//! `convert_parameters.py` of PyTorch 2.15 run them on the CPU (under `no_grad`, with the
//! `foreach` kernels, whose allocations are the per-tensor ones): `clip_grad_norm_` (each
//! gradient's norm, their `stack`ed norm, `max_norm / (total + 1e-6)` clamped to 1, every
//! gradient scaled in place; the total norm returned), `get_total_norm`,
//! `clip_grads_with_norm_`, `clip_grad_value_`, `parameters_to_vector` and
//! `vector_to_parameters`; and `nn.Transformer.generate_square_subsequent_mask`, the mask
//! helper encoder tutorials call.

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The functions of `torch.nn.utils` this module runs.
pub(crate) const NN_UTILS: &[&str] = &[
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
    "get_total_norm",
    "clip_grads_with_norm_",
    "parameters_to_vector",
    "vector_to_parameters",
];

fn call(ev: &mut Evaluator, target: Value, name: &str, pos: Vec<Value>) -> R<Value> {
    ev.call(Value::Method(Box::new(target), name.into()), pos, vec![])
}

fn torch(ev: &mut Evaluator, name: &str, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<Value> {
    ev.call(Value::Method(Box::new(Value::Torch), name.into()), pos, kw)
}

fn number(v: &Value, what: &str) -> R<f64> {
    crate::interp::torch::autograd::number(v).ok_or_else(|| {
        ScriptError::Type(format!(
            "{what}: must be real number, not {}",
            v.type_name()
        ))
    })
}

impl Evaluator {
    /// `torch.nn.utils.name(*pos, **kw)`.
    pub(crate) fn call_nn_utils(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let enabled = self.torch.grad_enabled;
        // `clip_grad.py`'s functions are `@_no_grad`; the conversions run as written.
        let clipping = name.starts_with("clip_") || name == "get_total_norm";
        if clipping {
            self.torch.grad_enabled = false;
        }
        let result = self.nn_utils(name, &pos, &kw);
        self.torch.grad_enabled = enabled;
        result
    }

    fn nn_utils(&mut self, name: &str, pos: &[Value], kw: &[(String, Value)]) -> R<Value> {
        let what = format!("torch.nn.utils.{name}");
        match name {
            "clip_grad_norm_" | "clip_grad_norm" => {
                let args = bind_python(
                    "parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None",
                    &what,
                    pos,
                    kw,
                )?;
                let params = self.tensor_list(&arg(&args, "parameters"))?;
                let grads = self.grads_of(&params);
                let norm_type = number(&arg(&args, "norm_type"), &what)?;
                let check = self.truthy(&arg(&args, "error_if_nonfinite"))?;
                let total = self.total_norm(grads.clone(), norm_type, check)?;
                let max_norm = number(&arg(&args, "max_norm"), &what)?;
                self.clip_with_norm(&grads, max_norm, &total)?;
                Ok(total)
            }
            "get_total_norm" => {
                let args = bind_python(
                    "tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None",
                    &what,
                    pos,
                    kw,
                )?;
                let tensors = self.tensor_list(&arg(&args, "tensors"))?;
                let norm_type = number(&arg(&args, "norm_type"), &what)?;
                let check = self.truthy(&arg(&args, "error_if_nonfinite"))?;
                self.total_norm(tensors, norm_type, check)
            }
            "clip_grads_with_norm_" => {
                let args = bind_python(
                    "parameters, max_norm, total_norm, foreach=None",
                    &what,
                    pos,
                    kw,
                )?;
                let params = self.tensor_list(&arg(&args, "parameters"))?;
                let grads = self.grads_of(&params);
                let max_norm = number(&arg(&args, "max_norm"), &what)?;
                self.clip_with_norm(&grads, max_norm, &arg(&args, "total_norm"))?;
                Ok(Value::None)
            }
            "clip_grad_value_" => {
                let args = bind_python("parameters, clip_value, foreach=None", &what, pos, kw)?;
                let params = self.tensor_list(&arg(&args, "parameters"))?;
                let clip = number(&arg(&args, "clip_value"), &what)?;
                for g in self.grads_of(&params) {
                    call(self, g.clone(), "clamp_min_", vec![Value::Float(-clip)])?;
                    call(self, g, "clamp_max_", vec![Value::Float(clip)])?;
                }
                Ok(Value::None)
            }
            "parameters_to_vector" => {
                let args = bind_python("parameters", &what, pos, kw)?;
                let params = self.tensor_list(&arg(&args, "parameters"))?;
                let mut flat = Vec::with_capacity(params.len());
                for p in params {
                    flat.push(call(self, p, "view", vec![Value::Int(-1)])?);
                }
                torch(self, "cat", vec![Value::List(flat)], vec![])
            }
            "vector_to_parameters" => {
                let args = bind_python("vec, parameters", &what, pos, kw)?;
                let vec = arg(&args, "vec");
                if !matches!(vec, Value::Tensor(_)) {
                    return Err(ScriptError::Type(format!(
                        "expected torch.Tensor, but got: {}",
                        vec.type_name()
                    )));
                }
                let params = self.tensor_list(&arg(&args, "parameters"))?;
                let mut at = 0i64;
                for p in params {
                    let n = p.as_tensor().map_or(0, |t| t.numel());
                    let piece =
                        self.get_item(vec.clone(), &Value::Slice(Some(at), Some(at + n), None))?;
                    let shaped = call(self, piece, "view_as", vec![p.clone()])?;
                    let data = self.attribute(shaped, "data")?;
                    self.set_attribute(p, "data", data)?;
                    at += n;
                }
                Ok(Value::None)
            }
            _ => Err(ScriptError::Attribute(format!(
                "module 'torch.nn.utils' has no attribute '{name}'"
            ))),
        }
    }

    /// A tensor, or the tensors of an iterable (a generator of parameters, a list).
    fn tensor_list(&mut self, v: &Value) -> R<Vec<Value>> {
        if matches!(v, Value::Tensor(_)) {
            return Ok(vec![v.clone()]);
        }
        self.iterate(v)
    }

    /// The `.grad` of each tensor that has one.
    fn grads_of(&self, params: &[Value]) -> Vec<Value> {
        params
            .iter()
            .filter_map(|p| match p {
                Value::Tensor(t) => t.borrow().grad.clone().map(Value::Tensor),
                _ => None,
            })
            .collect()
    }

    /// `_get_total_norm`: `vector_norm` of each tensor (`_foreach_norm`), then of their stack.
    fn total_norm(&mut self, tensors: Vec<Value>, norm_type: f64, check: bool) -> R<Value> {
        if tensors.is_empty() {
            return torch(self, "tensor", vec![Value::Float(0.0)], vec![]);
        }
        let ord = Value::Float(norm_type);
        let mut norms = Vec::with_capacity(tensors.len());
        for t in tensors {
            norms.push(torch(
                self,
                "linalg_vector_norm",
                vec![t, ord.clone()],
                vec![],
            )?);
        }
        // `norms` is a local of `_get_total_norm`: alive until it returns.
        let stacked = torch(self, "stack", vec![Value::List(norms.clone())], vec![])?;
        let total = torch(self, "linalg_vector_norm", vec![stacked, ord], vec![])?;
        drop(norms);
        if check {
            // `torch.logical_or(total_norm.isnan(), total_norm.isinf())`.
            let nan = call(self, total.clone(), "isnan", vec![])?;
            let inf = call(self, total.clone(), "isinf", vec![])?;
            let either = torch(self, "logical_or", vec![nan, inf], vec![])?;
            if self.truthy(&either)? {
                let order = self.repr(&Value::Float(norm_type))?;
                return Err(ScriptError::Runtime(format!(
                    "The total norm of order {} for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`",
                    order
                )));
            }
        }
        Ok(total)
    }

    /// `_clip_grads_with_norm_`: every gradient times `clamp(max_norm / (total + 1e-6), max=1)`.
    fn clip_with_norm(&mut self, grads: &[Value], max_norm: f64, total: &Value) -> R<()> {
        if grads.is_empty() {
            return Ok(());
        }
        let shifted = call(self, total.clone(), "add", vec![Value::Float(1e-6)])?;
        let coef = self.binary(
            crate::lang::ast::BinOp::Div,
            Value::Float(max_norm),
            shifted,
        )?;
        let clamped = torch(
            self,
            "clamp",
            vec![coef],
            vec![("max".into(), Value::Float(1.0))],
        )?;
        for g in grads {
            call(self, g.clone(), "mul_", vec![clamped.clone()])?;
        }
        Ok(())
    }
}

impl Evaluator {
    /// `nn.Transformer.generate_square_subsequent_mask(sz, device=None, dtype=None)`:
    /// `torch.triu(torch.full((sz, sz), -inf), diagonal=1)`.
    pub(crate) fn square_subsequent_mask(
        &mut self,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let args = bind_python(
            "sz, device=None, dtype=None",
            "Transformer.generate_square_subsequent_mask",
            &pos,
            &kw,
        )?;
        let size = arg(&args, "sz");
        let mut options = vec![];
        for name in ["dtype", "device"] {
            let v = arg(&args, name);
            if !matches!(v, Value::None) {
                options.push((name.to_string(), v));
            }
        }
        let full = torch(
            self,
            "full",
            vec![
                Value::Tuple(vec![size.clone(), size]),
                Value::Float(f64::NEG_INFINITY),
            ],
            options,
        )?;
        torch(
            self,
            "triu",
            vec![full],
            vec![("diagonal".into(), Value::Int(1))],
        )
    }
}
