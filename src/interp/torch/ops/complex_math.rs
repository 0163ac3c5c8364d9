//! Arithmetic on complex tensors (complex64 / complex128), computed in the evaluator from
//! the operands' (real, imaginary) pairs with the precision of the result's halves and the
//! formulas of ATen's CPU kernels: `c10::complex` division (Smith's, as NumPy divides),
//! multiplication as the vectorized kernel computes it (each product rounded) except for
//! the pairs the compiler contracts into fused multiply-adds past the last full vector
//! (see [`fused_at`]). Table ops reach here through [`Evaluator::complex_table_op`] and
//! Python operators through [`Evaluator::complex_operator`]; what is not computed is
//! refused with PyTorch's own `not implemented for 'ComplexFloat'` where PyTorch refuses
//! too, else with a `NotImplementedError` naming the op.

use crate::core::tensor::layout::{
    broadcast_shapes, elementwise_output_strides, numel_of, OperandLayout,
};
use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::torch::ops::{broadcast_view, complex};
use crate::interp::torch::registry::OpCall;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// A complex number as its two halves (computed in f64, rounded to the dtype's halves).
pub(super) type Cx = (f64, f64);

/// An operand of a complex op: a tensor, or a Python number (its kind decides promotion).
#[derive(Clone, Debug)]
pub(super) enum CxInput {
    Tensor(Tensor),
    /// A Python number: its value and the dtype it wraps as (bool, int64, float, complex).
    Number(Cx, DType),
}

impl CxInput {
    fn shape(&self) -> &[i64] {
        match self {
            CxInput::Tensor(t) => t.shape(),
            CxInput::Number(..) => &[],
        }
    }
}

/// The binary ops computed on complex operands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum CxBinary {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Eq,
    Ne,
}

/// Whether `v` is (or holds, for lists) a complex tensor or a Python complex number.
pub(super) fn is_complex_value(v: &Value) -> bool {
    match v {
        Value::Tensor(t) => t.borrow().tensor.dtype.is_complex(),
        Value::Complex(..) => true,
        Value::List(items) | Value::Tuple(items) => items.iter().any(is_complex_value),
        _ => false,
    }
}

/// `combine_categories` of ATen's `ResultTypeState`, with complex above floating: a
/// complex lower tier makes a floating higher tier complex of the same width.
fn combine(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    match (higher, lower) {
        (Some(h), _) if h.is_complex() => Some(h),
        (Some(h), Some(l)) if l.is_complex() => Some(if h.is_floating() {
            h.complex_of().unwrap_or(l)
        } else {
            l
        }),
        (Some(h), _) if h.is_floating() => Some(h),
        (Some(h), Some(l)) if h == DType::Bool || l.is_floating() => Some(DType::promote(h, l)),
        (Some(h), _) => Some(h),
        (None, l) => l,
    }
}

/// The result dtype of an op on `inputs` (dim tensors, then 0-dim tensors, then numbers).
pub(super) fn result_type(inputs: &[CxInput]) -> DType {
    let (mut dim, mut zero, mut wrapped) = (None, None, None);
    let promote = |a: Option<DType>, b: DType| Some(a.map_or(b, |a| DType::promote(a, b)));
    for input in inputs {
        match input {
            CxInput::Tensor(t) if t.ndim() > 0 => dim = promote(dim, t.dtype),
            CxInput::Tensor(t) => zero = promote(zero, t.dtype),
            CxInput::Number(_, d) => {
                let d = match d {
                    DType::Float64 => DType::Float32,
                    DType::Complex128 => DType::Complex64,
                    other => *other,
                };
                wrapped = promote(wrapped, d);
            }
        }
    }
    combine(dim, combine(zero, wrapped)).unwrap_or(DType::Complex64)
}

/// Rounds `x` to the precision of `dtype`'s halves (f32 for complex64 and float32).
pub(super) fn rd(dtype: DType, x: f64) -> f64 {
    match dtype {
        DType::Complex64 | DType::Float32 => f64::from(x as f32),
        _ => x,
    }
}

/// Whether element `j` of `n` (in the output's memory order) is computed by the scalar
/// tail of ATen's vectorized CPU loop, whose complex products the compiler contracts into
/// fused multiply-adds: elements past the last full vector (8 complex64 or 4 complex128
/// numbers with AVX-512); for complex64 in pairs (an odd last one is computed like a
/// vector's), as measured on PyTorch 2.15's CPU build.
pub(super) fn fused_at(dtype: DType, j: usize, n: usize) -> bool {
    if dtype == DType::Complex128 {
        return j >= n / 4 * 4;
    }
    let full = n / 8 * 8;
    let tail = n - full;
    j >= full && j - full < tail / 2 * 2
}

