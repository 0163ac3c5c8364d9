//! `torch.optim.RMSprop` and `torch.optim.Adagrad` (`torch/optim/rmsprop.py`,
//! `adagrad.py`): the constructors' checks and defaults, and `_single_tensor_rmsprop`
//! (centered, momentum) and `_single_tensor_adagrad` (learning-rate decay, the initial
//! accumulator).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::optimizer::{
    option, param_state, run_step, set_param_state, setup, step_tensor, with_grads, zeros_like,
    Entries,
};
use crate::interp::torch::optim::sgd::{check_fused, check_tensor_lr, defaults_of};
use crate::interp::torch::optim::{
    attr, call_method, call_torch, check_at_least_zero, flag, get, group_params, less, number,
    param_groups, put, set_attr,
};
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// `RMSprop` and `Adagrad`.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        class_methods: &[],
        name: "RMSprop",
        path: "torch.optim.rmsprop",
        base: Some("Optimizer"),
        init: Some(rmsprop_init),
        forward: None,
        extra_repr: None,
        methods: &[("step", |ev, o, pos, kw| run_step(ev, o, pos, kw, rmsprop))],
    },
    ModuleDef {
        class_methods: &[],
        name: "Adagrad",
        path: "torch.optim.adagrad",
        base: Some("Optimizer"),
        init: Some(adagrad_init),
        forward: None,
        extra_repr: None,
        methods: &[("step", |ev, o, pos, kw| run_step(ev, o, pos, kw, adagrad))],
    },
];

/// What `RMSprop.__setstate__` adds to a loaded group that lacks it.
pub(crate) fn rmsprop_setstate_options() -> Vec<(&'static str, Value)> {
    vec![
        ("momentum", Value::Int(0)),
        ("centered", Value::Bool(false)),
        ("foreach", Value::None),
        ("maximize", Value::Bool(false)),
        ("differentiable", Value::Bool(false)),
        ("capturable", Value::Bool(false)),
    ]
}

/// What `Adagrad.__setstate__` adds to a loaded group that lacks it.
pub(crate) fn adagrad_setstate_options() -> Vec<(&'static str, Value)> {
    vec![
        ("foreach", Value::None),
        ("maximize", Value::Bool(false)),
        ("differentiable", Value::Bool(false)),
        ("fused", Value::None),
    ]
}

fn rmsprop_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "params, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0, momentum=0, centered=False, capturable=False, foreach=None, maximize=False, differentiable=False",
        "RMSprop.__init__",
        &pos,
        &kw,
    )?;
    let lr = arg(&args, "lr");
    check_tensor_lr(&lr)?;
    check_at_least_zero(ev, "Invalid learning rate", &lr)?;
    check_at_least_zero(ev, "Invalid epsilon value", &arg(&args, "eps"))?;
    check_at_least_zero(ev, "Invalid momentum value", &arg(&args, "momentum"))?;
    check_at_least_zero(
        ev,
        "Invalid weight_decay value",
        &arg(&args, "weight_decay"),
    )?;
    check_at_least_zero(ev, "Invalid alpha value", &arg(&args, "alpha"))?;
    let defaults = defaults_of(
        &args,
        &[
            "lr",
            "momentum",
            "alpha",
            "eps",
            "centered",
            "weight_decay",
            "capturable",
            "foreach",
            "maximize",
            "differentiable",
        ],
    );
    setup(ev, o, arg(&args, "params"), defaults)
}

/// A real parameter (the complex path views them as real; not supported here).
fn real(p: &TensorRef, what: &str) -> R<()> {
    if p.borrow().tensor.dtype.is_complex() {
        return Err(ScriptError::NotImplemented(format!(
            "Stridescope runs {what} on real parameters only"
        )));
    }
    Ok(())
}

