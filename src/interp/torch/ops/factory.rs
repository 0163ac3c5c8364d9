//! Factories: `arange`, `zeros`, `ones`, `full`, `empty`, `empty_strided`, `tensor`, the
//! `_like` functions, `linspace` and `eye`. A new tensor gets a fresh storage; `empty`,
//! `empty_like` and `empty_strided` mark theirs uninitialized (drawn as such; it reads as
//! zeros) until something writes it.

use crate::core::tensor::layout::{infer_dense_strides, list_str};
use crate::core::tensor::{DType, Layout, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// Keyword arguments every factory takes (PyTorch's `TensorOptions`).
macro_rules! options {
    () => {
        "*, Tensor? out=None, ScalarType? dtype=None, Any? layout=None, Device? device=None, bool pin_memory=False, bool requires_grad=False"
    };
}

/// Keyword arguments of the `_like` functions.
macro_rules! like_options {
    () => {
        "*, ScalarType? dtype=None, Any? layout=None, Device? device=None, bool pin_memory=False, bool requires_grad=False, MemoryFormat? memory_format=None"
    };
}

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["requires_grad_"],
        schemas: &["Tensor self, bool requires_grad=True"],
        forms: Forms::Method,
        rule: requires_grad_,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["arange"],
        schemas: &[
            concat!("Scalar end, ", options!()),
            concat!("Scalar start, Scalar end, ", options!()),
            concat!("Scalar start, Scalar end, Scalar step=1, ", options!()),
        ],
        forms: Forms::Function,
        rule: arange,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["zeros", "ones"],
        schemas: &[concat!("int[] size, ", options!())],
        forms: Forms::Function,
        rule: constant,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["empty"],
        schemas: &[concat!(
            "int[] size, ",
            options!(),
            ", MemoryFormat? memory_format=None"
        )],
        forms: Forms::Function,
        rule: constant,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["full"],
        schemas: &[concat!("int[] size, Scalar fill_value, ", options!())],
        forms: Forms::Function,
        rule: constant,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["empty_strided"],
        schemas: &[concat!("int[] size, int[] stride, ", options!())],
        forms: Forms::Function,
        rule: empty_strided,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["zeros_like", "ones_like", "empty_like"],
        schemas: &[concat!("Tensor input, ", like_options!())],
        forms: Forms::Function,
        rule: like,
        grad: Grad::UNTRACKED,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["full_like"],
        schemas: &[concat!("Tensor input, Scalar fill_value, ", like_options!())],
        forms: Forms::Function,
        rule: like,
        grad: Grad::UNTRACKED,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["tensor"],
        schemas: &["Any data, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False, bool pin_memory=False"],
        forms: Forms::Function,
        rule: tensor,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["linspace"],
        schemas: &[
            concat!("Tensor start, Tensor end, int steps, ", options!()),
            concat!("Scalar start, Scalar end, int steps, ", options!()),
        ],
        forms: Forms::Function,
        rule: linspace,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["logspace"],
        schemas: &[concat!(
            "Scalar start, Scalar end, int steps, float base=10.0, ",
            options!()
        )],
        forms: Forms::Function,
        rule: logspace,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["scalar_tensor"],
        schemas: &[concat!("Scalar s, ", options!())],
        forms: Forms::Function,
        rule: scalar_tensor,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["eye"],
        schemas: &[
            concat!("int n, ", options!()),
            concat!("int n, int m, ", options!()),
        ],
        forms: Forms::Function,
        rule: eye,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["new_zeros", "new_ones", "new_empty"],
        schemas: &["Tensor self, int[] size, *, ScalarType? dtype=None, Any? layout=None, Device? device=None, bool pin_memory=False, bool requires_grad=False"],
        forms: Forms::Method,
        rule: new_factory,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["new_full"],
        schemas: &["Tensor self, int[] size, Scalar fill_value, *, ScalarType? dtype=None, Any? layout=None, Device? device=None, bool pin_memory=False, bool requires_grad=False"],
        forms: Forms::Method,
        rule: new_factory,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["new_tensor"],
        schemas: &["Tensor self, Any data, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False"],
        forms: Forms::Method,
        rule: new_factory,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
];

