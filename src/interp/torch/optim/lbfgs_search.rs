//! `torch.optim.LBFGS`'s line search (`torch/optim/lbfgs.py`: `_strong_wolfe` and
//! `_cubic_interpolate`), as Python runs it: the bracket and its losses, gradients and
//! directional derivatives in lists, every number a float or a 0-dim tensor as PyTorch's
//! code makes it, the arithmetic through the evaluator's operators.

use crate::core::tensor::ScriptError;
use crate::interp::torch::optim::lbfgs::{abs, clone, holds, m, max2, min2, op, Problem};
use crate::interp::torch::optim::number;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// `_cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds)`: the minimum of the cubic through
/// two points with their derivatives, clamped to the bounds.
#[allow(clippy::too_many_arguments)]
pub(super) fn cubic_interpolate(
    ev: &mut Evaluator,
    x1: &Value,
    f1: &Value,
    g1: &Value,
    x2: &Value,
    f2: &Value,
    g2: &Value,
    bounds: Option<(Value, Value)>,
) -> R<Value> {
    let (xmin_bound, xmax_bound) = match bounds {
        Some(b) => b,
        None if holds(ev, x1, BinOp::Le, x2)? => (x1.clone(), x2.clone()),
        None => (x2.clone(), x1.clone()),
    };
    // d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    let d1 = {
        let sum = op(ev, g1, BinOp::Add, g2)?;
        let df = op(ev, f1, BinOp::Sub, f2)?;
        let scaled = op(ev, &Value::Int(3), BinOp::Mul, &df)?;
        let dx = op(ev, x1, BinOp::Sub, x2)?;
        let ratio = op(ev, &scaled, BinOp::Div, &dx)?;
        op(ev, &sum, BinOp::Sub, &ratio)?
    };
    // d2_square = d1**2 - g1 * g2
    let d2_square = {
        let squared = op(ev, &d1, BinOp::Pow, &Value::Int(2))?;
        let product = op(ev, g1, BinOp::Mul, g2)?;
        op(ev, &squared, BinOp::Sub, &product)?
    };
    if holds(ev, &d2_square, BinOp::Ge, &Value::Int(0))? {
        let d2 = m(ev, &d2_square, "sqrt", vec![])?;
        // x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2)), or the mirror
        let (xa, xb, ga, gb) = if holds(ev, x1, BinOp::Le, x2)? {
            (x2, x1, g2, g1)
        } else {
            (x1, x2, g1, g2)
        };
        let min_pos = {
            let gap = op(ev, xa, BinOp::Sub, xb)?;
            let top = {
                let partial = op(ev, ga, BinOp::Add, &d2)?;
                op(ev, &partial, BinOp::Sub, &d1)?
            };
            let bottom = {
                let partial = op(ev, ga, BinOp::Sub, gb)?;
                let twice = op(ev, &Value::Int(2), BinOp::Mul, &d2)?;
                op(ev, &partial, BinOp::Add, &twice)?
            };
            let ratio = op(ev, &top, BinOp::Div, &bottom)?;
            drop((top, bottom));
            let shift = op(ev, &gap, BinOp::Mul, &ratio)?;
            drop((gap, ratio));
            op(ev, xa, BinOp::Sub, &shift)?
        };
        let lower = max2(ev, &min_pos, &xmin_bound)?;
        min2(ev, &lower, &xmax_bound)
    } else {
        let sum = op(ev, &xmin_bound, BinOp::Add, &xmax_bound)?;
        op(ev, &sum, BinOp::Div, &Value::Float(2.0))
    }
}

