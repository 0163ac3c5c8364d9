//! The normalization layers: `BatchNorm1d/2d/3d` (`torch/nn/modules/batchnorm.py`, with
//! running statistics, momentum and `num_batches_tracked`), `InstanceNorm1d/2d/3d`
//! (`instancenorm.py`: the same `_NormBase`, forwarding to `F.instance_norm`), `LayerNorm` and
//! `GroupNorm` and `LocalResponseNorm` (`normalization.py`).

use std::rc::Rc;

use crate::core::tensor::{DType, ScriptError};
use crate::interp::torch::nn::layers::{
    attr, check_device, dtype_arg, fmt, functional, init, int_arg, method, no_grad,
    reset_parameters, set_attrs, set_buffer, set_parameter,
};
use crate::interp::torch::nn::module::{arg, bind_python, native_of, ModuleDef};
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// A batch-norm class (an instance-norm one with [`instance_norm_forward`]).
const fn batch_norm(name: &'static str) -> ModuleDef {
    ModuleDef {
        init: Some(batch_norm_init),
        forward: Some(batch_norm_forward),
        extra_repr: Some(|ev, o| {
            Ok(format!(
                "{}, eps={}, momentum={}, affine={}, bias={}, track_running_stats={}",
                fmt(ev, &attr(o, "num_features"))?,
                fmt(ev, &attr(o, "eps"))?,
                fmt(ev, &attr(o, "momentum"))?,
                fmt(ev, &attr(o, "affine"))?,
                uses_bias(o),
                fmt(ev, &attr(o, "track_running_stats"))?
            ))
        }),
        methods: &[
            ("reset_parameters", |ev, o, _, _| {
                batch_norm_reset(ev, o).map(|()| Value::None)
            }),
            ("reset_running_stats", |ev, o, _, _| {
                reset_running_stats(ev, o).map(|()| Value::None)
            }),
        ],
        ..ModuleDef::new(name, "torch.nn.modules.batchnorm")
    }
}

/// An instance-norm class (`_InstanceNorm`, a `_NormBase` as the batch norms are).
const fn instance_norm(name: &'static str) -> ModuleDef {
    ModuleDef {
        forward: Some(instance_norm_forward),
        path: "torch.nn.modules.instancenorm",
        ..batch_norm(name)
    }
}

/// The layer classes of this family.
pub(crate) static MODULES: &[ModuleDef] = &[
    batch_norm("BatchNorm1d"),
    batch_norm("BatchNorm2d"),
    batch_norm("BatchNorm3d"),
    instance_norm("InstanceNorm1d"),
    instance_norm("InstanceNorm2d"),
    instance_norm("InstanceNorm3d"),
    ModuleDef {
        init: Some(layer_norm_init),
        forward: Some(|ev, o, pos, kw| {
            let args = bind_python("input", "LayerNorm.forward", &pos, &kw)?;
            functional(
                ev,
                "layer_norm",
                vec![
                    arg(&args, "input"),
                    attr(o, "normalized_shape"),
                    attr(o, "weight"),
                    attr(o, "bias"),
                    attr(o, "eps"),
                ],
                vec![],
            )
        }),
        extra_repr: Some(|ev, o| {
            Ok(format!(
                "{}, eps={}, elementwise_affine={}, bias={}",
                fmt(ev, &attr(o, "normalized_shape"))?,
                fmt(ev, &attr(o, "eps"))?,
                fmt(ev, &attr(o, "elementwise_affine"))?,
                uses_bias(o)
            ))
        }),
        methods: &[("reset_parameters", |ev, o, _, _| {
            affine_reset(ev, o).map(|()| Value::None)
        })],
        ..ModuleDef::new("LayerNorm", "torch.nn.modules.normalization")
    },
    ModuleDef {
        init: Some(group_norm_init),
        forward: Some(|ev, o, pos, kw| {
            let args = bind_python("input", "GroupNorm.forward", &pos, &kw)?;
            functional(
                ev,
                "group_norm",
                vec![
                    arg(&args, "input"),
                    attr(o, "num_groups"),
                    attr(o, "weight"),
                    attr(o, "bias"),
                    attr(o, "eps"),
                ],
                vec![],
            )
        }),
        extra_repr: Some(|ev, o| {
            Ok(format!(
                "{}, {}, eps={}, affine={}, bias={}",
                fmt(ev, &attr(o, "num_groups"))?,
                fmt(ev, &attr(o, "num_channels"))?,
                fmt(ev, &attr(o, "eps"))?,
                fmt(ev, &attr(o, "affine"))?,
                uses_bias(o)
            ))
        }),
        methods: &[("reset_parameters", |ev, o, _, _| {
            affine_reset(ev, o).map(|()| Value::None)
        })],
        ..ModuleDef::new("GroupNorm", "torch.nn.modules.normalization")
    },
    ModuleDef {
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "size, alpha=0.0001, beta=0.75, k=1.0",
                "LocalResponseNorm.__init__",
                &pos,
                &kw,
            )?;
            ev.module_init(o, &[], &[])?;
            let names = ["size", "alpha", "beta", "k"];
            set_attrs(o, names.iter().map(|n| (*n, arg(&args, n))).collect());
            Ok(())
        }),
        forward: Some(|ev, o, pos, kw| {
            let args = bind_python("input", "LocalResponseNorm.forward", &pos, &kw)?;
            let mut pos = vec![arg(&args, "input")];
            pos.extend(["size", "alpha", "beta", "k"].iter().map(|n| attr(o, n)));
            functional(ev, "local_response_norm", pos, vec![])
        }),
        extra_repr: Some(|ev, o| {
            Ok(format!(
                "{}, alpha={}, beta={}, k={}",
                fmt(ev, &attr(o, "size"))?,
                fmt(ev, &attr(o, "alpha"))?,
                fmt(ev, &attr(o, "beta"))?,
                fmt(ev, &attr(o, "k"))?
            ))
        }),
        ..ModuleDef::new("LocalResponseNorm", "torch.nn.modules.normalization")
    },
];

