//! The pooling layers (`torch/nn/modules/pooling.py`): `MaxPool1d/2d/3d`,
//! `AvgPool1d/2d/3d`, `AdaptiveMaxPool1d/2d/3d`, `AdaptiveAvgPool1d/2d/3d`, `LPPool1d/2d` and
//! `MaxUnpool1d/2d/3d`, each storing its arguments as PyTorch's `__init__` does (`AvgPool1d`
//! and the unpoolings keep tuples, `_single`/`_pair`/`_triple` of them), forwarding them to
//! its `torch.nn.functional` function and printing PyTorch's `extra_repr`.

use std::rc::Rc;

use crate::interp::torch::nn::layers::{attr, fmt, functional, ntuple, set_attrs};
use crate::interp::torch::nn::module::{arg, bind_python, native_of, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

const POOL: &str = "torch.nn.modules.pooling";

/// A pooling class.
const fn pool(name: &'static str) -> ModuleDef {
    ModuleDef {
        init: Some(pool_init),
        forward: Some(pool_forward),
        extra_repr: Some(pool_repr),
        ..ModuleDef::new(name, POOL)
    }
}

/// The layer classes of this family.
pub(crate) static MODULES: &[ModuleDef] = &[
    pool("MaxPool1d"),
    pool("MaxPool2d"),
    pool("MaxPool3d"),
    pool("AvgPool1d"),
    pool("AvgPool2d"),
    pool("AvgPool3d"),
    pool("AdaptiveMaxPool1d"),
    pool("AdaptiveMaxPool2d"),
    pool("AdaptiveMaxPool3d"),
    pool("AdaptiveAvgPool1d"),
    pool("AdaptiveAvgPool2d"),
    pool("AdaptiveAvgPool3d"),
    pool("LPPool1d"),
    pool("LPPool2d"),
    pool("MaxUnpool1d"),
    pool("MaxUnpool2d"),
    pool("MaxUnpool3d"),
];

/// Which family of pooling a class is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Max,
    Avg,
    AdaptiveMax,
    AdaptiveAvg,
    Lp,
    Unpool,
}

/// A pooling class's family and spatial dimensions.
fn family(o: &Rc<Instance>) -> (&'static str, Family, usize) {
    let name = native_of(&o.class).map_or("", |d| d.name);
    let dims = if name.ends_with("1d") {
        1
    } else if name.ends_with("3d") {
        3
    } else {
        2
    };
    let family = if name.starts_with("MaxUnpool") {
        Family::Unpool
    } else if name.starts_with("MaxPool") {
        Family::Max
    } else if name.starts_with("AvgPool") {
        Family::Avg
    } else if name.starts_with("AdaptiveMax") {
        Family::AdaptiveMax
    } else if name.starts_with("AdaptiveAvg") {
        Family::AdaptiveAvg
    } else {
        Family::Lp
    };
    (name, family, dims)
}

/// Each family's `__init__` signature.
fn signature(family: Family, dims: usize) -> &'static str {
    match family {
        Family::Max => "kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False",
        Family::Avg if dims == 1 => "kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True",
        Family::Avg => "kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None",
        Family::AdaptiveMax => "output_size, return_indices=False",
        Family::AdaptiveAvg => "output_size",
        Family::Lp => "norm_type, kernel_size, stride=None, ceil_mode=False",
        Family::Unpool => "kernel_size, stride=None, padding=0",
    }
}

fn pool_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let (name, family, dims) = family(o);
    let args = bind_python(
        signature(family, dims),
        &format!("{name}.__init__"),
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    let mut attrs: Vec<(String, Value)> = args;
    // `self.stride = stride if (stride is not None) else kernel_size` (not for `LPPool`).
    if family != Family::Lp {
        if let Some(i) = attrs.iter().position(|(n, _)| n == "stride") {
            if matches!(attrs[i].1, Value::None) {
                attrs[i].1 = arg(&attrs, "kernel_size");
            }
        }
    }
    // `AvgPool1d` keeps `_single(...)`s; the unpoolings `_single`/`_pair`/`_triple`s.
    if family == Family::Unpool || (family == Family::Avg && dims == 1) {
        for (n, v) in attrs.iter_mut() {
            if ["kernel_size", "stride", "padding"].contains(&n.as_str()) {
                *v = ntuple(v, dims);
            }
        }
    }
    // `_LPPoolNd` keeps its arguments in this order.
    set_attrs(
        o,
        attrs.iter().map(|(n, v)| (n.as_str(), v.clone())).collect(),
    );
    Ok(())
}

fn pool_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let (name, family, dims) = family(o);
    if family == Family::Unpool {
        let args = bind_python(
            "input, indices, output_size=None",
            &format!("{name}.forward"),
            &pos,
            &kw,
        )?;
        let function = format!("max_unpool{dims}d");
        let pos = vec![
            arg(&args, "input"),
            arg(&args, "indices"),
            attr(o, "kernel_size"),
            attr(o, "stride"),
            attr(o, "padding"),
            arg(&args, "output_size"),
        ];
        return functional(ev, &function, pos, vec![]);
    }
    let args = bind_python("input", &format!("{name}.forward"), &pos, &kw)?;
    let input = arg(&args, "input");
    let (function, names): (&str, &[&str]) = match family {
        Family::Max => (
            "max_pool",
            &[
                "kernel_size",
                "stride",
                "padding",
                "dilation",
                "ceil_mode",
                "return_indices",
            ],
        ),
        Family::Avg if dims == 1 => (
            "avg_pool",
            &[
                "kernel_size",
                "stride",
                "padding",
                "ceil_mode",
                "count_include_pad",
            ],
        ),
        Family::Avg => (
            "avg_pool",
            &[
                "kernel_size",
                "stride",
                "padding",
                "ceil_mode",
                "count_include_pad",
                "divisor_override",
            ],
        ),
        Family::AdaptiveMax => ("adaptive_max_pool", &["output_size", "return_indices"]),
        Family::AdaptiveAvg => ("adaptive_avg_pool", &["output_size"]),
        Family::Lp => ("lp_pool", &["kernel_size", "stride", "ceil_mode"]),
        Family::Unpool => ("max_unpool", &[]),
    };
    let function = format!("{function}{dims}d");
    let mut pos = vec![input];
    if family == Family::Lp {
        // `F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
        // self.ceil_mode)`.
        let norm = attr(o, "norm_type");
        let norm = ev.call_builtin("float", vec![norm], vec![])?;
        pos.push(norm);
    }
    let kw: Vec<(String, Value)> = names.iter().map(|n| (n.to_string(), attr(o, n))).collect();
    if family == Family::Lp {
        pos.extend(kw.into_iter().map(|(_, v)| v));
        return functional(ev, &function, pos, vec![]);
    }
    functional(ev, &function, pos, kw)
}

fn pool_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let (_, family, _) = family(o);
    let names: &[&str] = match family {
        Family::Max => &["kernel_size", "stride", "padding", "dilation", "ceil_mode"],
        Family::Avg | Family::Unpool => &["kernel_size", "stride", "padding"],
        Family::AdaptiveMax | Family::AdaptiveAvg => &["output_size"],
        Family::Lp => &["norm_type", "kernel_size", "stride", "ceil_mode"],
    };
    let mut parts = Vec::new();
    for n in names {
        parts.push(format!("{n}={}", fmt(ev, &attr(o, n))?));
    }
    Ok(parts.join(", "))
}
