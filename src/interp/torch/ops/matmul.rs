//! `torch.matmul` and the kernels it dispatches to (`dot`, `mv`, `mm`, `bmm`), as ATen's
//! `_matmul_impl` chooses them.

use crate::core::tensor::layout::{broadcast_shapes, compute_view_strides, numel_of};
use crate::core::tensor::{DType, Layout, MemoryFormat, ScriptError, Tensor};
use crate::engines::Summation;
use crate::interp::torch::ops::{complex, not_for_bool};
use crate::interp::{Evaluator, R};

impl Evaluator {
    /// `a @ b` (`torch.matmul`), following ATen's `_matmul_impl`: `dot`, `mv` and `mm` for
    /// 1-D and 2-D operands, folding the batch of a 3-D+ operand into `mm`/`mv` when its
    /// leading dims collapse without a copy, and `bmm` over broadcast batch dims otherwise.
    /// Each path raises its own kernel's errors, in that kernel's order.
    pub(super) fn matmul(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        complex::refuse_complex("matmul", &[a, b])?;
        let (da, db) = (a.ndim(), b.ndim());
        if da == 0 || db == 0 {
            return Err(ScriptError::Runtime(format!(
                "both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
            )));
        }
        match (da, db) {
            (1, 1) => return self.dot(a, b),
            (2, 1) => return self.mv(a, b),
            (1, 2) => {
                let a2 = self.unsqueeze(a, 0)?;
                let out = self.mm(&a2, b)?;
                return Ok(out.with_layout(Layout::contiguous(&[b.shape()[1]])));
            }
            (2, 2) => return self.mm(a, b),
            _ => {}
        }
        if should_fold(a, b) {
            // The larger operand is `t1`; a 1-D `a` against a batched `b` multiplies `b.mT`.
            let (t1, t2) = if db > da {
                (self.transpose(b, -2, -1)?, a.clone())
            } else {
                (a.clone(), b.clone())
            };
            let last = t1.shape()[t1.ndim() - 1];
            let mut out_shape = t1.shape()[..t1.ndim() - 1].to_vec();
            let folded = numel_of(&out_shape);
            let (t1_folded, _) = self.reshape(&t1, &[folded, last])?;
            let out = if t2.ndim() == 2 {
                out_shape.push(t2.shape()[1]);
                self.mm(&t1_folded, &t2)?
            } else {
                self.mv(&t1_folded, &t2)?
            };
            return Ok(out.with_layout(Layout::contiguous(&out_shape)));
        }
        // Batched: broadcast the batch dims and call bmm on [batch, rows, cols] operands.
        let n = if da > 1 { a.shape()[da - 2] } else { 1 };
        let m1 = a.shape()[da - 1];
        let m2 = if db > 1 {
            b.shape()[db - 2]
        } else {
            b.shape()[0]
        };
        let p = if db > 1 { b.shape()[db - 1] } else { 1 };
        let batch = broadcast_shapes(
            &a.shape()[..da.saturating_sub(2)],
            &b.shape()[..db.saturating_sub(2)],
        )
        .map_err(ScriptError::Runtime)?;
        let count = numel_of(&batch);
        let a3 = if da == 1 {
            self.unsqueeze(a, 0)?
        } else {
            a.clone()
        };
        let b3 = if db == 1 {
            self.unsqueeze(b, 1)?
        } else {
            b.clone()
        };
        let ea = self.expand(&a3, &[batch.clone(), vec![n, m1]].concat())?;
        let eb = self.expand(&b3, &[batch.clone(), vec![m2, p]].concat())?;
        let (ra, _) = self.reshape(&ea, &[count, n, m1])?;
        let (rb, _) = self.reshape(&eb, &[count, m2, p])?;
        let out = self.bmm(&ra, &rb)?;
        let mut shape = batch;
        if da > 1 {
            shape.push(n);
        }
        if db > 1 {
            shape.push(p);
        }
        Ok(out.with_layout(Layout::contiguous(&shape)))
    }

