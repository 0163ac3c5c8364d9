//! `Linear`, `Bilinear` (`torch/nn/modules/linear.py`), `Embedding` (`sparse.py`),
//! `Dropout` (`dropout.py`), `Flatten` and `Unflatten` (`flatten.py`).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::layers::{
    attr, dtype_arg, fmt, functional, init, int_arg, method, no_grad, reset_parameters, set_attrs,
    set_parameter,
};
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// The layer classes of this family.
pub(crate) static MODULES: &[ModuleDef] = &[
    ModuleDef {
        init: Some(linear_init),
        forward: Some(|ev, o, pos, kw| {
            let args = bind_python("input", "Linear.forward", &pos, &kw)?;
            functional(
                ev,
                "linear",
                vec![arg(&args, "input"), attr(o, "weight"), attr(o, "bias")],
                vec![],
            )
        }),
        extra_repr: Some(|ev, o| {
            Ok(format!(
                "in_features={}, out_features={}, bias={}",
                fmt(ev, &attr(o, "in_features"))?,
                fmt(ev, &attr(o, "out_features"))?,
                if matches!(attr(o, "bias"), Value::None) {
                    "False"
                } else {
                    "True"
                }
            ))
        }),
        methods: &[("reset_parameters", |ev, o, _, _| {
            linear_reset(ev, o).map(|()| Value::None)
        })],
        ..ModuleDef::new("Linear", "torch.nn.modules.linear")
    },
    ModuleDef {
        init: Some(bilinear_init),
        forward: Some(|ev, o, pos, kw| {
            let args = bind_python("input1, input2", "Bilinear.forward", &pos, &kw)?;
            functional(
                ev,
                "bilinear",
                vec![
                    arg(&args, "input1"),
                    arg(&args, "input2"),
                    attr(o, "weight"),
                    attr(o, "bias"),
                ],
                vec![],
            )
        }),
        extra_repr: Some(|ev, o| {
            Ok(format!(
                "in1_features={}, in2_features={}, out_features={}, bias={}",
                fmt(ev, &attr(o, "in1_features"))?,
                fmt(ev, &attr(o, "in2_features"))?,
                fmt(ev, &attr(o, "out_features"))?,
                if matches!(attr(o, "bias"), Value::None) {
                    "False"
                } else {
                    "True"
                }
            ))
        }),
        methods: &[("reset_parameters", |ev, o, _, _| {
            bilinear_reset(ev, o).map(|()| Value::None)
        })],
        ..ModuleDef::new("Bilinear", "torch.nn.modules.linear")
    },
    ModuleDef {
        init: Some(embedding_init),
        forward: Some(|ev, o, pos, kw| {
            let args = bind_python("input", "Embedding.forward", &pos, &kw)?;
            functional(
                ev,
                "embedding",
                vec![arg(&args, "input"), attr(o, "weight")],
                vec![
                    ("padding_idx".into(), attr(o, "padding_idx")),
                    ("max_norm".into(), attr(o, "max_norm")),
                    ("norm_type".into(), attr(o, "norm_type")),
                    ("scale_grad_by_freq".into(), attr(o, "scale_grad_by_freq")),
                    ("sparse".into(), attr(o, "sparse")),
                ],
            )
        }),
        extra_repr: Some(embedding_repr),
        class_methods: &[("from_pretrained", from_pretrained)],
        methods: &[("reset_parameters", |ev, o, _, _| {
            embedding_reset(ev, o).map(|()| Value::None)
        })],
        ..ModuleDef::new("Embedding", "torch.nn.modules.sparse")
    },
    dropout("Dropout", "dropout"),
    dropout("Dropout1d", "dropout1d"),
    dropout("Dropout2d", "dropout2d"),
    ModuleDef {
        init: Some(|ev, o, pos, kw| {
            let args = bind_python("start_dim=1, end_dim=-1", "Flatten.__init__", &pos, &kw)?;
            ev.module_init(o, &[], &[])?;
            set_attrs(
                o,
                vec![
                    ("start_dim", arg(&args, "start_dim")),
                    ("end_dim", arg(&args, "end_dim")),
                ],
            );
            Ok(())
        }),
        forward: Some(|ev, o, pos, kw| {
            let args = bind_python("input", "Flatten.forward", &pos, &kw)?;
            method(
                ev,
                &arg(&args, "input"),
                "flatten",
                vec![attr(o, "start_dim"), attr(o, "end_dim")],
            )
        }),
        extra_repr: Some(|ev, o| {
            Ok(format!(
                "start_dim={}, end_dim={}",
                fmt(ev, &attr(o, "start_dim"))?,
                fmt(ev, &attr(o, "end_dim"))?
            ))
        }),
        ..ModuleDef::new("Flatten", "torch.nn.modules.flatten")
    },
    ModuleDef {
        init: Some(|ev, o, pos, kw| {
            let args = bind_python("dim, unflattened_size", "Unflatten.__init__", &pos, &kw)?;
            ev.module_init(o, &[], &[])?;
            set_attrs(
                o,
                vec![
                    ("dim", arg(&args, "dim")),
                    ("unflattened_size", arg(&args, "unflattened_size")),
                ],
            );
            Ok(())
        }),
        forward: Some(|ev, o, pos, kw| {
            let args = bind_python("input", "Unflatten.forward", &pos, &kw)?;
            method(
                ev,
                &arg(&args, "input"),
                "unflatten",
                vec![attr(o, "dim"), attr(o, "unflattened_size")],
            )
        }),
        extra_repr: Some(|ev, o| {
            Ok(format!(
                "dim={}, unflattened_size={}",
                fmt(ev, &attr(o, "dim"))?,
                fmt(ev, &attr(o, "unflattened_size"))?
            ))
        }),
        ..ModuleDef::new("Unflatten", "torch.nn.modules.flatten")
    },
];