/// `a * b` in `dtype`'s precision; `fused`: the real part `fma(a.re, b.re, -(a.im * b.im))`
/// and the imaginary part `fma(a.re, b.im, a.im * b.re)`.
pub(super) fn mul(dtype: DType, a: Cx, b: Cx, fused: bool) -> Cx {
    let r = |x| rd(dtype, x);
    if !fused {
        return (
            r(r(a.0 * b.0) - r(a.1 * b.1)),
            r(r(a.0 * b.1) + r(a.1 * b.0)),
        );
    }
    if dtype == DType::Complex64 {
        let f = |x: f64| x as f32;
        let re = f(a.0).mul_add(f(b.0), -(f(a.1) * f(b.1)));
        let im = f(a.0).mul_add(f(b.1), f(a.1) * f(b.0));
        return (f64::from(re), f64::from(im));
    }
    (a.0.mul_add(b.0, -(a.1 * b.1)), a.0.mul_add(b.1, a.1 * b.0))
}

/// `a / b` as `c10::complex::operator/=` computes it (Smith's scaling, NumPy's order).
pub(super) fn div(dtype: DType, a: Cx, b: Cx) -> Cx {
    let r = |x| rd(dtype, x);
    let (ar, ai, c, d) = (a.0, a.1, b.0, b.1);
    let (abs_c, abs_d) = (c.abs(), d.abs());
    if abs_c >= abs_d {
        if abs_c == 0.0 && abs_d == 0.0 {
            return (r(ar / abs_c), r(ai / abs_d));
        }
        let rat = r(d / c);
        let scl = r(1.0 / r(c + r(d * rat)));
        (r(r(ar + r(ai * rat)) * scl), r(r(ai - r(ar * rat)) * scl))
    } else {
        let rat = r(c / d);
        let scl = r(1.0 / r(d + r(c * rat)));
        (r(r(r(ar * rat) + ai) * scl), r(r(r(ai * rat) - ar) * scl))
    }
}

/// `|z|` (`std::abs`, a hypotenuse) in the precision of `dtype`'s halves.
pub(super) fn abs(dtype: DType, z: Cx) -> f64 {
    if dtype == DType::Complex64 {
        return f64::from((z.0 as f32).hypot(z.1 as f32));
    }
    z.0.hypot(z.1)
}

/// `e ** z`.
fn exp(dtype: DType, z: Cx) -> Cx {
    let m = z.0.exp();
    (rd(dtype, m * z.1.cos()), rd(dtype, m * z.1.sin()))
}

/// The principal square root (`std::sqrt` of a complex).
fn sqrt(dtype: DType, z: Cx) -> Cx {
    let (x, y) = z;
    if x == 0.0 && y == 0.0 {
        return (0.0, y);
    }
    let t = ((x.abs() + x.hypot(y)) / 2.0).sqrt();
    let (re, im) = if x >= 0.0 {
        (t, y / (2.0 * t))
    } else {
        (y.abs() / (2.0 * t), t.copysign(y))
    };
    (rd(dtype, re), rd(dtype, im))
}

/// `z ** w` as ATen's `pow` kernel special-cases its exponent (products for 2 and 3,
/// reciprocals for -1 and -2, the square root for 0.5), else `exp(w * log(z))`.
fn pow(dtype: DType, z: Cx, w: Cx, fused: bool) -> Cx {
    if w == (2.0, 0.0) {
        return mul(dtype, z, z, fused);
    }
    if w == (3.0, 0.0) {
        return mul(dtype, mul(dtype, z, z, fused), z, fused);
    }
    if w == (-1.0, 0.0) {
        return div(dtype, (1.0, 0.0), z);
    }
    if w == (-2.0, 0.0) {
        return div(dtype, (1.0, 0.0), mul(dtype, z, z, fused));
    }
    if w == (0.5, 0.0) {
        return sqrt(dtype, z);
    }
    if w == (1.0, 0.0) {
        return z;
    }
    if w == (0.0, 0.0) {
        return (1.0, 0.0);
    }
    if z == (0.0, 0.0) {
        return (0.0, 0.0);
    }
    let (lr, li) = (z.0.hypot(z.1).ln(), z.1.atan2(z.0));
    let e = (lr * w.0 - li * w.1, lr * w.1 + li * w.0);
    exp(dtype, e)
}

