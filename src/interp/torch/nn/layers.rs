//! `torch.nn` layers: each is one entry of [`LAYERS`], its `__init__` signature (bound by
//! the op table's binder, with Python's messages) and the `torch.nn.functional` op its
//! `forward` calls with the layer's arguments.

use crate::core::tensor::ScriptError;
use crate::interp::torch::signature::{bind, CallArgs, Schema};
use crate::interp::value::Value;
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
];

fn find(name: &str) -> Option<&'static LayerDef> {
    LAYERS.iter().find(|l| l.name == name)
}

/// Whether `torch.nn.name` is a layer here.
pub(crate) fn is_layer(name: &str) -> bool {
    find(name).is_some()
}

/// Whether a layer's `repr` shows `inplace=True`.
pub(crate) fn repr_shows_inplace(kind: &str) -> bool {
    find(kind).is_none_or(|l| l.repr_inplace)
}

/// A default's Python text as a value (`None`, `False`, `0.01`, `'none'`).
fn default_value(text: &str) -> Value {
    match text {
        "None" => Value::None,
        "True" => Value::Bool(true),
        "False" => Value::Bool(false),
        _ => {
            if let Some(s) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
                Value::Str(s.into())
            } else if let Ok(i) = text.parse::<i64>() {
                Value::Int(i)
            } else {
                text.parse::<f64>().map_or(Value::None, Value::Float)
            }
        }
    }
}

impl Evaluator {
    /// `torch.nn.Name(...)`: a layer object holding its bound arguments.
    pub(crate) fn make_layer(
        &mut self,
        name: &str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let Some(def) = find(name) else {
            return Err(ScriptError::Attribute(format!(
                "module 'torch.nn' has no attribute '{name}'"
            )));
        };
        if def.forward.is_none() {
            // `Identity(*args, **kwargs)` ignores its arguments.
            return Ok(Value::Layer {
                kind: name.into(),
                inplace: false,
                args: vec![],
            });
        }
        let schema = Schema::parse_python(def.init).map_err(ScriptError::Runtime)?;
        let what = format!("{name}.__init__");
        let bound = bind(
            std::slice::from_ref(&schema),
            &CallArgs {
                name: &what,
                pos: &pos,
                kw: &kw,
            },
        )?;
        let mut inplace = false;
        let mut args = Vec::new();
        for (p, v) in schema.params.iter().zip(bound.values) {
            if p.name == "inplace" {
                if let Some(v) = v {
                    inplace = self.truthy(&v)?;
                }
                continue;
            }
            let default = || p.default.as_deref().map_or(Value::None, default_value);
            args.push((p.name.clone(), v.unwrap_or_else(default)));
        }
        Ok(Value::Layer {
            kind: name.into(),
            inplace,
            args,
        })
    }

    /// Calls an `nn` layer object on its input (`nn.ReLU(inplace=True)(x)`): its functional
    /// op with the layer's arguments, by name.
    pub(crate) fn call_layer(
        &mut self,
        kind: &str,
        inplace: bool,
        args: &[(String, Value)],
        pos: Vec<Value>,
    ) -> R<Value> {
        let [input] = <[Value; 1]>::try_from(pos).map_err(|p| {
            ScriptError::Type(format!(
                "{kind}.forward() takes 2 positional arguments but {} were given",
                p.len() + 1
            ))
        })?;
        let Some(def) = find(kind) else {
            return Err(ScriptError::Attribute(format!(
                "module 'torch.nn' has no attribute '{kind}'"
            )));
        };
        let Some(function) = def.forward else {
            return Ok(input);
        };
        let mut kw = args.to_vec();
        let init = Schema::parse_python(def.init).map_err(ScriptError::Runtime)?;
        if init.params.iter().any(|p| p.name == "inplace") {
            kw.push(("inplace".into(), Value::Bool(inplace)));
        }
        self.call_table_functional(function, &[input], &kw)
            .unwrap_or_else(|| {
                Err(ScriptError::Attribute(format!(
                    "module 'torch.nn.functional' has no attribute '{function}'"
                )))
            })
    }
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
