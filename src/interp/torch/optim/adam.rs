//! `torch.optim.Adam` and `torch.optim.AdamW` (`torch/optim/adam.py`, `adamw.py`): the
//! constructors' checks and defaults, and `_single_tensor_adam` (the `step` a float32
//! tensor in the state, `exp_avg.lerp_`, `exp_avg_sq.mul_().addcmul_()`, the bias
//! corrections as Python floats from `step.item()`, `param.addcdiv_`), with AMSGrad,
//! maximize, and coupled (Adam) or decoupled (AdamW) weight decay.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::optimizer::{
    option, param_state, run_step, set_param_state, setup, step_tensor, with_grads, zeros_like,
    Entries,
};
use crate::interp::torch::optim::sgd::{check_fused, check_tensor_lr, defaults_of};
use crate::interp::torch::optim::{
    call_method, call_torch, check_at_least_zero, flag, get, invalid, number, param_groups, put,
};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// `Adam` and `AdamW`.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        class_methods: &[],
        name: "Adam",
        path: "torch.optim.adam",
        base: Some("Optimizer"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "params, lr=0.001, betas=None, eps=1e-08, weight_decay=0, amsgrad=False, *, foreach=None, maximize=False, capturable=False, differentiable=False, fused=None, decoupled_weight_decay=False",
                "Adam.__init__",
                &pos,
                &kw,
            )?;
            let args = with_default_betas(args, &pos, &kw);
            init(ev, o, args)
        }),
        forward: None,
        extra_repr: None,
        methods: &[("step", |ev, o, pos, kw| run_step(ev, o, pos, kw, update))],
    },
    ModuleDef {
        class_methods: &[],
        name: "AdamW",
        path: "torch.optim.adamw",
        base: Some("Adam"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "params, lr=0.001, betas=None, eps=1e-08, weight_decay=0.01, amsgrad=False, *, maximize=False, foreach=None, capturable=False, differentiable=False, fused=None",
                "AdamW.__init__",
                &pos,
                &kw,
            )?;
            let mut args = with_default_betas(args, &pos, &kw);
            args.push(("decoupled_weight_decay".into(), Value::Bool(true)));
            init(ev, o, args)
        }),
        forward: None,
        extra_repr: None,
        methods: &[],
    },
];

/// What `Adam.__setstate__` adds to a loaded group that lacks it.
pub(crate) fn setstate_options() -> Vec<(&'static str, Value)> {
    vec![
        ("amsgrad", Value::Bool(false)),
        ("maximize", Value::Bool(false)),
        ("foreach", Value::None),
        ("capturable", Value::Bool(false)),
        ("differentiable", Value::Bool(false)),
        ("decoupled_weight_decay", Value::Bool(false)),
        ("fused", Value::None),
    ]
}

/// `betas=(0.9, 0.999)` where the call gave none (the third positional parameter).
pub(crate) fn with_default_betas(
    mut args: Vec<(String, Value)>,
    pos: &[Value],
    kw: &[(String, Value)],
) -> Vec<(String, Value)> {
    let given = pos.len() > 2 || kw.iter().any(|(k, _)| k == "betas");
    if !given {
        if let Some(slot) = args.iter_mut().find(|(n, _)| n == "betas") {
            slot.1 = Value::Tuple(vec![Value::Float(0.9), Value::Float(0.999)]);
        }
    }
    args
}

/// `betas[i]`, as Python indexes it.
pub(crate) fn beta(ev: &mut Evaluator, betas: &Value, i: i64) -> R<Value> {
    ev.get_item(betas.clone(), &Value::Int(i))
}