/// A dropout layer class calling `F.<function>`.
const fn dropout(name: &'static str, _function: &'static str) -> ModuleDef {
    ModuleDef {
        init: Some(dropout_init),
        forward: Some(dropout_forward),
        extra_repr: Some(|ev, o| {
            Ok(format!(
                "p={}, inplace={}",
                fmt(ev, &attr(o, "p"))?,
                fmt(ev, &attr(o, "inplace"))?
            ))
        }),
        ..ModuleDef::new(name, "torch.nn.modules.dropout")
    }
}

fn dropout_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let what = format!("{}.__init__", o.class.name);
    let args = bind_python("p=0.5, inplace=False", &what, &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    let p = arg(&args, "p");
    let value = match &p {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => 0.5,
    };
    if !(0.0..=1.0).contains(&value) {
        return Err(ScriptError::Value(format!(
            "dropout probability has to be between 0 and 1, but got {}",
            fmt(ev, &p)?
        )));
    }
    set_attrs(o, vec![("p", p), ("inplace", arg(&args, "inplace"))]);
    Ok(())
}

fn dropout_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("input", &format!("{}.forward", o.class.name), &pos, &kw)?;
    let function = match crate::interp::torch::nn::module::native_of(&o.class).map(|d| d.name) {
        Some("Dropout1d") => "dropout1d",
        Some("Dropout2d") => "dropout2d",
        _ => "dropout",
    };
    let training = Value::Bool(o.module.borrow().as_ref().is_some_and(|s| s.training));
    functional(
        ev,
        function,
        vec![
            arg(&args, "input"),
            attr(o, "p"),
            training,
            attr(o, "inplace"),
        ],
        vec![],
    )
}

fn linear_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "in_features, out_features, bias=True, device=None, dtype=None",
        "Linear.__init__",
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    let (inputs, outputs) = (arg(&args, "in_features"), arg(&args, "out_features"));
    set_attrs(
        o,
        vec![
            ("in_features", inputs.clone()),
            ("out_features", outputs.clone()),
        ],
    );
    let dtype = dtype_arg(&arg(&args, "dtype"))?;
    let (n_in, n_out) = (int_arg(ev, &inputs)?, int_arg(ev, &outputs)?);
    crate::interp::torch::nn::layers::check_device(ev, &arg(&args, "device"))?;
    let weight = ev.empty_parameter(&[n_out, n_in], dtype)?;
    set_parameter(o, "weight", Some(weight));
    let bias = if ev.truthy(&arg(&args, "bias"))? {
        Some(ev.empty_parameter(&[n_out], dtype)?)
    } else {
        None
    };
    set_parameter(o, "bias", bias);
    reset_parameters(ev, o)
}