impl Evaluator {
    /// The (real, imaginary) pairs of `t` broadcast to `shape`, in row-major order (a real
    /// tensor's imaginary halves are zero).
    pub(super) fn cx_values(&mut self, t: &Tensor, shape: &[i64]) -> Vec<Cx> {
        let values = self.engine.values(&broadcast_view(t, shape));
        if t.dtype.is_complex() {
            values
                .chunks(2)
                .map(|p| (p[0].to_f64(), p.get(1).map_or(0.0, |s| s.to_f64())))
                .collect()
        } else {
            values.into_iter().map(|s| (s.to_f64(), 0.0)).collect()
        }
    }

    /// A new tensor of `shape`/`strides` holding `values` (row-major): complex pairs for a
    /// complex `dtype`, the real halves otherwise.
    pub(super) fn cx_tensor(
        &mut self,
        shape: &[i64],
        strides: &[i64],
        dtype: DType,
        values: &[Cx],
        what: &str,
    ) -> R<Tensor> {
        let out = self.empty_strided(shape, strides, dtype, what)?;
        if dtype.is_complex() {
            let half = dtype.real_part();
            let flat: Vec<Scalar> = values
                .iter()
                .flat_map(|&(re, im)| {
                    [half.round(Scalar::Float(re)), half.round(Scalar::Float(im))]
                })
                .collect();
            self.write_values(&out.as_real(), &flat)?;
        } else {
            let flat: Vec<Scalar> = values
                .iter()
                .map(|&(re, _)| dtype.round(Scalar::Float(re)))
                .collect();
            self.write_values(&out, &flat)?;
        }
        Ok(out)
    }

    /// The output layout TensorIterator gives an elementwise op on `inputs`.
    fn cx_layout(&self, inputs: &[CxInput]) -> R<(Vec<i64>, Vec<i64>)> {
        let mut shape: Vec<i64> = vec![];
        for input in inputs {
            shape = broadcast_shapes(&shape, input.shape()).map_err(ScriptError::Runtime)?;
        }
        let layouts: Vec<OperandLayout<'_>> = inputs
            .iter()
            .filter_map(|i| match i {
                CxInput::Tensor(t) => Some(OperandLayout {
                    shape: t.shape(),
                    strides: t.strides(),
                    item_size: t.dtype.item_size() as i64,
                }),
                CxInput::Number(..) => None,
            })
            .collect();
        let strides = elementwise_output_strides(&shape, &layouts);
        Ok((shape, strides))
    }

    /// The pairs of an input broadcast to `shape`.
    fn cx_column(&mut self, input: &CxInput, shape: &[i64], dtype: DType) -> Vec<Cx> {
        let n = usize::try_from(numel_of(shape)).unwrap_or(0);
        let round = |z: Cx| (rd(dtype, z.0), rd(dtype, z.1));
        match input {
            CxInput::Tensor(t) => self.cx_values(t, shape).into_iter().map(round).collect(),
            CxInput::Number(z, _) => vec![round(*z); n],
        }
    }

    /// `x <op> y` on complex operands (or a complex result), as a new tensor; `alpha`
    /// scales `y` for `add`/`sub`.
    pub(super) fn cx_binary(
        &mut self,
        op: CxBinary,
        x: &CxInput,
        y: &CxInput,
        alpha: Option<Cx>,
        what: &str,
    ) -> R<Tensor> {
        let inputs = [x.clone(), y.clone()];
        let common = result_type(&inputs);
        let (shape, strides) = self.cx_layout(&inputs)?;
        let n = usize::try_from(numel_of(&shape)).unwrap_or(0);
        self.check_work(n as i64, what)?;
        let compute = if common.is_complex() {
            common
        } else {
            common.complex_of().unwrap_or(DType::Complex64)
        };
        let a = self.cx_column(x, &shape, compute);
        let mut b = self.cx_column(y, &shape, compute);
        if let Some(alpha) = alpha.filter(|&z| z != (1.0, 0.0)) {
            b = b.iter().map(|&v| mul(compute, v, alpha, false)).collect();
        }
        let dense = order_of(&shape, &strides);
        let r = |v: f64| rd(compute, v);
        let mut values = vec![(0.0, 0.0); n];
        for (k, slot) in values.iter_mut().enumerate() {
            let (p, q) = (a[k], b[k]);
            let fused = fused_at(compute, dense[k], n);
            *slot = match op {
                CxBinary::Add => (r(p.0 + q.0), r(p.1 + q.1)),
                CxBinary::Sub => (r(p.0 - q.0), r(p.1 - q.1)),
                CxBinary::Mul => mul(compute, p, q, fused),
                CxBinary::Div => div(compute, p, q),
                CxBinary::Pow => pow(compute, p, q, fused),
                CxBinary::Eq => (f64::from(u8::from(p == q)), 0.0),
                CxBinary::Ne => (f64::from(u8::from(p != q)), 0.0),
            };
        }
        let out_dtype = match op {
            CxBinary::Eq | CxBinary::Ne => DType::Bool,
            _ => common,
        };
        self.cx_tensor(&shape, &strides, out_dtype, &values, what)
    }