/// `RMSprop.step`'s update: `_init_group`, then `_single_tensor_rmsprop`.
fn rmsprop(ev: &mut Evaluator, o: &Rc<Instance>, mut state: Entries) -> R<Entries> {
    for group in param_groups(o) {
        let params = with_grads(&group);
        let momentum_value = option(&group, "momentum")?;
        let has_momentum = less(ev, &Value::Int(0), &momentum_value)?;
        let centered = flag(ev, &option(&group, "centered")?)?;
        if flag(ev, &option(&group, "capturable")?)? {
            return Err(ScriptError::NotImplemented(
                "Stridescope runs RMSprop with capturable=False only".into(),
            ));
        }
        let mut slots = Vec::with_capacity(params.len());
        for (p, _) in &params {
            real(p, "RMSprop")?;
            let mut entries = param_state(&state, p).unwrap_or_default();
            if entries.is_empty() {
                put(&mut entries, "step", step_tensor(ev, 0.0)?);
                put(&mut entries, "square_avg", zeros_like(ev, p)?);
                if has_momentum {
                    put(&mut entries, "momentum_buffer", zeros_like(ev, p)?);
                }
                if centered {
                    put(&mut entries, "grad_avg", zeros_like(ev, p)?);
                }
            }
            slots.push(entries.clone());
            set_param_state(&mut state, p, entries);
        }
        let lr = number(ev, &option(&group, "lr")?)?;
        let alpha = number(ev, &option(&group, "alpha")?)?;
        let eps = number(ev, &option(&group, "eps")?)?;
        let weight_decay = number(ev, &option(&group, "weight_decay")?)?;
        let momentum = number(ev, &momentum_value)?;
        let maximize = flag(ev, &option(&group, "maximize")?)?;
        // Python's `avg` of the previous parameter: freed when the next `avg` is bound.
        let mut bound: Option<Value> = None;
        // Python's `grad`: the previous parameter's is freed by `grad = grads[i]`, before
        // the negation.
        let mut held: Option<Value> = None;
        for ((p, grad), entries) in params.iter().zip(&slots) {
            ev.count_step()?;
            drop(held.take());
            let param = Value::Tensor(Rc::clone(p));
            let mut grad = Value::Tensor(Rc::clone(grad));
            if maximize {
                grad = call_method(ev, &grad, "neg", vec![], vec![])?;
            }
            drop(held.replace(grad.clone()));
            let square_avg = get(entries, "square_avg");
            call_method(
                ev,
                &get(entries, "step"),
                "add_",
                vec![Value::Int(1)],
                vec![],
            )?;
            if weight_decay != 0.0 {
                grad = call_method(
                    ev,
                    &grad,
                    "add",
                    vec![param.clone()],
                    vec![("alpha", Value::Float(weight_decay))],
                )?;
                drop(held.replace(grad.clone()));
            }
            let scaled = call_method(ev, &square_avg, "mul_", vec![Value::Float(alpha)], vec![])?;
            call_method(
                ev,
                &scaled,
                "addcmul_",
                vec![grad.clone(), grad.clone()],
                vec![("value", Value::Float(1.0 - alpha))],
            )?;
            let avg = if centered {
                let grad_avg = get(entries, "grad_avg");
                call_method(
                    ev,
                    &grad_avg,
                    "lerp_",
                    vec![grad.clone(), Value::Float(1.0 - alpha)],
                    vec![],
                )?;
                let centered = call_method(
                    ev,
                    &square_avg,
                    "addcmul",
                    vec![grad_avg.clone(), grad_avg],
                    vec![("value", Value::Int(-1))],
                )?;
                call_method(ev, &centered, "sqrt_", vec![], vec![])?
            } else {
                call_method(ev, &square_avg, "sqrt", vec![], vec![])?
            };
            drop(bound.replace(avg.clone()));
            let avg = call_method(ev, &avg, "add_", vec![Value::Float(eps)], vec![])?;
            if has_momentum {
                let buf = get(entries, "momentum_buffer");
                let scaled = call_method(ev, &buf, "mul_", vec![Value::Float(momentum)], vec![])?;
                call_method(ev, &scaled, "addcdiv_", vec![grad, avg], vec![])?;
                call_method(
                    ev,
                    &param,
                    "add_",
                    vec![buf],
                    vec![("alpha", Value::Float(-lr))],
                )?;
            } else {
                call_method(
                    ev,
                    &param,
                    "addcdiv_",
                    vec![grad, avg],
                    vec![("value", Value::Float(-lr))],
                )?;
            }
        }
    }
    Ok(state)
}

