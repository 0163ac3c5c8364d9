//! `Hardshrink`, `Softshrink` and `RReLU` (`torch/nn/modules/activation.py`), whose reprs or
//! forwards are not the plain `name=value` of [`super::activation::LAYERS`], and the distance
//! modules `CosineSimilarity` and `PairwiseDistance` (`distance.py`), which take two inputs.

use std::rc::Rc;

use crate::interp::torch::nn::layers::{attr, fmt, functional, set_attrs};
use crate::interp::torch::nn::module::{arg, bind_python, native_of, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

const ACTIVATION: &str = "torch.nn.modules.activation";
const DISTANCE: &str = "torch.nn.modules.distance";

/// The layer classes of this file.
pub(crate) static MODULES: &[ModuleDef] = &[
    shrink("Hardshrink"),
    shrink("Softshrink"),
    ModuleDef {
        init: Some(rrelu_init),
        forward: Some(rrelu_forward),
        extra_repr: Some(rrelu_repr),
        ..ModuleDef::new("RReLU", ACTIVATION)
    },
    ModuleDef {
        init: Some(cosine_init),
        forward: Some(cosine_forward),
        ..ModuleDef::new("CosineSimilarity", DISTANCE)
    },
    ModuleDef {
        init: Some(pairwise_init),
        forward: Some(pairwise_forward),
        ..ModuleDef::new("PairwiseDistance", DISTANCE)
    },
];

/// The class name of a layer's nearest built-in class.
fn kind(o: &Rc<Instance>) -> &'static str {
    native_of(&o.class).map_or("", |d| d.name)
}

/// `Hardshrink(lambd=0.5)` / `Softshrink(lambd=0.5)`: the repr is the bare `lambd`.
const fn shrink(name: &'static str) -> ModuleDef {
    ModuleDef {
        init: Some(|ev, o, pos, kw| {
            let args = bind_python("lambd=0.5", &format!("{}.__init__", kind(o)), &pos, &kw)?;
            ev.module_init(o, &[], &[])?;
            set_attrs(o, vec![("lambd", arg(&args, "lambd"))]);
            Ok(())
        }),
        forward: Some(|ev, o, pos, kw| {
            let name = kind(o);
            let args = bind_python("input", &format!("{name}.forward"), &pos, &kw)?;
            let function = if name == "Hardshrink" {
                "hardshrink"
            } else {
                "softshrink"
            };
            functional(
                ev,
                function,
                vec![arg(&args, "input"), attr(o, "lambd")],
                vec![],
            )
        }),
        extra_repr: Some(|ev, o| fmt(ev, &attr(o, "lambd"))),
        ..ModuleDef::new(name, ACTIVATION)
    }
}

fn rrelu_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "lower=0.125, upper=0.3333333333333333, inplace=False",
        "RReLU.__init__",
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    set_attrs(
        o,
        vec![
            ("lower", arg(&args, "lower")),
            ("upper", arg(&args, "upper")),
            ("inplace", arg(&args, "inplace")),
        ],
    );
    Ok(())
}

/// `F.rrelu(input, self.lower, self.upper, self.training, self.inplace)`.
fn rrelu_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("input", "RReLU.forward", &pos, &kw)?;
    let training = Value::Bool(o.module.borrow().as_ref().is_some_and(|s| s.training));
    functional(
        ev,
        "rrelu",
        vec![
            arg(&args, "input"),
            attr(o, "lower"),
            attr(o, "upper"),
            training,
            attr(o, "inplace"),
        ],
        vec![],
    )
}

fn rrelu_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let inplace = if ev.truthy(&attr(o, "inplace"))? {
        ", inplace=True"
    } else {
        ""
    };
    Ok(format!(
        "lower={}, upper={}{inplace}",
        fmt(ev, &attr(o, "lower"))?,
        fmt(ev, &attr(o, "upper"))?
    ))
}

fn cosine_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python("dim=1, eps=1e-08", "CosineSimilarity.__init__", &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    set_attrs(
        o,
        vec![("dim", arg(&args, "dim")), ("eps", arg(&args, "eps"))],
    );
    Ok(())
}

fn cosine_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("x1, x2", "CosineSimilarity.forward", &pos, &kw)?;
    functional(
        ev,
        "cosine_similarity",
        vec![
            arg(&args, "x1"),
            arg(&args, "x2"),
            attr(o, "dim"),
            attr(o, "eps"),
        ],
        vec![],
    )
}

fn pairwise_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "p=2.0, eps=1e-06, keepdim=False",
        "PairwiseDistance.__init__",
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    set_attrs(
        o,
        vec![
            ("norm", arg(&args, "p")),
            ("eps", arg(&args, "eps")),
            ("keepdim", arg(&args, "keepdim")),
        ],
    );
    Ok(())
}

fn pairwise_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("x1, x2", "PairwiseDistance.forward", &pos, &kw)?;
    functional(
        ev,
        "pairwise_distance",
        vec![
            arg(&args, "x1"),
            arg(&args, "x2"),
            attr(o, "norm"),
            attr(o, "eps"),
            attr(o, "keepdim"),
        ],
        vec![],
    )
}
