//! Pointwise ops called by name: `add`/`sub`/`mul`/`remainder`, the comparisons, `matmul`
//! (all with `out=`), the in-place `add_`/`sub_`/`mul_`, `copy_`, `fill_`, `zero_`,
//! `clamp(_)`, `relu(_)`, `neg(_)`, `abs(_)`. They run as the engine's elementwise kernels
//! through TensorIterator's rules ([`Evaluator::elementwise`], [`Evaluator::unary_op`]).
//! Division is in [`crate::interp::torch::ops::arith`].

use std::rc::Rc;

use crate::core::tensor::layout::broadcast_shapes;
use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::engines::{BinaryOp, UnaryOp};
use crate::interp::torch::autograd::{formulas, nodes, Grad};
use crate::interp::torch::ops::{ElementwiseInput, ResultType};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["add"],
        schemas: &["Tensor self, Tensor other, *, Scalar alpha=1, Tensor? out=None"],
        forms: Forms::Both,
        rule: binary,
        grad: Grad::formula(&formulas::ADD),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["sub", "subtract"],
        schemas: &["Tensor self, Tensor other, *, Scalar alpha=1, Tensor? out=None"],
        forms: Forms::Both,
        rule: binary,
        grad: Grad::named("SubBackward0", &formulas::SUB),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["mul", "multiply"],
        schemas: &["Tensor self, Tensor other, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: binary,
        grad: Grad::named("MulBackward0", &formulas::MUL),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &[
            "remainder",
            "eq",
            "ne",
            "gt",
            "lt",
            "ge",
            "le",
            "greater",
            "less",
            "greater_equal",
            "less_equal",
            "not_equal",
        ],
        schemas: &[
            "Tensor self, Tensor other, *, Tensor? out=None",
            "Tensor self, Scalar other, *, Tensor? out=None",
        ],
        forms: Forms::Both,
        rule: binary,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["matmul"],
        schemas: &["Tensor self, Tensor other, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: binary,
        // The rule is Python's `@`, which records the nodes itself (a batched product is
        // ATen's graph of several nodes): nothing more on its output.
        grad: Grad {
            tracked: false,
            ..Grad::by(nodes::matmul, Some(&formulas::MATMUL))
        },
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["square"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: square,
        grad: Grad::named("PowBackward0", &formulas::SQUARE),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["pow"],
        schemas: &[
            "Tensor self, Tensor exponent",
            "Tensor self, Scalar exponent",
            "Scalar self, Tensor exponent",
        ],
        forms: Forms::Both,
        rule: pow,
        grad: Grad::by(nodes::pow, Some(&formulas::POW)),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["pow_"],
        schemas: &[
            "Tensor self, Tensor exponent",
            "Tensor self, Scalar exponent",
        ],
        forms: Forms::Method,
        rule: pow,
        // Its node keeps a clone of the values it overwrote (`autograd::original_self`).
        grad: Grad::by(nodes::pow, Some(&formulas::POW)),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["mm", "dot"],
        schemas: &["Tensor self, Tensor other"],
        forms: Forms::Both,
        rule: products,
        grad: Grad::formula(&formulas::MATMUL),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["bmm"],
        schemas: &["Tensor self, Tensor other"],
        forms: Forms::Both,
        rule: products,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_pointwise::BMM),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["add_"],
        schemas: &["Tensor self, Tensor other, *, Scalar alpha=1"],
        forms: Forms::Method,
        rule: binary_,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas::ADD),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["sub_", "subtract_"],
        schemas: &["Tensor self, Tensor other, *, Scalar alpha=1"],
        forms: Forms::Method,
        rule: binary_,
        grad: Grad::named(
            "SubBackward0",
            &crate::interp::torch::autograd::formulas::SUB,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["mul_", "multiply_"],
        schemas: &["Tensor self, Tensor other"],
        forms: Forms::Method,
        rule: binary_,
        grad: Grad::named(
            "MulBackward0",
            &crate::interp::torch::autograd::formulas::MUL,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["copy_"],
        schemas: &["Tensor self, Tensor src, bool non_blocking=False"],
        forms: Forms::Method,
        rule: copy_,
        complex: true,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_pointwise::COPY),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["fill_"],
        schemas: &["Tensor self, Tensor value", "Tensor self, Scalar value"],
        forms: Forms::Method,
        rule: fill_,
        complex: true,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_pointwise::FILL),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["zero_"],
        schemas: &["Tensor self"],
        forms: Forms::Method,
        rule: zero_,
        complex: true,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas_pointwise::FILL),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["clamp", "clip"],
        schemas: &[
            "Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor? out=None",
            "Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor? out=None",
        ],
        forms: Forms::Both,
        rule: clamp,
        grad: Grad::by(
            crate::interp::torch::nn::dense_backward::clamp_node,
            Some(&crate::interp::torch::nn::dense_backward::CLAMP),
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["clamp_", "clip_"],
        schemas: &[
            "Tensor self, Tensor? min=None, Tensor? max=None",
            "Tensor self, Scalar? min=None, Scalar? max=None",
        ],
        forms: Forms::Method,
        rule: clamp,
        // Its node keeps a clone of the values it overwrote (`autograd::original_self`).
        grad: Grad::by(
            crate::interp::torch::nn::dense_backward::clamp_node,
            Some(&crate::interp::torch::nn::dense_backward::CLAMP),
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["relu"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: unary,
        grad: Grad::formula(&formulas::RELU),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["neg", "negative"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: unary,
        grad: Grad::named("NegBackward0", &formulas::NEG),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["abs", "absolute"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: unary,
        grad: Grad::named(
            "AbsBackward0",
            &crate::interp::torch::nn::activation_backward::ABS,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["relu_"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: unary,
        grad: Grad::formula(&crate::interp::torch::autograd::formulas::RELU),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["neg_", "negative_"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: unary,
        grad: Grad::named(
            "NegBackward0",
            &crate::interp::torch::autograd::formulas::NEG,
        ),
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["abs_", "absolute_"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: unary,
        grad: Grad::named(
            "AbsBackward0",
            &crate::interp::torch::nn::activation_backward::ABS,
        ),
        ..OpDef::PLAIN
    },
];

/// The Python operator of a binary op's name.
fn operator(name: &str) -> BinOp {
    match name {
        "add" => BinOp::Add,
        "sub" | "subtract" => BinOp::Sub,
        "mul" | "multiply" => BinOp::Mul,
        "remainder" => BinOp::Mod,
        "eq" => BinOp::Eq,
        "ne" | "not_equal" => BinOp::Ne,
        "gt" | "greater" => BinOp::Gt,
        "lt" | "less" => BinOp::Lt,
        "ge" | "greater_equal" => BinOp::Ge,
        "le" | "less_equal" => BinOp::Le,
        _ => BinOp::MatMul,
    }
}

/// `other * alpha` when `alpha` was given (as `torch.add(a, b, alpha=2)` scales `b`).
fn scaled_other(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let other = call.value("other").cloned().unwrap_or(Value::None);
    match call.value("alpha") {
        Some(alpha) => ev.binary(BinOp::Mul, other, alpha.clone()),
        None => Ok(other),
    }
}

/// `add`/`sub` (and `_`, `out=`) of two floating tensors with an `alpha` other than 1, as
/// ATen's CPU kernel computes it: one fused multiply-add `fma(alpha, other, self)` (`-alpha`
/// for `sub`), `alpha` rounded to the dtype and the product not rounded, in the dtype's
/// opmath (`float` for 16-bit floats); no temporary, no wrapped number (alpha is a Scalar).
/// Measured against torch 2.15 on CPU: contiguous, transposed, broadcast and 0-d `other`,
/// in place, float32/float64/float16/bfloat16 (the two-rounding form differed in ~20% of
/// elements). `None`: the op is not one of these (the general path runs).
fn fused_add(ev: &mut Evaluator, call: &OpCall) -> R<Option<Value>> {
    let sub = match call.name.trim_end_matches('_') {
        "add" => false,
        "sub" | "subtract" => true,
        _ => return Ok(None),
    };
    let alpha = match call.value("alpha") {
        Some(Value::Float(a)) => *a,
        Some(Value::Int(a)) if *a != 1 => *a as f64,
        // A one-element floating tensor is a Scalar to the argument parser: its value
        // (`q.add_(y, alpha=-al[i])` in `torch.optim.LBFGS`).
        Some(Value::Tensor(t))
            if t.borrow().tensor.numel() == 1 && t.borrow().tensor.dtype.is_floating() =>
        {
            match ev.arg_scalar(call, "alpha")? {
                Some(Scalar::Float(a)) => a,
                _ => return Ok(None),
            }
        }
        _ => return Ok(None),
    };
    let Some(this) = &call.this else {
        return Ok(None);
    };
    let x = this.borrow().tensor.clone();
    let y = match call.value("other") {
        Some(Value::Tensor(other)) => ElementwiseInput::Tensor(other.borrow().tensor.clone()),
        // A Python number on a floating tensor: wrapped (float64/int64) and cast to the
        // tensor's dtype, both freed after the output (`+8 +4 out -4 -8` for float32).
        Some(Value::Float(n)) if x.dtype.is_floating() => {
            ElementwiseInput::Number(Scalar::Float(*n))
        }
        Some(Value::Int(n)) if x.dtype.is_floating() => ElementwiseInput::Number(Scalar::Int(*n)),
        _ => return Ok(None),
    };
    let wrapped = match &y {
        ElementwiseInput::Number(Scalar::Float(_)) => Some(DType::Float64),
        ElementwiseInput::Number(_) => Some(DType::Int64),
        ElementwiseInput::Tensor(_) => None,
    };
    let inputs = [ElementwiseInput::Tensor(x.clone()), y];
    let mut result_type = ResultType::default();
    for input in &inputs {
        result_type.add(input);
    }
    let dtype = result_type.result();
    if matches!(call.value("alpha"), Some(Value::Float(_)))
        && !dtype.is_floating()
        && !dtype.is_complex()
    {
        return Err(ScriptError::Runtime(
            "For integral input tensors, argument alpha must not be a floating point number."
                .into(),
        ));
    }
    let target = if call.name.ends_with('_') {
        Some(x.dtype)
    } else {
        call.tensor("out").map(|o| o.dtype)
    };
    let floats = [
        DType::Float32,
        DType::Float64,
        DType::Float16,
        DType::BFloat16,
    ];
    if !floats.contains(&dtype) || target.is_some_and(|t| t != dtype) {
        return Ok(None);
    }
    let alpha = if sub { -alpha } else { alpha };
    let alpha = dtype.round(Scalar::Float(alpha)).to_f64();
    if let Some(wrapped) = wrapped {
        let cast = if wrapped == dtype {
            0
        } else {
            dtype.item_size()
        };
        ev.note_transient((8 + cast) as u64);
    }
    let value = ev.pointwise_result(call, &inputs, dtype, &call.name, |v| {
        let (s, o) = (v[0].to_f64(), v[1].to_f64());
        Scalar::Float(if dtype == DType::Float64 {
            alpha.mul_add(o, s)
        } else {
            f64::from((alpha as f32).mul_add(o as f32, s as f32))
        })
    })?;
    ev.end_transient();
    Ok(Some(value))
}

/// `out=`: the op computed into the given tensor (resized when its shape differs).
fn into_out(
    ev: &mut Evaluator,
    out: &TensorRef,
    op: BinOp,
    x: &ElementwiseInput,
    y: &ElementwiseInput,
) -> R<Value> {
    if op == BinOp::MatMul {
        let (ElementwiseInput::Tensor(a), ElementwiseInput::Tensor(b)) = (x, y) else {
            return Err(ScriptError::Type(
                "matmul(): argument 'other' must be Tensor".into(),
            ));
        };
        let result = ev.matmul(a, b)?;
        let target = ev.resize_out(out, result.shape(), MemoryFormat::Contiguous)?;
        ev.copy_into(&target, &result, false)?;
        return Ok(Value::Tensor(Rc::clone(out)));
    }
    let shape = broadcast_shapes(x.shape(), y.shape()).map_err(ScriptError::Runtime)?;
    let target = ev.resize_out(out, &shape, MemoryFormat::Contiguous)?;
    ev.elementwise(crate::interp::torch::ops::bin_op(op), x, y, Some(&target))?;
    Ok(Value::Tensor(Rc::clone(out)))
}

/// `add`, `sub`, `mul`, `remainder`, the comparisons and `matmul`: as the Python operators.
/// `torch.square(x)`: `x * x`, as ATen's `pow(x, 2)` computes it.
fn square(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = Value::Tensor(call.self_ref()?);
    ev.tensor_binary(BinOp::Mul, &this, &this)
}

fn binary(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    if let Some(v) = fused_add(ev, call)? {
        return Ok(v);
    }
    let op = operator(&call.name);
    let other = scaled_other(ev, call)?;
    let this = match &call.this {
        Some(this) => Rc::clone(this),
        // `torch.add(5, x)`: PyTorch wraps a number `input` into a 0-dim tensor (the ops of
        // `should_allow_numbers_as_tensors`); with a tensor `other` it is Python's `5 + x`.
        None => {
            let input = match ev.number_input(call)? {
                ElementwiseInput::Number(_) => call.value("input").cloned().unwrap_or(Value::None),
                ElementwiseInput::Tensor(t) => Value::tensor(t, &call.name, None),
            };
            return ev.tensor_binary(op, &input, &other);
        }
    };
    if let Some(Value::Tensor(out)) = call.value("out") {
        let out = Rc::clone(out);
        let x = ElementwiseInput::Tensor(this.borrow().tensor.clone());
        let y = ev.elementwise_input(&other, crate::interp::python::operators::binop_symbol(op))?;
        return into_out(ev, &out, op, &x, &y);
    }
    ev.tensor_binary(op, &Value::Tensor(this), &other)
}

/// `pow`: `self ** exponent` (either may be a number); `pow_` in place.
fn pow(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let base = call
        .value("self")
        .or_else(|| call.value("input"))
        .cloned()
        .unwrap_or(Value::None);
    let exponent = call.value("exponent").cloned().unwrap_or(Value::None);
    if call.name == "pow_" {
        let this = call.self_ref()?;
        let t = this.borrow().tensor.clone();
        let x = ElementwiseInput::Tensor(t.clone());
        let y = match &exponent {
            Value::Tensor(o) if Rc::ptr_eq(o, &this) => x.clone(),
            v => ev.elementwise_input(v, "**")?,
        };
        ev.elementwise(BinaryOp::Pow, &x, &y, Some(&t))?;
        return Ok(Value::Tensor(this));
    }
    ev.tensor_binary(BinOp::Pow, &base, &exponent)
}

/// `mm` (2-D @ 2-D), `bmm` (3-D @ 3-D) and `dot` (1-D · 1-D): `matmul` restricted to its
/// operands' ranks, with each kernel's own checks.
fn products(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let a = call.self_tensor()?;
    let b = call
        .tensor("other")
        .ok_or_else(|| ScriptError::Type(format!("{}(): expected a Tensor", call.name)))?;
    let out = match call.name.as_str() {
        "mm" => {
            for (t, which) in [(&a, "self"), (&b, "mat2")] {
                if t.ndim() != 2 {
                    return Err(ScriptError::Runtime(format!(
                        "mm: {which} must be a matrix, got {}-D tensor",
                        t.ndim()
                    )));
                }
            }
            ev.mm(&a, &b)?
        }
        "bmm" => {
            for (t, which) in [(&a, "batch1"), (&b, "batch2")] {
                if t.ndim() != 3 {
                    return Err(ScriptError::Runtime(format!("{which} must be a 3D tensor")));
                }
            }
            // No broadcasting: the batches and the inner sizes must agree as they are.
            let (sa, sb) = (a.shape(), b.shape());
            if sb[0] != sa[0] || sb[1] != sa[2] {
                return Err(ScriptError::Runtime(format!(
                    "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
                    sa[0], sa[2], sb[0], sb[1]
                )));
            }
            ev.matmul(&a, &b)?
        }
        _ => {
            if a.ndim() != 1 || b.ndim() != 1 {
                return Err(ScriptError::Runtime(format!(
                    "1D tensors expected, but got {}D and {}D tensors",
                    a.ndim(),
                    b.ndim()
                )));
            }
            ev.matmul(&a, &b)?
        }
    };
    Ok(Value::tensor(out, &call.name, None))
}

/// `add_`, `sub_`, `mul_`: written into `self`.
fn binary_(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    if let Some(v) = fused_add(ev, call)? {
        return Ok(v);
    }
    let this = call.self_ref()?;
    let t = this.borrow().tensor.clone();
    let other = scaled_other(ev, call)?;
    let op = match call.name.as_str() {
        "add_" => BinaryOp::Add,
        "sub_" | "subtract_" => BinaryOp::Sub,
        _ => BinaryOp::Mul,
    };
    let x = ElementwiseInput::Tensor(t.clone());
    let y = match &other {
        // `a.add_(a)`: the input is the output itself (a full overlap).
        Value::Tensor(o) if Rc::ptr_eq(o, &this) => x.clone(),
        Value::Tensor(o) => ElementwiseInput::Tensor(o.borrow().tensor.clone()),
        v => ElementwiseInput::Number(ev.scalar_of(v).ok_or_else(|| {
            ScriptError::Type(format!(
                "{}(): argument 'other' (position 1) must be Tensor, not {}",
                call.name,
                v.type_name()
            ))
        })?),
    };
    ev.elementwise(op, &x, &y, Some(&t))?;
    Ok(Value::Tensor(this))
}

/// `dst.copy_(src)`: a number is copied as a 0-dim tensor.
fn copy_(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let t = this.borrow().tensor.clone();
    match call.value("src") {
        Some(Value::Tensor(src)) => {
            let same = Rc::ptr_eq(src, &this);
            let s = src.borrow().tensor.clone();
            ev.copy_into(&t, &s, same)?;
        }
        Some(v) => {
            let v = ev.scalar_of(v).unwrap_or(Scalar::Int(0));
            ev.fill(&t, t.dtype.round(v))?;
        }
        None => {}
    }
    Ok(Value::Tensor(this))
}

/// `fill_(value)`: a 0-dim tensor or a Python number (range-checked for the dtype).
fn fill_(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let t = this.borrow().tensor.clone();
    let v = if call.overload() == 0 {
        let v = call
            .tensor("value")
            .ok_or_else(|| ScriptError::Type("fill_(): argument 'value' must be Tensor".into()))?;
        if v.ndim() != 0 {
            return Err(ScriptError::Runtime(format!(
                "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
                v.ndim()
            )));
        }
        ev.engine
            .values(&v)
            .first()
            .copied()
            .unwrap_or(Scalar::Int(0))
    } else {
        let v = ev.arg_scalar(call, "value")?.unwrap_or(Scalar::Int(0));
        // A Python number goes through `Scalar::to<T>()`, which checks range.
        t.dtype.checked_number(v).map_err(ScriptError::Runtime)?
    };
    ev.fill(&t, v)?;
    Ok(Value::Tensor(this))
}

/// `zero_()`.
fn zero_(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let t = this.borrow().tensor.clone();
    ev.fill(&t, Scalar::Int(0))?;
    Ok(Value::Tensor(this))
}

/// `clamp` with tensor bounds: `minimum(maximum(x, min), max)`, broadcast, in the dtype the
/// three promote to (computed on the host, see [`crate::interp::torch::ops::reduce::elementwise_extreme`]).
fn clamp_tensors(
    ev: &mut Evaluator,
    t: &Tensor,
    min: Option<Tensor>,
    max: Option<Tensor>,
    inplace: bool,
) -> R<Tensor> {
    let mut rt = ResultType::default();
    rt.add(&ElementwiseInput::Tensor(t.clone()));
    for b in [&min, &max].into_iter().flatten() {
        rt.add(&ElementwiseInput::Tensor(b.clone()));
    }
    let common = rt.result();
    if inplace {
        let result = Tensor {
            dtype: common,
            ..t.clone()
        };
        ev.check_in_place_cast(&result, t)?;
    }
    let mut out = t.clone();
    if let Some(min) = &min {
        out = crate::interp::torch::ops::reduce::elementwise_extreme(
            ev, &out, min, true, "clamp", common,
        )?;
    }
    if let Some(max) = &max {
        out = crate::interp::torch::ops::reduce::elementwise_extreme(
            ev, &out, max, false, "clamp", common,
        )?;
    }
    if out.storage == t.storage {
        out = ev.convert(t, common, MemoryFormat::Contiguous, "clamp")?;
    }
    Ok(out)
}

/// `clamp(min, max)`, `clamp_`, with `out=`; bounds are numbers or tensors.
fn clamp(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let t = this.borrow().tensor.clone();
    let inplace = call.name.ends_with('_');
    let out =
        if call.overload() == 0 && (call.tensor("min").is_some() || call.tensor("max").is_some()) {
            let out = clamp_tensors(ev, &t, call.tensor("min"), call.tensor("max"), inplace)?;
            if inplace {
                ev.copy_into(&t, &out, false)?;
                return Ok(Value::Tensor(this));
            }
            out
        } else {
            let min = ev.arg_scalar(call, "min")?;
            let max = ev.arg_scalar(call, "max")?;
            let out = ev.unary_op(UnaryOp::Clamp { min, max }, &t, inplace, "clamp")?;
            if inplace {
                return Ok(Value::Tensor(this));
            }
            out
        };
    if let Some(Value::Tensor(o)) = call.value("out") {
        let o = Rc::clone(o);
        let target = ev.resize_out(&o, out.shape(), MemoryFormat::Contiguous)?;
        ev.copy_into(&target, &out, false)?;
        return Ok(Value::Tensor(o));
    }
    Ok(Value::tensor(out, "clamp", None))
}

/// `relu`, `neg`, `abs` and their in-place forms.
fn unary(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let this = call.self_ref()?;
    let t = this.borrow().tensor.clone();
    let base = call.name.trim_end_matches('_');
    let op = match base {
        "relu" => UnaryOp::Relu,
        "neg" | "negative" => UnaryOp::Neg,
        _ => UnaryOp::Abs,
    };
    let kernel = match op {
        UnaryOp::Relu => "relu",
        UnaryOp::Neg => "neg",
        _ => "abs",
    };
    let inplace = call.name.ends_with('_');
    let out = ev.unary_op(op, &t, inplace, kernel)?;
    if inplace {
        return Ok(Value::Tensor(this));
    }
    Ok(Value::tensor(out, kernel, None))
}
