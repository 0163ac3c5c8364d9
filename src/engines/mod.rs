//! Engines move and compute storage bytes. The evaluator decides *what* happens (shapes,
//! strides, dtypes, errors); an engine only does it. `CpuEngine` is the reference.

pub mod cpu;
pub mod gpu;
pub mod meta;
pub mod mirror;
pub mod window;

use crate::core::tensor::{DType, Scalar, StorageId, Tensor};

pub use cpu::CpuEngine;

/// Elementwise operations with one input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UnaryOp {
    Neg,
    /// `relu`: `max(x, 0)`, NaN kept.
    Relu,
    /// `clamp(min, max)`: `min(max(x, min), max)`, NaN kept.
    Clamp {
        min: Option<Scalar>,
        max: Option<Scalar>,
    },
    /// `~` on bools, `logical_not`.
    LogicalNot,
    /// `~` on integers.
    BitNot,
    Abs,
}

/// Elementwise operations with two inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Rem,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    BitOr,
    BitXor,
    /// Division rounded toward zero: `div(rounding_mode='trunc')`.
    TruncDiv,
}

impl BinaryOp {
    /// True for the comparisons, whose result is bool.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }
}

/// Reductions along dims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Mean,
    Amax,
    Amin,
}

/// An input of an elementwise op: a strided view already broadcast to the output's shape
/// (stride 0 on broadcast dims), or a Python number.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Tensor(Tensor),
    Scalar(Scalar),
}

/// Data-dependent failures an engine can report (all others are decided before it runs).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    #[error("ZeroDivisionError")]
    IntegerDivisionByZero,
    #[error("{0}")]
    Device(String),
}

/// One piece of a copy or fill that involves complex tensors, rewritten on their float
/// halves (`Tensor::as_real`), so that the engines' float paths move complex bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum RealPiece {
    /// `dst[i] = convert(src[i])` on real views.
    Copy(Tensor, Tensor),
    /// `dst[i] = value` on a real view.
    Fill(Tensor, Scalar),
}

/// A copy `dst <- src` where either side is complex, as copies and fills of float views:
/// complex to complex copies both halves; real to complex writes the real halves and zeros
/// the imaginary ones; complex to real reads the real halves (PyTorch's cast discards the
/// imaginary part). `None` when neither side is complex.
pub fn complex_copy_pieces(dst: &Tensor, src: &Tensor) -> Option<Vec<RealPiece>> {
    match (dst.dtype.is_complex(), src.dtype.is_complex()) {
        (false, false) => None,
        (true, true) => Some(vec![RealPiece::Copy(dst.as_real(), src.as_real())]),
        (true, false) => Some(vec![
            RealPiece::Copy(dst.complex_part(0), src.clone()),
            RealPiece::Fill(dst.complex_part(1), Scalar::Float(0.0)),
        ]),
        (false, true) => Some(vec![RealPiece::Copy(dst.clone(), src.complex_part(0))]),
    }
}

/// A fill of a complex tensor with a real number: the real halves get `value`, the
/// imaginary halves zero. `None` when `dst` is not complex.
pub fn complex_fill_pieces(dst: &Tensor, value: Scalar) -> Option<Vec<RealPiece>> {
    dst.dtype.is_complex().then(|| {
        vec![
            RealPiece::Fill(dst.complex_part(0), value),
            RealPiece::Fill(dst.complex_part(1), Scalar::Float(0.0)),
        ]
    })
}

/// Runs pieces from `complex_copy_pieces`/`complex_fill_pieces` on an engine.
pub fn run_real_pieces(engine: &mut dyn Engine, pieces: Vec<RealPiece>) {
    for piece in pieces {
        match piece {
            RealPiece::Copy(d, s) => engine.copy(&d, &s),
            RealPiece::Fill(d, v) => engine.fill(&d, v),
        }
    }
}

/// How a matrix product adds the terms of each dot product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Summation {
    /// As the BLAS that PyTorch calls on an x86 CPU adds (the matrix products of `mm`,
    /// `addmm`, `matmul` and larger `bmm`): float32 as MKL's `sgemm`, in chains of fused
    /// multiply-adds (the CPU engine's `sgemm.rs` says how); other dtypes as [`Self::Wide`].
    Blas,
    /// Each product and sum in `f64`, in `p` order from zero, rounded once to the dtype: for
    /// the BLAS kernels whose order is not modelled (`dot`'s `sdot`, `mv`'s `gemv`), the
    /// closest to any order.
    Wide,
    /// As ATen's loop for small batched products (`bmm` whose `k * n * p` is under 400)
    /// adds: in the dtype's opmath (`float` for float32, float16 and bfloat16; `double`
    /// for float64), each product and each addition rounded to it, in `p` order from zero,
    /// no fused multiply-add.
    Opmath,
}

/// Where storages live and where the data-moving work of a script runs.
///
/// Every view handed to an engine was validated by the evaluator: in bounds of its
/// storage, broadcast operands already expanded, shapes agreeing.
pub trait Engine {
    /// A short name for badges and traces: `cpu`, `gpu (llvmpipe, Vulkan)`.
    fn name(&self) -> String;
    /// A new zero-filled storage of `nbytes` bytes.
    fn allocate(&mut self, nbytes: usize) -> StorageId;
    /// A new storage holding `bytes`.
    fn allocate_with(&mut self, bytes: Vec<u8>) -> StorageId;
    /// Forgets a storage nobody references any more.
    fn free(&mut self, id: StorageId);
    /// Size of a storage in bytes.
    fn nbytes(&self, id: StorageId) -> usize;
    /// The bytes of a whole storage.
    fn read_storage(&mut self, id: StorageId) -> Vec<u8>;
    /// `dst[i] = convert(src[i])` for every element; `src` is read completely before writing.
    fn copy(&mut self, dst: &Tensor, src: &Tensor);
    /// `dst[i] = value` converted to `dst`'s dtype.
    fn fill(&mut self, dst: &Tensor, value: Scalar);
    /// `dst[i] = op(src[i])`, computed in `compute`'s arithmetic.
    fn unary(&mut self, op: UnaryOp, dst: &Tensor, src: &Tensor, compute: DType);
    /// `dst[i] = a[i] op b[i]`, computed in `compute`'s arithmetic, written in `dst`'s dtype.
    fn binary(
        &mut self,
        op: BinaryOp,
        dst: &Tensor,
        a: &Operand,
        b: &Operand,
        compute: DType,
    ) -> Result<(), EngineError>;
    /// Reduces `src` over `dims` into `dst`, whose shape is `src`'s with those dims of size 1
    /// (keepdim form; the evaluator squeezes afterwards).
    fn reduce(&mut self, op: ReduceOp, dst: &Tensor, src: &Tensor, dims: &[usize]);
    /// `dst = a @ b` for 2-D views (`[m, k] @ [k, n] -> [m, n]`), all of one dtype, its dot
    /// products added as `sum` says.
    fn matmul(&mut self, dst: &Tensor, a: &Tensor, b: &Tensor, sum: Summation);
    /// The elements of a view in logical row-major order.
    fn values(&mut self, view: &Tensor) -> Vec<Scalar>;
}