/// `True` when the layer has a bias (its repr's `bias=`).
fn uses_bias(o: &Rc<Instance>) -> &'static str {
    if matches!(attr(o, "bias"), Value::None) {
        "False"
    } else {
        "True"
    }
}

/// A tensor made by a `torch.` factory (`zeros`, `ones`, `tensor`).
fn factory(ev: &mut Evaluator, name: &str, pos: Vec<Value>, dtype: Option<DType>) -> R<TensorRef> {
    let kw = dtype
        .map(|d| vec![("dtype".to_string(), Value::DType(d))])
        .unwrap_or_default();
    match ev.call(Value::Method(Box::new(Value::Torch), name.into()), pos, kw)? {
        Value::Tensor(t) => Ok(t),
        _ => Err(ScriptError::Runtime(format!("torch.{name} made no tensor"))),
    }
}

fn batch_norm_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let kind = native_of(&o.class).map_or("BatchNorm", |d| d.name);
    let signature = if kind.starts_with("Instance") {
        "num_features, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False, device=None, dtype=None, *, bias=True"
    } else {
        "num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *, bias=True"
    };
    let args = bind_python(signature, &format!("{kind}.__init__"), &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    let names = [
        "num_features",
        "eps",
        "momentum",
        "affine",
        "track_running_stats",
    ];
    set_attrs(o, names.iter().map(|n| (*n, arg(&args, n))).collect());
    check_device(ev, &arg(&args, "device"))?;
    let dtype = dtype_arg(&arg(&args, "dtype"))?;
    let n = int_arg(ev, &arg(&args, "num_features"))?;
    if ev.truthy(&arg(&args, "affine"))? {
        let w = ev.empty_parameter(&[n], dtype)?;
        set_parameter(o, "weight", Some(w));
        let b = if ev.truthy(&arg(&args, "bias"))? {
            Some(ev.empty_parameter(&[n], dtype)?)
        } else {
            None
        };
        set_parameter(o, "bias", b);
    } else {
        set_parameter(o, "weight", None);
        set_parameter(o, "bias", None);
    }
    if ev.truthy(&arg(&args, "track_running_stats"))? {
        let mean = factory(ev, "zeros", vec![Value::Int(n)], dtype)?;
        set_buffer(o, "running_mean", Some(mean));
        let var = factory(ev, "ones", vec![Value::Int(n)], dtype)?;
        set_buffer(o, "running_var", Some(var));
        let count = factory(ev, "tensor", vec![Value::Int(0)], Some(DType::Int64))?;
        set_buffer(o, "num_batches_tracked", Some(count));
    } else {
        set_buffer(o, "running_mean", None);
        set_buffer(o, "running_var", None);
        set_buffer(o, "num_batches_tracked", None);
    }
    reset_parameters(ev, o)
}

