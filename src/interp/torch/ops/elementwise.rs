//! Elementwise ops: PyTorch's type promotion (`ResultType`), broadcasting, output strides
//! (TensorIterator's), in-place checks, and the unary and binary kernels' dispatch.

use crate::core::tensor::layout::{
    broadcast_shapes, elementwise_output_strides, list_str, numel_of, OperandLayout,
};
use crate::core::tensor::{Category, DType, MemoryFormat, Scalar, ScriptError, StorageId, Tensor};
use crate::engines::{BinaryOp, Operand, UnaryOp};
use crate::interp::torch::autograd::GradOp;
use crate::interp::torch::ops::{
    bin_op, broadcast_view, can_cast, check_clamp_bounds, complex, element_view, op_label, op_name,
    sequential_order,
};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// The result-type state of PyTorch's type promotion (dim tensors, 0-dim tensors, numbers).
#[derive(Default)]
pub(in crate::interp) struct ResultType {
    dim: Option<DType>,
    zero_dim: Option<DType>,
    wrapped: Option<DType>,
}

pub(in crate::interp) fn promote_opt(a: Option<DType>, b: DType) -> Option<DType> {
    Some(match a {
        None => b,
        Some(a) => DType::promote(a, b),
    })
}

pub(in crate::interp) fn combine_categories(
    higher: Option<DType>,
    lower: Option<DType>,
) -> Option<DType> {
    match (higher, lower) {
        (Some(h), _) if h.is_floating() => Some(h),
        (Some(h), Some(l)) if h == DType::Bool || l.is_floating() => Some(DType::promote(h, l)),
        (Some(h), _) => Some(h),
        (None, l) => l,
    }
}

impl ResultType {
    pub(in crate::interp) fn add(&mut self, operand: &ElementwiseInput) {
        match operand {
            ElementwiseInput::Tensor(t) if t.ndim() > 0 => {
                self.dim = promote_opt(self.dim, t.dtype)
            }
            ElementwiseInput::Tensor(t) => self.zero_dim = promote_opt(self.zero_dim, t.dtype),
            ElementwiseInput::Number(s) => {
                let d = match s {
                    Scalar::Bool(_) => DType::Bool,
                    Scalar::Int(_) => DType::Int64,
                    Scalar::Float(_) => DType::Float32,
                };
                self.wrapped = promote_opt(self.wrapped, d);
            }
        }
    }

    pub(in crate::interp) fn result(&self) -> DType {
        combine_categories(self.dim, combine_categories(self.zero_dim, self.wrapped))
            .unwrap_or(DType::Float32)
    }
}

/// An input of an elementwise op before broadcasting.
#[derive(Clone, Debug)]
pub enum ElementwiseInput {
    Tensor(Tensor),
    Number(Scalar),
}

impl ElementwiseInput {
    pub(in crate::interp) fn shape(&self) -> &[i64] {
        match self {
            ElementwiseInput::Tensor(t) => t.shape(),
            ElementwiseInput::Number(_) => &[],
        }
    }
    pub(in crate::interp) fn dtype(&self) -> DType {
        match self {
            ElementwiseInput::Tensor(t) => t.dtype,
            ElementwiseInput::Number(Scalar::Bool(_)) => DType::Bool,
            ElementwiseInput::Number(Scalar::Int(_)) => DType::Int64,
            ElementwiseInput::Number(Scalar::Float(_)) => DType::Float64,
        }
    }
}

impl Evaluator {
    pub(in crate::interp) fn elementwise_input(
        &self,
        v: &Value,
        op_name: &str,
    ) -> R<ElementwiseInput> {
        match v {
            Value::Tensor(t) => Ok(ElementwiseInput::Tensor(t.borrow().tensor.clone())),
            other => self
                .scalar_of(other)
                .map(ElementwiseInput::Number)
                .ok_or_else(|| {
                    ScriptError::Type(format!(
                        "unsupported operand type(s) for {op_name}: 'Tensor' and '{}'",
                        other.type_name()
                    ))
                }),
        }
    }