/// `_strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change,
/// max_ls)`: the loss, flat gradient, step and evaluation count it settles on.
#[allow(clippy::too_many_arguments)]
pub(super) fn strong_wolfe(
    ev: &mut Evaluator,
    problem: &Problem,
    x: &[Value],
    mut t: Value,
    d: &Value,
    f: f64,
    g: &Value,
    gtd: &Value,
    tolerance_change: &Value,
    max_ls: &Value,
) -> R<(f64, Value, Value, i64)> {
    let (c1, c2) = (Value::Float(1e-4), Value::Float(0.9));
    let d_norm = {
        let absolute = m(ev, d, "abs", vec![])?;
        m(ev, &absolute, "max", vec![])?
    };
    let g = clone(ev, g)?;
    let (mut f_new, mut g_new) = problem.directional(ev, x, &t, d)?;
    let mut ls_func_evals = 1i64;
    let mut gtd_new = m(ev, &g_new, "dot", vec![d.clone()])?;

    let fv = Value::Float(f);
    // f + c1 * t * gtd
    let armijo = |ev: &mut Evaluator, t: &Value| -> R<Value> {
        let ct = op(ev, &c1, BinOp::Mul, t)?;
        let ctg = op(ev, &ct, BinOp::Mul, gtd)?;
        op(ev, &fv, BinOp::Add, &ctg)
    };
    // -c2 * gtd
    let curvature = |ev: &mut Evaluator| -> R<Value> {
        let neg = ev.unary(crate::lang::ast::UnaryOp::Neg, c2.clone())?;
        op(ev, &neg, BinOp::Mul, gtd)
    };

    let (mut t_prev, mut f_prev, mut g_prev, mut gtd_prev) =
        (Value::Int(0), Value::Float(f), g.clone(), gtd.clone());
    let mut done = false;
    let mut ls_iter = 0i64;
    let mut bracket: Option<Vec<Value>> = None;
    let mut bracket_f: Vec<Value> = Vec::new();
    let mut bracket_g: Vec<Value> = Vec::new();
    let mut bracket_gtd: Option<Vec<Value>> = None;
    while holds(ev, &Value::Int(ls_iter), BinOp::Lt, max_ls)? {
        ev.count_step()?;
        let bound = armijo(ev, &t)?;
        let rises = holds(ev, &Value::Float(f_new), BinOp::Gt, &bound)?
            || (ls_iter > 1 && f_new >= number(ev, &f_prev)?);
        drop(bound);
        if rises {
            bracket = Some(vec![t_prev.clone(), t.clone()]);
            bracket_f = vec![f_prev.clone(), Value::Float(f_new)];
            bracket_g = vec![g_prev.clone(), clone(ev, &g_new)?];
            bracket_gtd = Some(vec![gtd_prev.clone(), gtd_new.clone()]);
            break;
        }
        let slope = abs(ev, &gtd_new)?;
        let limit = curvature(ev)?;
        if holds(ev, &slope, BinOp::Le, &limit)? {
            bracket = Some(vec![t.clone()]);
            bracket_f = vec![Value::Float(f_new)];
            bracket_g = vec![g_new.clone()];
            done = true;
            break;
        }
        drop((slope, limit));
        if holds(ev, &gtd_new, BinOp::Ge, &Value::Int(0))? {
            bracket = Some(vec![t_prev.clone(), t.clone()]);
            bracket_f = vec![f_prev.clone(), Value::Float(f_new)];
            bracket_g = vec![g_prev.clone(), clone(ev, &g_new)?];
            bracket_gtd = Some(vec![gtd_prev.clone(), gtd_new.clone()]);
            break;
        }
        // interpolate
        let min_step = {
            let gap = op(ev, &t, BinOp::Sub, &t_prev)?;
            let part = op(ev, &Value::Float(0.01), BinOp::Mul, &gap)?;
            op(ev, &t, BinOp::Add, &part)?
        };
        let max_step = op(ev, &t, BinOp::Mul, &Value::Int(10))?;
        let tmp = t.clone();
        t = cubic_interpolate(
            ev,
            &t_prev,
            &f_prev,
            &gtd_prev,
            &tmp,
            &Value::Float(f_new),
            &gtd_new,
            Some((min_step, max_step)),
        )?;
        // next step
        t_prev = tmp;
        f_prev = Value::Float(f_new);
        g_prev = clone(ev, &g_new)?;
        gtd_prev = gtd_new.clone();
        (f_new, g_new) = problem.directional(ev, x, &t, d)?;
        ls_func_evals += 1;
        gtd_new = m(ev, &g_new, "dot", vec![d.clone()])?;
        ls_iter += 1;
    }

    if holds(ev, &Value::Int(ls_iter), BinOp::Eq, max_ls)? {
        bracket = Some(vec![Value::Int(0), t.clone()]);
        bracket_f = vec![Value::Float(f), Value::Float(f_new)];
        bracket_g = vec![g.clone(), g_new.clone()];
    }
    let Some(mut bracket) = bracket else {
        return Err(unbound("bracket"));
    };

    // zoom phase
    let mut insuf_progress = false;
    let last = bracket_f.len() - 1;
    let (mut low_pos, mut high_pos) = if holds(ev, &bracket_f[0], BinOp::Le, &bracket_f[last])? {
        (0, 1)
    } else {
        (1, 0)
    };
    while !done && holds(ev, &Value::Int(ls_iter), BinOp::Lt, max_ls)? {
        ev.count_step()?;
        let width = {
            let gap = op(ev, &bracket[1], BinOp::Sub, &bracket[0])?;
            let size = abs(ev, &gap)?;
            op(ev, &size, BinOp::Mul, &d_norm)?
        };
        if holds(ev, &width, BinOp::Lt, tolerance_change)? {
            break;
        }
        drop(width);
        let gtds = bracket_gtd.clone().ok_or_else(|| unbound("bracket_gtd"))?;
        t = cubic_interpolate(
            ev,
            &bracket[0],
            &bracket_f[0],
            &gtds[0],
            &bracket[1],
            &bracket_f[1],
            &gtds[1],
            None,
        )?;
        drop(gtds);
        // eps = 0.1 * (max(bracket) - min(bracket))
        let hi = max2(ev, &bracket[0], &bracket[1])?;
        let lo = min2(ev, &bracket[0], &bracket[1])?;
        let span = op(ev, &hi, BinOp::Sub, &lo)?;
        let eps = op(ev, &Value::Float(0.1), BinOp::Mul, &span)?;
        drop(span);
        let hi = max2(ev, &bracket[0], &bracket[1])?;
        let to_hi = op(ev, &hi, BinOp::Sub, &t)?;
        let lo = min2(ev, &bracket[0], &bracket[1])?;
        let to_lo = op(ev, &t, BinOp::Sub, &lo)?;
        let nearest = min2(ev, &to_hi, &to_lo)?;
        drop((to_hi, to_lo));
        if holds(ev, &nearest, BinOp::Lt, &eps)? {
            let hi = max2(ev, &bracket[0], &bracket[1])?;
            let at_bound = insuf_progress || holds(ev, &t, BinOp::Ge, &hi)? || {
                let lo = min2(ev, &bracket[0], &bracket[1])?;
                holds(ev, &t, BinOp::Le, &lo)?
            };
            if at_bound {
                let hi = max2(ev, &bracket[0], &bracket[1])?;
                let gap_hi = op(ev, &t, BinOp::Sub, &hi)?;
                let dist_hi = abs(ev, &gap_hi)?;
                let lo = min2(ev, &bracket[0], &bracket[1])?;
                let gap_lo = op(ev, &t, BinOp::Sub, &lo)?;
                let dist_lo = abs(ev, &gap_lo)?;
                drop((gap_hi, gap_lo));
                t = if holds(ev, &dist_hi, BinOp::Lt, &dist_lo)? {
                    let hi = max2(ev, &bracket[0], &bracket[1])?;
                    op(ev, &hi, BinOp::Sub, &eps)?
                } else {
                    let lo = min2(ev, &bracket[0], &bracket[1])?;
                    op(ev, &lo, BinOp::Add, &eps)?
                };
                insuf_progress = false;
            } else {
                insuf_progress = true;
            }
        } else {
            insuf_progress = false;
        }
        drop((nearest, eps));

        // evaluate the new point
        (f_new, g_new) = problem.directional(ev, x, &t, d)?;
        ls_func_evals += 1;
        gtd_new = m(ev, &g_new, "dot", vec![d.clone()])?;
        ls_iter += 1;

        let bound = armijo(ev, &t)?;
        let worse = holds(ev, &Value::Float(f_new), BinOp::Gt, &bound)?
            || f_new >= number(ev, &bracket_f[low_pos])?;
        drop(bound);
        let gtds = bracket_gtd.get_or_insert_with(Vec::new);
        if worse {
            bracket[high_pos] = t.clone();
            bracket_f[high_pos] = Value::Float(f_new);
            bracket_g[high_pos] = clone(ev, &g_new)?;
            set(gtds, high_pos, gtd_new.clone())?;
            (low_pos, high_pos) = if holds(ev, &bracket_f[0], BinOp::Le, &bracket_f[1])? {
                (0, 1)
            } else {
                (1, 0)
            };
        } else {
            let slope = abs(ev, &gtd_new)?;
            let limit = curvature(ev)?;
            if holds(ev, &slope, BinOp::Le, &limit)? {
                done = true;
            } else {
                let gap = op(ev, &bracket[high_pos], BinOp::Sub, &bracket[low_pos])?;
                let product = op(ev, &gtd_new, BinOp::Mul, &gap)?;
                drop(gap);
                if holds(ev, &product, BinOp::Ge, &Value::Int(0))? {
                    bracket[high_pos] = bracket[low_pos].clone();
                    bracket_f[high_pos] = bracket_f[low_pos].clone();
                    bracket_g[high_pos] = bracket_g[low_pos].clone();
                    let low = gtds.get(low_pos).cloned().unwrap_or(Value::None);
                    set(gtds, high_pos, low)?;
                }
            }
            drop((slope, limit));
            bracket[low_pos] = t.clone();
            bracket_f[low_pos] = Value::Float(f_new);
            bracket_g[low_pos] = clone(ev, &g_new)?;
            set(gtds, low_pos, gtd_new.clone())?;
        }
    }

    let t = bracket[low_pos].clone();
    let f_new = number(ev, &bracket_f[low_pos])?;
    let g_new = bracket_g[low_pos].clone();
    Ok((f_new, g_new, t, ls_func_evals))
}

/// `items[i] = value`.
fn set(items: &mut [Value], i: usize, value: Value) -> R<()> {
    match items.get_mut(i) {
        Some(slot) => {
            *slot = value;
            Ok(())
        }
        None => Err(ScriptError::Index(
            "list assignment index out of range".into(),
        )),
    }
}

/// Python's `UnboundLocalError` for a local read before it is bound.
fn unbound(name: &str) -> ScriptError {
    ScriptError::Other {
        class: "UnboundLocalError".into(),
        message: format!(
            "cannot access local variable '{name}' where it is not associated with a value"
        ),
    }
}