fn reset_running_stats(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    if !ev.truthy(&attr(o, "track_running_stats"))? {
        return Ok(());
    }
    no_grad(ev, |ev| {
        method(ev, &attr(o, "running_mean"), "zero_", vec![])?;
        method(ev, &attr(o, "running_var"), "fill_", vec![Value::Int(1)])?;
        method(ev, &attr(o, "num_batches_tracked"), "zero_", vec![])
    })?;
    Ok(())
}

fn batch_norm_reset(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    reset_running_stats(ev, o)?;
    affine_reset(ev, o)
}

/// `ones_(weight)`, `zeros_(bias)` where they exist.
fn affine_reset(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    let weight = attr(o, "weight");
    if !matches!(weight, Value::None) {
        init(ev, "ones_", vec![weight], vec![])?;
    }
    let bias = attr(o, "bias");
    if !matches!(bias, Value::None) {
        init(ev, "zeros_", vec![bias], vec![])?;
    }
    Ok(())
}

fn batch_norm_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let kind = native_of(&o.class).map_or("BatchNorm", |d| d.name);
    let args = bind_python("input", &format!("{kind}.forward"), &pos, &kw)?;
    let input = arg(&args, "input");
    let ndim = match &input {
        Value::Tensor(t) => t.borrow().tensor.ndim(),
        other => {
            return Err(ScriptError::Attribute(format!(
                "'{}' object has no attribute 'dim'",
                other.type_name()
            )))
        }
    };
    match kind {
        "BatchNorm1d" if ndim != 2 && ndim != 3 => {
            return Err(ScriptError::Value(format!(
                "expected 2D or 3D input (got {ndim}D input)"
            )))
        }
        "BatchNorm2d" if ndim != 4 => {
            return Err(ScriptError::Value(format!(
                "expected 4D input (got {ndim}D input)"
            )))
        }
        "BatchNorm3d" if ndim != 5 => {
            return Err(ScriptError::Value(format!(
                "expected 5D input (got {ndim}D input)"
            )))
        }
        _ => {}
    }
    let training = o.module.borrow().as_ref().is_some_and(|s| s.training);
    let track = ev.truthy(&attr(o, "track_running_stats"))?;
    let momentum = attr(o, "momentum");
    let mut factor = match &momentum {
        Value::None => Value::Float(0.0),
        other => other.clone(),
    };
    if training && track {
        let count = attr(o, "num_batches_tracked");
        if !matches!(count, Value::None) {
            no_grad(ev, |ev| method(ev, &count, "add_", vec![Value::Int(1)]))?;
            if matches!(momentum, Value::None) {
                let n = ev.index_int(&count)?;
                factor = Value::Float(1.0 / n as f64);
            }
        }
    }
    let (mean, var) = (attr(o, "running_mean"), attr(o, "running_var"));
    let bn_training = training || (matches!(mean, Value::None) && matches!(var, Value::None));
    let (mean, var) = if !training || track {
        (mean, var)
    } else {
        (Value::None, Value::None)
    };
    functional(
        ev,
        "batch_norm",
        vec![
            input,
            mean,
            var,
            attr(o, "weight"),
            attr(o, "bias"),
            Value::Bool(bn_training),
            factor,
            attr(o, "eps"),
        ],
        vec![],
    )
}

