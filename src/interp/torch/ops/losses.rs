//! `F.nll_loss` and `F.cross_entropy` with class-index targets, as ATen's CPU kernel computes
//! them: `cross_entropy` is `nll_loss(log_softmax(input, 1), target)`, and the loss sums
//! `-input[i, target[i]] * weight` in the input's dtype, in order, then divides by the summed
//! weight for `mean`.

use crate::core::tensor::{DType, Scalar, ScriptError, Tensor};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The levels of ATen's cascade sum (`cascade_sum_num_levels`).
const CASCADE_LEVELS: usize = 8;

/// How a loss reduces over the batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Reduction {
    None,
    Mean,
    Sum,
}

impl Reduction {
    /// `reduction=`'s value.
    pub(crate) fn parse(name: &str) -> R<Reduction> {
        match name {
            "none" => Ok(Reduction::None),
            "mean" => Ok(Reduction::Mean),
            "sum" => Ok(Reduction::Sum),
            other => Err(ScriptError::Value(format!(
                "{other} is not a valid value for reduction"
            ))),
        }
    }
}

impl Evaluator {
    /// `F.nll_loss(log_probs, target, weight=, ignore_index=, reduction=)` for an input of
    /// shape `(C,)` or `(N, C)` and class indices; `weights`, one per class, scale each
    /// row's loss and (with `'mean'`) make the divisor their sum over the counted rows.
    pub(crate) fn nll_loss(
        &mut self,
        input: &Tensor,
        target: &Tensor,
        weights: Option<&[f64]>,
        ignore_index: i64,
        reduction: Reduction,
    ) -> R<Value> {
        if !input.dtype.is_floating() {
            return Err(ScriptError::Runtime(format!(
                "\"nll_loss_out_frame\" not implemented for '{}'",
                input.dtype.scalar_type_name()
            )));
        }
        if target.dtype.is_floating() {
            return Err(ScriptError::NotImplemented(
                "cross_entropy with class probabilities as the target (a float target) is not supported by Stridescope; give class indices (a long tensor)".into(),
            ));
        }
        if target.dtype != DType::Int64 {
            return Err(ScriptError::Runtime(format!(
                "expected scalar type Long but found {}",
                target.dtype.scalar_type_name()
            )));
        }
        let (batch, classes) = match input.shape() {
            [c] => (None, *c),
            [n, c] => (Some(*n), *c),
            shape => {
                return Err(ScriptError::NotImplemented(format!(
                "nll_loss of a {}-D input is not supported by Stridescope (only (C,) and (N, C))",
                shape.len()
            )))
            }
        };
        let rows = batch.unwrap_or(1);
        let target_ok = match batch {
            None => target.ndim() == 0,
            Some(n) => target.shape() == [n],
        };
        if !target_ok {
            return Err(ScriptError::Runtime(match batch {
                None => "0D or 1D target tensor expected, multi-target not supported".to_string(),
                Some(n) => format!(
                    "Expected input batch_size ({n}) to match target batch_size ({}).",
                    target.shape().first().copied().unwrap_or(0)
                ),
            }));
        }
        self.check_work(input.numel(), "nll_loss")?;
        if self.torch.device.meta_op {
            // On the meta device nothing is computed: the loss has its shape, no value.
            let shape = match (reduction, batch) {
                (Reduction::None, Some(n)) => vec![n],
                _ => vec![],
            };
            let strides = crate::core::tensor::Layout::contiguous(&shape).strides;
            let out = self.empty_strided(&shape, &strides, input.dtype, "nll_loss")?;
            return Ok(Value::tensor(out, "nll_loss", None));
        }
        let log_probs = self.engine.values(input);
        let targets = self.engine.values(target);
        let dtype = input.dtype;
        let round = |v: f64| dtype.round(Scalar::Float(v)).to_f64();
        // ATen's cascade sum: level 0 takes the terms in order; every 2^level_power terms
        // a level is added into the next. The levels are summed last, lowest first.
        let ceil_log2 = 64 - (rows.max(1) as u64 - 1).leading_zeros() as i64;
        let level_power = (ceil_log2 / 2).max(4);
        let level_mask = (1i64 << level_power) - 1;
        let mut levels = [0f64; CASCADE_LEVELS];
        let mut weight_levels = [0f64; CASCADE_LEVELS];
        let mut losses = Vec::with_capacity(rows as usize);
        let mut ignored = 0;
        for b in 0..rows {
            let t = targets.get(b as usize).map_or(0, |s| s.to_f64() as i64);
            if t == ignore_index {
                ignored += 1;
                losses.push(Scalar::Float(0.0));
                continue;
            }
            if t < 0 || t >= classes {
                return Err(ScriptError::Index(format!("Target {t} is out of bounds.")));
            }
            let x = log_probs
                .get((b * classes + t) as usize)
                .map_or(0.0, |s| s.to_f64());
            let (term, w) = match weights {
                Some(w) => {
                    let w = w.get(t as usize).copied().unwrap_or(1.0);
                    (round(x * w), w)
                }
                None => (x, 1.0),
            };
            losses.push(Scalar::Float(round(-term)));
            levels[0] = round(levels[0] - term);
            weight_levels[0] = round(weight_levels[0] + w);
            for j in 0..CASCADE_LEVELS - 1 {
                let mask = level_mask << (j as i64 * level_power);
                if b & mask != 0 {
                    break;
                }
                levels[j + 1] = round(levels[j + 1] + levels[j]);
                levels[j] = 0.0;
                weight_levels[j + 1] = round(weight_levels[j + 1] + weight_levels[j]);
                weight_levels[j] = 0.0;
            }
        }
        let total = levels.iter().fold(0.0, |acc, l| round(acc + l));
        let total_weight = match weights {
            Some(_) => weight_levels.iter().fold(0.0, |acc, l| round(acc + l)),
            None => round((rows - ignored) as f64),
        };
        let (shape, values): (Vec<i64>, Vec<Scalar>) = match reduction {
            Reduction::None => (batch.map(|n| vec![n]).unwrap_or_default(), losses),
            Reduction::Sum => (vec![], vec![Scalar::Float(total)]),
            Reduction::Mean => (
                vec![],
                vec![dtype.round(Scalar::Float(total / total_weight))],
            ),
        };
        let out = self.tensor_from_values(&shape, dtype, &values, "nll_loss")?;
        Ok(Value::tensor(out, "nll_loss", None))
    }
}

