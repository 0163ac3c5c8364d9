//! The CPU reference engine: plain loops over strided views of byte buffers, with
//! PyTorch's CPU arithmetic (f16/bf16 computed in f32 and rounded once).

mod copy;
mod dense;
mod gemm;
mod sgemm;
mod sum;
mod typed;

use std::collections::BTreeMap;

use crate::core::tensor::{Category, DType, Layout, Scalar, StorageId, Tensor};
use crate::engines::{BinaryOp, Engine, EngineError, Operand, ReduceOp, Summation, UnaryOp};

/// Storages as byte vectors in host memory.
#[derive(Default)]
pub struct CpuEngine {
    storages: BTreeMap<StorageId, Vec<u8>>,
    next_id: u32,
}

impl CpuEngine {
    /// An engine with no storages.
    pub fn new() -> CpuEngine {
        CpuEngine::default()
    }

    fn bytes(&self, id: StorageId) -> &[u8] {
        self.storages.get(&id).map(Vec::as_slice).unwrap_or(&[])
    }

    fn bytes_mut(&mut self, id: StorageId) -> &mut Vec<u8> {
        self.storages.entry(id).or_default()
    }

    fn gather(&self, view: &Tensor) -> Vec<Scalar> {
        let bytes = self.bytes(view.storage);
        // Float views read typed (the same values `DType::read` gives).
        if let Some(values) = typed::read_map(bytes, view, Scalar::Float) {
            return values;
        }
        // A contiguous view is one run of elements: read it without walking offsets.
        if let Some(run) = contiguous_run(view) {
            return run.map(|i| view.dtype.read(bytes, i)).collect();
        }
        view.layout
            .offsets()
            .map(|o| view.dtype.read(bytes, o as usize))
            .collect()
    }

    fn scatter(&mut self, view: &Tensor, values: impl IntoIterator<Item = Scalar>) {
        let dtype = view.dtype;
        let run = contiguous_run(view);
        let offsets = view.layout.offsets();
        let bytes = self.bytes_mut(view.storage);
        if let Some(run) = run {
            for (i, v) in run.zip(values) {
                dtype.write(bytes, i, v);
            }
            return;
        }
        for (o, v) in offsets.zip(values) {
            dtype.write(bytes, o as usize, v);
        }
    }

    /// The element-by-element copy (every value gathered as a [`Scalar`], then scattered)
    /// that the fast paths of [`Engine::copy`] reproduce bit for bit; kept as their oracle.
    pub fn copy_reference(&mut self, dst: &Tensor, src: &Tensor) {
        if let Some(pieces) = crate::engines::complex_copy_pieces(dst, src) {
            for piece in pieces {
                match piece {
                    crate::engines::RealPiece::Copy(d, s) => self.copy_reference(&d, &s),
                    crate::engines::RealPiece::Fill(d, v) => self.fill(&d, v),
                }
            }
            return;
        }
        let values = self.gather(src);
        self.scatter(dst, values);
    }

    /// The element-by-element `unary` (every value a [`Scalar`]) that its typed path
    /// reproduces bit for bit; kept as its oracle.
    pub fn unary_reference(&mut self, op: UnaryOp, dst: &Tensor, src: &Tensor, compute: DType) {
        let values: Vec<Scalar> = self
            .gather(src)
            .into_iter()
            .map(|v| apply_unary(op, v, compute))
            .collect();
        self.scatter(dst, values);
    }

    /// The element-by-element `binary` that its typed path reproduces bit for bit; kept as
    /// its oracle.
    pub fn binary_reference(
        &mut self,
        op: BinaryOp,
        dst: &Tensor,
        a: &Operand,
        b: &Operand,
        compute: DType,
    ) -> Result<(), EngineError> {
        let n = dst.numel().max(0) as usize;
        let xs = self.operand_values(a, n);
        let ys = self.operand_values(b, n);
        let values = xs
            .into_iter()
            .zip(ys)
            .map(|(x, y)| apply_binary(op, x, y, compute))
            .collect::<Result<Vec<_>, _>>()?;
        self.scatter(dst, values);
        Ok(())
    }

