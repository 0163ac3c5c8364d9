//! `torch.optim.Adadelta`, `torch.optim.Rprop` and `torch.optim.ASGD` (`torch/optim/adadelta.py`,
//! `rprop.py`, `asgd.py`): the constructors' checks and defaults, and the single-tensor
//! algorithms PyTorch 2.15 runs on CPU tensors (`_single_tensor_adadelta`: the running
//! averages `square_avg` and `acc_delta`; `_single_tensor_rprop`: the sign of
//! `grad * prev` written through boolean masks, the per-element `step_size`;
//! `_single_tensor_asgd`: the float32 `eta` and `mu` in the state, the average `ax`), each
//! as the same tensor ops in the same order.

use std::rc::Rc;

use crate::core::tensor::{DType, ScriptError};
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::adam::beta;
use crate::interp::torch::optim::optimizer::{
    option, param_state, run_step, set_param_state, setup, with_grads, zeros_like, Entries,
};
use crate::interp::torch::optim::sgd::{check_tensor_lr, defaults_of};
use crate::interp::torch::optim::{
    call_method, call_torch, check_at_least_zero, flag, get, invalid, number, param_groups, put,
    test,
};
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// `Adadelta`, `Rprop` and `ASGD`.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        class_methods: &[],
        name: "Adadelta",
        path: "torch.optim.adadelta",
        base: Some("Optimizer"),
        init: Some(adadelta_init),
        forward: None,
        extra_repr: None,
        methods: &[("step", |ev, o, pos, kw| run_step(ev, o, pos, kw, adadelta))],
    },
    ModuleDef {
        class_methods: &[],
        name: "Rprop",
        path: "torch.optim.rprop",
        base: Some("Optimizer"),
        init: Some(rprop_init),
        forward: None,
        extra_repr: None,
        methods: &[("step", |ev, o, pos, kw| run_step(ev, o, pos, kw, rprop))],
    },
    ModuleDef {
        class_methods: &[],
        name: "ASGD",
        path: "torch.optim.asgd",
        base: Some("Optimizer"),
        init: Some(asgd_init),
        forward: None,
        extra_repr: None,
        methods: &[("step", |ev, o, pos, kw| run_step(ev, o, pos, kw, asgd))],
    },
];

/// What `__setstate__` adds to a loaded group of these classes that lacks it.
pub(crate) fn setstate_options() -> Vec<(&'static str, Value)> {
    vec![
        ("foreach", Value::None),
        ("maximize", Value::Bool(false)),
        ("differentiable", Value::Bool(false)),
        ("capturable", Value::Bool(false)),
    ]
}

/// `torch.zeros((), dtype=torch.float32)` (or `torch.ones`).
fn scalar_tensor(ev: &mut Evaluator, factory: &str) -> R<Value> {
    call_torch(
        ev,
        factory,
        vec![Value::Tuple(Vec::new())],
        vec![("dtype", Value::DType(DType::Float32))],
    )
}

/// A real parameter (the complex path views them as real; not supported here), and the
/// single-tensor path (`capturable` and `differentiable` off).
fn supported(ev: &mut Evaluator, group: &[(Value, Value)], p: &TensorRef, what: &str) -> R<()> {
    if p.borrow().tensor.dtype.is_complex() {
        return Err(ScriptError::NotImplemented(format!(
            "Stridescope runs {what} on real parameters only"
        )));
    }
    if flag(ev, &option(group, "capturable")?)? || flag(ev, &option(group, "differentiable")?)? {
        return Err(ScriptError::NotImplemented(format!(
            "Stridescope runs {what} with capturable=False and differentiable=False only"
        )));
    }
    Ok(())
}

/// `grad = grads[i]` (the previous one freed), then `-grad` under `maximize`.
fn bind_grad(
    ev: &mut Evaluator,
    grad: &TensorRef,
    maximize: bool,
    held: &mut Option<Value>,
) -> R<Value> {
    drop(held.take());
    let mut grad = Value::Tensor(Rc::clone(grad));
    if maximize {
        grad = call_method(ev, &grad, "neg", vec![], vec![])?;
    }
    drop(held.replace(grad.clone()));
    Ok(grad)
}

