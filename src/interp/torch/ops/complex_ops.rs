//! The table ops Stridescope computes on complex tensors (arithmetic, `abs`, `angle`,
//! `conj`, reductions, `matmul`), dispatched from [`Evaluator::complex_table_op`], and the
//! complex-only entries of the table (`conj`, `angle`, `polar`, `is_conj`, ...).
//!
//! A conjugate is materialized: `conj()` of a complex tensor is a new tensor holding the
//! conjugated numbers (PyTorch's lazy conjugate bit is not modelled), so `is_conj()` is
//! always false and `resolve_conj()` returns the tensor itself.

use std::rc::Rc;

use crate::core::tensor::layout::{numel_of, wrap_dim};
use crate::core::tensor::{DType, Layout, MemoryFormat, ScriptError, Tensor};
use crate::engines::ReduceOp;
use crate::interp::torch::ops::complex_math::{
    self, abs, mul, not_modelled, rd, unsupported, Cx, CxBinary, CxInput,
};
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The complex-only entries of the table.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["conj", "conj_physical", "resolve_conj", "resolve_neg"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: conj,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["is_conj", "is_neg"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: is_conj,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["angle"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: angle,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["polar"],
        schemas: &["Tensor abs, Tensor angle, *, Tensor? out=None"],
        forms: Forms::Function,
        rule: polar,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["reciprocal", "reciprocal_"],
        schemas: &["Tensor self, *, Tensor? out=None"],
        forms: Forms::Both,
        rule: reciprocal,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["adjoint"],
        schemas: &["Tensor self"],
        forms: Forms::Both,
        rule: adjoint,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["type_as"],
        schemas: &["Tensor self, Tensor other"],
        forms: Forms::Method,
        rule: type_as,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["can_cast"],
        schemas: &["ScalarType from_, ScalarType to"],
        forms: Forms::Function,
        rule: can_cast,
        complex: true,
        ..OpDef::PLAIN
    },
];

/// `reciprocal()`: `1 / x` (a complex one as `c10::complex` divides; integers give
/// float32); `reciprocal_()` writes it back.
fn reciprocal(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = receiver(call)?;
    let dtype = if t.dtype.is_complex() || t.dtype.is_floating() {
        t.dtype
    } else {
        DType::Float32
    };
    let f = |z| {
        if dtype.is_complex() {
            complex_math::div(dtype, (1.0, 0.0), z)
        } else {
            (rd(dtype, 1.0 / z.0), 0.0)
        }
    };
    // Written back into `self` or `out=`, the values are no tensor ATen allocates.
    let result = if call.name.ends_with('_') || matches!(call.value("out"), Some(Value::Tensor(_)))
    {
        ev.uncounted(|ev| ev.cx_unary(&t, dtype, "reciprocal", f))?
    } else {
        ev.cx_unary(&t, dtype, "reciprocal", f)?
    };
    if call.name.ends_with('_') {
        let this = call.self_ref()?;
        let target = this.borrow().tensor.clone();
        ev.cx_write_back(&target, &result)?;
        return Ok(Value::Tensor(this));
    }
    if let Some(Value::Tensor(out)) = call.value("out") {
        let out = Rc::clone(out);
        let target = ev.resize_out(&out, result.shape(), MemoryFormat::Contiguous)?;
        ev.cx_write_back(&target, &result)?;
        return Ok(Value::Tensor(out));
    }
    Ok(Value::tensor(result, "reciprocal", None))
}

/// `adjoint()`: the conjugate transpose of the last two dims (a view of a real tensor; a
/// new tensor for a complex one, whose conjugate bit is not modelled).
fn adjoint(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = receiver(call)?;
    if t.dtype.is_complex() {
        return ev.complex_adjoint(&t, "adjoint");
    }
    match t.ndim() {
        0 => Ok(Value::tensor(t, "adjoint", None)),
        1 => Err(ScriptError::Runtime(
            "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor."
                .into(),
        )),
        _ => {
            let out = ev.transpose(&t, -2, -1)?;
            Ok(Value::tensor(out, "adjoint", None))
        }
    }
}

/// `t.type_as(other)`: `t` itself when the dtypes agree, else a copy in `other`'s dtype
/// (its layout preserved, as `to` copies).
fn type_as(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = receiver(call)?;
    let Some(other) = call.tensor("other") else {
        return Err(ScriptError::Type(
            "type_as(): argument 'other' (position 1) must be Tensor".into(),
        ));
    };
    if t.dtype == other.dtype {
        if let Some(this) = &call.this {
            return Ok(Value::Tensor(Rc::clone(this)));
        }
    }
    let out = ev.convert(&t, other.dtype, MemoryFormat::Preserve, "type_as")?;
    Ok(Value::tensor(out, "type_as", None))
}

/// Whether a norm call asks for the 2-norm of all elements (no `p`/`ord` but 2, no `dim`).
fn euclidean_norm(call: &OpCall) -> bool {
    let two = |v: &Value| {
        matches!(v, Value::Int(2) | Value::None) || matches!(v, Value::Float(f) if *f == 2.0)
    };
    call.value("p").is_none_or(two)
        && call.value("ord").is_none_or(two)
        && call.value("dim").is_none_or(|d| matches!(d, Value::None))
}

/// `torch.can_cast(from_, to)`: PyTorch's casting rule (no float to integral, no complex
/// to a real dtype, nothing but bool to bool).
fn can_cast(_ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    match (call.dtype("from_"), call.dtype("to")) {
        (Some(from), Some(to)) => Ok(Value::Bool(complex_math::castable(from, to))),
        _ => Err(ScriptError::Type(
            "can_cast(): argument 'from_' (position 1) must be torch.dtype".into(),
        )),
    }
}

/// The receiver (`self`, or the function form's `input`) as a tensor.
fn receiver(call: &OpCall) -> R<Tensor> {
    call.tensor("self")
        .or_else(|| call.tensor("input"))
        .map_or_else(|| call.self_tensor(), Ok)
}

/// `conj()`, `conj_physical()`, `resolve_conj()`, `resolve_neg()`: a real tensor (and a
/// resolved complex one) is returned as it is; a complex conjugate is a new tensor.
fn conj(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = receiver(call)?;
    let conjugates = matches!(call.name.as_str(), "conj" | "conj_physical");
    if !t.dtype.is_complex() || !conjugates {
        if call.name == "conj_physical" && !t.dtype.is_complex() {
            let out = ev.convert(&t, t.dtype, MemoryFormat::Preserve, "conj_physical")?;
            return Ok(Value::tensor(out, "conj_physical", None));
        }
        if let Some(this) = &call.this {
            return Ok(Value::Tensor(Rc::clone(this)));
        }
        return Ok(Value::tensor(t, &call.name, None));
    }
    let out = ev.cx_unary(&t, t.dtype, &call.name, |z| (z.0, -z.1))?;
    Ok(Value::tensor(out, &call.name, None))
}

fn is_conj(_ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    receiver(call)?;
    Ok(Value::Bool(false))
}

/// `angle()`: the argument of each complex number; for real numbers 0, or π for the
/// negative ones (integers give float32).
fn angle(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let t = receiver(call)?;
    let dtype = if t.dtype.is_complex() {
        t.dtype.real_part()
    } else if t.dtype.is_floating() {
        t.dtype
    } else {
        DType::Float32
    };
    let out = ev.cx_unary(&t, dtype, "angle", |z| {
        if z.1 == 0.0 && !t.dtype.is_complex() {
            let a = if z.0.is_nan() {
                f64::NAN
            } else if z.0 < 0.0 {
                std::f64::consts::PI
            } else {
                0.0
            };
            return (a, 0.0);
        }
        (z.1.atan2(z.0), 0.0)
    })?;
    Ok(Value::tensor(out, "angle", None))
}

/// `torch.polar(abs, angle)`: `abs * (cos(angle) + i sin(angle))`.
fn polar(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let (Some(m), Some(a)) = (call.tensor("abs"), call.tensor("angle")) else {
        return Err(ScriptError::Type(
            "polar(): argument 'abs' (position 1) must be Tensor".into(),
        ));
    };
    let Some(dtype) = m.dtype.complex_of().filter(|_| m.dtype == a.dtype) else {
        return Err(ScriptError::Runtime(format!(
            "Expected object of scalar type {} but got scalar type {} for second argument",
            m.dtype.scalar_type_name(),
            a.dtype.scalar_type_name()
        )));
    };
    let shape = crate::core::tensor::layout::broadcast_shapes(m.shape(), a.shape())
        .map_err(ScriptError::Runtime)?;
    ev.check_work(numel_of(&shape), "polar")?;
    let mags = ev.cx_values(&m, &shape);
    let args = ev.cx_values(&a, &shape);
    let values: Vec<Cx> = mags
        .iter()
        .zip(&args)
        .map(|(r, t)| {
            let (c, s) = (rd(dtype, t.0.cos()), rd(dtype, t.0.sin()));
            (rd(dtype, r.0 * c), rd(dtype, r.0 * s))
        })
        .collect();
    let strides = Layout::contiguous(&shape).strides;
    let out = ev.cx_tensor(&shape, &strides, dtype, &values, "polar")?;
    Ok(Value::tensor(out, "polar", None))
}

/// The name an in-place or alias op is computed as (`mul_` -> `mul`, `multiply` -> `mul`).
fn base_name(name: &str) -> &str {
    match name.trim_end_matches('_') {
        "subtract" => "sub",
        "multiply" => "mul",
        "divide" | "true_divide" => "div",
        "negative" => "neg",
        "absolute" => "abs",
        "not_equal" => "ne",
        other => other,
    }
}

impl Evaluator {
    /// `z.mH` / `z.H` of a complex tensor: the conjugate of its (matrix) transpose, as a
    /// new tensor (the conjugate bit is not modelled).
    pub(crate) fn complex_adjoint(&mut self, t: &Tensor, name: &str) -> R<Value> {
        let n = t.ndim();
        let transposed = match (name, n) {
            (_, 0) => t.clone(),
            ("H", 2) => self.transpose(t, 0, 1)?,
            ("H", _) => {
                let hint = if n > 2 {
                    " For batches of matrices, consider using tensor.mH"
                } else {
                    ""
                };
                return Err(ScriptError::Runtime(format!(
                    "tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor.{hint}"
                )));
            }
            (_, 1) => {
                let call = if name == "adjoint" { "adjoint()" } else { name };
                return Err(ScriptError::Runtime(format!(
                    "tensor.{call} is only supported on matrices or batches of matrices. Got 1-D tensor."
                )));
            }
            _ => self.transpose(t, -2, -1)?,
        };
        let out = self.cx_unary(&transposed, t.dtype, name, |z| (z.0, -z.1))?;
        Ok(Value::tensor(out, name, None))
    }

    /// See [`Evaluator::complex_table_op`].
    pub(super) fn complex_table_inner(&mut self, call: &OpCall) -> R<Value> {
        let first = call
            .value("self")
            .or_else(|| call.value("input"))
            .cloned()
            .unwrap_or(Value::None);
        let inplace = call.name.ends_with('_');
        let name = base_name(&call.name);
        let binary = match name {
            "add" => Some(CxBinary::Add),
            "sub" => Some(CxBinary::Sub),
            "mul" => Some(CxBinary::Mul),
            "div" => Some(CxBinary::Div),
            "pow" => Some(CxBinary::Pow),
            "eq" => Some(CxBinary::Eq),
            "ne" => Some(CxBinary::Ne),
            _ => None,
        };
        if name == "allclose" {
            return self.cx_allclose(call);
        }
        let result = if let Some(op) = binary {
            if call
                .value("rounding_mode")
                .is_some_and(|v| !matches!(v, Value::None))
            {
                return Err(unsupported("div_trunc_cpu", self.complex_dtype(call)));
            }
            let other = call
                .value("other")
                .or_else(|| call.value("exponent"))
                .cloned()
                .unwrap_or(Value::None);
            let x = self.cx_input(&first, name)?;
            let y = self.cx_input(&other, name)?;
            let alpha = match call.value("alpha") {
                Some(v) => match self.cx_input(v, name)? {
                    CxInput::Number(z, _) => Some(z),
                    CxInput::Tensor(_) => None,
                },
                None => None,
            };
            self.cx_binary(op, &x, &y, alpha, name)?
        } else {
            let t = receiver(call)?;
            match name {
                "neg" => self.cx_unary(&t, t.dtype, "neg", |z| (-z.0, -z.1))?,
                "abs" if inplace => {
                    return Err(ScriptError::Runtime(
                        "In-place abs is not supported for complex tensors.".into(),
                    ))
                }
                "abs" => {
                    let d = t.dtype;
                    self.cx_unary(&t, d.real_part(), "abs", |z| (abs(d, z), 0.0))?
                }
                "exp" => {
                    let d = t.dtype;
                    self.cx_unary(&t, d, "exp", |z| {
                        let m = z.0.exp();
                        (rd(d, m * z.1.cos()), rd(d, m * z.1.sin()))
                    })?
                }
                "sqrt" => {
                    let two = CxInput::Number((0.5, 0.0), DType::Float64);
                    self.cx_binary(
                        CxBinary::Pow,
                        &CxInput::Tensor(t.clone()),
                        &two,
                        None,
                        "sqrt",
                    )?
                }
                "square" => {
                    let x = CxInput::Tensor(t.clone());
                    self.cx_binary(CxBinary::Mul, &x, &x, None, "square")?
                }

                "sum" | "mean" => self.cx_sum(call, &t, name == "mean")?,
                "prod" => self.cx_prod(call, &t)?,
                "matmul" | "mm" | "mv" | "dot" => {
                    let other = call
                        .tensor("other")
                        .or_else(|| call.tensor("mat2"))
                        .or_else(|| call.tensor("vec"))
                        .or_else(|| call.tensor("tensor"));
                    let Some(other) = other else {
                        return Err(not_modelled(&call.name));
                    };
                    self.cx_matmul(&t, &other)?
                }
                "norm" | "linalg_norm" | "linalg_vector_norm" if euclidean_norm(call) => {
                    let d = t.dtype;
                    let values = self.cx_values(&t, t.shape());
                    let total: f64 = values.iter().map(|z| z.0 * z.0 + z.1 * z.1).sum();
                    self.cx_tensor(&[], &[], d.real_part(), &[(total.sqrt(), 0.0)], "norm")?
                }
                "lt" | "gt" | "le" | "ge" => {
                    return Err(unsupported(&format!("{name}_cpu"), t.dtype))
                }
                "max" | "min" if call.value("dim").is_none() => {
                    return Err(unsupported(&format!("{name}_all"), t.dtype))
                }
                "floor_divide" => return Err(unsupported("div_floor_cpu", t.dtype)),
                "remainder" | "fmod" => return Err(unsupported("remainder_cpu", t.dtype)),
                _ => return Err(not_modelled(&call.name)),
            }
        };
        if inplace {
            let this = call.self_ref()?;
            let target = this.borrow().tensor.clone();
            self.cx_write_back(&target, &result)?;
            return Ok(Value::Tensor(this));
        }
        if let Some(Value::Tensor(out)) = call.value("out") {
            let out = Rc::clone(out);
            let target = self.resize_out(&out, result.shape(), MemoryFormat::Contiguous)?;
            self.cx_write_back(&target, &result)?;
            return Ok(Value::Tensor(out));
        }
        Ok(Value::tensor(result, name, None))
    }

    /// `torch.allclose(a, b)` with complex operands: `|a - b| <= atol + rtol * |b|`
    /// element by element (NaNs equal only with `equal_nan`).
    fn cx_allclose(&mut self, call: &OpCall) -> R<Value> {
        let (Some(a), Some(b)) = (
            call.tensor("self").or_else(|| call.tensor("input")),
            call.tensor("other"),
        ) else {
            return Err(not_modelled("allclose"));
        };
        let rtol = self.arg_float(call, "rtol", 1e-5)?;
        let atol = self.arg_float(call, "atol", 1e-8)?;
        let equal_nan = call.flag("equal_nan", false);
        let shape = crate::core::tensor::layout::broadcast_shapes(a.shape(), b.shape())
            .map_err(ScriptError::Runtime)?;
        self.check_work(numel_of(&shape), "allclose")?;
        let x = self.cx_values(&a, &shape);
        let y = self.cx_values(&b, &shape);
        let nan = |z: &Cx| z.0.is_nan() || z.1.is_nan();
        let close = x.iter().zip(&y).all(|(p, q)| {
            if nan(p) || nan(q) {
                return equal_nan && nan(p) && nan(q);
            }
            p == q || (p.0 - q.0).hypot(p.1 - q.1) <= atol + rtol * q.0.hypot(q.1)
        });
        Ok(Value::Bool(close))
    }

    /// The dtype of the first complex tensor of a call (for refusals).
    fn complex_dtype(&self, call: &OpCall) -> DType {
        call.args
            .values
            .iter()
            .flatten()
            .find_map(|v| match v {
                Value::Tensor(t) if t.borrow().tensor.dtype.is_complex() => {
                    Some(t.borrow().tensor.dtype)
                }
                _ => None,
            })
            .unwrap_or(DType::Complex64)
    }

    /// `sum` / `mean` of a complex tensor: each half summed as a float tensor (ATen's order
    /// for floats), a mean then scaled by the reciprocal of the count as a complex
    /// division by a real number computes it.
    fn cx_sum(&mut self, call: &OpCall, t: &Tensor, mean: bool) -> R<Tensor> {
        let dims = self.arg_ints(call, "dim")?;
        let keepdim = call.flag("keepdim", false);
        let dtype = call.dtype("dtype");
        let what = if mean { "mean" } else { "sum" };
        let re = self.reduce(
            ReduceOp::Sum,
            &t.complex_part(0),
            dims.as_deref(),
            keepdim,
            None,
        )?;
        let im = self.reduce(
            ReduceOp::Sum,
            &t.complex_part(1),
            dims.as_deref(),
            keepdim,
            None,
        )?;
        let count = if re.numel() == 0 {
            0
        } else {
            t.numel() / re.numel().max(1)
        };
        let shape = re.shape().to_vec();
        let a = self.cx_values(&re, &shape);
        let b = self.cx_values(&im, &shape);
        let d = t.dtype;
        let scale = rd(d, 1.0 / count as f64);
        let values: Vec<Cx> = a
            .iter()
            .zip(&b)
            .map(|(x, y)| {
                if mean {
                    (rd(d, x.0 * scale), rd(d, y.0 * scale))
                } else {
                    (x.0, y.0)
                }
            })
            .collect();
        let strides = Layout::contiguous(&shape).strides;
        let out = self.cx_tensor(&shape, &strides, d, &values, what)?;
        match dtype {
            Some(want) if want != d => self.convert(&out, want, MemoryFormat::Preserve, what),
            _ => Ok(out),
        }
    }

    /// `prod` of a complex tensor (all elements, or along one dim), multiplied in order.
    fn cx_prod(&mut self, call: &OpCall, t: &Tensor) -> R<Tensor> {
        let d = t.dtype;
        let values = self.cx_values(t, t.shape());
        let product = |items: &mut dyn Iterator<Item = Cx>| {
            items.fold((1.0, 0.0), |acc, z| mul(d, acc, z, false))
        };
        let Some(dim) = self.arg_opt_int(call, "dim")? else {
            let p = product(&mut values.iter().copied());
            return self.cx_tensor(&[], &[], d, &[p], "prod");
        };
        let n = t.ndim();
        let w = wrap_dim(dim, n.max(1)).map_err(crate::interp::torch::ops::index_err)?;
        let shape = t.shape().to_vec();
        let (outer, size) = if n == 0 {
            (1, 1)
        } else {
            (numel_of(&shape[..w]), shape[w])
        };
        let inner = if n == 0 { 1 } else { numel_of(&shape[w + 1..]) };
        let mut out = Vec::new();
        for o in 0..outer {
            for i in 0..inner {
                let mut items = (0..size).filter_map(|k| {
                    values
                        .get(usize::try_from((o * size + k) * inner + i).unwrap_or(usize::MAX))
                        .copied()
                });
                out.push(product(&mut items));
            }
        }
        let mut out_shape = shape.clone();
        if n > 0 {
            if call.flag("keepdim", false) {
                out_shape[w] = 1;
            } else {
                out_shape.remove(w);
            }
        }
        let strides = Layout::contiguous(&out_shape).strides;
        self.cx_tensor(&out_shape, &strides, d, &out, "prod")
    }

    /// `a @ b` with complex operands of one dtype: the four real products of the halves
    /// (`matmul`'s own shape rules and errors), combined as
    /// `(ar@br - ai@bi) + (ar@bi + ai@br)i`.
    pub(super) fn cx_matmul(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        if a.dtype != b.dtype {
            let (x, y) = (a.dtype.cpp_type_name(), b.dtype.cpp_type_name());
            if a.ndim() == 1 && b.ndim() == 1 {
                return Err(ScriptError::Runtime(format!(
                    "dot : expected both vectors to have same dtype, but found {} and {}",
                    a.dtype.scalar_type_name(),
                    b.dtype.scalar_type_name()
                )));
            }
            return Err(ScriptError::Runtime(format!(
                "expected m1 and m2 to have the same dtype, but got: {x} != {y}"
            )));
        }
        let d = a.dtype;
        let (ar, ai) = (a.complex_part(0), a.complex_part(1));
        let (br, bi) = (b.complex_part(0), b.complex_part(1));
        let rr = self.matmul(&ar, &br)?;
        let ii = self.matmul(&ai, &bi)?;
        let ri = self.matmul(&ar, &bi)?;
        let ir = self.matmul(&ai, &br)?;
        let shape = rr.shape().to_vec();
        let [p, q, s, u] = [&rr, &ii, &ri, &ir].map(|t| self.cx_values(t, &shape));
        let values: Vec<Cx> = (0..p.len())
            .map(|k| (rd(d, p[k].0 - q[k].0), rd(d, s[k].0 + u[k].0)))
            .collect();
        let strides = Layout::contiguous(&shape).strides;
        self.cx_tensor(&shape, &strides, d, &values, "matmul")
    }
}
