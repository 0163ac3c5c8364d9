//! Complex tensors (complex64 / complex128): the views between a complex tensor and its
//! float halves (`view_as_real`, `view_as_complex`, `real`, `imag`), `torch.complex`,
//! and `torch.tensor` of Python `complex` numbers.
//!
//! A complex element is two floats side by side, so every byte a complex tensor holds is
//! moved by the engines as its `view_as_real` (a float tensor with a trailing dim of 2):
//! copies, clones and fills reuse the float paths. Complex arithmetic is computed by
//! `complex_math` / `complex_ops`; the engines' real kernels refuse complex operands
//! (see [`refuse_complex`]).

use crate::core::tensor::layout::{broadcast_shapes, list_str};
use crate::core::tensor::random::Distribution;
use crate::core::tensor::{DType, Layout, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::ops::broadcast_view;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["view_as_real"],
        schemas: &["Tensor input"],
        forms: Forms::Function,
        rule: view_as_real,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["view_as_complex"],
        schemas: &["Tensor input"],
        forms: Forms::Function,
        rule: view_as_complex,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["real"],
        schemas: &["Tensor input"],
        forms: Forms::Function,
        rule: real,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["imag"],
        schemas: &["Tensor input"],
        forms: Forms::Function,
        rule: imag,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["complex"],
        schemas: &["Tensor real, Tensor imag, *, Tensor? out=None"],
        forms: Forms::Function,
        rule: complex,
        complex: true,
        ..OpDef::PLAIN
    },
];

/// The tensor argument `input` of a function-form op.
fn input(call: &OpCall) -> R<Tensor> {
    call.tensor("input").map_or_else(|| call.self_tensor(), Ok)
}

/// `torch.view_as_real(t)`: the float halves of a complex tensor, as a view.
fn view_as_real(_ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = input(call)?;
    Ok(Value::tensor(as_real_view(&t)?, "view_as_real", None))
}

/// The checks and layout of `view_as_real`.
pub(crate) fn as_real_view(t: &Tensor) -> R<Tensor> {
    if !t.dtype.is_complex() {
        return Err(ScriptError::Type(
            "view_as_real is only supported for complex tensors".into(),
        ));
    }
    Ok(t.as_real())
}

/// `torch.view_as_complex(t)`: a float tensor whose last dim holds (real, imaginary) pairs,
/// seen as complex: the last dim dropped, strides and offset halved.
fn view_as_complex(_ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = input(call)?;
    let dtype = match t.dtype {
        DType::Float32 | DType::Float64 => t.dtype.complex_of().unwrap_or(DType::Complex64),
        DType::Float16 => {
            return Err(ScriptError::NotImplemented(
                "view_as_complex of a half tensor gives complex32 (ComplexHalf), which Stridescope does not model".into(),
            ))
        }
        other => {
            return Err(ScriptError::NotImplemented(format!(
                "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: {}",
                other.scalar_type_name()
            )))
        }
    };
    let n = t.ndim();
    if n == 0 {
        return Err(ScriptError::Runtime(
            "Input tensor must have one or more dimensions".into(),
        ));
    }
    if t.shape()[n - 1] != 2 {
        return Err(ScriptError::Runtime(
            "Tensor must have a last dimension of size 2".into(),
        ));
    }
    if t.strides()[n - 1] != 1 {
        return Err(ScriptError::Runtime(
            "Tensor must have a last dimension with stride 1".into(),
        ));
    }
    if t.strides()[..n - 1].iter().any(|s| s % 2 != 0) {
        return Err(ScriptError::Runtime(
            "Tensor must have a stride divisible by 2 for all but last dimension".into(),
        ));
    }
    if t.layout.offset % 2 != 0 {
        return Err(ScriptError::Runtime(
            "Tensor must have a storage_offset divisible by 2".into(),
        ));
    }
    let out = Tensor {
        storage: t.storage,
        dtype,
        layout: Layout {
            shape: t.shape()[..n - 1].to_vec(),
            strides: t.strides()[..n - 1].iter().map(|s| s / 2).collect(),
            offset: t.layout.offset / 2,
        },
    };
    Ok(Value::tensor(out, "view_as_complex", None))
}

/// `x.real` / `torch.real(x)`: the real halves of a complex tensor (a view with doubled
/// strides); a real tensor is its own real part.
pub(crate) fn real_part(t: &Tensor) -> Tensor {
    if t.dtype.is_complex() {
        t.complex_part(0)
    } else {
        t.clone()
    }
}