/// `grad = grad.add(param, alpha=weight_decay)` where `weight_decay != 0`.
fn decay(
    ev: &mut Evaluator,
    grad: Value,
    param: &Value,
    weight_decay: f64,
    held: &mut Option<Value>,
) -> R<Value> {
    if weight_decay == 0.0 {
        return Ok(grad);
    }
    let grad = call_method(
        ev,
        &grad,
        "add",
        vec![param.clone()],
        vec![("alpha", Value::Float(weight_decay))],
    )?;
    drop(held.replace(grad.clone()));
    Ok(grad)
}

fn adadelta_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "params, lr=1.0, rho=0.9, eps=1e-06, weight_decay=0, foreach=None, *, capturable=False, maximize=False, differentiable=False",
        "Adadelta.__init__",
        &pos,
        &kw,
    )?;
    let lr = arg(&args, "lr");
    check_tensor_lr(&lr)?;
    check_at_least_zero(ev, "Invalid learning rate", &lr)?;
    let rho = arg(&args, "rho");
    let ok = test(ev, Value::Float(0.0), BinOp::Le, rho.clone())?
        && test(ev, rho.clone(), BinOp::Le, Value::Float(1.0))?;
    if !ok {
        invalid(ev, "Invalid rho value", &rho)?;
    }
    check_at_least_zero(ev, "Invalid epsilon value", &arg(&args, "eps"))?;
    check_at_least_zero(
        ev,
        "Invalid weight_decay value",
        &arg(&args, "weight_decay"),
    )?;
    let keys = [
        "lr",
        "rho",
        "eps",
        "weight_decay",
        "maximize",
        "capturable",
        "foreach",
        "differentiable",
    ];
    setup(ev, o, arg(&args, "params"), defaults_of(&args, &keys))
}

/// `Adadelta.step`'s update: `_init_group`, then `_single_tensor_adadelta`.
fn adadelta(ev: &mut Evaluator, o: &Rc<Instance>, mut state: Entries) -> R<Entries> {
    for group in param_groups(o) {
        let mut params = Vec::new();
        for (p, grad) in with_grads(&group) {
            supported(ev, &group, &p, "Adadelta")?;
            let mut entries = param_state(&state, &p).unwrap_or_default();
            if entries.is_empty() {
                put(&mut entries, "step", scalar_tensor(ev, "zeros")?);
                put(&mut entries, "square_avg", zeros_like(ev, &p)?);
                put(&mut entries, "acc_delta", zeros_like(ev, &p)?);
            }
            set_param_state(&mut state, &p, entries.clone());
            params.push((p, grad, entries));
        }
        let lr = number(ev, &option(&group, "lr")?)?;
        let rho = number(ev, &option(&group, "rho")?)?;
        let eps = number(ev, &option(&group, "eps")?)?;
        let weight_decay = number(ev, &option(&group, "weight_decay")?)?;
        let maximize = flag(ev, &option(&group, "maximize")?)?;
        // Python's `grad` (rebound by the `for`), `std` and `delta`: the previous
        // parameter's are freed when the next ones are bound.
        let (mut held, mut std_held, mut delta_held) = (None, None, None);
        for (p, grad, entries) in &params {
            ev.count_step()?;
            let param = Value::Tensor(Rc::clone(p));
            drop(held.take());
            call_method(
                ev,
                &get(entries, "step"),
                "add_",
                vec![Value::Int(1)],
                vec![],
            )?;
            let grad = bind_grad(ev, grad, maximize, &mut held)?;
            let grad = decay(ev, grad, &param, weight_decay, &mut held)?;
            let (square_avg, acc_delta) = (get(entries, "square_avg"), get(entries, "acc_delta"));
            let scaled = call_method(ev, &square_avg, "mul_", vec![Value::Float(rho)], vec![])?;
            call_method(
                ev,
                &scaled,
                "addcmul_",
                vec![grad.clone(), grad.clone()],
                vec![("value", Value::Float(1.0 - rho))],
            )?;
            let shifted = call_method(ev, &square_avg, "add", vec![Value::Float(eps)], vec![])?;
            let std = call_method(ev, &shifted, "sqrt_", vec![], vec![])?;
            drop(std_held.replace(std.clone()));
            let shifted = call_method(ev, &acc_delta, "add", vec![Value::Float(eps)], vec![])?;
            let delta = call_method(ev, &shifted, "sqrt_", vec![], vec![])?;
            drop(delta_held.replace(delta.clone()));
            let divided = call_method(ev, &delta, "div_", vec![std], vec![])?;
            call_method(ev, &divided, "mul_", vec![grad], vec![])?;
            let scaled = call_method(ev, &acc_delta, "mul_", vec![Value::Float(rho)], vec![])?;
            call_method(
                ev,
                &scaled,
                "addcmul_",
                vec![delta.clone(), delta.clone()],
                vec![("value", Value::Float(1.0 - rho))],
            )?;
            call_method(
                ev,
                &param,
                "add_",
                vec![delta],
                vec![("alpha", Value::Float(-lr))],
            )?;
        }
    }
    Ok(state)
}

