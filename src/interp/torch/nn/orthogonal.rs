//! The matrix initializers of `torch.nn.init`: `sparse_` (normal draws, then `randperm`'s
//! first rows of each column zeroed) and `orthogonal_(tensor, gain=1)`: a (semi-)orthogonal
//! matrix from the QR
//! decomposition of normal draws, as PyTorch 2.15's `init.py` makes it: the draws are the
//! default generator's, bit for bit; `Q` is the one whose `R` has a positive diagonal
//! (PyTorch multiplies LAPACK's `Q` by the signs of `R`'s diagonal), computed here in double
//! precision and rounded once to the tensor's dtype.

use crate::core::tensor::random::{self, Distribution};
use crate::core::tensor::{Scalar, ScriptError};
use crate::interp::torch::nn::init::tensor_of;
use crate::interp::torch::signature::Bound;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

impl Evaluator {
    /// `sparse_(tensor, sparsity, std=0.01)`: `normal_(0, std)`, then in each column the rows
    /// of `torch.randperm(rows)[:ceil(sparsity * rows)]` set to zero.
    pub(super) fn sparse_(&mut self, tensor: &Value, args: &Bound) -> R<Value> {
        let t = tensor_of(tensor, "ndimension")?;
        let view = t.borrow().tensor.clone();
        if view.ndim() != 2 {
            return Err(ScriptError::Value(
                "Only tensors with 2 dimensions are supported".into(),
            ));
        }
        let sparsity = args.get("sparsity").cloned().unwrap_or(Value::None);
        let Some(sparsity) = crate::interp::torch::autograd::number(&sparsity) else {
            return Err(ScriptError::Type(format!(
                "unsupported operand type(s) for *: '{}' and 'int'",
                sparsity.type_name()
            )));
        };
        let (rows, cols) = (view.shape()[0], view.shape()[1]);
        let zeros = (sparsity * rows as f64).ceil();
        if !zeros.is_finite() {
            return Err(ScriptError::Overflow(
                "cannot convert float infinity to integer".into(),
            ));
        }
        // `row_indices[:num_zeros]`: Python's slice end.
        let zeros = zeros as i64;
        let taken = if zeros < 0 {
            (rows + zeros).max(0)
        } else {
            zeros.min(rows)
        } as usize;
        let std = args.get("std").cloned().unwrap_or(Value::Float(0.01));
        let generator = args.get("generator").cloned().unwrap_or(Value::None);
        self.draw_method(&t, "normal_", vec![Value::Int(0), std], &generator)?;
        self.check_work(rows.saturating_mul(cols), "sparse_")?;
        let mut values = self.nn_read_host(&view);
        for col in 0..cols as usize {
            let perm = random::randperm(&mut self.torch.generator, rows)?;
            for &row in perm.iter().take(taken) {
                if let Some(v) = values.get_mut(row as usize * cols as usize + col) {
                    *v = 0.0;
                }
            }
        }
        let scalars: Vec<Scalar> = values
            .into_iter()
            .map(|v| view.dtype.round(Scalar::Float(v)))
            .collect();
        self.nn_write_host(&view, &scalars);
        Ok(tensor.clone())
    }

    /// `orthogonal_(tensor, gain=1)`.
    pub(super) fn orthogonal_(
        &mut self,
        tensor: &Value,
        gain: &Value,
        generator: &Value,
    ) -> R<Value> {
        let t = tensor_of(tensor, "ndimension")?;
        let view = t.borrow().tensor.clone();
        if view.ndim() < 2 {
            return Err(ScriptError::Value(
                "Only tensors with 2 or more dimensions are supported".into(),
            ));
        }
        if view.numel() == 0 {
            return Ok(tensor.clone());
        }
        if !matches!(generator, Value::None | Value::Generator) {
            return Err(ScriptError::Type(format!(
                "normal_(): argument 'generator' must be torch.Generator, not {}",
                generator.type_name()
            )));
        }
        let rows = view.shape()[0];
        let cols = view.numel() / rows;
        self.check_work(
            rows.saturating_mul(cols).saturating_mul(cols.min(rows)),
            "orthogonal_",
        )?;
        let normal = Distribution::Normal {
            mean: 0.0,
            std: 1.0,
        };
        let n = (rows * cols) as usize;
        let drawn = random::sample(&mut self.torch.generator, &normal, view.dtype, n, true)?;
        let flat: Vec<f64> = drawn.iter().map(|v| v.to_f64()).collect();
        let (rows, cols) = (rows as usize, cols as usize);
        // Columns of the tall matrix (`flattened`, or its transpose when it is wide).
        let wide = rows < cols;
        let (m, k) = if wide { (cols, rows) } else { (rows, cols) };
        let mut columns: Vec<Vec<f64>> = (0..k)
            .map(|j| {
                (0..m)
                    .map(|i| {
                        if wide {
                            flat[j * cols + i]
                        } else {
                            flat[i * cols + j]
                        }
                    })
                    .collect()
            })
            .collect();
        orthonormalize(&mut columns);
        let values: Vec<Scalar> = (0..rows * cols)
            .map(|at| {
                let (i, j) = (at / cols, at % cols);
                let q = if wide { columns[i][j] } else { columns[j][i] };
                view.dtype.round(Scalar::Float(q))
            })
            .collect();
        self.nn_write_host(&view, &values);
        let gain = match gain {
            Value::None => Value::Int(1),
            g => g.clone(),
        };
        self.no_grad_method(&t, "mul_", vec![gain])?;
        Ok(tensor.clone())
    }
}

/// Gram-Schmidt, twice over (so the columns are orthonormal to double precision): the `Q` of
/// the QR decomposition whose `R` has a positive diagonal. A column that is dependent on the
/// ones before becomes zeros (PyTorch's sign of a zero diagonal entry is zero).
fn orthonormalize(columns: &mut [Vec<f64>]) {
    for j in 0..columns.len() {
        let (done, rest) = columns.split_at_mut(j);
        let Some(col) = rest.first_mut() else {
            continue;
        };
        let norm_before = col.iter().map(|x| x * x).sum::<f64>().sqrt();
        for _ in 0..2 {
            for q in done.iter() {
                let dot: f64 = q.iter().zip(col.iter()).map(|(a, b)| a * b).sum();
                for (c, a) in col.iter_mut().zip(q) {
                    *c -= dot * a;
                }
            }
        }
        let norm = col.iter().map(|x| x * x).sum::<f64>().sqrt();
        let scale = if norm > norm_before * 1e-14 && norm > 0.0 {
            1.0 / norm
        } else {
            0.0
        };
        for c in col.iter_mut() {
            *c *= scale;
        }
    }
}