/// `t.new_zeros(size)`, `new_ones`, `new_empty`, `new_full`, `new_tensor(data)`: factories
/// whose dtype defaults to `t`'s.
fn new_factory(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = call.self_tensor()?;
    let dtype = call.dtype("dtype").unwrap_or(t.dtype);
    check_options(call, dtype)?;
    let name = call.name.as_str();
    if name == "new_tensor" {
        let data = call.value("data").cloned().unwrap_or(Value::None);
        let out = ev.tensor_literal(&data, Some(dtype))?;
        return Ok(Value::tensor(out, name, None));
    }
    let shape = ev.arg_ints(call, "size")?.unwrap_or_default();
    ev.check_shape(&shape)?;
    let out = ev.empty(&shape, dtype, MemoryFormat::Contiguous, name)?;
    match name {
        "new_empty" => ev.memory.mark_uninitialized(out.storage),
        "new_ones" => ev.fill(&out, Scalar::Int(1))?,
        "new_full" => {
            let v = ev.arg_scalar(call, "fill_value")?.unwrap_or(Scalar::Int(0));
            ev.fill(&out, v)?
        }
        _ => {}
    }
    Ok(Value::tensor(out, name, None))
}

/// The checks of `device=` and `requires_grad=` every factory makes once the dtype is known.
fn check_options(call: &OpCall, dtype: DType) -> R<()> {
    if let Some(Value::Str(d) | Value::Device(d)) = call.value("device") {
        let kind = d.split(':').next().unwrap_or("");
        let simulated = kind == "cuda"
            && crate::interp::torch::device::Device::of_value(&Value::Str(d.clone())).is_some();
        if kind != "cpu" && kind != "meta" && !simulated {
            return Err(ScriptError::NotImplemented(format!(
                "Stridescope runs tensors on the CPU; device '{d}' is not available"
            )));
        }
    }
    if call.flag("requires_grad", false) && !dtype.is_floating() {
        return Err(ScriptError::Runtime(
            "Only Tensors of floating point and complex dtype can require gradients".into(),
        ));
    }
    Ok(())
}

/// The result of a factory: a new tensor, or (with `out=`) written into `out`.
fn finish(ev: &mut Evaluator, call: &OpCall, t: Tensor, name: &str) -> R<Value> {
    if let Some(Value::Tensor(out)) = call.value("out") {
        let out = std::rc::Rc::clone(out);
        let target = ev.resize_out(&out, t.shape(), MemoryFormat::Contiguous)?;
        ev.copy_into(&target, &t, false)?;
        return Ok(Value::Tensor(out));
    }
    Ok(with_requires_grad(Value::tensor(t, name, None), call))
}

/// `torch.arange(end)`, `(start, end)`, `(start, end, step)`.
fn arange(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let end = ev.arg_scalar(call, "end")?.unwrap_or(Scalar::Int(0));
    let start = ev.arg_scalar(call, "start")?.unwrap_or(Scalar::Int(0));
    let step = ev.arg_scalar(call, "step")?.unwrap_or(Scalar::Int(1));
    let dtype = call.dtype("dtype");
    let t = ev.arange(start, end, step, dtype)?;
    check_options(call, t.dtype)?;
    finish(ev, call, t, "arange")
}

/// `zeros`, `ones`, `full`, `empty`.
fn constant(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let name = call.name.as_str();
    let shape = ev.arg_ints(call, "size")?.unwrap_or_default();
    let fill = match name {
        "full" => ev.arg_scalar(call, "fill_value")?.unwrap_or(Scalar::Int(0)),
        "ones" => Scalar::Int(1),
        _ => Scalar::Int(0),
    };
    let dtype = call.dtype("dtype").unwrap_or(match (name, fill) {
        ("full", Scalar::Int(_)) => DType::Int64,
        ("full", Scalar::Bool(_)) => DType::Bool,
        _ => DType::Float32,
    });
    check_options(call, dtype)?;
    let format = call.memory_format("memory_format", MemoryFormat::Contiguous);
    if format == MemoryFormat::Preserve {
        return Err(ScriptError::Runtime(
            "preserve memory format is unsupported by the contiguous operator".into(),
        ));
    }
    ev.check_shape(&shape)?;
    let t = ev.empty(&shape, dtype, format, name)?;
    if name == "empty" {
        ev.memory.mark_uninitialized(t.storage);
    } else if fill != Scalar::Int(0) {
        ev.fill(&t, fill)?;
    }
    finish(ev, call, t, name)
}

