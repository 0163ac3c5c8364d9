//! `torch.optim.Adamax`, `torch.optim.NAdam` and `torch.optim.RAdam` (`torch/optim/adamax.py`,
//! `nadam.py`, `radam.py`): the constructors' checks and defaults, and the single-tensor
//! algorithms PyTorch 2.15 runs on CPU tensors (`_single_tensor_adamax`: the infinity norm
//! `exp_inf`; `_single_tensor_nadam`: the momentum schedule `mu` and its float32 product
//! `mu_product` in the state; `_single_tensor_radam`: the rectification once `rho_t > 5`),
//! each as the same tensor ops in the same order, the Python floats computed from
//! `step.item()` as PyTorch computes them.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::adam::{beta, with_default_betas};
use crate::interp::torch::optim::optimizer::{
    option, param_state, run_step, set_param_state, setup, step_tensor, with_grads, zeros_like,
    Entries,
};
use crate::interp::torch::optim::sgd::{check_tensor_lr, defaults_of};
use crate::interp::torch::optim::{
    call_method, call_torch, check_at_least_zero, flag, get, invalid, number, param_groups, put,
};
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// `Adamax`, `NAdam` and `RAdam`.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        class_methods: &[],
        name: "Adamax",
        path: "torch.optim.adamax",
        base: Some("Optimizer"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "params, lr=0.002, betas=None, eps=1e-08, weight_decay=0, foreach=None, *, maximize=False, differentiable=False, capturable=False",
                "Adamax.__init__",
                &pos,
                &kw,
            )?;
            let args = with_default_betas(args, &pos, &kw);
            init(
                ev,
                o,
                &args,
                &[
                    "lr",
                    "betas",
                    "eps",
                    "weight_decay",
                    "foreach",
                    "maximize",
                    "differentiable",
                    "capturable",
                ],
            )
        }),
        forward: None,
        extra_repr: None,
        methods: &[("step", |ev, o, pos, kw| run_step(ev, o, pos, kw, adamax))],
    },
    ModuleDef {
        class_methods: &[],
        name: "NAdam",
        path: "torch.optim.nadam",
        base: Some("Optimizer"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "params, lr=0.002, betas=None, eps=1e-08, weight_decay=0, momentum_decay=0.004, decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False, differentiable=False",
                "NAdam.__init__",
                &pos,
                &kw,
            )?;
            let args = with_default_betas(args, &pos, &kw);
            init(
                ev,
                o,
                &args,
                &[
                    "lr",
                    "betas",
                    "eps",
                    "weight_decay",
                    "momentum_decay",
                    "decoupled_weight_decay",
                    "maximize",
                    "foreach",
                    "capturable",
                    "differentiable",
                ],
            )
        }),
        forward: None,
        extra_repr: None,
        methods: &[("step", |ev, o, pos, kw| run_step(ev, o, pos, kw, nadam))],
    },
    ModuleDef {
        class_methods: &[],
        name: "RAdam",
        path: "torch.optim.radam",
        base: Some("Optimizer"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "params, lr=0.001, betas=None, eps=1e-08, weight_decay=0, decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False, differentiable=False",
                "RAdam.__init__",
                &pos,
                &kw,
            )?;
            let args = with_default_betas(args, &pos, &kw);
            init(
                ev,
                o,
                &args,
                &[
                    "lr",
                    "betas",
                    "eps",
                    "weight_decay",
                    "maximize",
                    "foreach",
                    "capturable",
                    "decoupled_weight_decay",
                    "differentiable",
                ],
            )
        }),
        forward: None,
        extra_repr: None,
        methods: &[("step", |ev, o, pos, kw| run_step(ev, o, pos, kw, radam))],
    },
];

/// What `__setstate__` adds to a loaded group of these classes that lacks it.
pub(crate) fn setstate_options(class: &str) -> Vec<(&'static str, Value)> {
    let mut options = vec![
        ("foreach", Value::None),
        ("maximize", Value::Bool(false)),
        ("differentiable", Value::Bool(false)),
        ("capturable", Value::Bool(false)),
    ];
    if class != "Adamax" {
        options.push(("decoupled_weight_decay", Value::Bool(false)));
    }
    options
}