/// `x.imag` / `torch.imag(x)`: the imaginary halves (offset one float past the real ones).
pub(crate) fn imag_part(t: &Tensor) -> R<Tensor> {
    if !t.dtype.is_complex() {
        return Err(ScriptError::Type(
            "imag is not implemented for tensors with non-complex dtypes.".into(),
        ));
    }
    Ok(t.complex_part(1))
}

fn real(_ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = input(call)?;
    Ok(Value::tensor(real_part(&t), "real", None))
}

fn imag(_ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = input(call)?;
    Ok(Value::tensor(imag_part(&t)?, "imag", None))
}

/// `torch.complex(real, imag)`: a new complex tensor (broadcast shape, contiguous) whose
/// halves are copies of the two float tensors.
fn complex(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let (Some(re), Some(im)) = (call.tensor("real"), call.tensor("imag")) else {
        return Err(ScriptError::Type(
            "complex(): argument 'real' (position 1) must be Tensor".into(),
        ));
    };
    if call.value("out").is_some() {
        return Err(ScriptError::NotImplemented(
            "torch.complex(..., out=) is not supported by Stridescope".into(),
        ));
    }
    let halves = [DType::Float16, DType::Float32, DType::Float64];
    if !halves.contains(&re.dtype) || !halves.contains(&im.dtype) {
        return Err(ScriptError::NotImplemented(format!(
            "Expected both inputs to be Half, Float or Double tensors but got {} and {}",
            re.dtype.scalar_type_name(),
            im.dtype.scalar_type_name()
        )));
    }
    if re.dtype != im.dtype {
        return Err(ScriptError::Runtime(format!(
            "Expected object of scalar type {} but got scalar type {} for second argument",
            re.dtype.scalar_type_name(),
            im.dtype.scalar_type_name()
        )));
    }
    let Some(dtype) = re.dtype.complex_of() else {
        return Err(ScriptError::NotImplemented(
            "torch.complex of half tensors gives complex32 (ComplexHalf), which Stridescope does not model".into(),
        ));
    };
    let shape = broadcast_shapes(re.shape(), im.shape()).map_err(ScriptError::Runtime)?;
    ev.check_shape(&shape)?;
    ev.check_work(shape.iter().product::<i64>() * 2, "complex")?;
    let out = ev.empty(&shape, dtype, MemoryFormat::Contiguous, "complex")?;
    ev.copy_into(&out.complex_part(0), &broadcast_view(&re, &shape), false)?;
    ev.copy_into(&out.complex_part(1), &broadcast_view(&im, &shape), false)?;
    Ok(Value::tensor(out, "complex", None))
}

/// A `NotImplementedError` for an op Stridescope does not compute on complex tensors
/// (arithmetic, reductions, comparisons), when any of `tensors` is complex.
pub(crate) fn refuse_complex(op: &str, tensors: &[&Tensor]) -> R<()> {
    for t in tensors {
        refuse_complex_dtype(op, t.dtype)?;
    }
    Ok(())
}

/// [`refuse_complex`] for a result or input dtype.
pub(crate) fn refuse_complex_dtype(op: &str, dtype: DType) -> R<()> {
    if dtype.is_complex() {
        return Err(ScriptError::NotImplemented(format!(
            "{op} on complex tensors is not supported by Stridescope (only views, copies and printing are)"
        )));
    }
    Ok(())
}

/// The distribution ATen draws a complex tensor's float halves from (`normal_` and
/// `uniform_` run on its `view_as_real`; `normal_` with the standard deviation divided by
/// `sqrt(2)`, so that the complex variance is `std**2`). Integer draws are refused.
pub(crate) fn real_distribution(dist: &Distribution, op: &str) -> R<Distribution> {
    match dist {
        Distribution::Normal { mean, std } => Ok(Distribution::Normal {
            mean: *mean,
            std: std / std::f64::consts::SQRT_2,
        }),
        Distribution::Uniform { .. } => Ok(*dist),
        _ => Err(ScriptError::NotImplemented(format!(
            "{op} of integers into a complex tensor is not supported by Stridescope"
        ))),
    }
}

/// `tolist()` / `item()` of a complex tensor from its values (real, imaginary in turn):
/// Python `complex` numbers nested as `shape` (a bare number for a 0-d shape).
pub(crate) fn complex_tolist(values: &[Scalar], shape: &[i64]) -> Value {
    let Some((&first, rest)) = shape.split_first() else {
        let part = |k: usize| values.get(k).map_or(0.0, |s| s.to_f64());
        return Value::Complex(part(0), part(1));
    };
    let inner = 2 * crate::core::tensor::layout::numel_of(rest).max(0) as usize;
    let items = (0..first.max(0) as usize)
        .map(|i| {
            let chunk = values.get(i * inner..(i + 1) * inner).unwrap_or(&[]);
            complex_tolist(chunk, rest)
        })
        .collect();
    Value::List(items)
}