/// `(a, b)` where the call gave no value for a tuple parameter whose default is one.
fn with_default_pair(
    mut args: Vec<(String, Value)>,
    name: &str,
    index: usize,
    pos: &[Value],
    kw: &[(String, Value)],
    pair: [Value; 2],
) -> Vec<(String, Value)> {
    let given = pos.len() > index || kw.iter().any(|(k, _)| k == name);
    if !given {
        if let Some(slot) = args.iter_mut().find(|(n, _)| n == name) {
            slot.1 = Value::Tuple(pair.to_vec());
        }
    }
    args
}

fn rprop_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "params, lr=0.01, etas=None, step_sizes=None, *, capturable=False, foreach=None, maximize=False, differentiable=False",
        "Rprop.__init__",
        &pos,
        &kw,
    )?;
    let etas = [Value::Float(0.5), Value::Float(1.2)];
    let args = with_default_pair(args, "etas", 2, &pos, &kw, etas);
    let sizes = [Value::Float(1e-6), Value::Int(50)];
    let args = with_default_pair(args, "step_sizes", 3, &pos, &kw, sizes);
    let lr = arg(&args, "lr");
    check_tensor_lr(&lr)?;
    check_at_least_zero(ev, "Invalid learning rate", &lr)?;
    let etas = arg(&args, "etas");
    let (minus, plus) = (beta(ev, &etas, 0)?, beta(ev, &etas, 1)?);
    // not 0.0 < etas[0] < 1.0 < etas[1]
    let ok = test(ev, Value::Float(0.0), BinOp::Lt, minus.clone())?
        && test(ev, minus.clone(), BinOp::Lt, Value::Float(1.0))?
        && test(ev, Value::Float(1.0), BinOp::Lt, plus.clone())?;
    if !ok {
        let (minus, plus) = (ev.str_of(&minus)?, ev.str_of(&plus)?);
        return Err(ScriptError::Value(format!(
            "Invalid eta values: {minus}, {plus}"
        )));
    }
    let keys = [
        "lr",
        "etas",
        "step_sizes",
        "foreach",
        "maximize",
        "differentiable",
        "capturable",
    ];
    setup(ev, o, arg(&args, "params"), defaults_of(&args, &keys))
}

/// A pair of a group (`etas`, `step_sizes`) as two values.
fn pair(ev: &mut Evaluator, group: &[(Value, Value)], key: &str) -> R<(Value, Value)> {
    let items = ev.iterate(&option(group, key)?)?;
    match <[Value; 2]>::try_from(items) {
        Ok([a, b]) => Ok((a, b)),
        Err(items) => Err(ScriptError::Value(if items.len() < 2 {
            format!(
                "not enough values to unpack (expected 2, got {})",
                items.len()
            )
        } else {
            "too many values to unpack (expected 2)".into()
        })),
    }
}

