//! The other loss modules of `torch/nn/modules/loss.py`: `SmoothL1Loss`, `HuberLoss`,
//! `KLDivLoss`, `MarginRankingLoss`, `HingeEmbeddingLoss`, `SoftMarginLoss`,
//! `CosineEmbeddingLoss`, `TripletMarginLoss`, `PoissonNLLLoss`, `GaussianNLLLoss`,
//! `MultiLabelSoftMarginLoss`, `MultiMarginLoss` and `MultiLabelMarginLoss`. Each keeps
//! `reduction` (from the legacy `size_average`/`reduce` flags when either is given, with
//! their warning), its options as attributes and `weight` as a buffer (the `_WeightedLoss`
//! ones), checks what its `__init__` checks, and calls the functional loss with them.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::layers::{attr, functional, set_attrs, set_buffer};
use crate::interp::torch::nn::losses_extra::legacy_reduction;
use crate::interp::torch::nn::module::{arg, bind_python, native_of, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// One loss class: its `__init__` and `forward` signatures, its functional op, the
/// attributes its `forward` passes on (beyond `reduction`), and whether it is a
/// `_WeightedLoss` (a `weight` buffer).
struct Spec {
    name: &'static str,
    init: &'static str,
    forward: &'static str,
    function: &'static str,
    attrs: &'static [&'static str],
    weighted: bool,
}

/// The legacy flags and `reduction` of `_Loss.__init__`.
const LEGACY: &str = "size_average=None, reduce=None, reduction='mean'";

/// The classes of this file.
static SPECS: &[Spec] = &[
    Spec {
        name: "SmoothL1Loss",
        init: "size_average=None, reduce=None, reduction='mean', beta=1.0",
        forward: "input, target",
        function: "smooth_l1_loss",
        attrs: &["beta"],
        weighted: false,
    },
    Spec {
        name: "HuberLoss",
        init: "reduction='mean', delta=1.0",
        forward: "input, target",
        function: "huber_loss",
        attrs: &["delta"],
        weighted: false,
    },
    Spec {
        name: "KLDivLoss",
        init: "size_average=None, reduce=None, reduction='mean', log_target=False",
        forward: "input, target",
        function: "kl_div",
        attrs: &["log_target"],
        weighted: false,
    },
    Spec {
        name: "MarginRankingLoss",
        init: "margin=0.0, size_average=None, reduce=None, reduction='mean'",
        forward: "input1, input2, target",
        function: "margin_ranking_loss",
        attrs: &["margin"],
        weighted: false,
    },
    Spec {
        name: "HingeEmbeddingLoss",
        init: "margin=1.0, size_average=None, reduce=None, reduction='mean'",
        forward: "input, target",
        function: "hinge_embedding_loss",
        attrs: &["margin"],
        weighted: false,
    },
    Spec {
        name: "SoftMarginLoss",
        init: LEGACY,
        forward: "input, target",
        function: "soft_margin_loss",
        attrs: &[],
        weighted: false,
    },
    Spec {
        name: "CosineEmbeddingLoss",
        init: "margin=0.0, size_average=None, reduce=None, reduction='mean'",
        forward: "input1, input2, target",
        function: "cosine_embedding_loss",
        attrs: &["margin"],
        weighted: false,
    },
    Spec {
        name: "TripletMarginLoss",
        init: "margin=1.0, p=2.0, eps=1e-06, swap=False, size_average=None, reduce=None, reduction='mean'",
        forward: "anchor, positive, negative",
        function: "triplet_margin_loss",
        attrs: &["margin", "p", "eps", "swap"],
        weighted: false,
    },
    Spec {
        name: "PoissonNLLLoss",
        init: "log_input=True, full=False, size_average=None, eps=1e-08, reduce=None, reduction='mean'",
        forward: "log_input, target",
        function: "poisson_nll_loss",
        attrs: &["log_input", "full", "eps"],
        weighted: false,
    },
    Spec {
        name: "GaussianNLLLoss",
        init: "*, full=False, eps=1e-06, reduction='mean'",
        forward: "input, target, var",
        function: "gaussian_nll_loss",
        attrs: &["full", "eps"],
        weighted: false,
    },
    Spec {
        name: "MultiLabelSoftMarginLoss",
        init: "weight=None, size_average=None, reduce=None, reduction='mean'",
        forward: "input, target",
        function: "multilabel_soft_margin_loss",
        attrs: &[],
        weighted: true,
    },
    Spec {
        name: "MultiMarginLoss",
        init: "p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction='mean'",
        forward: "input, target",
        function: "multi_margin_loss",
        attrs: &["p", "margin"],
        weighted: true,
    },
    Spec {
        name: "MultiLabelMarginLoss",
        init: LEGACY,
        forward: "input, target",
        function: "multilabel_margin_loss",
        attrs: &[],
        weighted: false,
    },
];