    /// `a <op> b` where at least one side is a tensor.
    pub(in crate::interp) fn tensor_binary(&mut self, op: BinOp, a: &Value, b: &Value) -> R<Value> {
        // `a @ b` under autocast: `matmul` is a listed op.
        if let (BinOp::MatMul, Value::Tensor(x), Value::Tensor(y)) = (op, a, b) {
            if let Some(cast) = self.autocast_matmul(x, y) {
                let (a, b) = cast?;
                return self.autocast_excluded(|ev| ev.tensor_binary(op, &a, &b));
            }
        }
        let matmul = match (op, a, b) {
            (BinOp::MatMul, Value::Tensor(x), Value::Tensor(y)) => {
                let (x, y) = (&x.borrow().tensor, &y.borrow().tensor);
                self.check_cuda_mm(x, y)?;
                self.matmul_device("matmul", x, y)
            }
            _ => None,
        };
        let enter = match matmul {
            Some(device) => Some(device).filter(|d| *d != self.device_of_op()),
            None => self.device_to_enter(&[a, b])?,
        };
        if let Some(device) = enter {
            return self.on_device(device, |ev| ev.tensor_binary(op, a, b));
        }
        if let Some(out) = self.complex_operator(op, a, b) {
            return out;
        }
        self.check_inference_operator(op, a, b)?;
        if op == BinOp::MatMul {
            let (Value::Tensor(x), Value::Tensor(y)) = (a, b) else {
                return Err(ScriptError::Type(format!(
                    "unsupported operand type(s) for @: '{}' and '{}'",
                    a.type_name(),
                    b.type_name()
                )));
            };
            if let Some(out) = crate::interp::torch::nn::dense::batched_matmul(self, a, b)? {
                return Ok(out);
            }
            let (x, y) = (x.borrow().tensor.clone(), y.borrow().tensor.clone());
            let out = Value::tensor(self.matmul(&x, &y)?, "matmul", None);
            let grad_op = GradOp::MatMul {
                left_dims: x.ndim(),
                right_dims: y.ndim(),
            };
            self.record_grad(grad_op, &[a, b], &out);
            return Ok(out);
        }
        let sym = crate::interp::python::operators::binop_symbol(op);
        let x = self.elementwise_input(a, sym)?;
        let y = self.elementwise_input(b, sym)?;
        let out = self.elementwise(bin_op(op), &x, &y, None)?;
        let out = Value::tensor(out, op_label(op), None);
        // `2 * t` is `t.__rmul__(2)`: the tensor is `self` and the number `other` (what the
        // node saves), as for `2 + t`.
        let (a, b) = match (a, b) {
            (Value::Tensor(_), _) => (a, b),
            (_, Value::Tensor(_)) if matches!(op, BinOp::Mul | BinOp::Add) => (b, a),
            _ => (a, b),
        };
        let grad_op = GradOp::Binary {
            op,
            left_tensor: matches!(a, Value::Tensor(_)),
            right_tensor: matches!(b, Value::Tensor(_)),
        };
        self.record_grad(grad_op, &[a, b], &out);
        Ok(out)
    }

    /// Checks the bool rules of `-` and friends.
    pub(in crate::interp) fn check_bool_op(
        &self,
        op: BinaryOp,
        x: &ElementwiseInput,
        y: &ElementwiseInput,
    ) -> R<()> {
        if op == BinaryOp::Sub {
            if x.dtype() == DType::Bool && y.dtype() == DType::Bool {
                return Err(ScriptError::NotImplemented(
                    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.".into(),
                ));
            }
            if x.dtype() == DType::Bool || y.dtype() == DType::Bool {
                return Err(ScriptError::NotImplemented(
                    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.".into(),
                ));
            }
        }
        Ok(())
    }