    /// `dot` of two 1-D tensors: dtypes, then sizes, then the kernel's dtype support.
    fn dot(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        if a.dtype != b.dtype {
            return Err(ScriptError::Runtime(format!(
                "dot : expected both vectors to have same dtype, but found {} and {}",
                a.dtype.scalar_type_name(),
                b.dtype.scalar_type_name()
            )));
        }
        if a.shape()[0] != b.shape()[0] {
            return Err(ScriptError::Runtime(format!(
                "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
                a.shape()[0],
                b.shape()[0],
                a.shape()[0],
                b.shape()[0]
            )));
        }
        not_for_bool(a.dtype, "dot")?;
        let a2 = self.unsqueeze(a, 0)?;
        let b2 = self.unsqueeze(b, 1)?;
        // BLAS's `sdot`, not a `gemm`: its lanes are not modelled (the float64 sum).
        let out = self.mm_summed(&a2, &b2, Summation::Wide)?;
        Ok(out.with_layout(Layout::contiguous(&[])))
    }

    /// `mv` (matrix @ vector), as `addmv` checks it: sizes, then dtypes (the result takes
    /// the vector's dtype), then the kernel's dtype support.
    pub(super) fn mv(&mut self, m: &Tensor, v: &Tensor) -> R<Tensor> {
        if m.shape()[1] != v.shape()[0] {
            return Err(ScriptError::Runtime(format!(
                "size mismatch, got input ({}), mat ({}x{}), vec ({})",
                m.shape()[0],
                m.shape()[0],
                m.shape()[1],
                v.shape()[0]
            )));
        }
        if m.dtype != v.dtype {
            return Err(ScriptError::Runtime(format!(
                "addmv input tensors must have the same dtype, but got {}, {}, and {}",
                v.dtype.scalar_type_name(),
                m.dtype.scalar_type_name(),
                v.dtype.scalar_type_name()
            )));
        }
        if m.shape()[0] != 0 && m.shape()[1] != 0 {
            not_for_bool(m.dtype, "addmv_impl_cpu")?;
        }
        let v2 = self.unsqueeze(v, 1)?;
        // BLAS's `gemv`, not a `gemm`: its lanes are not modelled (the float64 sum).
        let out = self.mm_summed(m, &v2, Summation::Wide)?;
        Ok(out.with_layout(Layout::contiguous(&[m.shape()[0]])))
    }

    fn dtype_mismatch(&self, a: &Tensor, b: &Tensor) -> ScriptError {
        ScriptError::Runtime(format!(
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            a.dtype.cpp_type_name(),
            b.dtype.cpp_type_name()
        ))
    }

    /// `mm`: shapes, then dtypes, then the kernel's dtype support.
    pub(in crate::interp::torch::ops) fn mm(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        if a.shape()[1] != b.shape()[0] {
            return Err(ScriptError::Runtime(format!(
                "mm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
                a.shape()[0],
                a.shape()[1],
                b.shape()[0],
                b.shape()[1]
            )));
        }
        if a.dtype != b.dtype {
            return Err(self.dtype_mismatch(a, b));
        }
        // An empty product is zeros without running (or dispatching) the kernel.
        if a.shape()[0] * b.shape()[1] != 0 && a.shape()[1] != 0 {
            not_for_bool(a.dtype, "addmm_impl_cpu_")?;
        }
        self.mm_unchecked(a, b)
    }

