//! The padding layers of `torch/nn/modules/padding.py` (`ZeroPad1d/2d/3d`,
//! `ConstantPad1d/2d/3d`, `ReflectionPad1d/2d/3d`, `ReplicationPad1d/2d/3d`,
//! `CircularPad1d/2d/3d`): each keeps `padding` as a tuple (`_ntuple`: an int repeated, an
//! iterable as a tuple) and calls `F.pad`; `Softmax2d` (`activation.py`), `F.softmax` over
//! dim -3 of a 3-D or 4-D input; `Unfold` and `Fold` (`fold.py`), which keep their
//! arguments as given and call `F.unfold`/`F.fold`.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::layers::{attr, fmt, functional, set_attrs};
use crate::interp::torch::nn::module::{arg, bind_python, native_of, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

const PADDING: &str = "torch.nn.modules.padding";

/// The layer classes of this file.
pub(crate) static MODULES: &[ModuleDef] = &[
    pad("ZeroPad1d"),
    pad("ZeroPad2d"),
    pad("ZeroPad3d"),
    pad("ConstantPad1d"),
    pad("ConstantPad2d"),
    pad("ConstantPad3d"),
    pad("ReflectionPad1d"),
    pad("ReflectionPad2d"),
    pad("ReflectionPad3d"),
    pad("ReplicationPad1d"),
    pad("ReplicationPad2d"),
    pad("ReplicationPad3d"),
    pad("CircularPad1d"),
    pad("CircularPad2d"),
    pad("CircularPad3d"),
    ModuleDef {
        init: Some(|ev, o, pos, kw| {
            bind_python("", "Softmax2d.__init__", &pos, &kw)?;
            ev.module_init(o, &[], &[])
        }),
        forward: Some(softmax2d_forward),
        ..ModuleDef::new("Softmax2d", "torch.nn.modules.activation")
    },
    ModuleDef {
        init: Some(fold_init),
        forward: Some(fold_forward),
        extra_repr: Some(fold_repr),
        ..ModuleDef::new("Unfold", FOLD)
    },
    ModuleDef {
        init: Some(fold_init),
        forward: Some(fold_forward),
        extra_repr: Some(fold_repr),
        ..ModuleDef::new("Fold", FOLD)
    },
];

const FOLD: &str = "torch.nn.modules.fold";

/// The attributes of `Fold` (`output_size` first) or `Unfold`, in their repr's order.
fn fold_params(o: &Rc<Instance>) -> &'static [&'static str] {
    if kind(o) == "Fold" {
        &[
            "output_size",
            "kernel_size",
            "dilation",
            "padding",
            "stride",
        ]
    } else {
        &["kernel_size", "dilation", "padding", "stride"]
    }
}

fn fold_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let params = if kind(o) == "Fold" {
        "output_size, kernel_size, dilation=1, padding=0, stride=1"
    } else {
        "kernel_size, dilation=1, padding=0, stride=1"
    };
    let args = bind_python(params, &format!("{}.__init__", kind(o)), &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    let attrs = fold_params(o).iter().map(|&n| (n, arg(&args, n))).collect();
    set_attrs(o, attrs);
    Ok(())
}

fn fold_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let name = kind(o);
    let args = bind_python("input", &format!("{name}.forward"), &pos, &kw)?;
    let mut call = vec![arg(&args, "input")];
    call.extend(fold_params(o).iter().map(|&n| attr(o, n)));
    functional(ev, &name.to_lowercase(), call, vec![])
}

fn fold_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let mut parts = Vec::new();
    for &n in fold_params(o) {
        parts.push(format!("{n}={}", fmt(ev, &attr(o, n))?));
    }
    Ok(parts.join(", "))
}

/// The class name of a layer's nearest built-in class.
fn kind(o: &Rc<Instance>) -> &'static str {
    native_of(&o.class).map_or("", |d| d.name)
}

/// The number of padded dimensions of a padding class (`...1d` → 1).
fn dims(name: &str) -> usize {
    match name.as_bytes().get(name.len().saturating_sub(2)) {
        Some(b'2') => 2,
        Some(b'3') => 3,
        _ => 1,
    }
}

const fn pad(name: &'static str) -> ModuleDef {
    ModuleDef {
        init: Some(pad_init),
        forward: Some(pad_forward),
        extra_repr: Some(pad_repr),
        ..ModuleDef::new(name, PADDING)
    }
}

fn pad_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let name = kind(o);
    let constant = name.starts_with("ConstantPad");
    let params = if constant {
        "padding, value"
    } else {
        "padding"
    };
    let args = bind_python(params, &format!("{name}.__init__"), &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    let given = arg(&args, "padding");
    let padding = match &given {
        Value::Tuple(_) | Value::List(_) => Value::Tuple(ev.iterate(&given)?),
        other => Value::Tuple(vec![other.clone(); 2 * dims(name)]),
    };
    let mut attrs = vec![("padding", padding)];
    if constant {
        attrs.push(("value", arg(&args, "value")));
    } else if name.starts_with("ZeroPad") {
        attrs.push(("value", Value::Float(0.0)));
    }
    set_attrs(o, attrs);
    Ok(())
}

fn pad_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let name = kind(o);
    let args = bind_python("input", &format!("{name}.forward"), &pos, &kw)?;
    let input = arg(&args, "input");
    let mode = if name.starts_with("Reflection") {
        "reflect"
    } else if name.starts_with("Replication") {
        "replicate"
    } else if name.starts_with("Circular") {
        "circular"
    } else {
        "constant"
    };
    if mode == "circular" {
        if let Value::Tensor(t) = &input {
            let n = t.borrow().tensor.ndim();
            let d = dims(name);
            if n != d + 1 && n != d + 2 {
                return Err(ScriptError::Value(format!(
                    "expected {}D or {}D input (got {n}D input)",
                    d + 1,
                    d + 2
                )));
            }
        }
    }
    let mut args = vec![input, attr(o, "padding"), Value::Str(mode.into())];
    if mode == "constant" {
        args.push(attr(o, "value"));
    }
    functional(ev, "pad", args, vec![])
}

fn pad_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let padding = fmt(ev, &attr(o, "padding"))?;
    if kind(o).starts_with("ConstantPad") {
        let value = fmt(ev, &attr(o, "value"))?;
        return Ok(format!("padding={padding}, value={value}"));
    }
    Ok(padding)
}

/// `Softmax2d.forward`: a 3-D or 4-D input, softmax over its channels (dim -3).
fn softmax2d_forward(
    ev: &mut Evaluator,
    _o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("input", "Softmax2d.forward", &pos, &kw)?;
    let input = arg(&args, "input");
    if let Value::Tensor(t) = &input {
        let n = t.borrow().tensor.ndim();
        if n != 3 && n != 4 {
            return Err(ScriptError::Value(format!(
                "Softmax2d: expected input to be 3D or 4D, got {n}D instead"
            )));
        }
    }
    functional(ev, "softmax", vec![input, Value::Int(-3)], vec![])
}