    /// An elementwise binary op through TensorIterator's rules. With `out`, the result is
    /// written in place into that tensor (`same` tells whether `x` is the same object).
    pub(in crate::interp) fn elementwise(
        &mut self,
        op: BinaryOp,
        x: &ElementwiseInput,
        y: &ElementwiseInput,
        out: Option<&Tensor>,
    ) -> R<Tensor> {
        let prewrapped = self.accounting.prewrapped;
        let result = self.elementwise_checked(op, x, y, out);
        if result.is_err() {
            // PyTorch wrapped a Python number in a 0-d tensor before any check refused the
            // call (`expanded.add_(1)`): the allocator saw it come and go.
            self.accounting.prewrapped = false;
            if !prewrapped && op != BinaryOp::Pow {
                let wrapped: usize = [x, y]
                    .into_iter()
                    .map(|i| match i {
                        ElementwiseInput::Number(n) => wrapped_number_dtype(n).item_size(),
                        ElementwiseInput::Tensor(_) => 0,
                    })
                    .sum();
                self.note_transient(wrapped as u64);
            }
        }
        result
    }

    fn elementwise_checked(
        &mut self,
        op: BinaryOp,
        x: &ElementwiseInput,
        y: &ElementwiseInput,
        out: Option<&Tensor>,
    ) -> R<Tensor> {
        for input in [x, y] {
            if let ElementwiseInput::Tensor(t) = input {
                complex::refuse_complex(&format!("{op:?}").to_ascii_lowercase(), &[t])?;
            }
        }
        self.check_bool_op(op, x, y)?;
        if let Some(out) = out {
            self.check_no_internal_overlap(out)?;
            for (i, input) in [x, y].into_iter().enumerate() {
                if let ElementwiseInput::Tensor(t) = input {
                    self.check_no_partial_overlap(out, t, i == 0)?;
                }
            }
        }
        let mut shape = out.map(|o| o.shape().to_vec()).unwrap_or_default();
        for input in [x, y] {
            shape = broadcast_shapes(&shape, input.shape()).map_err(ScriptError::Runtime)?;
        }
        if let Some(out) = out {
            if shape != out.shape() {
                return Err(ScriptError::Runtime(format!(
                    "output with shape {} doesn't match the broadcast shape {}",
                    list_str(out.shape()),
                    list_str(&shape)
                )));
            }
        }
        self.check_work(numel_of(&shape), op_name(op))?;
        let mut rt = ResultType::default();
        rt.add(x);
        rt.add(y);
        let mut common = rt.result();
        if op == BinaryOp::Div && common.category() != Category::Floating {
            common = DType::Float32;
        }
        if op == BinaryOp::Rem && common == DType::Bool {
            return Err(ScriptError::NotImplemented(
                "\"remainder_cpu\" not implemented for 'Bool'".into(),
            ));
        }
        let out_dtype = if op.is_comparison() {
            DType::Bool
        } else {
            common
        };
        if let Some(o) = out {
            if !can_cast(out_dtype, o.dtype) {
                return Err(ScriptError::Runtime(format!(
                    "result type {} can't be cast to the desired output type {}",
                    out_dtype.scalar_type_name(),
                    o.dtype.scalar_type_name()
                )));
            }
        }
        // On the CPU, TensorIterator first copies every input tensor of another dtype to the
        // common dtype (`.to(common)`, preserving its layout as `empty_like` does); the
        // copies decide the output's strides and are what the kernel reads.
        let (original_x, original_y) = (x, y);
        let x = &self.promote_input(x, common)?;
        let y = &self.promote_input(y, common)?;
        // The copies are freed as the kernel returns.
        let copies: Vec<StorageId> = [(x, original_x), (y, original_y)]
            .into_iter()
            .filter_map(|(promoted, given)| match (promoted, given) {
                (ElementwiseInput::Tensor(p), ElementwiseInput::Tensor(g))
                    if p.storage != g.storage =>
                {
                    Some(p.storage)
                }
                _ => None,
            })
            .collect();
        // A Python number is wrapped in a 0-d tensor (int64, float64, bool or complex128) and,
        // where the op computes in another dtype, cast to it: both buffers live while the
        // kernel runs (what the allocator sees: the step's peak). The scalar's cast comes
        // after a tensor's cast (`i * 0.5`: wrapped, i as f32, the scalar as f32, out).
        // (`pow` takes its exponent as a number: nothing is wrapped.)
        // A number a node saved for backward is such a tensor already: only its cast is new.
        let prewrapped = std::mem::take(&mut self.accounting.prewrapped);
        for input in [x, y].into_iter().filter(|_| op != BinaryOp::Pow) {
            if let ElementwiseInput::Number(n) = input {
                let wrapped = wrapped_number_dtype(n);
                let cast = if wrapped == common {
                    0
                } else {
                    common.item_size()
                };
                let made = if prewrapped { 0 } else { wrapped.item_size() };
                self.note_transient((made + cast) as u64);
            }
        }
        let out_tensor = match out {
            Some(o) => o.clone(),
            None => {
                let ops: Vec<OperandLayout<'_>> = [x, y]
                    .into_iter()
                    .map(|i| match i {
                        ElementwiseInput::Tensor(t) => OperandLayout {
                            shape: t.shape(),
                            strides: t.strides(),
                            item_size: t.dtype.item_size() as i64,
                        },
                        ElementwiseInput::Number(_) => OperandLayout {
                            shape: &[],
                            strides: &[],
                            item_size: 8,
                        },
                    })
                    .collect();
                let strides = elementwise_output_strides(&shape, &ops);
                self.empty_strided(&shape, &strides, out_dtype, op_name(op))?
            }
        };
        let operand = |i: &ElementwiseInput| match i {
            ElementwiseInput::Tensor(t) => Operand::Tensor(broadcast_view(t, &shape)),
            ElementwiseInput::Number(s) => Operand::Scalar(*s),
        };
        let (a, mut b) = (operand(x), operand(y));
        let mut compute = common;
        if op == BinaryOp::Mul && matches!(common, DType::Float16 | DType::BFloat16) {
            // `mul_kernel` takes a second operand that is one broadcast value at its original
            // precision (`original_scalar_value<float>`), not rounded to the reduced dtype:
            // the product is computed in f32 from the first operand (in the common dtype).
            let scalar_like = match &b {
                Operand::Scalar(_) => true,
                Operand::Tensor(t) => t
                    .shape()
                    .iter()
                    .zip(t.strides())
                    .all(|(&n, &s)| n == 1 || s == 0),
            };
            if scalar_like {
                b = operand(original_y);
                compute = DType::Float32;
            }
        }
        let tensors: Vec<Tensor> = [&a, &b]
            .into_iter()
            .filter_map(|o| match o {
                Operand::Tensor(t) => Some(t),
                Operand::Scalar(_) => None,
            })
            .map(|t| self.memory.rooted(t))
            .collect();
        let inputs: Vec<&Tensor> = tensors.iter().collect();
        match sequential_order(&self.memory.rooted(&out_tensor), &inputs) {
            None => self
                .engine
                .binary(op, &out_tensor, &a, &b, compute)
                .map_err(|e| ScriptError::Runtime(e.to_string()))?,
            Some(order) => {
                for index in order {
                    let at = |o: &Operand| match o {
                        Operand::Tensor(t) => Operand::Tensor(element_view(t, &index)),
                        Operand::Scalar(s) => Operand::Scalar(*s),
                    };
                    self.engine
                        .binary(
                            op,
                            &element_view(&out_tensor, &index),
                            &at(&a),
                            &at(&b),
                            compute,
                        )
                        .map_err(|e| ScriptError::Runtime(e.to_string()))?;
                }
            }
        }
        if out.is_some() {
            self.note_write(&out_tensor);
        }
        for id in copies {
            self.release_raw(id);
        }
        self.end_transient();
        Ok(out_tensor)
    }