/// The fan-in of a weight (`_calculate_fan_in_and_fan_out`): its second dim times its
/// receptive field.
fn fan_in(weight: &Value) -> i64 {
    match weight {
        Value::Tensor(t) => {
            let shape = t.borrow().tensor.shape().to_vec();
            shape.get(1).copied().unwrap_or(0) * shape.iter().skip(2).product::<i64>()
        }
        _ => 0,
    }
}

/// `kaiming_uniform_(weight, a=sqrt(5))`, then the bias uniform in `±1/sqrt(fan_in)`: the
/// `reset_parameters` of `Linear` and the convolutions.
pub(crate) fn kaiming_reset(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    let weight = attr(o, "weight");
    init(
        ev,
        "kaiming_uniform_",
        vec![weight.clone()],
        vec![("a".into(), Value::Float(5f64.sqrt()))],
    )?;
    let bias = attr(o, "bias");
    if !matches!(bias, Value::None) {
        let fan = fan_in(&weight);
        let bound = if fan > 0 {
            1.0 / (fan as f64).sqrt()
        } else {
            0.0
        };
        init(
            ev,
            "uniform_",
            vec![bias, Value::Float(-bound), Value::Float(bound)],
            vec![],
        )?;
    }
    Ok(())
}

fn linear_reset(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    kaiming_reset(ev, o)
}

fn bilinear_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "in1_features, in2_features, out_features, bias=True, device=None, dtype=None",
        "Bilinear.__init__",
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    let names = ["in1_features", "in2_features", "out_features"];
    set_attrs(o, names.iter().map(|n| (*n, arg(&args, n))).collect());
    let dtype = dtype_arg(&arg(&args, "dtype"))?;
    let dims: Vec<i64> = names
        .iter()
        .map(|n| int_arg(ev, &arg(&args, n)))
        .collect::<R<_>>()?;
    let weight = ev.empty_parameter(&[dims[2], dims[0], dims[1]], dtype)?;
    set_parameter(o, "weight", Some(weight));
    let bias = if ev.truthy(&arg(&args, "bias"))? {
        Some(ev.empty_parameter(&[dims[2]], dtype)?)
    } else {
        None
    };
    set_parameter(o, "bias", bias);
    reset_parameters(ev, o)
}

fn bilinear_reset(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    let weight = attr(o, "weight");
    let size1 = match &weight {
        Value::Tensor(t) => t.borrow().tensor.shape().get(1).copied().unwrap_or(1),
        _ => 1,
    };
    let bound = 1.0 / (size1 as f64).sqrt();
    init(
        ev,
        "uniform_",
        vec![weight, Value::Float(-bound), Value::Float(bound)],
        vec![],
    )?;
    let bias = attr(o, "bias");
    if !matches!(bias, Value::None) {
        init(
            ev,
            "uniform_",
            vec![bias, Value::Float(-bound), Value::Float(bound)],
            vec![],
        )?;
    }
    Ok(())
}

