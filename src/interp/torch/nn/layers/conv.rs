//! The convolutions (`torch/nn/modules/conv.py`: `Conv1d`, `Conv2d`, `ConvTranspose2d`);
//! the pooling layers are in [`crate::interp::torch::nn::layers::pooling`].

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::layers::linear::kaiming_reset;
use crate::interp::torch::nn::layers::{
    attr, check_device, dtype_arg, fmt, functional, int_arg, ntuple, reset_parameters, set_attrs,
    set_parameter,
};
use crate::interp::torch::nn::module::{arg, bind_python, native_of, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

const CONV: &str = "torch.nn.modules.conv";

/// A convolution class.
const fn conv(name: &'static str) -> ModuleDef {
    ModuleDef {
        init: Some(conv_init),
        forward: Some(conv_forward),
        extra_repr: Some(conv_repr),
        methods: &[("reset_parameters", |ev, o, _, _| {
            kaiming_reset(ev, o).map(|()| Value::None)
        })],
        ..ModuleDef::new(name, CONV)
    }
}

/// The layer classes of this family.
pub(crate) static MODULES: &[ModuleDef] =
    &[conv("Conv1d"), conv("Conv2d"), conv("ConvTranspose2d")];

/// The class name of a layer's nearest built-in class.
fn kind(o: &Rc<Instance>) -> &'static str {
    native_of(&o.class).map_or("", |d| d.name)
}

/// The spatial dims of a convolution or pooling class.
fn dims(kind: &str) -> usize {
    if kind.ends_with("1d") {
        1
    } else {
        2
    }
}

fn conv_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let kind = kind(o);
    let transposed = kind.starts_with("ConvTranspose");
    let signature = if transposed {
        "in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros', device=None, dtype=None"
    } else {
        "in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros', device=None, dtype=None"
    };
    let args = bind_python(signature, &format!("{kind}.__init__"), &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    let n = dims(kind);
    let in_channels = int_arg(ev, &arg(&args, "in_channels"))?;
    let out_channels = int_arg(ev, &arg(&args, "out_channels"))?;
    let groups = int_arg(ev, &arg(&args, "groups"))?;
    if groups <= 0 {
        return Err(ScriptError::Value(
            "groups must be a positive integer".into(),
        ));
    }
    if in_channels % groups != 0 {
        return Err(ScriptError::Value(
            "in_channels must be divisible by groups".into(),
        ));
    }
    if out_channels % groups != 0 {
        return Err(ScriptError::Value(
            "out_channels must be divisible by groups".into(),
        ));
    }
    let padding = arg(&args, "padding");
    let stride = ntuple(&arg(&args, "stride"), n);
    if let Value::Str(p) = &padding {
        if p != "valid" && p != "same" {
            return Err(ScriptError::Value(format!(
                "Invalid padding string '{p}', should be one of {{'valid', 'same'}}"
            )));
        }
        if p == "same" {
            let strided = match &stride {
                Value::Tuple(s) => s.iter().any(|v| !matches!(v, Value::Int(1))),
                _ => false,
            };
            if strided {
                return Err(ScriptError::Value(
                    "padding='same' is not supported for strided convolutions".into(),
                ));
            }
        }
    }
    let padding_mode = arg(&args, "padding_mode");
    if !matches!(&padding_mode, Value::Str(m) if ["zeros", "reflect", "replicate", "circular"].contains(&m.as_str()))
    {
        return Err(ScriptError::Value(format!(
            "padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got padding_mode='{}'",
            fmt(ev, &padding_mode)?
        )));
    }
    let kernel = ntuple(&arg(&args, "kernel_size"), n);
    let kernel_dims: Vec<i64> = match &kernel {
        Value::Tuple(items) => items.iter().map(|v| int_arg(ev, v)).collect::<R<_>>()?,
        _ => vec![],
    };
    let output_padding = if transposed {
        ntuple(&arg(&args, "output_padding"), n)
    } else {
        ntuple(&Value::Int(0), n)
    };
    let padding = match padding {
        Value::Str(s) => Value::Str(s),
        other => ntuple(&other, n),
    };
    set_attrs(
        o,
        vec![
            ("in_channels", Value::Int(in_channels)),
            ("out_channels", Value::Int(out_channels)),
            ("kernel_size", kernel),
            ("stride", stride),
            ("padding", padding),
            ("dilation", ntuple(&arg(&args, "dilation"), n)),
            ("transposed", Value::Bool(transposed)),
            ("output_padding", output_padding),
            ("groups", Value::Int(groups)),
            ("padding_mode", padding_mode),
        ],
    );
    check_device(ev, &arg(&args, "device"))?;
    let dtype = dtype_arg(&arg(&args, "dtype"))?;
    let mut shape = if transposed {
        vec![in_channels, out_channels / groups]
    } else {
        vec![out_channels, in_channels / groups]
    };
    shape.extend(kernel_dims);
    let weight = ev.empty_parameter(&shape, dtype)?;
    set_parameter(o, "weight", Some(weight));
    let bias = if ev.truthy(&arg(&args, "bias"))? {
        Some(ev.empty_parameter(&[out_channels], dtype)?)
    } else {
        None
    };
    set_parameter(o, "bias", bias);
    reset_parameters(ev, o)
}