    /// An elementwise input cast to the op's common dtype (tensors of another dtype are
    /// copied with their layout preserved; numbers stay numbers).
    pub(in crate::interp) fn promote_input(
        &mut self,
        input: &ElementwiseInput,
        common: DType,
    ) -> R<ElementwiseInput> {
        Ok(match input {
            ElementwiseInput::Tensor(t) if t.dtype != common => {
                ElementwiseInput::Tensor(self.convert(t, common, MemoryFormat::Preserve, "to")?)
            }
            other => other.clone(),
        })
    }

    /// A unary op, out of place or in place (`inplace`).
    pub(in crate::interp) fn unary_op(
        &mut self,
        op: UnaryOp,
        t: &Tensor,
        inplace: bool,
        name: &str,
    ) -> R<Tensor> {
        complex::refuse_complex(name, &[t])?;
        if let UnaryOp::Clamp { min, max } = op {
            if min.is_none() && max.is_none() {
                return Err(ScriptError::Runtime(
                    "torch.clamp: At least one of 'min' or 'max' must not be None".into(),
                ));
            }
            let mut rt = ResultType::default();
            rt.add(&ElementwiseInput::Tensor(t.clone()));
            for s in [min, max].into_iter().flatten() {
                rt.add(&ElementwiseInput::Number(s));
            }
            let common = rt.result();
            if inplace && !can_cast(common, t.dtype) {
                // clamp's kernel names the output type the C++ way (`unsigned char`).
                return Err(ScriptError::Runtime(format!(
                    "result type {} can't be cast to the desired output type {}",
                    common.scalar_type_name(),
                    t.dtype.cpp_type_name()
                )));
            }
            check_clamp_bounds(common, min, max)?;
            if !inplace && common != t.dtype {
                let converted = self.convert(t, common, MemoryFormat::Preserve, name)?;
                return self.unary_op(op, &converted, true, name);
            }
        }
        self.check_work(t.numel(), name)?;
        if t.dtype == DType::Bool {
            match op {
                UnaryOp::Relu => {
                    return Err(ScriptError::NotImplemented(
                        "Boolean inputs not supported for relu".into(),
                    ))
                }
                UnaryOp::Neg => {
                    return Err(ScriptError::Runtime(
                        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.".into(),
                    ))
                }
                _ => {}
            }
        }
        if inplace {
            self.check_no_internal_overlap(t)?;
            match sequential_order(t, &[t]) {
                None => self.engine.unary(op, t, t, t.dtype),
                Some(order) => {
                    for index in order {
                        let e = element_view(t, &index);
                        self.engine.unary(op, &e, &e, t.dtype);
                    }
                }
            }
            self.note_write(t);
            return Ok(t.clone());
        }
        let op_layout = [OperandLayout {
            shape: t.shape(),
            strides: t.strides(),
            item_size: t.dtype.item_size() as i64,
        }];
        let strides = elementwise_output_strides(t.shape(), &op_layout);
        let out = self.empty_strided(t.shape(), &strides, t.dtype, name)?;
        self.engine.unary(op, &out, t, t.dtype);
        Ok(out)
    }

