//! The activation layers (`torch/nn/modules/activation.py`): each is one entry of
//! [`LAYERS`], its `__init__` signature (bound by the op table's binder, with Python's
//! messages), the `torch.nn.functional` op its `forward` calls with the layer's arguments,
//! and whether its repr shows `inplace=True`. [`MODULES`] makes each a built-in module class.

use crate::core::tensor::ScriptError;
use std::rc::Rc;

use crate::interp::torch::nn::layers::{attr, functional, set_attrs};
use crate::interp::torch::nn::module::{arg, bind_python, native_of, ModuleDef};
use crate::interp::torch::signature::Schema;
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// One `torch.nn` layer.
pub(crate) struct LayerDef {
    /// Its class name (`LeakyReLU`).
    pub name: &'static str,
    /// Its `__init__` parameters as a Python signature, defaults included
    /// (`"negative_slope=0.01, inplace=False"`).
    pub init: &'static str,
    /// The `torch.nn.functional` op its `forward` calls (`leaky_relu`); `None` for
    /// `Identity`, which returns its input.
    pub forward: Option<&'static str>,
    /// Whether its `repr` shows `inplace=True` (`Hardswish` and `Hardsigmoid` do not).
    pub repr_inplace: bool,
}

const fn layer(name: &'static str, init: &'static str, forward: &'static str) -> LayerDef {
    LayerDef {
        name,
        init,
        forward: Some(forward),
        repr_inplace: true,
    }
}

/// The layers.
pub(crate) static LAYERS: &[LayerDef] = &[
    layer("ReLU", "inplace=False", "relu"),
    LayerDef {
        name: "Identity",
        init: "",
        forward: None,
        repr_inplace: true,
    },
    layer("Softmax", "dim=None", "softmax"),
    layer("LogSoftmax", "dim=None", "log_softmax"),
    layer("GELU", "approximate='none'", "gelu"),
    layer(
        "LeakyReLU",
        "negative_slope=0.01, inplace=False",
        "leaky_relu",
    ),
    layer("ELU", "alpha=1.0, inplace=False", "elu"),
    layer("SiLU", "inplace=False", "silu"),
    layer("Sigmoid", "", "sigmoid"),
    layer("Tanh", "", "tanh"),
    layer("Softplus", "beta=1.0, threshold=20.0", "softplus"),
    layer("Mish", "inplace=False", "mish"),
    LayerDef {
        repr_inplace: false,
        ..layer("Hardswish", "inplace=False", "hardswish")
    },
    LayerDef {
        repr_inplace: false,
        ..layer("Hardsigmoid", "inplace=False", "hardsigmoid")
    },
    layer("SELU", "inplace=False", "selu"),
    layer("CELU", "alpha=1.0, inplace=False", "celu"),
    layer("LogSigmoid", "", "logsigmoid"),
    layer("Softmin", "dim=None", "softmin"),
    layer("ReLU6", "inplace=False", "relu6"),
    layer(
        "Hardtanh",
        "min_val=-1.0, max_val=1.0, inplace=False",
        "hardtanh",
    ),
    layer("Softsign", "", "softsign"),
    layer("Tanhshrink", "", "tanhshrink"),
    layer("Threshold", "threshold, value, inplace=False", "threshold"),
    layer("GLU", "dim=-1", "glu"),
];

fn find(name: &str) -> Option<&'static LayerDef> {
    LAYERS.iter().find(|l| l.name == name)
}

/// One activation module class.
const fn activation(name: &'static str) -> ModuleDef {
    ModuleDef {
        init: Some(init),
        forward: Some(forward),
        extra_repr: Some(extra_repr),
        ..ModuleDef::new(name, "torch.nn.modules.activation")
    }
}

/// The activation module classes, one per entry of [`LAYERS`].
pub(crate) static MODULES: &[ModuleDef] = &[
    activation("ReLU"),
    ModuleDef {
        init: Some(|ev, o, _, _| ev.module_init(o, &[], &[])),
        forward: Some(|_, _, pos, kw| {
            Ok(pos
                .into_iter()
                .next()
                .or_else(|| kw.into_iter().next().map(|(_, v)| v))
                .unwrap_or(Value::None))
        }),
        ..ModuleDef::new("Identity", "torch.nn.modules.linear")
    },
    activation("Softmax"),
    activation("LogSoftmax"),
    activation("GELU"),
    activation("LeakyReLU"),
    activation("ELU"),
    activation("SiLU"),
    activation("Sigmoid"),
    activation("Tanh"),
    activation("Softplus"),
    activation("Mish"),
    activation("Hardswish"),
    activation("Hardsigmoid"),
    activation("SELU"),
    activation("CELU"),
    activation("LogSigmoid"),
    activation("Softmin"),
    activation("ReLU6"),
    activation("Hardtanh"),
    activation("Softsign"),
    activation("Tanhshrink"),
    activation("Threshold"),
    activation("GLU"),
];

/// The entry of [`LAYERS`] of a module (its nearest built-in class).
fn def_of(o: &Rc<Instance>) -> R<&'static LayerDef> {
    native_of(&o.class)
        .and_then(|d| find(d.name))
        .ok_or_else(|| ScriptError::Runtime(format!("{} is not an activation", o.class.name)))
}

/// `__init__`: the arguments become attributes (`self.inplace`, `self.dim`, ...).
fn init(ev: &mut Evaluator, o: &Rc<Instance>, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<()> {
    let def = def_of(o)?;
    let args = bind_python(def.init, &format!("{}.__init__", def.name), &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    set_attrs(
        o,
        args.iter().map(|(n, v)| (n.as_str(), v.clone())).collect(),
    );
    Ok(())
}

/// `forward(input)`: the functional op with the layer's attributes.
fn forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let def = def_of(o)?;
    let args = bind_python("input", &format!("{}.forward", def.name), &pos, &kw)?;
    let Some(function) = def.forward else {
        return Ok(arg(&args, "input"));
    };
    let schema = Schema::parse_python(def.init).map_err(ScriptError::Runtime)?;
    let kw: Vec<(String, Value)> = schema
        .params
        .iter()
        .map(|p| (p.name.clone(), attr(o, &p.name)))
        .collect();
    functional(ev, function, vec![arg(&args, "input")], kw)
}

/// `extra_repr`: `name=value` for each argument but `inplace`, then `inplace=True` when set.
fn extra_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let def = def_of(o)?;
    let schema = Schema::parse_python(def.init).map_err(ScriptError::Runtime)?;
    let mut parts = Vec::new();
    for p in &schema.params {
        let value = attr(o, &p.name);
        if p.name == "inplace" {
            if def.repr_inplace && ev.truthy(&value)? {
                parts.push("inplace=True".to_string());
            }
            continue;
        }
        let text = match &value {
            Value::Str(_) => ev.repr(&value)?,
            other => ev.str_of(other)?,
        };
        parts.push(format!("{}={text}", p.name));
    }
    Ok(parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layer_forwards_to_a_functional_op_with_its_parameters() {
        for layer in LAYERS {
            let init = Schema::parse_python(layer.init).expect("a Python signature");
            let Some(function) = layer.forward else {
                continue;
            };
            assert!(
                crate::interp::torch::registry::is_functional(function),
                "{}: torch.nn.functional.{function} is not an op of the table",
                layer.name
            );
            let params = crate::interp::torch::registry::functional_params(function);
            for p in &init.params {
                assert!(
                    params.contains(&p.name),
                    "{}: {function}() has no parameter {}",
                    layer.name,
                    p.name
                );
            }
        }
    }
}