/// Whether a `torch.tensor(data)` literal holds a Python `complex` anywhere.
pub(crate) fn holds_complex(data: &Value) -> bool {
    match data {
        Value::Complex(..) => true,
        Value::List(items) | Value::Tuple(items) => items.iter().any(holds_complex),
        Value::Tensor(t) => t.borrow().tensor.dtype.is_complex(),
        _ => false,
    }
}

impl Evaluator {
    /// The Python `complex` held by a one-element complex tensor (`Tensor.__format__`).
    pub(crate) fn complex_item(&mut self, t: &Tensor) -> Value {
        let values = self.engine.values(t);
        complex_tolist(&values, &[])
    }

    /// The `real` / `imag` attributes of a tensor (views).
    pub(crate) fn complex_attribute(&mut self, t: &Tensor, name: &str) -> R<Value> {
        let out = if name == "imag" {
            imag_part(t)?
        } else {
            real_part(t)
        };
        Ok(Value::tensor(out, name, None))
    }

    /// `torch.tensor(data)` with complex numbers or a complex dtype: the literal's numbers
    /// become (real, imaginary) pairs, built as a float tensor with a trailing dim of 2 and
    /// seen as complex (its `view_as_complex`). A Python float or complex gives complex64
    /// unless `dtype` says otherwise.
    pub(crate) fn complex_literal(&mut self, data: &Value, dtype: Option<DType>) -> R<Tensor> {
        fn pairs(v: &Value, depth: usize, ev: &mut Evaluator) -> R<(Value, bool)> {
            if depth > 64 {
                return Err(ScriptError::Value("too many dimensions".into()));
            }
            Ok(match v {
                Value::List(items) | Value::Tuple(items) => {
                    let mut out = Vec::with_capacity(items.len());
                    let mut leaves = false;
                    for item in items {
                        let (p, l) = pairs(item, depth + 1, ev)?;
                        leaves |= l;
                        out.push(p);
                    }
                    (Value::List(out), leaves)
                }
                Value::Complex(re, im) => (
                    Value::List(vec![Value::Float(*re), Value::Float(*im)]),
                    true,
                ),
                Value::Bool(_) | Value::Int(_) | Value::Float(_) => {
                    (Value::List(vec![v.clone(), Value::Float(0.0)]), true)
                }
                Value::Tensor(t) => {
                    let t = t.borrow().tensor.clone();
                    if t.numel() != 1 {
                        return Err(ScriptError::Value(
                            "only one element tensors can be converted to Python scalars".into(),
                        ));
                    }
                    let values = ev.engine.values(&t);
                    let re = values.first().copied().unwrap_or(Scalar::Float(0.0));
                    let im = if t.dtype.is_complex() {
                        values.get(1).copied().unwrap_or(Scalar::Float(0.0))
                    } else {
                        Scalar::Float(0.0)
                    };
                    let f = |s: Scalar| Value::Float(s.to_f64());
                    (Value::List(vec![f(re), f(im)]), true)
                }
                other => {
                    return Err(ScriptError::Type(format!(
                        "new(): invalid data type '{}'",
                        other.type_name()
                    )))
                }
            })
        }
        let dtype = dtype.unwrap_or(DType::Complex64);
        let Some(half) = dtype.complex_of().map(DType::real_part) else {
            return Err(ScriptError::Type("must be real number, not complex".into()));
        };
        let (paired, leaves) = pairs(data, 0, self)?;
        let floats = self.tensor_literal(&paired, Some(half))?;
        if !leaves {
            // No numbers (`[]`, `[[], []]`): the literal's own shape, no pairs.
            let shape = floats.shape().to_vec();
            return self.empty(&shape, dtype, MemoryFormat::Contiguous, "tensor");
        }
        let n = floats.ndim() - 1;
        if floats.shape()[n] != 2 {
            return Err(ScriptError::Value(format!(
                "expected a sequence of numbers, got shape {}",
                list_str(floats.shape())
            )));
        }
        Ok(Tensor {
            storage: floats.storage,
            dtype,
            layout: Layout::contiguous(&floats.shape()[..n]),
        })
    }
}
