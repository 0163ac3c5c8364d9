//! The loss modules of `torch/nn/modules/loss.py`: `MSELoss`, `L1Loss`,
//! `CrossEntropyLoss`, `NLLLoss`, `BCELoss`, `BCEWithLogitsLoss`. Each keeps its
//! `reduction` (and the weighted ones their `weight` buffer) and calls the functional loss.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::layers::{attr, functional, method, set_attrs, set_buffer};
use crate::interp::torch::nn::module::{arg, bind_python, native_of, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// A loss class.
const fn loss(name: &'static str) -> ModuleDef {
    ModuleDef {
        init: Some(loss_init),
        forward: Some(loss_forward),
        ..ModuleDef::new(name, "torch.nn.modules.loss")
    }
}

/// The loss classes.
pub(crate) static MODULES: &[ModuleDef] = &[
    loss("MSELoss"),
    loss("L1Loss"),
    loss("CrossEntropyLoss"),
    loss("NLLLoss"),
    loss("BCELoss"),
    loss("BCEWithLogitsLoss"),
];

/// A loss's `__init__` signature, its functional op, and the attributes (beyond
/// `reduction`) and buffers its `forward` passes on.
fn spec(
    kind: &str,
) -> (
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
) {
    match kind {
        "CrossEntropyLoss" => (
            "weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean', label_smoothing=0.0",
            "cross_entropy",
            &["ignore_index", "label_smoothing"],
            &["weight"],
        ),
        "NLLLoss" => (
            "weight=None, size_average=None, ignore_index=-100, reduce=None, reduction='mean'",
            "nll_loss",
            &["ignore_index"],
            &["weight"],
        ),
        "BCELoss" => (
            "weight=None, size_average=None, reduce=None, reduction='mean'",
            "binary_cross_entropy",
            &[],
            &["weight"],
        ),
        "BCEWithLogitsLoss" => (
            "weight=None, size_average=None, reduce=None, reduction='mean', pos_weight=None",
            "binary_cross_entropy_with_logits",
            &[],
            &["weight", "pos_weight"],
        ),
        "L1Loss" => ("size_average=None, reduce=None, reduction='mean'", "l1_loss", &[], &[]),
        _ => ("size_average=None, reduce=None, reduction='mean'", "mse_loss", &[], &[]),
    }
}

/// PyTorch's `_Reduction.legacy_get_string`: the old `size_average`/`reduce` flags as a
/// reduction.
fn legacy_reduction(ev: &mut Evaluator, size_average: &Value, reduce: &Value) -> R<&'static str> {
    let size_average = match size_average {
        Value::None => true,
        v => ev.truthy(v)?,
    };
    let reduce = match reduce {
        Value::None => true,
        v => ev.truthy(v)?,
    };
    Ok(match (size_average, reduce) {
        (_, false) => "none",
        (true, true) => "mean",
        (false, true) => "sum",
    })
}

fn loss_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let kind = native_of(&o.class).map_or("MSELoss", |d| d.name);
    let (signature, _, extra, buffers) = spec(kind);
    let args = bind_python(signature, &format!("{kind}.__init__"), &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    for name in buffers {
        let tensor = match arg(&args, name) {
            Value::None => None,
            Value::Tensor(t) => Some(t),
            other => {
                return Err(ScriptError::Type(format!(
                    "cannot assign '{}' object to buffer '{name}' (torch Tensor or None required)",
                    other.type_name()
                )))
            }
        };
        set_buffer(o, name, tensor);
    }
    let (size_average, reduce) = (arg(&args, "size_average"), arg(&args, "reduce"));
    let reduction = if matches!(size_average, Value::None) && matches!(reduce, Value::None) {
        arg(&args, "reduction")
    } else {
        Value::Str(legacy_reduction(ev, &size_average, &reduce)?.into())
    };
    let mut attrs = vec![("reduction", reduction)];
    attrs.extend(extra.iter().map(|n| (*n, arg(&args, n))));
    set_attrs(o, attrs);
    Ok(())
}

fn loss_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let kind = native_of(&o.class).map_or("MSELoss", |d| d.name);
    let (_, function, extra, buffers) = spec(kind);
    let args = bind_python("input, target", &format!("{kind}.forward"), &pos, &kw)?;
    let mut kw: Vec<(String, Value)> = buffers
        .iter()
        .chain(extra)
        .map(|n| (n.to_string(), attr(o, n)))
        .collect();
    kw.push(("reduction".into(), attr(o, "reduction")));
    let (input, target) = (arg(&args, "input"), arg(&args, "target"));
    if matches!(kind, "CrossEntropyLoss" | "NLLLoss") {
        if let Some(value) = k_dim_loss(ev, function, &input, &target, &kw)? {
            return Ok(value);
        }
    }
    functional(ev, function, vec![input, target], kw)
}

/// The K-dimensional form of `cross_entropy`/`nll_loss` (an `(N, C, d1, ...)` input, `(N,
/// d1, ...)` class indices): the classes moved last and the positions flattened into rows,
/// the loss of the rows, and with `reduction='none'` the losses in the target's shape.
/// `None` for the other shapes.
fn k_dim_loss(
    ev: &mut Evaluator,
    function: &str,
    input: &Value,
    target: &Value,
    kw: &[(String, Value)],
) -> R<Option<Value>> {
    let (Some(x), Some(t)) = (input.as_tensor(), target.as_tensor()) else {
        return Ok(None);
    };
    let (shape, target_shape) = (x.shape().to_vec(), t.shape().to_vec());
    if shape.len() < 3 || t.dtype.is_floating() || target_shape.len() + 1 != shape.len() {
        return Ok(None);
    }
    let classes = shape[1];
    let moved = method(ev, input, "movedim", vec![Value::Int(1), Value::Int(-1)])?;
    let rows = method(
        ev,
        &moved,
        "reshape",
        vec![Value::Int(-1), Value::Int(classes)],
    )?;
    let flat = method(ev, target, "reshape", vec![Value::Int(-1)])?;
    let out = functional(ev, function, vec![rows, flat], kw.to_vec())?;
    let none = kw
        .iter()
        .any(|(k, v)| k == "reduction" && matches!(v, Value::Str(r) if r == "none"));
    if !none {
        return Ok(Some(out));
    }
    let dims = Value::Tuple(target_shape.iter().map(|&d| Value::Int(d)).collect());
    method(ev, &out, "reshape", vec![dims]).map(Some)
}