/// `Rprop.step`'s update: `_init_group`, then `_single_tensor_rprop`.
fn rprop(ev: &mut Evaluator, o: &Rc<Instance>, mut state: Entries) -> R<Entries> {
    for group in param_groups(o) {
        let (etaminus, etaplus) = pair(ev, &group, "etas")?;
        let (size_min, size_max) = pair(ev, &group, "step_sizes")?;
        let mut params = Vec::new();
        for (p, grad) in with_grads(&group) {
            supported(ev, &group, &p, "Rprop")?;
            let mut entries = param_state(&state, &p).unwrap_or_default();
            if entries.is_empty() {
                put(&mut entries, "step", scalar_tensor(ev, "zeros")?);
                put(&mut entries, "prev", zeros_like(ev, &p)?);
                let lr = number(ev, &option(&group, "lr")?)?;
                let size = call_torch(
                    ev,
                    "full_like",
                    vec![Value::Tensor(Rc::clone(&grad)), Value::Float(lr)],
                    vec![],
                )?;
                put(&mut entries, "step_size", size);
            }
            set_param_state(&mut state, &p, entries.clone());
            params.push((p, grad, entries));
        }
        let maximize = flag(ev, &option(&group, "maximize")?)?;
        // Python's `grad` (the clone) and `sign`: the previous parameter's are freed when
        // the next ones are bound.
        let (mut held, mut sign_held) = (None, None);
        for (p, grad, entries) in &params {
            ev.count_step()?;
            let param = Value::Tensor(Rc::clone(p));
            let grad = bind_grad(ev, grad, maximize, &mut held)?;
            let (prev, step_size) = (get(entries, "prev"), get(entries, "step_size"));
            call_method(
                ev,
                &get(entries, "step"),
                "add_",
                vec![Value::Int(1)],
                vec![],
            )?;
            let product = call_method(ev, &grad, "mul", vec![prev.clone()], vec![])?;
            let sign = call_method(ev, &product, "sign", vec![], vec![])?;
            drop(product);
            drop(sign_held.replace(sign.clone()));
            for (test_name, value) in [
                ("gt", etaplus.clone()),
                ("lt", etaminus.clone()),
                ("eq", Value::Int(1)),
            ] {
                let mask = call_method(ev, &sign, test_name, vec![Value::Int(0)], vec![])?;
                write_masked(ev, &sign, &mask, &value)?;
            }
            let scaled = call_method(ev, &step_size, "mul_", vec![sign.clone()], vec![])?;
            call_method(
                ev,
                &scaled,
                "clamp_",
                vec![size_min.clone(), size_max.clone()],
                vec![],
            )?;
            let cloned = call_method(
                ev,
                &grad,
                "clone",
                vec![],
                vec![(
                    "memory_format",
                    Value::MemoryFormat(crate::core::tensor::MemoryFormat::Preserve),
                )],
            )?;
            drop(grad);
            let grad = cloned;
            drop(held.replace(grad.clone()));
            let mask = call_method(ev, &sign, "eq", vec![etaminus.clone()], vec![])?;
            write_masked(ev, &grad, &mask, &Value::Int(0))?;
            drop(mask);
            let direction = call_method(ev, &grad, "sign", vec![], vec![])?;
            ev.uncounted(|ev| {
                call_method(
                    ev,
                    &param,
                    "addcmul_",
                    vec![direction, step_size],
                    vec![("value", Value::Int(-1))],
                )
            })?;
            call_method(ev, &prev, "copy_", vec![grad], vec![])?;
        }
    }
    Ok(state)
}

/// `target[mask] = value` (a boolean mask), as the subscript assignment runs it.
fn write_masked(ev: &mut Evaluator, target: &Value, mask: &Value, value: &Value) -> R<()> {
    let Value::Tensor(t) = target else {
        return Err(ScriptError::Type("a tensor was expected".into()));
    };
    let tensor = t.borrow().tensor.clone();
    ev.set_item(&tensor, mask, value)
}

fn asgd_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "params, lr=0.01, lambd=0.0001, alpha=0.75, t0=1000000.0, weight_decay=0, foreach=None, maximize=False, differentiable=False, capturable=False",
        "ASGD.__init__",
        &pos,
        &kw,
    )?;
    let lr = arg(&args, "lr");
    check_tensor_lr(&lr)?;
    check_at_least_zero(ev, "Invalid learning rate", &lr)?;
    check_at_least_zero(ev, "Invalid lambd value", &arg(&args, "lambd"))?;
    check_at_least_zero(ev, "Invalid alpha value", &arg(&args, "alpha"))?;
    check_at_least_zero(
        ev,
        "Invalid weight_decay value",
        &arg(&args, "weight_decay"),
    )?;
    let keys = [
        "lr",
        "lambd",
        "alpha",
        "t0",
        "weight_decay",
        "foreach",
        "maximize",
        "differentiable",
        "capturable",
    ];
    setup(ev, o, arg(&args, "params"), defaults_of(&args, &keys))
}