    /// The `matmul` through [`Scalar`]s and the plain product loop, which the typed path
    /// and its register blocks reproduce bit for bit; kept as their oracle.
    pub fn matmul_reference(&mut self, dst: &Tensor, a: &Tensor, b: &Tensor, sum: Summation) {
        self.matmul_with(dst, a, b, false, sum);
    }

    fn matmul_with(
        &mut self,
        dst: &Tensor,
        a: &Tensor,
        b: &Tensor,
        typed_path: bool,
        sum: Summation,
    ) {
        let (m, k) = (
            a.layout.shape[0].max(0) as usize,
            a.layout.shape[1].max(0) as usize,
        );
        let n = b.layout.shape[1].max(0) as usize;
        // MKL's kernel for float32 follows the operands' layouts (`x @ W.t()`: rows of `a`
        // and columns of `b` contiguous).
        let dot = dst.dtype == DType::Float32
            && sgemm::takes_dot_kernel(m, k, n, a.layout.strides[1] == 1, b.layout.strides[0] == 1);
        if typed_path && dst.dtype.is_floating() {
            let av = typed::read_matrix(self.bytes(a.storage), a);
            let bv = typed::read_matrix(self.bytes(b.storage), b);
            if let (Some((av, ar, ac)), Some((bv, br, bc))) = (av, bv) {
                let matrix = |values, row, col| gemm::Matrix { values, row, col };
                let (a, b) = (matrix(&av, ar, ac), matrix(&bv, br, bc));
                let out = match sum {
                    Summation::Opmath if dst.dtype != DType::Float64 => {
                        gemm::matmul_float(a, b, m, k, n)
                    }
                    Summation::Blas if dst.dtype == DType::Float32 => {
                        sgemm::matmul(a, b, (m, k, n), dot, false)
                    }
                    _ => gemm::matmul(a, b, m, k, n),
                };
                if typed::write(self.bytes_mut(dst.storage), dst, &out) {
                    return;
                }
            }
        }
        let av = self.gather(a);
        let bv = self.gather(b);
        let floating = dst.dtype.is_floating();
        if floating {
            let av: Vec<f64> = av.iter().map(|v| v.to_f64()).collect();
            let bv: Vec<f64> = bv.iter().map(|v| v.to_f64()).collect();
            let (a, b) = (
                gemm::Matrix {
                    values: &av,
                    row: k,
                    col: 1,
                },
                gemm::Matrix {
                    values: &bv,
                    row: n,
                    col: 1,
                },
            );
            let out = match sum {
                Summation::Opmath if dst.dtype != DType::Float64 => {
                    gemm::matmul_float(a, b, m, k, n)
                }
                Summation::Blas if dst.dtype == DType::Float32 => {
                    sgemm::matmul(a, b, (m, k, n), dot, true)
                }
                _ => gemm::matmul_reference(&av, &bv, m, k, n),
            };
            self.scatter(dst, out.into_iter().map(Scalar::Float).collect::<Vec<_>>());
            return;
        }
        let mut out = Vec::with_capacity(m * n);
        for i in 0..m {
            for j in 0..n {
                if dst.dtype == DType::Bool {
                    let s = (0..k).any(|p| av[i * k + p].to_bool() && bv[p * n + j].to_bool());
                    out.push(Scalar::Bool(s));
                } else {
                    let mut s = 0i64;
                    for p in 0..k {
                        s = s.wrapping_add(
                            av[i * k + p]
                                .to_wrapped_int()
                                .wrapping_mul(bv[p * n + j].to_wrapped_int()),
                        );
                    }
                    out.push(Scalar::Int(s));
                }
            }
        }
        self.scatter(dst, out);
    }

    fn operand_values(&self, operand: &Operand, n: usize) -> Vec<Scalar> {
        match operand {
            Operand::Tensor(t) => self.gather(t),
            Operand::Scalar(s) => vec![*s; n],
        }
    }
}

