//! `Softmax2d` and `PReLU` (`torch/nn/modules/activation.py`). `Softmax2d` is `softmax`
//! over the channels (`dim=-3`) of a 3-D or 4-D input. `PReLU` holds a learnable slope per
//! channel (`weight`, `num_parameters` of them, all `init` after `reset_parameters`), and its
//! forward is `relu(x) - weight * relu(-x)` with the slope along dim 1: for `x >= 0` that is
//! `x`, for `x < 0` exactly `weight * x` (as ATen's `prelu`; autograd records the pieces).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::layers::{
    attr, check_device, dtype_arg, fmt, functional, init, int_arg, method, set_attrs, set_parameter,
};
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// The layer classes of this file.
pub(crate) static MODULES: &[ModuleDef] = &[
    ModuleDef {
        init: Some(|ev, o, pos, kw| {
            bind_python("", "Softmax2d.__init__", &pos, &kw)?;
            ev.module_init(o, &[], &[])
        }),
        forward: Some(softmax2d_forward),
        ..ModuleDef::new("Softmax2d", "torch.nn.modules.activation")
    },
    ModuleDef {
        init: Some(prelu_init),
        forward: Some(prelu_forward),
        extra_repr: Some(|ev, o| {
            Ok(format!(
                "num_parameters={}",
                fmt(ev, &attr(o, "num_parameters"))?
            ))
        }),
        methods: &[("reset_parameters", |ev, o, _, _| {
            prelu_reset(ev, o).map(|()| Value::None)
        })],
        ..ModuleDef::new("PReLU", "torch.nn.modules.activation")
    },
];

fn softmax2d_forward(
    ev: &mut Evaluator,
    _: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("input", "Softmax2d.forward", &pos, &kw)?;
    let input = arg(&args, "input");
    let rank = input.as_tensor().map_or(0, |t| t.shape().len());
    if rank != 3 && rank != 4 {
        return Err(ScriptError::Value(format!(
            "Softmax2d: expected input to be 3D or 4D, got {rank}D instead"
        )));
    }
    functional(
        ev,
        "softmax",
        vec![input],
        vec![("dim".into(), Value::Int(-3))],
    )
}

fn prelu_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "num_parameters=1, init=0.25, device=None, dtype=None",
        "PReLU.__init__",
        &pos,
        &kw,
    )?;
    let n = int_arg(ev, &arg(&args, "num_parameters"))?;
    ev.module_init(o, &[], &[])?;
    set_attrs(
        o,
        vec![
            ("num_parameters", Value::Int(n)),
            ("init", arg(&args, "init")),
        ],
    );
    check_device(ev, &arg(&args, "device"))?;
    let dtype = dtype_arg(&arg(&args, "dtype"))?;
    let weight = ev.empty_parameter(&[n], dtype)?;
    set_parameter(o, "weight", Some(weight));
    prelu_reset(ev, o)
}

/// `reset_parameters`: every slope `init`.
fn prelu_reset(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    let value = match attr(o, "init") {
        Value::Int(i) => Value::Float(i as f64),
        v => v,
    };
    init(ev, "constant_", vec![attr(o, "weight"), value], vec![])?;
    Ok(())
}

fn prelu_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("input", "PReLU.forward", &pos, &kw)?;
    let input = arg(&args, "input");
    let rank = input.as_tensor().map_or(0, |t| t.shape().len());
    let mut weight = attr(o, "weight");
    let n = weight.as_tensor().map_or(1, |t| t.numel());
    if n > 1 && rank >= 2 {
        let mut dims = vec![Value::Int(n)];
        dims.extend(std::iter::repeat_n(Value::Int(1), rank - 2));
        weight = method(ev, &weight, "reshape", vec![Value::Tuple(dims)])?;
    }
    let positive = functional(ev, "relu", vec![input.clone()], vec![])?;
    let negated = method(ev, &input, "neg", vec![])?;
    let negative = functional(ev, "relu", vec![negated], vec![])?;
    let scaled = method(ev, &negative, "mul", vec![weight])?;
    method(ev, &positive, "sub", vec![scaled])
}