/// `torch.empty_strided(size, stride)`: a storage just large enough for the strides.
fn empty_strided(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let shape = ev.arg_ints(call, "size")?.unwrap_or_default();
    let strides = ev.arg_ints(call, "stride")?.unwrap_or_default();
    let dtype = call.dtype("dtype").unwrap_or(DType::Float32);
    check_options(call, dtype)?;
    if shape.len() != strides.len() {
        return Err(ScriptError::Runtime(format!(
            "dimensionality of sizes ({}) must match dimensionality of strides ({})",
            shape.len(),
            strides.len()
        )));
    }
    ev.check_shape(&shape)?;
    if strides.iter().any(|&s| s < 0) && !shape.contains(&0) {
        return Err(ScriptError::Runtime(format!(
            "Storage size calculation overflowed with sizes={} and strides={}",
            list_str(&shape),
            list_str(&strides)
        )));
    }
    let t = ev.empty_strided(&shape, &strides, dtype, "empty_strided")?;
    ev.memory.mark_uninitialized(t.storage);
    Ok(Value::tensor(t, "empty_strided", None))
}

/// `zeros_like`, `ones_like`, `empty_like`, `full_like`: the input's shape, and its strides
/// when it is dense (`memory_format=torch.preserve_format`).
fn like(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let name = call.name.as_str();
    let src = call.tensor("input").ok_or_else(|| {
        ScriptError::Type(format!(
            "{name}() missing 1 required positional arguments: \"input\""
        ))
    })?;
    let dtype = call.dtype("dtype").unwrap_or(src.dtype);
    check_options(call, dtype)?;
    let fill = match name {
        "ones_like" => Scalar::Int(1),
        "full_like" => ev.arg_scalar(call, "fill_value")?.unwrap_or(Scalar::Int(0)),
        _ => Scalar::Int(0),
    };
    let strides = match call.memory_format("memory_format", MemoryFormat::Preserve) {
        MemoryFormat::Preserve if src.layout.is_non_overlapping_and_dense() => {
            src.strides().to_vec()
        }
        MemoryFormat::Preserve => infer_dense_strides(src.shape(), src.strides()),
        format => {
            if format == MemoryFormat::ChannelsLast && src.ndim() != 4 {
                return Err(ScriptError::Runtime(
                    "required rank 4 tensor to use channels_last format".into(),
                ));
            }
            Layout::with_format(src.shape(), format).strides
        }
    };
    let t = ev.empty_strided(src.shape(), &strides, dtype, name)?;
    if name == "empty_like" {
        ev.memory.mark_uninitialized(t.storage);
    } else {
        ev.fill(&t, fill)?;
    }
    Ok(Value::tensor(t, name, None))
}

/// `torch.tensor(data)`.
fn tensor(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let data = call.value("data").cloned().unwrap_or(Value::None);
    let dtype = call.dtype("dtype");
    let t = ev.tensor_literal(&data, dtype)?;
    check_options(call, t.dtype)?;
    Ok(Value::tensor(t, "tensor", None))
}