fn adagrad_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "params, lr=0.01, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None",
        "Adagrad.__init__",
        &pos,
        &kw,
    )?;
    let lr = arg(&args, "lr");
    check_tensor_lr(&lr)?;
    check_at_least_zero(ev, "Invalid learning rate", &lr)?;
    check_at_least_zero(ev, "Invalid lr_decay value", &arg(&args, "lr_decay"))?;
    check_at_least_zero(
        ev,
        "Invalid weight_decay value",
        &arg(&args, "weight_decay"),
    )?;
    let initial = arg(&args, "initial_accumulator_value");
    check_at_least_zero(ev, "Invalid initial_accumulator_value value", &initial)?;
    check_at_least_zero(ev, "Invalid epsilon value", &arg(&args, "eps"))?;
    let defaults = defaults_of(
        &args,
        &[
            "lr",
            "lr_decay",
            "eps",
            "weight_decay",
            "initial_accumulator_value",
            "foreach",
            "maximize",
            "differentiable",
            "fused",
        ],
    );
    setup(ev, o, arg(&args, "params"), defaults)?;
    check_fused(ev, &args)?;
    let mut state = match attr(o, "state") {
        Value::Dict(d) => d,
        _ => Vec::new(),
    };
    for group in param_groups(o) {
        for p in group_params(&group) {
            real(&p, "Adagrad")?;
            let mut entries = param_state(&state, &p).unwrap_or_default();
            put(&mut entries, "step", step_tensor(ev, 0.0)?);
            put(&mut entries, "sum", full_like(ev, &p, &initial)?);
            set_param_state(&mut state, &p, entries);
        }
    }
    set_attr(o, "state", Value::Dict(state));
    Ok(())
}

/// `torch.full_like(p, value, memory_format=torch.preserve_format)`.
fn full_like(ev: &mut Evaluator, p: &TensorRef, value: &Value) -> R<Value> {
    call_torch(
        ev,
        "full_like",
        vec![Value::Tensor(Rc::clone(p)), value.clone()],
        vec![(
            "memory_format",
            Value::MemoryFormat(crate::core::tensor::MemoryFormat::Preserve),
        )],
    )
}

/// `Adagrad.step`'s update: `_init_group`, then `_single_tensor_adagrad`.
fn adagrad(ev: &mut Evaluator, o: &Rc<Instance>, mut state: Entries) -> R<Entries> {
    let initial = match attr(o, "defaults") {
        Value::Dict(d) => get(&d, "initial_accumulator_value"),
        _ => Value::Int(0),
    };
    for group in param_groups(o) {
        let params = with_grads(&group);
        let mut slots = Vec::with_capacity(params.len());
        for (p, _) in &params {
            real(p, "Adagrad")?;
            let mut entries = param_state(&state, p).unwrap_or_default();
            if entries.is_empty() {
                put(&mut entries, "step", step_tensor(ev, 0.0)?);
                put(&mut entries, "sum", full_like(ev, p, &initial)?);
            }
            slots.push(entries.clone());
            set_param_state(&mut state, p, entries);
        }
        let lr = number(ev, &option(&group, "lr")?)?;
        let weight_decay = number(ev, &option(&group, "weight_decay")?)?;
        let lr_decay = number(ev, &option(&group, "lr_decay")?)?;
        let eps = number(ev, &option(&group, "eps")?)?;
        let maximize = flag(ev, &option(&group, "maximize")?)?;
        // Python's `std` of the previous parameter: freed when the next `std` is bound.
        let mut bound: Option<Value> = None;
        // Python's `grad`: the previous parameter's is freed by the `for` rebinding it.
        let mut held: Option<Value> = None;
        for ((p, grad), entries) in params.iter().zip(&slots) {
            ev.count_step()?;
            drop(held.take());
            let param = Value::Tensor(Rc::clone(p));
            let step_t = get(entries, "step");
            call_method(ev, &step_t, "add_", vec![Value::Int(1)], vec![])?;
            let step_value = call_method(ev, &step_t, "item", vec![], vec![])?;
            let step = number(ev, &step_value)?;
            let mut grad = Value::Tensor(Rc::clone(grad));
            if maximize {
                grad = call_method(ev, &grad, "neg", vec![], vec![])?;
            }
            drop(held.replace(grad.clone()));
            if weight_decay != 0.0 {
                grad = call_method(
                    ev,
                    &grad,
                    "add",
                    vec![param.clone()],
                    vec![("alpha", Value::Float(weight_decay))],
                )?;
                drop(held.replace(grad.clone()));
            }
            let divisor = 1.0 + (step - 1.0) * lr_decay;
            if divisor == 0.0 {
                return Err(ScriptError::ZeroDivision("float division by zero".into()));
            }
            let clr = lr / divisor;
            let state_sum = get(entries, "sum");
            call_method(
                ev,
                &state_sum,
                "addcmul_",
                vec![grad.clone(), grad.clone()],
                vec![("value", Value::Int(1))],
            )?;
            let root = call_method(ev, &state_sum, "sqrt", vec![], vec![])?;
            let std = call_method(ev, &root, "add_", vec![Value::Float(eps)], vec![])?;
            drop(bound.replace(std.clone()));
            call_method(
                ev,
                &param,
                "addcdiv_",
                vec![grad, std],
                vec![("value", Value::Float(-clr))],
            )?;
        }
    }
    Ok(state)
}