/// A loss class of the table.
const fn loss(name: &'static str) -> ModuleDef {
    ModuleDef {
        init: Some(loss_init),
        forward: Some(loss_forward),
        ..ModuleDef::new(name, "torch.nn.modules.loss")
    }
}

/// The loss classes.
pub(crate) static MODULES: &[ModuleDef] = &[
    loss("SmoothL1Loss"),
    loss("HuberLoss"),
    loss("KLDivLoss"),
    loss("MarginRankingLoss"),
    loss("HingeEmbeddingLoss"),
    loss("SoftMarginLoss"),
    loss("CosineEmbeddingLoss"),
    loss("TripletMarginLoss"),
    loss("PoissonNLLLoss"),
    loss("GaussianNLLLoss"),
    loss("MultiLabelSoftMarginLoss"),
    loss("MultiMarginLoss"),
    loss("MultiLabelMarginLoss"),
];

/// The spec of an instance's class.
fn spec_of(o: &Rc<Instance>) -> &'static Spec {
    let name = native_of(&o.class).map_or("SmoothL1Loss", |d| d.name);
    SPECS.iter().find(|s| s.name == name).unwrap_or(&SPECS[0])
}

/// A number argument as `float`.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// The checks of the `__init__`s that check their arguments (before `_Loss.__init__` for
/// `HuberLoss`, after it for the others).
fn check(ev: &mut Evaluator, name: &str, args: &[(String, Value)]) -> R<()> {
    match name {
        "HuberLoss" => {
            let delta = arg(args, "delta");
            if !matches!(delta, Value::Int(_) | Value::Float(_) | Value::Bool(_)) {
                return Err(ScriptError::Type(format!(
                    "delta must be a float or int, got: <class '{}'>",
                    delta.type_name()
                )));
            }
        }
        "MultiMarginLoss" => {
            let p = number(&arg(args, "p"));
            if p != Some(1.0) && p != Some(2.0) {
                return Err(ScriptError::Value(
                    "only p == 1 and p == 2 supported".into(),
                ));
            }
            if let Value::Tensor(w) = arg(args, "weight") {
                let dim = w.borrow().tensor.ndim();
                if dim != 1 {
                    return Err(ScriptError::Value(format!(
                        "MultiMarginLoss: expected weight to be None or 1D tensor, got {dim}D instead"
                    )));
                }
            }
        }
        "TripletMarginLoss" => {
            let margin = arg(args, "margin");
            if number(&margin).is_some_and(|m| m <= 0.0) {
                return Err(ScriptError::Value(format!(
                    "TripletMarginLoss: expected margin to be greater than 0, got {} instead",
                    ev.str_of(&margin)?
                )));
            }
        }
        _ => {}
    }
    Ok(())
}

fn loss_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let spec = spec_of(o);
    let args = bind_python(spec.init, &format!("{}.__init__", spec.name), &pos, &kw)?;
    if spec.name == "HuberLoss" {
        check(ev, spec.name, &args)?;
    }
    ev.module_init(o, &[], &[])?;
    if spec.weighted {
        let tensor = match arg(&args, "weight") {
            Value::None => None,
            Value::Tensor(t) => Some(t),
            other => {
                return Err(ScriptError::Type(format!(
                    "cannot assign '{}' object to buffer 'weight' (torch Tensor or None required)",
                    other.type_name()
                )))
            }
        };
        set_buffer(o, "weight", tensor);
    }
    let (size_average, reduce) = (arg(&args, "size_average"), arg(&args, "reduce"));
    let reduction = if matches!(size_average, Value::None) && matches!(reduce, Value::None) {
        arg(&args, "reduction")
    } else {
        Value::Str(legacy_reduction(ev, Some(&size_average), Some(&reduce))?.into())
    };
    set_attrs(o, vec![("reduction", reduction)]);
    if spec.name != "HuberLoss" {
        check(ev, spec.name, &args)?;
    }
    set_attrs(o, spec.attrs.iter().map(|n| (*n, arg(&args, n))).collect());
    Ok(())
}

fn loss_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let spec = spec_of(o);
    let args = bind_python(spec.forward, &format!("{}.forward", spec.name), &pos, &kw)?;
    let inputs: Vec<Value> = args.iter().map(|(_, v)| v.clone()).collect();
    let mut kw: Vec<(String, Value)> = spec
        .attrs
        .iter()
        .map(|n| (n.to_string(), attr(o, n)))
        .collect();
    if spec.weighted {
        kw.push(("weight".into(), attr(o, "weight")));
    }
    kw.push(("reduction".into(), attr(o, "reduction")));
    functional(ev, spec.function, inputs, kw)
}