/// `if not 0.0 <= x < 1.0: raise ValueError(f"{what}: {x}")`.
fn check_unit(ev: &mut Evaluator, what: &str, x: &Value) -> R<()> {
    let low = ev.binary(BinOp::Le, Value::Float(0.0), x.clone())?;
    let ok = ev.truthy(&low)? && {
        let high = ev.binary(BinOp::Lt, x.clone(), Value::Float(1.0))?;
        ev.truthy(&high)?
    };
    if !ok {
        invalid(ev, what, x)?;
    }
    Ok(())
}

/// The constructors' checks (`lr`, `eps`, each beta, `weight_decay`, NAdam's
/// `momentum_decay`), then `Optimizer.__init__` with the defaults named `keys`.
fn init(ev: &mut Evaluator, o: &Rc<Instance>, args: &[(String, Value)], keys: &[&str]) -> R<()> {
    let lr = arg(args, "lr");
    check_tensor_lr(&lr)?;
    check_at_least_zero(ev, "Invalid learning rate", &lr)?;
    check_at_least_zero(ev, "Invalid epsilon value", &arg(args, "eps"))?;
    let betas = arg(args, "betas");
    for i in 0..2 {
        let b = beta(ev, &betas, i)?;
        check_unit(ev, &format!("Invalid beta parameter at index {i}"), &b)?;
    }
    check_at_least_zero(ev, "Invalid weight_decay value", &arg(args, "weight_decay"))?;
    if keys.contains(&"momentum_decay") {
        let decay = arg(args, "momentum_decay");
        check_at_least_zero(ev, "Invalid momentum_decay value", &decay)?;
    }
    setup(ev, o, arg(args, "params"), defaults_of(args, keys))
}

/// The options of one group, as the single-tensor functions receive them.
struct Options {
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    weight_decay: f64,
    maximize: bool,
    decoupled: bool,
    momentum_decay: f64,
}

fn options(ev: &mut Evaluator, group: &[(Value, Value)], what: &str) -> R<Options> {
    let betas = option(group, "betas")?;
    let items = ev.iterate(&betas)?;
    if items.len() != 2 {
        return Err(ScriptError::Value(format!(
            "{} values to unpack (expected 2)",
            if items.len() < 2 {
                format!("not enough (got {})", items.len())
            } else {
                "too many".into()
            }
        )));
    }
    if flag(ev, &option(group, "capturable")?)? || flag(ev, &option(group, "differentiable")?)? {
        return Err(ScriptError::NotImplemented(format!(
            "Stridescope runs {what} with capturable=False and differentiable=False only"
        )));
    }
    let decoupled = if what == "Adamax" {
        false
    } else {
        flag(ev, &option(group, "decoupled_weight_decay")?)?
    };
    let momentum_decay = if what == "NAdam" {
        number(ev, &option(group, "momentum_decay")?)?
    } else {
        0.0
    };
    Ok(Options {
        lr: number(ev, &option(group, "lr")?)?,
        beta1: number(ev, &items[0])?,
        beta2: number(ev, &items[1])?,
        eps: number(ev, &option(group, "eps")?)?,
        weight_decay: number(ev, &option(group, "weight_decay")?)?,
        maximize: flag(ev, &option(group, "maximize")?)?,
        decoupled,
        momentum_decay,
    })
}

/// `_init_group`: the state made on a parameter's first step (`keys` in order: a float32
/// 0-d tensor for `step` and `mu_product`, zeros like the parameter for the others), and
/// each parameter with its gradient and state.
fn init_group(
    ev: &mut Evaluator,
    state: &mut Entries,
    group: &[(Value, Value)],
    what: &str,
    keys: &[&str],
) -> R<Vec<(TensorRef, TensorRef, Entries)>> {
    let mut out = Vec::new();
    for (p, grad) in with_grads(group) {
        if p.borrow().tensor.dtype.is_complex() {
            return Err(ScriptError::NotImplemented(format!(
                "Stridescope runs {what} on real parameters only"
            )));
        }
        let mut entries = param_state(state, &p).unwrap_or_default();
        if entries.is_empty() {
            for key in keys {
                let value = match *key {
                    "step" => step_tensor(ev, 0.0)?,
                    "mu_product" => step_tensor(ev, 1.0)?,
                    _ => zeros_like(ev, &p)?,
                };
                put(&mut entries, key, value);
            }
        }
        set_param_state(state, &p, entries.clone());
        out.push((p, grad, entries));
    }
    Ok(out)
}