/// `torch.linspace(start, end, steps)` as ATen's CPU kernel computes it: the step in the
/// dtype (in `double` for integer dtypes), the first half counted up from `start` and the
/// second half down from `end`.
fn linspace(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let start = ev.arg_scalar(call, "start")?.unwrap_or(Scalar::Int(0));
    let end = ev.arg_scalar(call, "end")?.unwrap_or(Scalar::Int(0));
    let steps = ev.arg_int(call, "steps", 0)?;
    if steps < 0 {
        return Err(ScriptError::Runtime(
            "number of steps must be non-negative".into(),
        ));
    }
    let dtype = call.dtype("dtype").unwrap_or(DType::Float32);
    check_options(call, dtype)?;
    ev.check_work(steps, "linspace")?;
    let in_dtype = |v: f64| dtype.round(Scalar::Float(v)).to_f64();
    let values: Vec<Scalar> = if steps == 1 {
        vec![dtype.round(start)]
    } else if dtype.is_floating() {
        let (s, e) = (in_dtype(start.to_f64()), in_dtype(end.to_f64()));
        let step = if steps > 1 {
            in_dtype((e - s) / (steps - 1) as f64)
        } else {
            0.0
        };
        let half = steps / 2;
        (0..steps)
            .map(|i| {
                let v = if i < half {
                    s + step * i as f64
                } else {
                    e - step * (steps - i - 1) as f64
                };
                Scalar::Float(in_dtype(v))
            })
            .collect()
    } else {
        let (s, e) = (dtype.round(start).to_f64(), dtype.round(end).to_f64());
        let step = if steps > 1 {
            (e - s) / (steps - 1) as f64
        } else {
            0.0
        };
        let half = steps / 2;
        (0..steps)
            .map(|i| {
                let v = if i < half {
                    s + step * i as f64
                } else {
                    e - step * (steps - i - 1) as f64
                };
                dtype.round(Scalar::Int(v as i64))
            })
            .collect()
    };
    let t = ev.tensor_from_values(&[steps], dtype, &values, "linspace")?;
    finish(ev, call, t, "linspace")
}

/// `torch.logspace(start, end, steps, base)`: `base ** linspace(start, end, steps)`, the two
/// halves counted from each end as ATen's kernel does.
fn logspace(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let start = ev.arg_float(call, "start", 0.0)?;
    let end = ev.arg_float(call, "end", 0.0)?;
    let steps = ev.arg_int(call, "steps", 0)?;
    let base = ev.arg_float(call, "base", 10.0)?;
    if steps < 0 {
        return Err(ScriptError::Runtime(
            "number of steps must be non-negative".into(),
        ));
    }
    let dtype = call.dtype("dtype").unwrap_or(DType::Float32);
    check_options(call, dtype)?;
    ev.check_work(steps, "logspace")?;
    let step = if steps > 1 {
        (end - start) / (steps - 1) as f64
    } else {
        0.0
    };
    let half = steps / 2;
    let values: Vec<Scalar> = (0..steps)
        .map(|i| {
            let exponent = if steps == 1 {
                start
            } else if i < half {
                start + step * i as f64
            } else {
                end - step * (steps - i - 1) as f64
            };
            let v = base.powf(exponent);
            if dtype.is_floating() {
                dtype.round(Scalar::Float(v))
            } else {
                dtype.round(Scalar::Int(v as i64))
            }
        })
        .collect();
    let t = ev.tensor_from_values(&[steps], dtype, &values, "logspace")?;
    finish(ev, call, t, "logspace")
}

/// `torch.scalar_tensor(s)`: a 0-dim tensor (float32 unless `dtype=` says otherwise).
fn scalar_tensor(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let s = ev.arg_scalar(call, "s")?.unwrap_or(Scalar::Int(0));
    let dtype = call.dtype("dtype").unwrap_or(DType::Float32);
    check_options(call, dtype)?;
    let t = ev.tensor_from_values(&[], dtype, &[dtype.round(s)], "scalar_tensor")?;
    finish(ev, call, t, "scalar_tensor")
}

/// `torch.eye(n)`, `torch.eye(n, m)`: ones on the diagonal.
fn eye(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let n = ev.arg_int(call, "n", 0)?;
    let m = ev.arg_opt_int(call, "m")?.unwrap_or(n);
    if n < 0 {
        return Err(ScriptError::Runtime(format!(
            "n must be greater or equal to 0, got {n}"
        )));
    }
    if m < 0 {
        return Err(ScriptError::Runtime(format!(
            "m must be greater or equal to 0, got {m}"
        )));
    }
    let dtype = call.dtype("dtype").unwrap_or(DType::Float32);
    check_options(call, dtype)?;
    ev.check_shape(&[n, m])?;
    let t = ev.empty(&[n, m], dtype, MemoryFormat::Contiguous, "eye")?;
    let k = n.min(m);
    if k > 0 {
        // The diagonal is one strided view: stride m + 1.
        let diagonal = t.with_layout(Layout {
            shape: vec![k],
            strides: vec![m + 1],
            offset: 0,
        });
        ev.fill(&diagonal, Scalar::Int(1))?;
    }
    finish(ev, call, t, "eye")
}