/// Converts an input value into the arithmetic of `compute` (its "opmath" type).
fn to_compute(value: Scalar, compute: DType) -> Scalar {
    match compute.category() {
        Category::Bool => Scalar::Bool(value.to_bool()),
        Category::Integral => Scalar::Int(compute.round(value).to_wrapped_int()),
        // Inputs are first cast to the common dtype (a Python number or a 0-dim tensor of
        // another dtype too), then widened to the opmath type (f32, or f64 for f64).
        // Complex arithmetic is refused by the evaluator; only real halves reach here.
        Category::Floating | Category::Complex => Scalar::Float(compute.round(value).to_f64()),
    }
}

/// Rounds an intermediate float to the opmath precision (f32 unless computing in f64).
fn opmath_round(x: f64, compute: DType) -> f64 {
    if compute == DType::Float64 {
        x
    } else {
        f64::from(x as f32)
    }
}

fn cpp_max(a: f64, b: f64) -> f64 {
    if a < b {
        b
    } else {
        a
    }
}

fn cpp_min(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// One unary op on one value, in `compute`'s arithmetic.
pub fn apply_unary(op: UnaryOp, x: Scalar, compute: DType) -> Scalar {
    let x = to_compute(x, compute);
    match (op, x) {
        (UnaryOp::Neg, Scalar::Int(i)) => Scalar::Int(i.wrapping_neg()),
        (UnaryOp::Neg, Scalar::Float(f)) => Scalar::Float(-f),
        (UnaryOp::Neg, Scalar::Bool(b)) => Scalar::Bool(b),
        (UnaryOp::Abs, Scalar::Int(i)) => Scalar::Int(i.wrapping_abs()),
        (UnaryOp::Abs, Scalar::Float(f)) => Scalar::Float(f.abs()),
        (UnaryOp::Abs, b) => b,
        (UnaryOp::Relu, Scalar::Int(i)) => Scalar::Int(i.max(0)),
        (UnaryOp::Relu, Scalar::Float(f)) => {
            Scalar::Float(if f.is_nan() { f } else { cpp_max(f, 0.0) })
        }
        (UnaryOp::Relu, b) => b,
        (UnaryOp::Clamp { min, max }, Scalar::Int(i)) => {
            // Integer bounds past the dtype's range clamp to it (they never wrap).
            let (lowest, highest) = compute.finite_range();
            let bound = |s: Scalar| s.to_wrapped_int().clamp(lowest as i64, highest as i64);
            let mut v = i;
            if let Some(lo) = min {
                v = v.max(bound(lo));
            }
            if let Some(hi) = max {
                v = v.min(bound(hi));
            }
            Scalar::Int(v)
        }
        (UnaryOp::Clamp { min, max }, Scalar::Float(f)) => {
            let mut v = f;
            if let Some(lo) = min {
                v = cpp_max(v, to_compute(lo, compute).to_f64());
            }
            if let Some(hi) = max {
                v = cpp_min(v, to_compute(hi, compute).to_f64());
            }
            Scalar::Float(v)
        }
        (UnaryOp::Clamp { .. }, b) => b,
        (UnaryOp::LogicalNot, v) => Scalar::Bool(!v.to_bool()),
        (UnaryOp::BitNot, Scalar::Int(i)) => Scalar::Int(!i),
        (UnaryOp::BitNot, Scalar::Bool(b)) => Scalar::Bool(!b),
        (UnaryOp::BitNot, f) => f,
    }
}

/// Python-style integer floor division and remainder (sign of the divisor).
fn int_floor_div(a: i64, b: i64) -> i64 {
    let q = a.wrapping_div(b);
    // `wrapping_rem`: `i64::MIN % -1` overflows (and would panic).
    if (a.wrapping_rem(b) != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn int_rem(a: i64, b: i64) -> i64 {
    let r = a.wrapping_rem(b);
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

fn float_rem(a: f64, b: f64) -> f64 {
    let r = a % b;
    if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
        r + b
    } else {
        r
    }
}

fn compare(op: BinaryOp, ord: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::*;
    match op {
        BinaryOp::Eq => ord == Some(Equal),
        BinaryOp::Ne => ord != Some(Equal),
        BinaryOp::Lt => ord == Some(Less),
        BinaryOp::Le => matches!(ord, Some(Less | Equal)),
        BinaryOp::Gt => ord == Some(Greater),
        BinaryOp::Ge => matches!(ord, Some(Greater | Equal)),
        _ => false,
    }
}

/// One binary op on two values, in `compute`'s arithmetic.
pub fn apply_binary(
    op: BinaryOp,
    a: Scalar,
    b: Scalar,
    compute: DType,
) -> Result<Scalar, EngineError> {
    let (a, b) = (to_compute(a, compute), to_compute(b, compute));
    Ok(match (a, b) {
        (Scalar::Bool(x), Scalar::Bool(y)) => match op {
            BinaryOp::Add | BinaryOp::BitOr => Scalar::Bool(x | y),
            BinaryOp::Mul | BinaryOp::BitAnd => Scalar::Bool(x & y),
            BinaryOp::BitXor | BinaryOp::Sub => Scalar::Bool(x ^ y),
            BinaryOp::Pow => Scalar::Bool(x || !y),
            BinaryOp::Div | BinaryOp::FloorDiv | BinaryOp::TruncDiv | BinaryOp::Rem => {
                Scalar::Bool(x)
            }
            cmp => Scalar::Bool(compare(cmp, Some(x.cmp(&y)))),
        },
        (Scalar::Int(x), Scalar::Int(y)) => match op {
            BinaryOp::Add => Scalar::Int(x.wrapping_add(y)),
            BinaryOp::Sub => Scalar::Int(x.wrapping_sub(y)),
            BinaryOp::Mul => Scalar::Int(x.wrapping_mul(y)),
            BinaryOp::Div => Scalar::Float(x as f64 / y as f64),
            BinaryOp::FloorDiv => {
                if y == 0 {
                    return Err(EngineError::IntegerDivisionByZero);
                }
                Scalar::Int(int_floor_div(x, y))
            }
            BinaryOp::TruncDiv => {
                if y == 0 {
                    return Err(EngineError::IntegerDivisionByZero);
                }
                Scalar::Int(x.wrapping_div(y))
            }
            BinaryOp::Rem => {
                if y == 0 {
                    return Err(EngineError::IntegerDivisionByZero);
                }
                Scalar::Int(int_rem(x, y))
            }
            BinaryOp::Pow => Scalar::Int(if y < 0 {
                0
            } else {
                x.wrapping_pow(y.min(u32::MAX as i64) as u32)
            }),
            BinaryOp::BitAnd => Scalar::Int(x & y),
            BinaryOp::BitOr => Scalar::Int(x | y),
            BinaryOp::BitXor => Scalar::Int(x ^ y),
            cmp => Scalar::Bool(compare(cmp, Some(x.cmp(&y)))),
        },
        (x, y) => {
            let (x, y) = (x.to_f64(), y.to_f64());
            let r = match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                BinaryOp::FloorDiv => (x / y).floor(),
                BinaryOp::TruncDiv => (x / y).trunc(),
                BinaryOp::Rem => float_rem(x, y),
                BinaryOp::Pow => x.powf(y),
                BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => 0.0,
                cmp => return Ok(Scalar::Bool(compare(cmp, x.partial_cmp(&y)))),
            };
            Scalar::Float(opmath_round(r, compute))
        }
    })
}

impl Engine for CpuEngine {
    fn name(&self) -> String {
        "cpu".to_string()
    }

    fn allocate(&mut self, nbytes: usize) -> StorageId {
        self.allocate_with(vec![0; nbytes])
    }

    fn allocate_with(&mut self, bytes: Vec<u8>) -> StorageId {
        let id = StorageId(self.next_id);
        self.next_id += 1;
        self.storages.insert(id, bytes);
        id
    }

    fn free(&mut self, id: StorageId) {
        self.storages.remove(&id);
    }

    fn nbytes(&self, id: StorageId) -> usize {
        self.bytes(id).len()
    }

    fn read_storage(&mut self, id: StorageId) -> Vec<u8> {
        self.bytes(id).to_vec()
    }

    fn copy(&mut self, dst: &Tensor, src: &Tensor) {
        if let Some(pieces) = crate::engines::complex_copy_pieces(dst, src) {
            return crate::engines::run_real_pieces(self, pieces);
        }
        let fits = copy::both_in_bounds(
            self.bytes(dst.storage).len(),
            &dst.layout,
            dst.dtype,
            self.bytes(src.storage).len(),
            &src.layout,
            src.dtype,
        );
        if !fits {
            // Whatever the element-by-element copy does with such views, as before.
            return self.copy_reference(dst, src);
        }
        // The source is read as it was before the copy: a snapshot when both are one storage.
        let (mut dst_bytes, snapshot) = match self.storages.remove(&dst.storage) {
            Some(bytes) if src.storage == dst.storage => {
                let snapshot = bytes.clone();
                (bytes, Some(snapshot))
            }
            Some(bytes) => (bytes, None),
            None => (Vec::new(), None),
        };
        let src_bytes = snapshot.as_deref().unwrap_or(self.bytes(src.storage));
        let (dl, dd, sl, sd) = (&dst.layout, dst.dtype, &src.layout, src.dtype);
        if !copy::copy_planned(&mut dst_bytes, dl, dd, src_bytes, sl, sd) {
            copy::copy_ordered(&mut dst_bytes, dl, dd, src_bytes, sl, sd);
        }
        self.storages.insert(dst.storage, dst_bytes);
    }

    fn fill(&mut self, dst: &Tensor, value: Scalar) {
        if let Some(pieces) = crate::engines::complex_fill_pieces(dst, value) {
            return crate::engines::run_real_pieces(self, pieces);
        }
        let mut encoded = [0u8; 16];
        dst.dtype.write(&mut encoded, 0, value);
        let size = dst.dtype.item_size();
        let dtype_bytes = &encoded[..size];
        copy::fill_encoded(self.bytes_mut(dst.storage), &dst.layout, dtype_bytes);
    }

    fn unary(&mut self, op: UnaryOp, dst: &Tensor, src: &Tensor, compute: DType) {
        if let Some(values) = typed::unary(self.bytes(src.storage), op, src, compute) {
            if typed::write(self.bytes_mut(dst.storage), dst, &values) {
                return;
            }
        }
        self.unary_reference(op, dst, src, compute);
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        dst: &Tensor,
        a: &Operand,
        b: &Operand,
        compute: DType,
    ) -> Result<(), EngineError> {
        if dense::binary(&mut self.storages, op, dst, a, b, compute) {
            return Ok(());
        }
        if let Some(values) = typed::binary(&self.storages, op, dst, a, b, compute) {
            if typed::write(self.bytes_mut(dst.storage), dst, &values) {
                return Ok(());
            }
        }
        self.binary_reference(op, dst, a, b, compute)
    }

    fn reduce(&mut self, op: ReduceOp, dst: &Tensor, src: &Tensor, dims: &[usize]) {
        let out_n = dst.numel().max(0) as usize;
        // Position of each source element in the (contiguous-numbered) output.
        let out_index = Layout {
            shape: src.layout.shape.clone(),
            strides: {
                let mut strides =
                    crate::core::tensor::layout::contiguous_strides(&dst.layout.shape);
                for &d in dims {
                    strides[d] = 0;
                }
                strides
            },
            offset: 0,
        };
        // The values in logical order, for the reductions that read them so (a float sum
        // reads the storage in ATen's own order instead).
        let gather = || self.gather(src);
        let reduced: i64 = dims.iter().map(|&d| src.layout.shape[d]).product();
        let float_acc = src.dtype.is_floating() || dst.dtype.is_floating();
        let results: Vec<Scalar> = match op {
            ReduceOp::Sum | ReduceOp::Mean if dst.dtype.is_floating() => {
                // ATen's order of additions, rounded as it rounds (`cpu/sum.rs`).
                let bytes = self.bytes(src.storage);
                let read = |o: i64| src.dtype.read(bytes, o as usize).to_f64();
                let acc = if dst.dtype == DType::Float64 || src.dtype == DType::Float64 {
                    DType::Float64
                } else {
                    DType::Float32
                };
                sum::aten_sum(&src.layout, acc, dims, &dst.layout.shape, &read)
                    .into_iter()
                    .map(|s| {
                        Scalar::Float(if op == ReduceOp::Mean {
                            s / reduced as f64
                        } else {
                            s
                        })
                    })
                    .collect()
            }
            ReduceOp::Sum | ReduceOp::Mean => {
                if float_acc {
                    let mut acc = vec![0.0f64; out_n];
                    for (o, v) in out_index.offsets().zip(&gather()) {
                        acc[o as usize] += v.to_f64();
                    }
                    acc.into_iter()
                        .map(|s| {
                            Scalar::Float(if op == ReduceOp::Mean {
                                s / reduced as f64
                            } else {
                                s
                            })
                        })
                        .collect()
                } else {
                    let mut acc = vec![0i64; out_n];
                    for (o, v) in out_index.offsets().zip(&gather()) {
                        acc[o as usize] = acc[o as usize].wrapping_add(v.to_wrapped_int());
                    }
                    acc.into_iter().map(Scalar::Int).collect()
                }
            }
            ReduceOp::Amax | ReduceOp::Amin => {
                let mut acc: Vec<Option<Scalar>> = vec![None; out_n];
                let take_new = |old: Scalar, new: Scalar| -> bool {
                    match (old, new) {
                        (Scalar::Float(a), _) if a.is_nan() => false,
                        (_, Scalar::Float(b)) if b.is_nan() => true,
                        (a, b) => {
                            let ord = match (a, b) {
                                (Scalar::Int(x), Scalar::Int(y)) => x.cmp(&y),
                                (Scalar::Bool(x), Scalar::Bool(y)) => x.cmp(&y),
                                (x, y) => x
                                    .to_f64()
                                    .partial_cmp(&y.to_f64())
                                    .unwrap_or(std::cmp::Ordering::Equal),
                            };
                            if op == ReduceOp::Amax {
                                ord == std::cmp::Ordering::Less
                            } else {
                                ord == std::cmp::Ordering::Greater
                            }
                        }
                    }
                };
                for (o, v) in out_index.offsets().zip(&gather()) {
                    let slot = &mut acc[o as usize];
                    match slot {
                        None => *slot = Some(*v),
                        Some(old) => {
                            if take_new(*old, *v) {
                                *slot = Some(*v);
                            }
                        }
                    }
                }
                acc.into_iter()
                    .map(|v| v.unwrap_or(Scalar::Int(0)))
                    .collect()
            }
        };
        self.scatter(dst, results);
    }

    fn matmul(&mut self, dst: &Tensor, a: &Tensor, b: &Tensor, sum: Summation) {
        self.matmul_with(dst, a, b, true, sum);
    }

    fn values(&mut self, view: &Tensor) -> Vec<Scalar> {
        // A complex view's values are its real and imaginary halves in turn.
        if view.dtype.is_complex() {
            return self.values(&view.as_real());
        }
        self.gather(view)
    }
}

/// The element indices of a contiguous view, in order (`None` for any other layout).
fn contiguous_run(view: &Tensor) -> Option<std::ops::Range<usize>> {
    if !view.layout.is_contiguous() {
        return None;
    }
    let first = usize::try_from(view.layout.offset).ok()?;
    let n = usize::try_from(view.layout.numel()).ok()?;
    Some(first..first.checked_add(n)?)
}