    /// `-t`.
    pub(in crate::interp) fn neg(&mut self, t: &Tensor) -> R<Value> {
        if let Some(out) = self.complex_neg(t) {
            return out;
        }
        let out = self.unary_op(UnaryOp::Neg, t, false, "neg")?;
        Ok(Value::tensor(out, "neg", None))
    }

    /// `~t`.
    pub(in crate::interp) fn invert(&mut self, t: &Tensor) -> R<Value> {
        if t.dtype.is_floating() {
            return Err(ScriptError::Type(
                "ufunc 'invert' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''".into(),
            ));
        }
        let op = if t.dtype == DType::Bool {
            UnaryOp::LogicalNot
        } else {
            UnaryOp::BitNot
        };
        let out = self.unary_op(op, t, false, "bitwise_not")?;
        Ok(Value::tensor(out, "bitwise_not", None))
    }

    // ----- reductions and matmul -----
}

/// The dtype of the 0-d tensor PyTorch wraps a Python number in (`bool`, `int64`, `float64`).
pub(crate) fn wrapped_number_dtype(n: &Scalar) -> DType {
    match n {
        Scalar::Bool(_) => DType::Bool,
        Scalar::Int(_) => DType::Int64,
        Scalar::Float(_) => DType::Float64,
    }
}