fn conv_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let kind = kind(o);
    let args = bind_python(
        "input, output_size=None",
        &format!("{kind}.forward"),
        &pos,
        &kw,
    )?;
    let input = arg(&args, "input");
    let (weight, bias) = (attr(o, "weight"), attr(o, "bias"));
    if kind.starts_with("ConvTranspose") {
        return functional(
            ev,
            "conv_transpose2d",
            vec![
                input,
                weight,
                bias,
                attr(o, "stride"),
                attr(o, "padding"),
                attr(o, "output_padding"),
                attr(o, "groups"),
                attr(o, "dilation"),
            ],
            vec![],
        );
    }
    let function = if dims(kind) == 1 { "conv1d" } else { "conv2d" };
    functional(
        ev,
        function,
        vec![
            input,
            weight,
            bias,
            attr(o, "stride"),
            attr(o, "padding"),
            attr(o, "dilation"),
            attr(o, "groups"),
        ],
        vec![],
    )
}

/// Whether a tuple attribute is all `value` (`(0, 0)`).
fn all_equal(v: &Value, value: i64) -> bool {
    match v {
        Value::Tuple(items) => items
            .iter()
            .all(|x| matches!(x, Value::Int(i) if *i == value)),
        _ => false,
    }
}

fn conv_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let mut s = format!(
        "{}, {}, kernel_size={}, stride={}",
        fmt(ev, &attr(o, "in_channels"))?,
        fmt(ev, &attr(o, "out_channels"))?,
        fmt(ev, &attr(o, "kernel_size"))?,
        fmt(ev, &attr(o, "stride"))?
    );
    let padding = attr(o, "padding");
    if !all_equal(&padding, 0) {
        s.push_str(&format!(", padding={}", fmt(ev, &padding)?));
    }
    let dilation = attr(o, "dilation");
    if !all_equal(&dilation, 1) {
        s.push_str(&format!(", dilation={}", fmt(ev, &dilation)?));
    }
    let output_padding = attr(o, "output_padding");
    if !all_equal(&output_padding, 0) {
        s.push_str(&format!(", output_padding={}", fmt(ev, &output_padding)?));
    }
    if !matches!(attr(o, "groups"), Value::Int(1)) {
        s.push_str(&format!(", groups={}", fmt(ev, &attr(o, "groups"))?));
    }
    if matches!(attr(o, "bias"), Value::None) {
        s.push_str(", bias=False");
    }
    let mode = attr(o, "padding_mode");
    if !matches!(&mode, Value::Str(m) if m == "zeros") {
        s.push_str(&format!(", padding_mode={}", fmt(ev, &mode)?));
    }
    Ok(s)
}