    /// `f` applied to each element of `t` (complex), giving a tensor of `dtype` laid out
    /// as TensorIterator lays out a unary op's result.
    pub(super) fn cx_unary(
        &mut self,
        t: &Tensor,
        dtype: DType,
        what: &str,
        f: impl Fn(Cx) -> Cx,
    ) -> R<Tensor> {
        let input = [CxInput::Tensor(t.clone())];
        let (shape, strides) = self.cx_layout(&input)?;
        self.check_work(numel_of(&shape), what)?;
        let values: Vec<Cx> = self.cx_values(t, &shape).into_iter().map(f).collect();
        self.cx_tensor(&shape, &strides, dtype, &values, what)
    }

    /// An operand of a complex op from a script value (tensors, Python numbers).
    pub(super) fn cx_input(&self, v: &Value, what: &str) -> R<CxInput> {
        Ok(match v {
            Value::Tensor(t) => CxInput::Tensor(t.borrow().tensor.clone()),
            Value::Complex(re, im) => CxInput::Number((*re, *im), DType::Complex128),
            Value::Bool(b) => CxInput::Number((f64::from(u8::from(*b)), 0.0), DType::Bool),
            Value::Int(i) => CxInput::Number((*i as f64, 0.0), DType::Int64),
            Value::Float(f) => CxInput::Number((*f, 0.0), DType::Float64),
            other => {
                return Err(ScriptError::Type(format!(
                    "unsupported operand type(s) for {what}: 'Tensor' and '{}'",
                    other.type_name()
                )))
            }
        })
    }

    /// Writes `result` into `target` (an in-place op), refusing a complex result for a real
    /// tensor as ATen's cast check does.
    pub(super) fn cx_write_back(&mut self, target: &Tensor, result: &Tensor) -> R<()> {
        if !castable(result.dtype, target.dtype) {
            return Err(ScriptError::Runtime(format!(
                "result type {} can't be cast to the desired output type {}",
                result.dtype.scalar_type_name(),
                target.dtype.scalar_type_name()
            )));
        }
        if target.shape() != result.shape() {
            return Err(ScriptError::Runtime(format!(
                "output with shape {} doesn't match the broadcast shape {}",
                crate::core::tensor::layout::list_str(target.shape()),
                crate::core::tensor::layout::list_str(result.shape())
            )));
        }
        self.copy_into(target, result, false)
    }

    /// A Python operator with a complex side (`a * b`, `z + 1j`, `2 * z`, `z ** 2`,
    /// `z == w`, `A @ B`); `None` when neither side is complex.
    pub(in crate::interp) fn complex_operator(
        &mut self,
        op: BinOp,
        a: &Value,
        b: &Value,
    ) -> Option<R<Value>> {
        if !is_complex_value(a) && !is_complex_value(b) {
            return None;
        }
        Some(self.complex_operator_inner(op, a, b))
    }

    fn complex_operator_inner(&mut self, op: BinOp, a: &Value, b: &Value) -> R<Value> {
        let sym = crate::interp::python::operators::binop_symbol(op);
        if op == BinOp::MatMul {
            if let (Value::Tensor(x), Value::Tensor(y)) = (a, b) {
                let (x, y) = (x.borrow().tensor.clone(), y.borrow().tensor.clone());
                let out = self.cx_matmul(&x, &y)?;
                return Ok(Value::tensor(out, "matmul", None));
            }
        }
        let (kind, label) = match op {
            BinOp::Add => (CxBinary::Add, "add"),
            BinOp::Sub => (CxBinary::Sub, "sub"),
            BinOp::Mul => (CxBinary::Mul, "mul"),
            BinOp::Div => (CxBinary::Div, "div"),
            BinOp::Pow => (CxBinary::Pow, "pow"),
            BinOp::Eq => (CxBinary::Eq, "eq"),
            BinOp::Ne => (CxBinary::Ne, "ne"),
            _ => {
                let dtype = [a, b]
                    .iter()
                    .find_map(|v| match v {
                        Value::Tensor(t) if t.borrow().tensor.dtype.is_complex() => {
                            Some(t.borrow().tensor.dtype)
                        }
                        _ => None,
                    })
                    .unwrap_or(DType::Complex64);
                return Err(unsupported(operator_kernel(op), dtype));
            }
        };
        let x = self.cx_input(a, sym)?;
        let y = self.cx_input(b, sym)?;
        let out = self.cx_binary(kind, &x, &y, None, label)?;
        Ok(Value::tensor(out, label, None))
    }

