//! Arithmetic on the GPU: elementwise unary and binary ops, reductions and matmul, with
//! PyTorch's CPU arithmetic exactly as `cpu.rs` defines it. What the shaders do not cover
//! returns the reason, and the engine runs the op on the CPU engine instead.

use super::GpuEngine;
use crate::engine::{BinaryOp, Operand, ReduceOp, UnaryOp};
use crate::tensor::{DType, Tensor};

/// The op's name in op logs.
pub fn unary_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "neg",
        UnaryOp::Relu => "relu",
        UnaryOp::Clamp { .. } => "clamp",
        UnaryOp::LogicalNot => "logical_not",
        UnaryOp::BitNot => "bitwise_not",
        UnaryOp::Abs => "abs",
    }
}

/// The op's name in op logs.
pub fn binary_name(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "add",
        BinaryOp::Sub => "sub",
        BinaryOp::Mul => "mul",
        BinaryOp::Div => "div",
        BinaryOp::FloorDiv => "floor_divide",
        BinaryOp::Rem => "remainder",
        BinaryOp::Pow => "pow",
        BinaryOp::Eq => "eq",
        BinaryOp::Ne => "ne",
        BinaryOp::Lt => "lt",
        BinaryOp::Le => "le",
        BinaryOp::Gt => "gt",
        BinaryOp::Ge => "ge",
        BinaryOp::BitAnd => "bitwise_and",
        BinaryOp::BitOr => "bitwise_or",
        BinaryOp::BitXor => "bitwise_xor",
    }
}

/// The op's name in op logs.
pub fn reduce_name(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "sum",
        ReduceOp::Mean => "mean",
        ReduceOp::Amax => "amax",
        ReduceOp::Amin => "amin",
    }
}

impl GpuEngine {
    pub(crate) fn gpu_unary(
        &mut self,
        _op: UnaryOp,
        _dst: &Tensor,
        _src: &Tensor,
        _compute: DType,
    ) -> Result<(), String> {
        Err("elementwise kernels are not wired yet".to_string())
    }

    pub(crate) fn gpu_binary(
        &mut self,
        _op: BinaryOp,
        _dst: &Tensor,
        _a: &Operand,
        _b: &Operand,
        _compute: DType,
    ) -> Result<(), String> {
        Err("elementwise kernels are not wired yet".to_string())
    }

    pub(crate) fn gpu_reduce(
        &mut self,
        _op: ReduceOp,
        _dst: &Tensor,
        _src: &Tensor,
        _dims: &[usize],
    ) -> Result<(), String> {
        Err("reduce kernels are not wired yet".to_string())
    }

    pub(crate) fn gpu_matmul(
        &mut self,
        _dst: &Tensor,
        _a: &Tensor,
        _b: &Tensor,
    ) -> Result<(), String> {
        Err("matmul kernels are not wired yet".to_string())
    }
}