    /// `bmm` of `[batch, n, k] @ [batch, k, p]`: shapes, then the kernel (dispatched on the
    /// first operand's dtype), then the second operand's dtype.
    fn bmm(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        let (sa, sb) = (a.shape(), b.shape());
        if sb[0] != sa[0] || sb[1] != sa[2] {
            return Err(ScriptError::Runtime(format!(
                "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
                sa[0], sa[2], sb[0], sb[1]
            )));
        }
        let (batch, n, k, p) = (sa[0], sa[1], sa[2], sb[2]);
        if batch * n * p == 0 || k == 0 {
            // Nothing to multiply: zeros of the second operand's dtype, no kernel run.
            return self.empty(&[batch, n, p], b.dtype, MemoryFormat::Contiguous, "matmul");
        }
        not_for_bool(a.dtype, "bmm")?;
        if a.dtype != b.dtype {
            return Err(ScriptError::Runtime(format!(
                "expected scalar type {} but found {}",
                a.dtype.scalar_type_name(),
                b.dtype.scalar_type_name()
            )));
        }
        self.check_work(
            batch.saturating_mul(n).saturating_mul(p).saturating_mul(k),
            "matmul",
        )?;
        let out = self.empty(&[batch, n, p], a.dtype, MemoryFormat::Contiguous, "matmul")?;
        // ATen's own loop for a small product (`k * n * p` under 400), BLAS otherwise.
        let sum = if k.saturating_mul(n).saturating_mul(p) < 400 {
            Summation::Opmath
        } else {
            Summation::Blas
        };
        for i in 0..batch {
            let (ma, mb, mo) = (
                self.select_unchecked(a, 0, i),
                self.select_unchecked(b, 0, i),
                self.select_unchecked(&out, 0, i),
            );
            self.engine.matmul(&mo, &ma, &mb, sum);
        }
        Ok(out)
    }

    /// A checked 2-D product into a new contiguous tensor, as BLAS's `gemm` adds.
    fn mm_unchecked(&mut self, a: &Tensor, b: &Tensor) -> R<Tensor> {
        self.mm_summed(a, b, Summation::Blas)
    }

    /// A checked 2-D product into a new contiguous tensor, added as `sum` says.
    fn mm_summed(&mut self, a: &Tensor, b: &Tensor, sum: Summation) -> R<Tensor> {
        let work = a.shape()[0]
            .saturating_mul(a.shape()[1])
            .saturating_mul(b.shape()[1]);
        self.check_work(work, "matmul")?;
        let out = self.empty(
            &[a.shape()[0], b.shape()[1]],
            a.dtype,
            MemoryFormat::Contiguous,
            "matmul",
        )?;
        self.engine.matmul(&out, a, b, sum);
        // `addmm_impl_cpu_` hands BLAS an operand as it is, or transposed, when its rows or
        // its columns are contiguous with a leading dimension that fits; any other (an
        // expanded gradient's zero strides) is first cloned contiguous, after the output.
        let copies: Vec<i64> = [a, b]
            .into_iter()
            .filter(|t| !blas_ready(t))
            .map(|t| t.numel() * t.dtype.item_size() as i64)
            .collect();
        if !copies.is_empty() && !self.torch.device.meta_op {
            let mut events = copies.clone();
            events.extend(copies.iter().rev().map(|c| -c));
            self.note_kernel_events(&events);
        }
        if a.dtype == DType::Float16 && !self.torch.device.meta_op {
            let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
            self.note_kernel_events(&[half_gemm_workspace(m, k, n)]);
        }
        if a.dtype == DType::BFloat16 && !self.torch.device.meta_op {
            let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
            let a_transposed = a.strides()[1] != 1;
            self.note_kernel_events(&[bfloat16_gemm_workspace(m, k, n, a_transposed)]);
        }
        Ok(out)
    }
}

/// Whether BLAS takes matrix `t` without a copy: row-major (`strides[1] == 1` and a leading
/// dimension of at least its columns, or a single row) or column-major likewise.
fn blas_ready(t: &Tensor) -> bool {
    let (sizes, strides) = (t.shape(), t.strides());
    let [rows, cols] = [sizes[0], sizes[1]];
    let [s0, s1] = [strides[0], strides[1]];
    if rows == 0 || cols == 0 {
        return true;
    }
    (s1 == 1 && (rows == 1 || s0 >= cols.max(1))) || (s0 == 1 && (cols == 1 || s1 >= rows.max(1)))
}