fn init(ev: &mut Evaluator, o: &Rc<Instance>, args: Vec<(String, Value)>) -> R<()> {
    let lr = arg(&args, "lr");
    let foreach = flag(ev, &arg(&args, "foreach"))?;
    let capturable = flag(ev, &arg(&args, "capturable"))?;
    if let Value::Tensor(_) = lr {
        if foreach && !capturable {
            return Err(ScriptError::Value(
                "lr as a Tensor is not supported for capturable=False and foreach=True".into(),
            ));
        }
        check_tensor_lr(&lr)?;
    }
    check_at_least_zero(ev, "Invalid learning rate", &lr)?;
    check_at_least_zero(ev, "Invalid epsilon value", &arg(&args, "eps"))?;
    let betas = arg(&args, "betas");
    let b0 = beta(ev, &betas, 0)?;
    let b1 = beta(ev, &betas, 1)?;
    for (i, b) in [&b0, &b1].into_iter().enumerate() {
        let low = ev.binary(BinOp::Le, Value::Float(0.0), b.clone())?;
        let ok = ev.truthy(&low)? && {
            let high = ev.binary(BinOp::Lt, b.clone(), Value::Float(1.0))?;
            ev.truthy(&high)?
        };
        if !ok {
            invalid(ev, &format!("Invalid beta parameter at index {i}"), b)?;
        }
    }
    check_at_least_zero(
        ev,
        "Invalid weight_decay value",
        &arg(&args, "weight_decay"),
    )?;
    let both_floats = matches!((&b0, &b1), (Value::Float(_), Value::Float(_)));
    let both_tensors = matches!((&b0, &b1), (Value::Tensor(_), Value::Tensor(_)));
    if !both_floats && !both_tensors {
        return Err(ScriptError::Value(
            "betas must be either both floats or both Tensors".into(),
        ));
    }
    if both_tensors {
        return Err(ScriptError::NotImplemented(
            "Stridescope runs Adam with float betas only".into(),
        ));
    }
    let mut defaults = defaults_of(
        &args,
        &[
            "lr",
            "betas",
            "eps",
            "weight_decay",
            "amsgrad",
            "maximize",
            "foreach",
            "capturable",
            "differentiable",
            "fused",
            "decoupled_weight_decay",
        ],
    );
    put(&mut defaults, "betas", Value::Tuple(vec![b0, b1]));
    setup(ev, o, arg(&args, "params"), defaults)?;
    check_fused(ev, &args)
}

/// The options of one group, as `_single_tensor_adam` receives them.
struct Options {
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    weight_decay: f64,
    amsgrad: bool,
    maximize: bool,
    decoupled: bool,
}

fn options(ev: &mut Evaluator, group: &[(Value, Value)]) -> R<Options> {
    let betas = option(group, "betas")?;
    let (b0, b1) = (beta(ev, &betas, 0)?, beta(ev, &betas, 1)?);
    if flag(ev, &option(group, "capturable")?)? {
        return Err(ScriptError::NotImplemented(
            "Stridescope runs Adam with capturable=False only".into(),
        ));
    }
    Ok(Options {
        lr: number(ev, &option(group, "lr")?)?,
        beta1: number(ev, &b0)?,
        beta2: number(ev, &b1)?,
        eps: number(ev, &option(group, "eps")?)?,
        weight_decay: number(ev, &option(group, "weight_decay")?)?,
        amsgrad: flag(ev, &option(group, "amsgrad")?)?,
        maximize: flag(ev, &option(group, "maximize")?)?,
        decoupled: flag(ev, &option(group, "decoupled_weight_decay")?)?,
    })
}