impl Evaluator {
    /// `torch.tensor(data)`: nested lists of numbers, dtype inferred as PyTorch does.
    pub(crate) fn tensor_literal(&mut self, data: &Value, dtype: Option<DType>) -> R<Tensor> {
        if dtype.is_some_and(DType::is_complex)
            || crate::interp::torch::ops::complex::holds_complex(data)
        {
            return self.complex_literal(data, dtype);
        }
        fn shape_of(v: &Value, depth: usize, shape: &mut Vec<i64>) -> R<()> {
            if depth > 64 {
                return Err(ScriptError::Value("too many dimensions".into()));
            }
            match v {
                Value::List(items) | Value::Tuple(items) => {
                    shape.push(items.len() as i64);
                    if let Some(first) = items.first() {
                        shape_of(first, depth + 1, shape)?;
                    }
                    Ok(())
                }
                _ => Ok(()),
            }
        }
        fn flatten(
            v: &Value,
            depth: usize,
            shape: &[i64],
            out: &mut Vec<Scalar>,
            ev: &mut Evaluator,
        ) -> R<()> {
            match v {
                Value::List(items) | Value::Tuple(items) => {
                    if depth >= shape.len() {
                        return Err(ScriptError::Value(format!(
                            "expected sequence of length {} at dim {} (got {})",
                            shape.get(depth.saturating_sub(1)).copied().unwrap_or(0),
                            depth.saturating_sub(1),
                            items.len()
                        )));
                    }
                    if items.len() as i64 != shape[depth] {
                        return Err(ScriptError::Value(format!(
                            "expected sequence of length {} at dim {} (got {})",
                            shape[depth],
                            depth,
                            items.len()
                        )));
                    }
                    for item in items {
                        flatten(item, depth + 1, shape, out, ev)?;
                    }
                    Ok(())
                }
                Value::Tensor(t) => {
                    let t = t.borrow().tensor.clone();
                    if t.numel() != 1 || depth != shape.len() {
                        return Err(ScriptError::Value(
                            "only one element tensors can be converted to Python scalars".into(),
                        ));
                    }
                    out.extend(ev.engine.values(&t));
                    Ok(())
                }
                other => {
                    if depth != shape.len() {
                        return Err(ScriptError::Type(format!(
                            "new(): invalid data type '{}'",
                            other.type_name()
                        )));
                    }
                    match ev.scalar_of(other) {
                        Some(s) => {
                            out.push(s);
                            Ok(())
                        }
                        None => Err(ScriptError::Type(format!(
                            "new(): invalid data type '{}'",
                            other.type_name()
                        ))),
                    }
                }
            }
        }
        let mut shape = Vec::new();
        shape_of(data, 0, &mut shape)?;
        self.check_shape(&shape)?;
        let mut values = Vec::new();
        flatten(data, 0, &shape, &mut values, self)?;
        let inferred = if values.iter().any(|v| matches!(v, Scalar::Float(_))) {
            DType::Float32
        } else if !values.is_empty() && values.iter().all(|v| matches!(v, Scalar::Bool(_))) {
            DType::Bool
        } else if values.is_empty() {
            DType::Float32
        } else {
            DType::Int64
        };
        let dtype = dtype.unwrap_or(inferred);
        if dtype.is_integral() {
            // Python numbers are stored into integer dtypes with a range check.
            if values.iter().any(|&v| dtype.overflows(v)) {
                return Err(ScriptError::Runtime(format!(
                    "value cannot be converted to type {} without overflow",
                    dtype.name()
                )));
            }
        }
        self.tensor_from_values(&shape, dtype, &values, "tensor")
    }