/// The scratch buffer oneDNN's float16 matrix product allocates after the output and frees
/// before it returns (PyTorch 2.15 CPU, 2 threads, AVX-512; measured at 397 shapes, all
/// exact): none when ATen keeps its own kernel (`m·n·k <= 16³`) or for a vector (one row or
/// column); else per thread the rows it takes (`mb`) of the f32 copy of `a` (k rounded up to
/// 16) and of a 64-column accumulator, one 64-column packed copy of `b`, and 1792 bytes.
fn half_gemm_workspace(m: i64, k: i64, n: i64) -> i64 {
    if m.saturating_mul(n).saturating_mul(k) <= 16 * 16 * 16 || m <= 1 || n <= 1 {
        return 0;
    }
    let k16 = (k + 15) / 16 * 16;
    let n64 = n.min(64);
    // Rows per thread: all of them when the columns make two blocks to share out, else
    // half of them (at least 16).
    let mb = if n > 64 && m < 64 {
        m
    } else {
        m.min(16.max((m + 1) / 2))
    };
    2 * 4 * mb * (k16 + n64) + 512 * k16 + 1792
}

/// The scratch buffer oneDNN's bfloat16 matrix product (brgemm) allocates after the output
/// and frees before it returns (PyTorch 2.15 CPU, 2 threads, AVX-512; measured with
/// `torch.profiler` at 83 shapes in both layouts of `a`: 165 of 166 exact): none for a
/// product of at most 16³ multiply-adds or a vector; else 256 bytes per row of `b` (k
/// rounded up to 32), 8 bytes per element of the rows a thread takes (`mb`) times a
/// 64-column block, and 1664 bytes; a column-major `a` is packed row-major too (two bytes per
/// element of a thread's rows, and 128 bytes).
///
/// How oneDNN shares the rows between the two threads, as measured: a row-major `a` gives
/// each thread every row when the 64-column blocks pair up (and the rows are at most 256),
/// else half of them (at least 16); a column-major `a` halves the rows with one column block
/// (at least 16), and with more halves an even count of 64 rows or more, or an odd count
/// over 145, and keeps them all otherwise.
fn bfloat16_gemm_workspace(m: i64, k: i64, n: i64, a_transposed: bool) -> i64 {
    if m.saturating_mul(n).saturating_mul(k) <= 16 * 16 * 16 || m <= 1 || n <= 1 || k <= 1 {
        return 0;
    }
    let k32 = (k + 31) / 32 * 32;
    let column_blocks = (n + 63) / 64;
    let half = m.min(16.max((m + 1) / 2));
    let mb = if !a_transposed {
        if column_blocks % 2 == 0 && m <= 256 {
            m
        } else {
            half
        }
    } else if column_blocks == 1 {
        half
    } else if (m % 2 == 0 && m >= 64) || (m % 2 == 1 && m > 145) {
        (m + 1) / 2
    } else {
        m
    };
    let packed_a = if a_transposed { 4 * mb * k32 + 128 } else { 0 };
    8 * mb * n.min(64) + 256 * k32 + 1664 + packed_a
}

/// ATen's `should_fold`: whether matmul can fold the batch dims of its larger (3-D+) operand
/// into the rows of an `mm`/`mv` without copying (a view as `[-1, last]`; size-1 dims do not
/// matter). A 2-D first operand never folds.
fn should_fold(a: &Tensor, b: &Tensor) -> bool {
    let (da, db) = (a.ndim(), b.ndim());
    let a_larger = da >= db;
    let (dim_t1, dim_t2) = if a_larger { (da, db) } else { (db, da) };
    if !(dim_t1 >= 3 && dim_t2 <= 2) || da == 2 {
        return false;
    }
    // t1 is `a`, or `b.mT` (the last two dims swapped).
    let (mut shape, mut strides) = if a_larger {
        (a.shape().to_vec(), a.strides().to_vec())
    } else {
        (b.shape().to_vec(), b.strides().to_vec())
    };
    if !a_larger {
        shape.swap(dim_t1 - 2, dim_t1 - 1);
        strides.swap(dim_t1 - 2, dim_t1 - 1);
    }
    if shape.contains(&0) {
        return true;
    }
    // Folding must not copy: t1 must be viewable as [-1, last].
    let last = shape[dim_t1 - 1];
    let folded = numel_of(&shape[..dim_t1 - 1]);
    compute_view_strides(&shape, &strides, &[folded, last]).is_some()
}