/// `Adam.step`'s update: `_init_group` (the state made on a parameter's first step), then
/// `_single_tensor_adam`.
fn update(ev: &mut Evaluator, o: &Rc<Instance>, mut state: Entries) -> R<Entries> {
    for group in param_groups(o) {
        let params = with_grads(&group);
        let amsgrad = flag(ev, &option(&group, "amsgrad")?)?;
        let mut slots = Vec::with_capacity(params.len());
        for (p, _) in &params {
            if p.borrow().tensor.dtype.is_complex() {
                return Err(ScriptError::NotImplemented(
                    "Stridescope runs Adam on real parameters only".into(),
                ));
            }
            let mut entries = param_state(&state, p).unwrap_or_default();
            if entries.is_empty() {
                put(&mut entries, "step", step_tensor(ev, 0.0)?);
                put(&mut entries, "exp_avg", zeros_like(ev, p)?);
                put(&mut entries, "exp_avg_sq", zeros_like(ev, p)?);
                if amsgrad {
                    put(&mut entries, "max_exp_avg_sq", zeros_like(ev, p)?);
                }
            }
            slots.push(entries.clone());
            set_param_state(&mut state, p, entries);
        }
        let opts = options(ev, &group)?;
        // Python's `denom` of the previous parameter: freed when the next `denom` is bound.
        let mut bound: Option<Value> = None;
        // Python's `grad`: the previous parameter's is freed when the next one is bound
        // (`grad = grads[i] if not maximize else -grads[i]`: after the negation).
        let mut held: Option<Value> = None;
        for ((p, grad), entries) in params.iter().zip(&slots) {
            ev.count_step()?;
            adam_one(ev, &opts, p, grad, entries, [&mut bound, &mut held])?;
        }
    }
    Ok(state)
}

/// One parameter of `_single_tensor_adam` (capturable and differentiable off).
fn adam_one(
    ev: &mut Evaluator,
    o: &Options,
    p: &crate::interp::value::TensorRef,
    grad: &crate::interp::value::TensorRef,
    entries: &Entries,
    [bound, held]: [&mut Option<Value>; 2],
) -> R<()> {
    let param = Value::Tensor(Rc::clone(p));
    let mut grad = Value::Tensor(Rc::clone(grad));
    if o.maximize {
        grad = call_method(ev, &grad, "neg", vec![], vec![])?;
    }
    drop(held.replace(grad.clone()));
    let (exp_avg, exp_avg_sq) = (get(entries, "exp_avg"), get(entries, "exp_avg_sq"));
    let step_t = get(entries, "step");
    call_method(ev, &step_t, "add_", vec![Value::Int(1)], vec![])?;
    if o.weight_decay != 0.0 {
        if o.decoupled {
            let factor = 1.0 - o.lr * o.weight_decay;
            call_method(ev, &param, "mul_", vec![Value::Float(factor)], vec![])?;
        } else {
            grad = call_method(
                ev,
                &grad,
                "add",
                vec![param.clone()],
                vec![("alpha", Value::Float(o.weight_decay))],
            )?;
            drop(held.replace(grad.clone()));
        }
    }
    // `lerp_`, `addcmul_` and `addcdiv_` are single ATen kernels that allocate nothing.
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
            vec![grad.clone(), grad],
            vec![("value", Value::Float(1.0 - o.beta2))],
        )
    })?;
    let step_value = call_method(ev, &step_t, "item", vec![], vec![])?;
    let step = number(ev, &step_value)?;
    let bias_correction1 = 1.0 - o.beta1.powf(step);
    let bias_correction2 = 1.0 - o.beta2.powf(step);
    if bias_correction1 == 0.0 {
        return Err(ScriptError::ZeroDivision("float division by zero".into()));
    }
    let step_size = o.lr / bias_correction1;
    let bias_correction2_sqrt = bias_correction2.powf(0.5);
    let second = if o.amsgrad {
        let max_sq = get(entries, "max_exp_avg_sq");
        // `torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)`: allocates nothing.
        ev.uncounted(|ev| {
            let larger = call_torch(ev, "maximum", vec![max_sq.clone(), exp_avg_sq], vec![])?;
            call_method(ev, &max_sq, "copy_", vec![larger], vec![])
        })?;
        max_sq
    } else {
        exp_avg_sq
    };
    let root = call_method(ev, &second, "sqrt", vec![], vec![])?;
    let scaled = ev.binary(BinOp::Div, root, Value::Float(bias_correction2_sqrt))?;
    let denom = call_method(ev, &scaled, "add_", vec![Value::Float(o.eps)], vec![])?;
    drop(bound.replace(denom.clone()));
    ev.uncounted(|ev| {
        call_method(
            ev,
            &param,
            "addcdiv_",
            vec![exp_avg, denom],
            vec![("value", Value::Float(-step_size))],
        )
    })?;
    Ok(())
}
