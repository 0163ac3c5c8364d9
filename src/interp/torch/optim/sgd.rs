//! `torch.optim.SGD` (`torch/optim/sgd.py`): its constructor's checks and defaults, and
//! `_single_tensor_sgd` (weight decay, momentum with dampening, Nesterov, maximize).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::optimizer::{
    option, param_state, run_step, set_param_state, setup, with_grads, Entries,
};
use crate::interp::torch::optim::{
    call_method, check_not_negative, flag, get, less, nonzero, number, param_groups,
};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// `SGD`.
pub(crate) static CLASSES: &[ModuleDef] = &[ModuleDef {
    class_methods: &[],
    name: "SGD",
    path: "torch.optim.sgd",
    base: Some("Optimizer"),
    init: Some(init),
    forward: None,
    extra_repr: None,
    methods: &[("step", |ev, o, pos, kw| run_step(ev, o, pos, kw, update))],
}];

/// What `SGD.__setstate__` adds to a loaded group that lacks it.
pub(crate) fn setstate_options() -> Vec<(&'static str, Value)> {
    vec![
        ("nesterov", Value::Bool(false)),
        ("maximize", Value::Bool(false)),
        ("foreach", Value::None),
        ("differentiable", Value::Bool(false)),
        ("fused", Value::Bool(false)),
    ]
}

/// The bound arguments named `keys`, in order, as a `defaults` dict.
pub(crate) fn defaults_of(args: &[(String, Value)], keys: &[&str]) -> Entries {
    keys.iter()
        .map(|k| (Value::Str((*k).into()), arg(args, k)))
        .collect()
}

/// `if isinstance(lr, Tensor) and lr.numel() != 1: raise ValueError(...)`.
pub(crate) fn check_tensor_lr(lr: &Value) -> R<()> {
    if let Value::Tensor(t) = lr {
        if t.borrow().tensor.numel() != 1 {
            return Err(ScriptError::Value("Tensor lr must be 1-element".into()));
        }
    }
    Ok(())
}

/// The checks every optimizer makes after `Optimizer.__init__` when `fused=True`.
pub(crate) fn check_fused(ev: &mut Evaluator, args: &[(String, Value)]) -> R<()> {
    if flag(ev, &arg(args, "fused"))? {
        if flag(ev, &arg(args, "differentiable"))? {
            return Err(ScriptError::Runtime(
                "`fused` does not support `differentiable`".into(),
            ));
        }
        if flag(ev, &arg(args, "foreach"))? {
            return Err(ScriptError::Runtime(
                "`fused` and `foreach` cannot be `True` together.".into(),
            ));
        }
        return Err(ScriptError::NotImplemented(
            "Stridescope runs the single-tensor optimizers only (fused=True is not supported)"
                .into(),
        ));
    }
    Ok(())
}

fn init(ev: &mut Evaluator, o: &Rc<Instance>, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<()> {
    let args = bind_python(
        "params, lr=0.001, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False, foreach=None, differentiable=False, fused=None",
        "SGD.__init__",
        &pos,
        &kw,
    )?;
    let lr = arg(&args, "lr");
    check_tensor_lr(&lr)?;
    check_not_negative(ev, "Invalid learning rate", &lr)?;
    check_not_negative(ev, "Invalid momentum value", &arg(&args, "momentum"))?;
    check_not_negative(
        ev,
        "Invalid weight_decay value",
        &arg(&args, "weight_decay"),
    )?;
    let defaults = defaults_of(
        &args,
        &[
            "lr",
            "momentum",
            "dampening",
            "weight_decay",
            "nesterov",
            "maximize",
            "foreach",
            "differentiable",
            "fused",
        ],
    );
    if flag(ev, &arg(&args, "nesterov"))? {
        let momentum = arg(&args, "momentum");
        let no_momentum = !less(ev, &Value::Int(0), &momentum)?;
        if no_momentum || nonzero(ev, &arg(&args, "dampening"))? {
            return Err(ScriptError::Value(
                "Nesterov momentum requires a momentum and zero dampening".into(),
            ));
        }
    }
    setup(ev, o, arg(&args, "params"), defaults)?;
    check_fused(ev, &args)
}

/// `SGD.step`'s update: `_init_group`, then `_single_tensor_sgd`, then the momentum
/// buffers stored.
fn update(ev: &mut Evaluator, o: &Rc<Instance>, mut state: Entries) -> R<Entries> {
    for group in param_groups(o) {
        let params = with_grads(&group);
        let momentum_value = option(&group, "momentum")?;
        let has_momentum = nonzero(ev, &momentum_value)?;
        let mut buffers = Vec::with_capacity(params.len());
        for (p, _) in &params {
            if has_momentum {
                let entries = param_state(&state, p).unwrap_or_default();
                buffers.push(get(&entries, "momentum_buffer"));
                set_param_state(&mut state, p, entries);
            }
        }
        let weight_decay = number(ev, &option(&group, "weight_decay")?)?;
        let momentum = number(ev, &momentum_value)?;
        let lr = number(ev, &option(&group, "lr")?)?;
        let dampening = number(ev, &option(&group, "dampening")?)?;
        let nesterov = flag(ev, &option(&group, "nesterov")?)?;
        let maximize = flag(ev, &option(&group, "maximize")?)?;
        // Python's `grad`: the previous parameter's is freed when the next one is bound
        // (`grad = grads[i] if not maximize else -grads[i]`: after the negation).
        let mut held: Option<Value> = None;
        for (i, (p, grad)) in params.iter().enumerate() {
            ev.count_step()?;
            let param = Value::Tensor(Rc::clone(p));
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
            if has_momentum {
                let previous = buffers.get(i).cloned().unwrap_or(Value::None);
                let buf = match previous {
                    buf @ Value::Tensor(_) => {
                        let scaled =
                            call_method(ev, &buf, "mul_", vec![Value::Float(momentum)], vec![])?;
                        call_method(
                            ev,
                            &scaled,
                            "add_",
                            vec![grad.clone()],
                            vec![("alpha", Value::Float(1.0 - dampening))],
                        )?;
                        buf
                    }
                    _ => {
                        let detached = call_method(ev, &grad, "detach", vec![], vec![])?;
                        call_method(ev, &detached, "clone", vec![], vec![])?
                    }
                };
                if let Some(slot) = buffers.get_mut(i) {
                    *slot = buf.clone();
                }
                grad = if nesterov {
                    call_method(
                        ev,
                        &grad,
                        "add",
                        vec![buf],
                        vec![("alpha", Value::Float(momentum))],
                    )?
                } else {
                    buf
                };
                drop(held.replace(grad.clone()));
            }
            call_method(
                ev,
                &param,
                "add_",
                vec![grad],
                vec![("alpha", Value::Float(-lr))],
            )?;
        }
        if has_momentum {
            for ((p, _), buf) in params.iter().zip(buffers) {
                let mut entries = param_state(&state, p).unwrap_or_default();
                crate::interp::torch::optim::put(&mut entries, "momentum_buffer", buf);
                set_param_state(&mut state, p, entries);
            }
        }
    }
    Ok(state)
}