impl Evaluator {
    /// The elementwise losses of `F.binary_cross_entropy` (`logits: false`; ATen's CPU
    /// kernel, logs clamped at -100) or `F.binary_cross_entropy_with_logits` (`(1 - y) * x -
    /// log_sigmoid(x)`, the log-sigmoid scaled by `(pos_weight - 1) * y + 1`), times
    /// `weight`, before reduction, in the input's dtype. The weights come broadcast to the
    /// input's elements.
    pub(crate) fn binary_cross_entropy_elements(
        &mut self,
        input: &Tensor,
        target: &Tensor,
        logits: bool,
        weight: Option<&[f64]>,
        pos_weight: Option<&[f64]>,
    ) -> R<Tensor> {
        let size = |t: &Tensor| crate::interp::python::repr::size_repr(t.shape());
        if input.shape() != target.shape() {
            return Err(ScriptError::Value(if logits {
                format!(
                    "Target size ({}) must be the same as input size ({})",
                    size(target),
                    size(input)
                )
            } else {
                format!(
                    "Using a target size ({}) that is different to the input size ({}) is deprecated. Please ensure they have the same size.",
                    size(target),
                    size(input)
                )
            }));
        }
        if !input.dtype.is_floating() {
            return Err(ScriptError::Runtime(format!(
                "\"binary_cross_entropy\" not implemented for '{}'",
                input.dtype.scalar_type_name()
            )));
        }
        self.check_work(input.numel(), "binary_cross_entropy")?;
        let dtype = input.dtype;
        let round = |v: f64| dtype.round(Scalar::Float(v)).to_f64();
        let xs = self.engine.values(input);
        let ys = self.engine.values(target);
        let mut values = Vec::with_capacity(xs.len());
        for (i, (x, y)) in xs.iter().zip(&ys).enumerate() {
            let (x, y) = (x.to_f64(), round(y.to_f64()));
            let loss = if logits {
                let mut log_sigmoid = round(x.min(0.0) - round(round((-x.abs()).exp()).ln_1p()));
                if let Some(pw) = pos_weight {
                    // `log_sigmoid.mul_((pos_weight - 1) * target + 1)`.
                    let p = pw.get(i).copied().unwrap_or(1.0);
                    let log_weight = round(round(round(p - 1.0) * y) + 1.0);
                    log_sigmoid = round(log_sigmoid * log_weight);
                }
                round(round(round(1.0 - y) * x) - log_sigmoid)
            } else {
                if !(0.0..=1.0).contains(&x) {
                    return Err(ScriptError::Runtime(
                        "all elements of input should be between 0 and 1".into(),
                    ));
                }
                let log_1m = round(round((-x).ln_1p()).max(-100.0));
                let log_x = round(round(x.ln()).max(-100.0));
                round(round(round(y - 1.0) * log_1m) - round(y * log_x))
            };
            // `loss.mul_(weight)`.
            let loss = match weight {
                Some(w) => round(loss * w.get(i).copied().unwrap_or(1.0)),
                None => loss,
            };
            values.push(Scalar::Float(loss));
        }
        self.tensor_from_values(input.shape(), dtype, &values, "binary_cross_entropy")
    }
}