/// `_InstanceNorm.forward`: the dimension checks, the `num_features` check (a warning without
/// affine parameters), an unbatched input through `unsqueeze(0)`, then `F.instance_norm`.
fn instance_norm_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let kind = native_of(&o.class).map_or("InstanceNorm", |d| d.name);
    let args = bind_python("input", &format!("{kind}.forward"), &pos, &kw)?;
    let input = arg(&args, "input");
    let shape = match &input {
        Value::Tensor(t) => t.borrow().tensor.shape().to_vec(),
        other => {
            return Err(ScriptError::Attribute(format!(
                "'{}' object has no attribute 'dim'",
                other.type_name()
            )))
        }
    };
    let ndim = shape.len();
    let no_batch = match kind {
        "InstanceNorm1d" => 2,
        "InstanceNorm3d" => 4,
        _ => 3,
    };
    if ndim != no_batch && ndim != no_batch + 1 {
        return Err(ScriptError::Value(format!(
            "expected {no_batch}D or {}D input (got {ndim}D input)",
            no_batch + 1
        )));
    }
    let feature_dim = ndim - no_batch;
    let features = ev.index_int(&attr(o, "num_features"))?;
    if shape[feature_dim] != features {
        if ev.truthy(&attr(o, "affine"))? {
            return Err(ScriptError::Value(format!(
                "expected input's size at dim={feature_dim} to match num_features ({features}), but got: {}.",
                shape[feature_dim]
            )));
        }
        ev.recorder.warn(format!(
            "UserWarning: input's size at dim={feature_dim} does not match num_features. You can silence this warning by not passing in num_features, which is not used because affine=False"
        ));
    }
    let training = o.module.borrow().as_ref().is_some_and(|s| s.training);
    let track = ev.truthy(&attr(o, "track_running_stats"))?;
    let momentum = match attr(o, "momentum") {
        Value::None => Value::Float(0.0),
        m => m,
    };
    let apply = |ev: &mut Evaluator, input: Value| {
        functional(
            ev,
            "instance_norm",
            vec![
                input,
                attr(o, "running_mean"),
                attr(o, "running_var"),
                attr(o, "weight"),
                attr(o, "bias"),
                Value::Bool(training || !track),
                momentum.clone(),
                attr(o, "eps"),
            ],
            vec![],
        )
    };
    if ndim == no_batch {
        let batched = method(ev, &input, "unsqueeze", vec![Value::Int(0)])?;
        let out = apply(ev, batched)?;
        return method(ev, &out, "squeeze", vec![Value::Int(0)]);
    }
    apply(ev, input)
}

fn layer_norm_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None, dtype=None",
        "LayerNorm.__init__",
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    let shape = match arg(&args, "normalized_shape") {
        Value::Int(n) => vec![n],
        other => ev.int_list(&other, "LayerNorm", "normalized_shape")?,
    };
    let tuple = Value::Tuple(shape.iter().map(|&n| Value::Int(n)).collect());
    set_attrs(
        o,
        vec![
            ("normalized_shape", tuple),
            ("eps", arg(&args, "eps")),
            ("elementwise_affine", arg(&args, "elementwise_affine")),
        ],
    );
    check_device(ev, &arg(&args, "device"))?;
    let dtype = dtype_arg(&arg(&args, "dtype"))?;
    if ev.truthy(&arg(&args, "elementwise_affine"))? {
        let w = ev.empty_parameter(&shape, dtype)?;
        set_parameter(o, "weight", Some(w));
        let b = if ev.truthy(&arg(&args, "bias"))? {
            Some(ev.empty_parameter(&shape, dtype)?)
        } else {
            None
        };
        set_parameter(o, "bias", b);
    } else {
        set_parameter(o, "weight", None);
        set_parameter(o, "bias", None);
    }
    reset_parameters(ev, o)
}

fn group_norm_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None, *, bias=True",
        "GroupNorm.__init__",
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    let groups = int_arg(ev, &arg(&args, "num_groups"))?;
    let channels = int_arg(ev, &arg(&args, "num_channels"))?;
    if groups == 0 || channels % groups != 0 {
        return Err(ScriptError::Value(format!(
            "num_channels ({channels}) must be divisible by num_groups ({groups})"
        )));
    }
    let names = ["num_groups", "num_channels", "eps", "affine"];
    set_attrs(o, names.iter().map(|n| (*n, arg(&args, n))).collect());
    check_device(ev, &arg(&args, "device"))?;
    let dtype = dtype_arg(&arg(&args, "dtype"))?;
    if ev.truthy(&arg(&args, "affine"))? {
        let w = ev.empty_parameter(&[channels], dtype)?;
        set_parameter(o, "weight", Some(w));
        let b = if ev.truthy(&arg(&args, "bias"))? {
            Some(ev.empty_parameter(&[channels], dtype)?)
        } else {
            None
        };
        set_parameter(o, "bias", b);
    } else {
        set_parameter(o, "weight", None);
        set_parameter(o, "bias", None);
    }
    reset_parameters(ev, o)
}