    /// `-z` of a complex tensor.
    pub(in crate::interp) fn complex_neg(&mut self, t: &Tensor) -> Option<R<Value>> {
        if !t.dtype.is_complex() {
            return None;
        }
        let out = self.cx_unary(t, t.dtype, "neg", |z| (-z.0, -z.1));
        Some(out.map(|o| Value::tensor(o, "neg", None)))
    }

    /// A table op given a complex tensor (or arithmetic given a Python complex number):
    /// computed here when
    /// Stridescope computes it on complex numbers, else refused; `None` when no argument
    /// is complex (the op's own rule runs).
    pub(crate) fn complex_table_op(&mut self, call: &OpCall) -> Option<R<Value>> {
        let this = call
            .this
            .as_ref()
            .is_some_and(|t| t.borrow().tensor.dtype.is_complex());
        let tensor = |v: &Value| match v {
            Value::Tensor(t) => t.borrow().tensor.dtype.is_complex(),
            Value::List(items) | Value::Tuple(items) => items.iter().any(|i| match i {
                Value::Tensor(t) => t.borrow().tensor.dtype.is_complex(),
                _ => false,
            }),
            _ => false,
        };
        let arithmetic = takes_complex_number(&call.name);
        let values = call.args.values.iter().flatten();
        let any = this
            || values
                .clone()
                .any(|v| tensor(v) || (arithmetic && matches!(v, Value::Complex(..))));
        if !any {
            return None;
        }
        Some(self.complex_table_inner(call))
    }
}

/// The memory order of each row-major element of an output of `shape`/`strides`: its
/// position in the output's storage among the output's elements.
fn order_of(shape: &[i64], strides: &[i64]) -> Vec<usize> {
    let n = usize::try_from(numel_of(shape)).unwrap_or(0);
    let mut offsets: Vec<(i64, usize)> = Vec::with_capacity(n);
    let mut index = vec![0i64; shape.len()];
    for k in 0..n {
        let off: i64 = index.iter().zip(strides).map(|(i, s)| i * s).sum();
        offsets.push((off, k));
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    offsets.sort();
    let mut order = vec![0; n];
    for (position, (_, k)) in offsets.into_iter().enumerate() {
        order[k] = position;
    }
    order
}

/// Whether table op `name` computes with a Python `complex` number as its tensor operand
/// (`x.add_(1j)`, `torch.mul(x, 2j)`): the arithmetic computed here.
pub(crate) fn takes_complex_number(name: &str) -> bool {
    matches!(
        name.trim_end_matches('_'),
        "add"
            | "sub"
            | "subtract"
            | "mul"
            | "multiply"
            | "div"
            | "divide"
            | "true_divide"
            | "pow"
            | "eq"
            | "ne"
    )
}

/// `canCast`: no floating or complex to integral, no complex to a real dtype, nothing but
/// bool to bool.
pub(super) fn castable(from: DType, to: DType) -> bool {
    let to_integral =
        (from.is_floating() || from.is_complex()) && (to.is_integral() || to == DType::Bool);
    let complex_to_real = from.is_complex() && !to.is_complex();
    let to_bool = from != DType::Bool && to == DType::Bool;
    !(to_integral || complex_to_real || to_bool)
}

/// ATen's kernel name for an operator it does not compute on complex numbers.
fn operator_kernel(op: BinOp) -> &'static str {
    match op {
        BinOp::Lt => "lt_cpu",
        BinOp::Gt => "gt_cpu",
        BinOp::Le => "le_cpu",
        BinOp::Ge => "ge_cpu",
        BinOp::FloorDiv => "div_floor_cpu",
        BinOp::Mod => "remainder_cpu",
        BinOp::BitAnd => "bitwise_and_cpu",
        BinOp::BitOr => "bitwise_or_cpu",
        BinOp::BitXor => "bitwise_xor_cpu",
        _ => "operator",
    }
}

/// PyTorch's refusal of a kernel that has no complex instance.
pub(super) fn unsupported(kernel: &str, dtype: DType) -> ScriptError {
    ScriptError::NotImplemented(format!(
        "\"{kernel}\" not implemented for '{}'",
        dtype.scalar_type_name()
    ))
}

/// The refusal of an op Stridescope does not compute on complex tensors.
pub(super) fn not_modelled(name: &str) -> ScriptError {
    match complex::refuse_complex_dtype(name, DType::Complex64) {
        Err(e) => e,
        Ok(()) => ScriptError::NotImplemented(name.to_string()),
    }
}