/// `step_t += 1`, then `_get_value(step_t)` (`step_t.item()`).
fn advance(ev: &mut Evaluator, entries: &Entries) -> R<f64> {
    let step_t = get(entries, "step");
    call_method(ev, &step_t, "add_", vec![Value::Int(1)], vec![])?;
    let value = call_method(ev, &step_t, "item", vec![], vec![])?;
    number(ev, &value)
}

/// The weight decay of NAdam and RAdam: `param.mul_(1 - lr * weight_decay)` (decoupled)
/// or `grad = grad.add(param, alpha=weight_decay)`.
fn weight_decay(
    ev: &mut Evaluator,
    o: &Options,
    param: &Value,
    grad: &mut Value,
    held: &mut Option<Value>,
) -> R<()> {
    if o.weight_decay == 0.0 {
        return Ok(());
    }
    if o.decoupled {
        let factor = 1.0 - o.lr * o.weight_decay;
        call_method(ev, param, "mul_", vec![Value::Float(factor)], vec![])?;
    } else {
        *grad = call_method(
            ev,
            grad,
            "add",
            vec![param.clone()],
            vec![("alpha", Value::Float(o.weight_decay))],
        )?;
        drop(held.replace(grad.clone()));
    }
    Ok(())
}

/// `exp_avg.lerp_(grad, 1 - beta1)` and `exp_avg_sq.mul_(beta2).addcmul_(grad, grad,
/// value=1 - beta2)`.
fn moments(ev: &mut Evaluator, o: &Options, entries: &Entries, grad: &Value) -> R<()> {
    let (exp_avg, exp_avg_sq) = (get(entries, "exp_avg"), get(entries, "exp_avg_sq"));
    ev.uncounted(|ev| {
        call_method(
            ev,
            &exp_avg,
            "lerp_",
            vec![grad.clone(), Value::Float(1.0 - o.beta1)],
            vec![],
        )
    })?;
    let scaled = call_method(ev, &exp_avg_sq, "mul_", vec![Value::Float(o.beta2)], vec![])?;
    ev.uncounted(|ev| {
        call_method(
            ev,
            &scaled,
            "addcmul_",
            vec![grad.clone(), grad.clone()],
            vec![("value", Value::Float(1.0 - o.beta2))],
        )
    })?;
    Ok(())
}