    /// `torch.arange(start, end, step)`.
    pub(crate) fn arange(
        &mut self,
        start: Scalar,
        end: Scalar,
        step: Scalar,
        dtype: Option<DType>,
    ) -> R<Tensor> {
        let all_int = [start, end, step]
            .iter()
            .all(|s| !matches!(s, Scalar::Float(_)));
        let dtype = dtype.unwrap_or(if all_int {
            DType::Int64
        } else {
            DType::Float32
        });
        if dtype == DType::Bool {
            // The kernel is dispatched on the dtype before it checks its arguments.
            return Err(ScriptError::NotImplemented(
                "\"arange_cpu\" not implemented for 'Bool'".into(),
            ));
        }
        let (s, e, st) = (start.to_f64(), end.to_f64(), step.to_f64());
        if st == 0.0 {
            return Err(ScriptError::Runtime("step must be nonzero".into()));
        }
        if !(s.is_finite() && e.is_finite()) {
            return Err(ScriptError::Runtime(format!(
                "unsupported range: {s} -> {e}"
            )));
        }
        if (st > 0.0 && e < s) || (st < 0.0 && e > s) {
            return Err(ScriptError::Runtime(
                "upper bound and larger bound inconsistent with step sign".into(),
            ));
        }
        let size = if all_int && dtype.is_integral() {
            let (si, ei, sti) = (
                start.to_wrapped_int(),
                end.to_wrapped_int(),
                step.to_wrapped_int(),
            );
            let span = ei as i128 - si as i128;
            let n = (span + sti as i128 - sti.signum() as i128) / sti as i128;
            n.max(0) as f64
        } else {
            ((e - s) / st).ceil().max(0.0)
        };
        if size > (1u64 << 40) as f64 {
            return Err(ScriptError::Runtime(format!(
                "arange: {size} elements is more than Stridescope's memory limit allows"
            )));
        }
        let n = size as i64;
        let limit_elems = (self.limits.memory_bytes / dtype.item_size()) as i64;
        if n > limit_elems {
            let shape = [n];
            return self.empty(&shape, dtype, MemoryFormat::Contiguous, "arange");
        }
        let values: Vec<Scalar> = (0..n)
            .map(|i| {
                if all_int {
                    Scalar::Int(
                        start
                            .to_wrapped_int()
                            .wrapping_add((i).wrapping_mul(step.to_wrapped_int())),
                    )
                } else {
                    Scalar::Float(s + st * i as f64)
                }
            })
            .collect();
        let values = if dtype.is_floating() {
            (0..n)
                .map(|i| Scalar::Float(arange_float_value(s, st, i, n, dtype)))
                .collect()
        } else {
            values
        };
        self.tensor_from_values(&[n], dtype, &values, "arange")
    }
}

/// Element `i` of a floating `arange` of `n` elements, as ATen's vectorized CPU kernel
/// computes it (AVX2: 32-byte vectors). Whole pairs of vectors are filled by
/// `Vectorized::arange(base, step)`, where `base = start + step * i0` is first rounded to the
/// dtype and each lane adds `lane * step` to it; the tail is `start + step * i` per element.
/// Sums are taken in the accumulate type (f32 for f16/bf16, f64 otherwise). The double
/// rounding shows in f16/bf16 once the values outgrow the dtype's integers.
fn arange_float_value(start: f64, step: f64, i: i64, n: i64, dtype: DType) -> f64 {
    let acc_f32 = matches!(dtype, DType::Float16 | DType::BFloat16);
    let acc = |x: f64| if acc_f32 { f64::from(x as f32) } else { x };
    let round = |x: f64| dtype.round(Scalar::Float(x)).to_f64();
    let (start, step) = (acc(start), acc(step));
    let lanes = (32 / dtype.item_size()) as i64;
    let vectorized = n - n % (2 * lanes);
    if i < vectorized {
        let first = i - i % lanes;
        let base = round(acc(start + acc(step * first as f64)));
        round(acc(base + acc((i - first) as f64 * step)))
    } else {
        round(acc(start + acc(step * i as f64)))
    }
}

/// Marks a new tensor with the call's `requires_grad=` (a leaf that autograd would track).
pub(super) fn with_requires_grad(v: Value, call: &OpCall) -> Value {
    if let Value::Tensor(t) = &v {
        t.borrow_mut().requires_grad = call.flag("requires_grad", false);
    }
    v
}

/// `t.requires_grad_(flag)`: marks (or unmarks) a floating tensor as an autograd leaf.
fn requires_grad_(_ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let flag = call.flag("requires_grad", true);
    if flag && !this.borrow().tensor.dtype.is_floating() {
        return Err(ScriptError::Runtime(
            "Only Tensors of floating point dtype can require gradients".into(),
        ));
    }
    this.borrow_mut().requires_grad = flag;
    Ok(Value::Tensor(this))
}