fn embedding_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None",
        "Embedding.__init__",
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    let num = arg(&args, "num_embeddings");
    let n = int_arg(ev, &num)?;
    let dim = int_arg(ev, &arg(&args, "embedding_dim"))?;
    let padding = match arg(&args, "padding_idx") {
        Value::None => Value::None,
        v => {
            let p = int_arg(ev, &v)?;
            if p >= n || p < -n {
                let message = "Padding_idx must be within num_embeddings";
                return Err(ScriptError::Other {
                    class: "AssertionError".into(),
                    message: message.into(),
                });
            }
            Value::Int(if p < 0 { p + n } else { p })
        }
    };
    set_attrs(
        o,
        vec![
            ("num_embeddings", num),
            ("embedding_dim", arg(&args, "embedding_dim")),
            ("padding_idx", padding),
            ("max_norm", arg(&args, "max_norm")),
            ("norm_type", arg(&args, "norm_type")),
            ("scale_grad_by_freq", arg(&args, "scale_grad_by_freq")),
        ],
    );
    let dtype = dtype_arg(&arg(&args, "dtype"))?;
    match arg(&args, "_weight") {
        Value::None => {
            let weight = ev.empty_parameter(&[n, dim], dtype)?;
            set_parameter(o, "weight", Some(weight));
            reset_parameters(ev, o)?;
        }
        Value::Tensor(t) => {
            let freeze = ev.truthy(&arg(&args, "_freeze"))?;
            if let Value::Tensor(p) = ev.make_parameter(&t, !freeze)? {
                set_parameter(o, "weight", Some(p));
            }
        }
        other => {
            return Err(ScriptError::Type(format!(
                "_weight must be a Tensor, not {}",
                other.type_name()
            )))
        }
    }
    set_attrs(o, vec![("sparse", arg(&args, "sparse"))]);
    Ok(())
}

fn embedding_reset(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    init(ev, "normal_", vec![attr(o, "weight")], vec![])?;
    if let Value::Int(p) = attr(o, "padding_idx") {
        let weight = attr(o, "weight");
        no_grad(ev, |ev| {
            let row = ev.get_item(weight.clone(), &Value::Int(p))?;
            method(ev, &row, "fill_", vec![Value::Int(0)])
        })?;
    }
    Ok(())
}

fn embedding_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let mut s = format!(
        "{}, {}",
        fmt(ev, &attr(o, "num_embeddings"))?,
        fmt(ev, &attr(o, "embedding_dim"))?
    );
    let padding = attr(o, "padding_idx");
    if !matches!(padding, Value::None) {
        s.push_str(&format!(", padding_idx={}", fmt(ev, &padding)?));
    }
    let max_norm = attr(o, "max_norm");
    if !matches!(max_norm, Value::None) {
        s.push_str(&format!(", max_norm={}", fmt(ev, &max_norm)?));
    }
    let norm_type = attr(o, "norm_type");
    if !matches!(norm_type, Value::Float(f) if f == 2.0) {
        s.push_str(&format!(", norm_type={}", fmt(ev, &norm_type)?));
    }
    if ev.truthy(&attr(o, "scale_grad_by_freq"))? {
        s.push_str(", scale_grad_by_freq=True");
    }
    if ev.truthy(&attr(o, "sparse"))? {
        s.push_str(", sparse=True");
    }
    Ok(s)
}

/// `Embedding.from_pretrained(embeddings, freeze=True, padding_idx=None, ...)`: a layer
/// whose weight is a `Parameter` viewing `embeddings` (no generator draw).
fn from_pretrained(
    ev: &mut Evaluator,
    class: &Rc<crate::interp::value::ClassObject>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False",
        "Embedding.from_pretrained",
        &pos,
        &kw,
    )?;
    let embeddings = arg(&args, "embeddings");
    let shape = match &embeddings {
        Value::Tensor(t) => t.borrow().tensor.shape().to_vec(),
        _ => Vec::new(),
    };
    if shape.len() != 2 {
        return Err(ScriptError::Other {
            class: "AssertionError".into(),
            message: "Embeddings parameter is expected to be 2-dimensional".into(),
        });
    }
    let mut kw: Vec<(String, Value)> = [
        "padding_idx",
        "max_norm",
        "norm_type",
        "scale_grad_by_freq",
        "sparse",
    ]
    .iter()
    .map(|n| (n.to_string(), arg(&args, n)))
    .collect();
    kw.push(("_weight".into(), embeddings));
    kw.push(("_freeze".into(), arg(&args, "freeze")));
    ev.call(
        Value::Class(Rc::clone(class)),
        vec![Value::Int(shape[0]), Value::Int(shape[1])],
        kw,
    )
}