/// `Adamax.step`'s update: `_init_group`, then `_single_tensor_adamax`.
fn adamax(ev: &mut Evaluator, o: &Rc<Instance>, mut state: Entries) -> R<Entries> {
    for group in param_groups(o) {
        let params = init_group(
            ev,
            &mut state,
            &group,
            "Adamax",
            &["step", "exp_avg", "exp_inf"],
        )?;
        let opts = options(ev, &group, "Adamax")?;
        // Python's `grad`: the previous parameter's is freed by `grad = grads[i]`, before
        // the negation.
        let mut held: Option<Value> = None;
        for (p, grad, entries) in &params {
            ev.count_step()?;
            drop(held.take());
            let param = Value::Tensor(Rc::clone(p));
            let mut grad = Value::Tensor(Rc::clone(grad));
            if opts.maximize {
                grad = call_method(ev, &grad, "neg", vec![], vec![])?;
            }
            drop(held.replace(grad.clone()));
            let step = advance(ev, entries)?;
            if opts.weight_decay != 0.0 {
                grad = call_method(
                    ev,
                    &grad,
                    "add",
                    vec![param.clone()],
                    vec![("alpha", Value::Float(opts.weight_decay))],
                )?;
                drop(held.replace(grad.clone()));
            }
            let (exp_avg, exp_inf) = (get(entries, "exp_avg"), get(entries, "exp_inf"));
            ev.uncounted(|ev| {
                call_method(
                    ev,
                    &exp_avg,
                    "lerp_",
                    vec![grad.clone(), Value::Float(1.0 - opts.beta1)],
                    vec![],
                )
            })?;
            // torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
            let scaled = call_method(ev, &exp_inf, "mul_", vec![Value::Float(opts.beta2)], vec![])?;
            let magnitude = call_method(ev, &grad, "abs", vec![], vec![])?;
            let bound = call_method(ev, &magnitude, "add_", vec![Value::Float(opts.eps)], vec![])?;
            ev.uncounted(|ev| {
                let larger = call_torch(ev, "maximum", vec![scaled, bound], vec![])?;
                call_method(ev, &exp_inf, "copy_", vec![larger], vec![])
            })?;
            drop(magnitude);
            let bias_correction = 1.0 - opts.beta1.powf(step);
            if bias_correction == 0.0 {
                return Err(ScriptError::ZeroDivision("float division by zero".into()));
            }
            let clr = opts.lr / bias_correction;
            ev.uncounted(|ev| {
                call_method(
                    ev,
                    &param,
                    "addcdiv_",
                    vec![exp_avg, exp_inf],
                    vec![("value", Value::Float(-clr))],
                )
            })?;
        }
    }
    Ok(state)
}

/// `NAdam.step`'s update: `_init_group`, then `_single_tensor_nadam`.
fn nadam(ev: &mut Evaluator, o: &Rc<Instance>, mut state: Entries) -> R<Entries> {
    let keys = ["step", "mu_product", "exp_avg", "exp_avg_sq"];
    for group in param_groups(o) {
        let params = init_group(ev, &mut state, &group, "NAdam", &keys)?;
        let opts = options(ev, &group, "NAdam")?;
        // Python's `grad` and `denom`: the previous parameter's are freed when the next
        // ones are bound.
        let mut held: Option<Value> = None;
        let mut denom_held: Option<Value> = None;
        for (p, grad, entries) in &params {
            ev.count_step()?;
            let param = Value::Tensor(Rc::clone(p));
            let mut grad = Value::Tensor(Rc::clone(grad));
            if opts.maximize {
                grad = call_method(ev, &grad, "neg", vec![], vec![])?;
            }
            drop(held.replace(grad.clone()));
            let step = advance(ev, entries)?;
            let bias_correction2 = 1.0 - opts.beta2.powf(step);
            weight_decay(ev, &opts, &param, &mut grad, &mut held)?;
            let mu = opts.beta1 * (1.0 - 0.5 * 0.96f64.powf(step * opts.momentum_decay));
            let mu_next =
                opts.beta1 * (1.0 - 0.5 * 0.96f64.powf((step + 1.0) * opts.momentum_decay));
            let mu_product = get(entries, "mu_product");
            call_method(ev, &mu_product, "mul_", vec![Value::Float(mu)], vec![])?;
            moments(ev, &opts, entries, &grad)?;
            let exp_avg_sq = get(entries, "exp_avg_sq");
            let scaled = call_method(
                ev,
                &exp_avg_sq,
                "div",
                vec![Value::Float(bias_correction2)],
                vec![],
            )?;
            let denom = call_method(ev, &scaled, "sqrt", vec![], vec![])?;
            drop(scaled);
            drop(denom_held.replace(denom.clone()));
            let product = call_method(ev, &mu_product, "item", vec![], vec![])?;
            let product = number(ev, &product)?;
            let mu_product_next = product * mu_next;
            call_method(ev, &denom, "add_", vec![Value::Float(opts.eps)], vec![])?;
            let (first, second) = (1.0 - product, 1.0 - mu_product_next);
            if first == 0.0 || second == 0.0 {
                return Err(ScriptError::ZeroDivision("float division by zero".into()));
            }
            let value = -opts.lr * (1.0 - mu) / first;
            ev.uncounted(|ev| {
                call_method(
                    ev,
                    &param,
                    "addcdiv_",
                    vec![grad.clone(), denom.clone()],
                    vec![("value", Value::Float(value))],
                )
            })?;
            let value = -opts.lr * mu_next / second;
            let exp_avg = get(entries, "exp_avg");
            ev.uncounted(|ev| {
                call_method(
                    ev,
                    &param,
                    "addcdiv_",
                    vec![exp_avg, denom],
                    vec![("value", Value::Float(value))],
                )
            })?;
        }
    }
    Ok(state)
}

