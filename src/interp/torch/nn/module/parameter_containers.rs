//! `ParameterList` and `ParameterDict` (`torch/nn/modules/container.py`): containers of
//! parameters, registered under `0, 1, ...` or their keys, tensors made `Parameter`s.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::containers::{key_text, position};
use crate::interp::torch::nn::module::{typename, ModuleDef};
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};

const PATH: &str = "torch.nn.modules.container";

/// The parameter containers.
pub(crate) static MODULES: &[ModuleDef] = &[
    ModuleDef {
        init: Some(parameter_list_init),
        extra_repr: Some(parameter_container_repr),
        methods: &[
            ("__len__", |_, o, _, _| {
                Ok(Value::Int(own_parameters(o).len() as i64))
            }),
            ("__iter__", |_, o, _, _| {
                Ok(Value::List(
                    own_parameters(o).into_iter().map(|(_, t)| t).collect(),
                ))
            }),
            ("__getitem__", parameter_list_get),
            ("append", |ev, o, pos, _| {
                let n = own_parameters(o).len();
                for v in pos {
                    ev.register_parameter_value(o, &n.to_string(), v)?;
                }
                Ok(Value::Instance(Rc::clone(o)))
            }),
            ("extend", |ev, o, pos, _| {
                let items = match pos.first() {
                    Some(v) => ev.iterate(v)?,
                    None => Vec::new(),
                };
                for v in items {
                    let n = own_parameters(o).len();
                    ev.register_parameter_value(o, &n.to_string(), v)?;
                }
                Ok(Value::Instance(Rc::clone(o)))
            }),
        ],
        ..ModuleDef::new("ParameterList", PATH)
    },
    ModuleDef {
        init: Some(parameter_dict_init),
        extra_repr: Some(parameter_container_repr),
        methods: &[
            ("__len__", |_, o, _, _| {
                Ok(Value::Int(own_parameters(o).len() as i64))
            }),
            ("__iter__", |_, o, _, _| {
                Ok(Value::List(
                    own_parameters(o)
                        .into_iter()
                        .map(|(n, _)| Value::Str(n))
                        .collect(),
                ))
            }),
            ("__getitem__", |_, o, pos, _| {
                let key = pos.into_iter().next().unwrap_or(Value::None);
                own_parameters(o)
                    .into_iter()
                    .find(|(n, _)| matches!(&key, Value::Str(k) if k == n))
                    .map(|(_, t)| t)
                    .ok_or_else(|| ScriptError::Key(key_text(&key)))
            }),
            ("__setitem__", |ev, o, pos, _| {
                let [Value::Str(key), value] = pos.as_slice() else {
                    return Err(ScriptError::Type(
                        "parameter name should be a string".into(),
                    ));
                };
                ev.register_parameter_value(o, key, value.clone())?;
                Ok(Value::None)
            }),
            ("keys", |ev, o, _, _| {
                let entries = own_parameters(o)
                    .into_iter()
                    .map(|(n, t)| (Value::Str(n), t))
                    .collect();
                Ok(ev.dict_view(entries, "keys", false))
            }),
            ("values", |_, o, _, _| {
                Ok(Value::List(
                    own_parameters(o).into_iter().map(|(_, t)| t).collect(),
                ))
            }),
            ("items", |_, o, _, _| {
                Ok(Value::List(
                    own_parameters(o)
                        .into_iter()
                        .map(|(n, t)| Value::Tuple(vec![Value::Str(n), t]))
                        .collect(),
                ))
            }),
        ],
        ..ModuleDef::new("ParameterDict", PATH)
    },
];

/// A container's own parameters, as values (`ParameterList`, `ParameterDict`).
fn own_parameters(o: &Rc<Instance>) -> Vec<(String, Value)> {
    o.module
        .borrow()
        .as_ref()
        .map(|s| {
            s.parameters
                .iter()
                .map(|(n, t)| (n.clone(), t.clone().map_or(Value::None, Value::Tensor)))
                .collect()
        })
        .unwrap_or_default()
}

fn parameter_list_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = super::bind_python("values=None", "ParameterList.__init__", &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    let values = super::arg(&args, "values");
    if !matches!(values, Value::None) {
        for (i, v) in ev.iterate(&values)?.into_iter().enumerate() {
            ev.register_parameter_value(o, &i.to_string(), v)?;
        }
    }
    Ok(())
}

fn parameter_dict_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = super::bind_python("parameters=None", "ParameterDict.__init__", &pos, &kw)?;
    ev.module_init(o, &[], &[])?;
    let entries = match super::arg(&args, "parameters") {
        Value::None => Vec::new(),
        Value::Dict(e) | Value::OrderedDict(e) => e,
        other => ev
            .iterate(&other)?
            .into_iter()
            .filter_map(|kv| match kv {
                Value::Tuple(kv) | Value::List(kv) if kv.len() == 2 => {
                    Some((kv[0].clone(), kv[1].clone()))
                }
                _ => None,
            })
            .collect(),
    };
    for (k, v) in entries {
        let Value::Str(k) = k else {
            return Err(ScriptError::Type(
                "parameter name should be a string".into(),
            ));
        };
        ev.register_parameter_value(o, &k, v)?;
    }
    Ok(())
}

fn parameter_list_get(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    _: Vec<(String, Value)>,
) -> R<Value> {
    let params = own_parameters(o);
    let index = pos.into_iter().next().unwrap_or(Value::None);
    let i = position(ev, &index, params.len(), "ParameterList")?;
    Ok(params[i].1.clone())
}

/// The `extra_repr` of `ParameterList`/`ParameterDict`: one line per parameter,
/// `(0): Parameter containing: [torch.float32 of size 3x4]`.
fn parameter_container_repr(_: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let is_dict = super::native_of(&o.class).is_some_and(|d| d.name == "ParameterDict");
    let lines: Vec<String> = own_parameters(o)
        .into_iter()
        .map(|(k, v)| match v {
            Value::Tensor(t) => {
                let type_text = if is_dict {
                    typename(&Value::Tensor(Rc::clone(&t)))
                } else {
                    format!("torch.{}", t.borrow().tensor.dtype)
                };
                let t = t.borrow();
                let size = t
                    .tensor
                    .shape()
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join("x");
                let kind = if t.is_parameter {
                    "Parameter"
                } else {
                    "Tensor"
                };
                format!("  ({k}): {kind} containing: [{type_text} of size {size}]")
            }
            _ => format!("  ({k}): Object of type: NoneType"),
        })
        .collect();
    Ok(lines.join("\n"))
}

impl Evaluator {
    /// Registers `value` as parameter `name` of a module, making a tensor a `Parameter`
    /// first (what `ParameterList` and `ParameterDict` do).
    pub(crate) fn register_parameter_value(
        &mut self,
        o: &Rc<Instance>,
        name: &str,
        value: Value,
    ) -> R<()> {
        let param: Option<TensorRef> = match value {
            Value::None => None,
            Value::Tensor(t) if t.borrow().is_parameter => Some(t),
            Value::Tensor(t) => match self.make_parameter(&t, true)? {
                Value::Tensor(p) => Some(p),
                _ => None,
            },
            other => {
                return Err(ScriptError::Type(format!(
                    "cannot assign '{}' object to parameter '{name}' (torch.nn.Parameter or None required)",
                    typename(&other)
                )))
            }
        };
        if let Some(state) = o.module.borrow_mut().as_mut() {
            match state.parameters.iter_mut().find(|(n, _)| n == name) {
                Some(slot) => slot.1 = param,
                None => state.parameters.push((name.to_string(), param)),
            }
        }
        Ok(())
    }
}