/// `torch.as_tensor(x, dtype=torch.float32)` of a Python float (without `dtype`: the
/// default dtype).
fn as_tensor(ev: &mut Evaluator, x: f64, float32: bool) -> R<Value> {
    let kw = if float32 {
        vec![("dtype", Value::DType(DType::Float32))]
    } else {
        Vec::new()
    };
    call_torch(ev, "as_tensor", vec![Value::Float(x)], kw)
}

/// `ASGD.step`'s update: `_init_group`, then `_single_tensor_asgd`.
fn asgd(ev: &mut Evaluator, o: &Rc<Instance>, mut state: Entries) -> R<Entries> {
    for group in param_groups(o) {
        let lr = number(ev, &option(&group, "lr")?)?;
        let mut params = Vec::new();
        for (p, grad) in with_grads(&group) {
            supported(ev, &group, &p, "ASGD")?;
            let mut entries = param_state(&state, &p).unwrap_or_default();
            if entries.is_empty() {
                put(&mut entries, "step", scalar_tensor(ev, "zeros")?);
                let eta = as_tensor(ev, lr, true)?;
                let eta = call_method(ev, &eta, "clone", vec![], vec![])?;
                let eta = call_method(ev, &eta, "detach", vec![], vec![])?;
                put(&mut entries, "eta", eta);
                put(&mut entries, "mu", scalar_tensor(ev, "ones")?);
                put(&mut entries, "ax", zeros_like(ev, &p)?);
            }
            set_param_state(&mut state, &p, entries.clone());
            params.push((p, grad, entries));
        }
        let lambd = number(ev, &option(&group, "lambd")?)?;
        let t0 = number(ev, &option(&group, "t0")?)?;
        let alpha = number(ev, &option(&group, "alpha")?)?;
        let weight_decay = number(ev, &option(&group, "weight_decay")?)?;
        let maximize = flag(ev, &option(&group, "maximize")?)?;
        // Python's `grad`, `new_eta` and `new_mu`: the previous parameter's are freed when
        // the next ones are bound.
        let (mut held, mut eta_held, mut mu_held) = (None, None, None);
        for (p, grad, entries) in &params {
            ev.count_step()?;
            let param = Value::Tensor(Rc::clone(p));
            let grad = bind_grad(ev, grad, maximize, &mut held)?;
            let (mu, ax, eta) = (get(entries, "mu"), get(entries, "ax"), get(entries, "eta"));
            let step_t = get(entries, "step");
            call_method(ev, &step_t, "add_", vec![Value::Int(1)], vec![])?;
            let grad = decay(ev, grad, &param, weight_decay, &mut held)?;
            let eta_value = call_method(ev, &eta, "item", vec![], vec![])?;
            let eta_value = number(ev, &eta_value)?;
            let factor = 1.0 - lambd * eta_value;
            call_method(ev, &param, "mul_", vec![Value::Float(factor)], vec![])?;
            call_method(
                ev,
                &param,
                "add_",
                vec![grad],
                vec![("alpha", Value::Float(-eta_value))],
            )?;
            let mu_value = call_method(ev, &mu, "item", vec![], vec![])?;
            if number(ev, &mu_value)? != 1.0 {
                let gap = call_method(ev, &param, "sub", vec![ax.clone()], vec![])?;
                let gap = call_method(ev, &gap, "mul_", vec![mu], vec![])?;
                call_method(ev, &ax, "add_", vec![gap], vec![])?;
            } else {
                call_method(ev, &ax, "copy_", vec![param], vec![])?;
            }
            let step = call_method(ev, &step_t, "item", vec![], vec![])?;
            let step = number(ev, &step)?;
            let new_eta = lr / (1.0 + lambd * lr * step).powf(alpha);
            let new_eta = as_tensor(ev, new_eta, false)?;
            drop(eta_held.replace(new_eta.clone()));
            call_method(ev, &eta, "copy_", vec![new_eta], vec![])?;
            let floor = if 1.0 >= step - t0 { 1.0 } else { step - t0 };
            let new_mu = as_tensor(ev, 1.0 / floor, false)?;
            drop(mu_held.replace(new_mu.clone()));
            call_method(ev, &get(entries, "mu"), "copy_", vec![new_mu], vec![])?;
        }
    }
    Ok(state)
}