/// `RAdam.step`'s update: `_init_group`, then `_single_tensor_radam`.
fn radam(ev: &mut Evaluator, o: &Rc<Instance>, mut state: Entries) -> R<Entries> {
    let keys = ["step", "exp_avg", "exp_avg_sq"];
    for group in param_groups(o) {
        let params = init_group(ev, &mut state, &group, "RAdam", &keys)?;
        let opts = options(ev, &group, "RAdam")?;
        // Python's `grad` and `bias_corrected_exp_avg`: the previous parameter's are freed
        // when the next ones are bound.
        let mut held: Option<Value> = None;
        let mut corrected_held: Option<Value> = None;
        for (p, grad, entries) in &params {
            ev.count_step()?;
            let param = Value::Tensor(Rc::clone(p));
            let mut grad = Value::Tensor(Rc::clone(grad));
            if opts.maximize {
                grad = call_method(ev, &grad, "neg", vec![], vec![])?;
            }
            drop(held.replace(grad.clone()));
            let step = advance(ev, entries)?;
            weight_decay(ev, &opts, &param, &mut grad, &mut held)?;
            moments(ev, &opts, entries, &grad)?;
            let bias_correction1 = 1.0 - opts.beta1.powf(step);
            let bias_correction2 = 1.0 - opts.beta2.powf(step);
            let exp_avg = get(entries, "exp_avg");
            let corrected = ev.binary(BinOp::Div, exp_avg, Value::Float(bias_correction1))?;
            drop(corrected_held.replace(corrected.clone()));
            let rho_inf = 2.0 / (1.0 - opts.beta2) - 1.0;
            if bias_correction2 == 0.0 {
                return Err(ScriptError::ZeroDivision("float division by zero".into()));
            }
            let rho_t = rho_inf - 2.0 * step * opts.beta2.powf(step) / bias_correction2;
            let update = if rho_t > 5.0 {
                let scaled = ev.binary(BinOp::Mul, corrected, Value::Float(opts.lr))?;
                let adaptive = adaptive_lr(ev, &opts, entries, bias_correction2)?;
                let scaled = ev.binary(BinOp::Mul, scaled, adaptive)?;
                let rect = ((rho_t - 4.0) * (rho_t - 2.0) * rho_inf
                    / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t))
                    .powf(0.5);
                ev.binary(BinOp::Mul, scaled, Value::Float(rect))?
            } else {
                ev.binary(BinOp::Mul, corrected, Value::Float(opts.lr))?
            };
            call_method(
                ev,
                &param,
                "add_",
                vec![update],
                vec![("alpha", Value::Float(-1.0))],
            )?;
        }
    }
    Ok(state)
}

/// RAdam's `_compute_adaptive_lr()`: `bias_correction2 ** 0.5 / exp_avg_sq.sqrt().add_(eps)`,
/// the division as `Tensor.__rtruediv__` runs it (`reciprocal() * other`).
fn adaptive_lr(
    ev: &mut Evaluator,
    o: &Options,
    entries: &Entries,
    bias_correction2: f64,
) -> R<Value> {
    let root = call_method(ev, &get(entries, "exp_avg_sq"), "sqrt", vec![], vec![])?;
    let root = call_method(ev, &root, "add_", vec![Value::Float(o.eps)], vec![])?;
    let inverse = call_method(ev, &root, "reciprocal", vec![], vec![])?;
    ev.binary(
        BinOp::Mul,
        inverse,
        Value::Float(bias_correction2.powf(0.5)),
    )
}
