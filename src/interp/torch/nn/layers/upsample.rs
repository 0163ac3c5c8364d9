//! The upsampling layers (`torch/nn/modules/upsampling.py`: `Upsample`,
//! `UpsamplingNearest2d`, `UpsamplingBilinear2d`) and `pixelshuffle.py` (`PixelShuffle`,
//! `PixelUnshuffle`): their arguments as attributes, a forward that calls the functional op,
//! and PyTorch's `extra_repr`.

use std::rc::Rc;

use crate::interp::torch::nn::layers::{attr, fmt, functional, set_attrs};
use crate::interp::torch::nn::module::{arg, bind_python, native_of, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

const UPSAMPLING: &str = "torch.nn.modules.upsampling";
const PIXEL_SHUFFLE: &str = "torch.nn.modules.pixelshuffle";

/// The layer classes of this family.
pub(crate) static MODULES: &[ModuleDef] = &[
    ModuleDef {
        init: Some(upsample_init),
        forward: Some(upsample_forward),
        extra_repr: Some(upsample_repr),
        ..ModuleDef::new("Upsample", UPSAMPLING)
    },
    ModuleDef {
        base: Some("Upsample"),
        init: Some(upsample_init),
        ..ModuleDef::new("UpsamplingNearest2d", UPSAMPLING)
    },
    ModuleDef {
        base: Some("Upsample"),
        init: Some(upsample_init),
        ..ModuleDef::new("UpsamplingBilinear2d", UPSAMPLING)
    },
    shuffle("PixelShuffle"),
    shuffle("PixelUnshuffle"),
];

/// `PixelShuffle(upscale_factor)` or `PixelUnshuffle(downscale_factor)`.
const fn shuffle(name: &'static str) -> ModuleDef {
    ModuleDef {
        init: Some(shuffle_init),
        forward: Some(shuffle_forward),
        extra_repr: Some(shuffle_repr),
        ..ModuleDef::new(name, PIXEL_SHUFFLE)
    }
}

/// The class name of a layer's nearest built-in class.
fn kind(o: &Rc<Instance>) -> &'static str {
    native_of(&o.class).map_or("", |d| d.name)
}

/// `Upsample.__init__` (the two fixed-mode subclasses pass their mode).
fn upsample_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let kind = kind(o);
    let signature = match kind {
        "Upsample" => {
            "size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None"
        }
        _ => "size=None, scale_factor=None",
    };
    let args = bind_python(signature, &format!("{kind}.__init__"), &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    let (mode, align) = match kind {
        "UpsamplingNearest2d" => (Value::Str("nearest".into()), Value::None),
        "UpsamplingBilinear2d" => (Value::Str("bilinear".into()), Value::Bool(true)),
        _ => (arg(&args, "mode"), arg(&args, "align_corners")),
    };
    let float = |ev: &mut Evaluator, v: &Value| -> R<Value> {
        match v {
            Value::Int(i) => Ok(Value::Float(*i as f64)),
            Value::Bool(b) => Ok(Value::Float(f64::from(u8::from(*b)))),
            Value::Float(f) => Ok(Value::Float(*f)),
            other => {
                let i = ev.index_int(other)?;
                Ok(Value::Float(i as f64))
            }
        }
    };
    let scale = match arg(&args, "scale_factor") {
        Value::Tuple(items) => {
            let mut out = Vec::with_capacity(items.len());
            for v in &items {
                out.push(float(ev, v)?);
            }
            Value::Tuple(out)
        }
        v => {
            if ev.truthy(&v)? {
                float(ev, &v)?
            } else {
                Value::None
            }
        }
    };
    set_attrs(
        o,
        vec![
            ("name", Value::Str(o.class.name.clone())),
            ("size", arg(&args, "size")),
            ("scale_factor", scale),
            ("mode", mode),
            ("align_corners", align),
            (
                "recompute_scale_factor",
                arg(&args, "recompute_scale_factor"),
            ),
        ],
    );
    Ok(())
}

fn upsample_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("input", &format!("{}.forward", kind(o)), &pos, &kw)?;
    functional(
        ev,
        "interpolate",
        vec![
            arg(&args, "input"),
            attr(o, "size"),
            attr(o, "scale_factor"),
            attr(o, "mode"),
            attr(o, "align_corners"),
        ],
        vec![(
            "recompute_scale_factor".into(),
            attr(o, "recompute_scale_factor"),
        )],
    )
}

fn upsample_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let scale = attr(o, "scale_factor");
    let info = if matches!(scale, Value::None) {
        format!("size={}", ev.repr(&attr(o, "size"))?)
    } else {
        format!("scale_factor={}", ev.repr(&scale)?)
    };
    Ok(format!("{info}, mode={}", ev.repr(&attr(o, "mode"))?))
}

/// The factor's attribute name.
fn factor_name(o: &Rc<Instance>) -> &'static str {
    if kind(o) == "PixelUnshuffle" {
        "downscale_factor"
    } else {
        "upscale_factor"
    }
}

fn shuffle_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let name = factor_name(o);
    let args = bind_python(name, &format!("{}.__init__", kind(o)), &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    set_attrs(o, vec![(name, arg(&args, name))]);
    Ok(())
}

fn shuffle_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("input", &format!("{}.forward", kind(o)), &pos, &kw)?;
    let function = if kind(o) == "PixelUnshuffle" {
        "pixel_unshuffle"
    } else {
        "pixel_shuffle"
    };
    functional(
        ev,
        function,
        vec![arg(&args, "input"), attr(o, factor_name(o))],
        vec![],
    )
}

fn shuffle_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let name = factor_name(o);
    Ok(format!("{name}={}", fmt(ev, &attr(o, name))?))
}
