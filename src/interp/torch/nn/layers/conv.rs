//! The convolutions (`torch/nn/modules/conv.py`: `Conv1d/2d/3d`, `ConvTranspose1d/2d/3d`);
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
pub(crate) static MODULES: &[ModuleDef] = &[
    conv("Conv1d"),
    conv("Conv2d"),
    conv("Conv3d"),
    conv("ConvTranspose1d"),
    conv("ConvTranspose2d"),
    conv("ConvTranspose3d"),
];

/// The class name of a layer's nearest built-in class.
fn kind(o: &Rc<Instance>) -> &'static str {
    native_of(&o.class).map_or("", |d| d.name)
}

/// The spatial dims of a convolution class.
fn dims(kind: &str) -> usize {
    if kind.ends_with("1d") {
        1
    } else if kind.ends_with("3d") {
        3
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
    if transposed && !matches!(&arg(&args, "padding_mode"), Value::Str(m) if m == "zeros") {
        return Err(ScriptError::Value(format!(
            "Only \"zeros\" padding mode is supported for {kind}"
        )));
    }
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
    let n = dims(kind);
    let mode = attr(o, "padding_mode");
    let zeros = matches!(&mode, Value::Str(m) if m == "zeros");
    if kind.starts_with("ConvTranspose") {
        if !zeros {
            return Err(ScriptError::Value(format!(
                "Only `zeros` padding mode is supported for {kind}"
            )));
        }
        let output_padding = match arg(&args, "output_size") {
            Value::None => attr(o, "output_padding"),
            size => output_padding(ev, o, &input, &size, n)?,
        };
        return functional(
            ev,
            ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"][n - 1],
            vec![
                input,
                weight,
                bias,
                attr(o, "stride"),
                attr(o, "padding"),
                output_padding,
                attr(o, "groups"),
                attr(o, "dilation"),
            ],
            vec![],
        );
    }
    let function = ["conv1d", "conv2d", "conv3d"][n - 1];
    let (input, padding) = if zeros {
        (input, attr(o, "padding"))
    } else {
        // `F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)`,
        // then the convolution without padding.
        let pads = reversed_padding_repeated_twice(ev, o, n)?;
        let pads = Value::List(pads.into_iter().map(Value::Int).collect());
        let padded = functional(ev, "pad", vec![input, pads], vec![("mode".into(), mode)])?;
        (padded, ntuple(&Value::Int(0), n))
    };
    functional(
        ev,
        function,
        vec![
            input,
            weight,
            bias,
            attr(o, "stride"),
            padding,
            attr(o, "dilation"),
            attr(o, "groups"),
        ],
        vec![],
    )
}

/// The ints of a tuple attribute.
fn tuple_ints(ev: &mut Evaluator, o: &Rc<Instance>, name: &str) -> R<Vec<i64>> {
    match attr(o, name) {
        Value::Tuple(items) | Value::List(items) => items.iter().map(|v| int_arg(ev, v)).collect(),
        other => Ok(vec![int_arg(ev, &other)?]),
    }
}

/// `_ConvNd._reversed_padding_repeated_twice`: each dimension's padding twice, the last
/// dimension first (`padding='same'`: the total `d * (k - 1)` split, the odd one after).
fn reversed_padding_repeated_twice(ev: &mut Evaluator, o: &Rc<Instance>, n: usize) -> R<Vec<i64>> {
    let kernel = tuple_ints(ev, o, "kernel_size")?;
    let mut out = vec![0; 2 * n];
    match attr(o, "padding") {
        Value::Str(p) => {
            if p == "same" {
                let dilation = tuple_ints(ev, o, "dilation")?;
                for (d, (dil, k)) in dilation.iter().zip(&kernel).enumerate() {
                    let i = n - 1 - d;
                    let total = dil * (k - 1);
                    out[2 * i] = total / 2;
                    out[2 * i + 1] = total - total / 2;
                }
            }
        }
        _ => {
            let padding = tuple_ints(ev, o, "padding")?;
            for (i, p) in padding.iter().rev().enumerate() {
                out[2 * i] = *p;
                out[2 * i + 1] = *p;
            }
        }
    }
    Ok(out)
}

/// `_ConvTransposeNd._output_padding`: the output padding that makes the output
/// `output_size`, PyTorch's ValueError when no output padding can.
fn output_padding(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    input: &Value,
    size: &Value,
    n: usize,
) -> R<Value> {
    let shape = match input {
        Value::Tensor(t) => t.borrow().tensor.shape().to_vec(),
        _ => return Ok(attr(o, "output_padding")),
    };
    let mut requested = ev.int_list(size, "output_size", "output_size")?;
    let non_spatial = if shape.len() == n + 2 { 2 } else { 1 };
    if requested.len() == non_spatial + n {
        requested.drain(..non_spatial);
    }
    if requested.len() != n {
        return Err(ScriptError::Value(format!(
            "ConvTranspose{n}D: for {}D input, output_size must have {n} or {} elements (got {})",
            shape.len(),
            non_spatial + n,
            requested.len()
        )));
    }
    let (stride, padding) = (tuple_ints(ev, o, "stride")?, tuple_ints(ev, o, "padding")?);
    let (kernel, dilation) = (
        tuple_ints(ev, o, "kernel_size")?,
        tuple_ints(ev, o, "dilation")?,
    );
    let at = |v: &[i64], d: usize, fill: i64| v.get(d).copied().unwrap_or(fill);
    let mut min_sizes = Vec::with_capacity(n);
    let mut max_sizes = Vec::with_capacity(n);
    for d in 0..n {
        let dim = at(&shape, d + non_spatial, 0);
        let min = (dim - 1) * at(&stride, d, 1) - 2 * at(&padding, d, 0)
            + at(&dilation, d, 1) * (at(&kernel, d, 1) - 1)
            + 1;
        min_sizes.push(min);
        max_sizes.push(min + at(&stride, d, 1) - 1);
    }
    let list = |v: &[i64]| {
        format!(
            "[{}]",
            v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
        )
    };
    if (0..n).any(|i| requested[i] < min_sizes[i] || requested[i] > max_sizes[i]) {
        let spatial: Vec<i64> = shape.iter().skip(2).copied().collect();
        // The (sliced) output_size as Python shows it: a tuple, list or torch.Size.
        let shown = match size {
            Value::Tuple(_) => Value::Tuple(requested.iter().map(|&v| Value::Int(v)).collect()),
            Value::Size(_) => Value::Size(requested.clone()),
            _ => Value::List(requested.iter().map(|&v| Value::Int(v)).collect()),
        };
        return Err(ScriptError::Value(format!(
            "requested an output size of {}, but valid sizes range from {} to {} (for an input of torch.Size({}))",
            fmt(ev, &shown)?,
            list(&min_sizes),
            list(&max_sizes),
            list(&spatial)
        )));
    }
    Ok(Value::List(
        (0..n)
            .map(|d| Value::Int(requested[d] - min_sizes[d]))
            .collect(),
    ))
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
