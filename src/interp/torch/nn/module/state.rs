//! `state_dict` and `load_state_dict` of `nn.Module`, as `torch/nn/modules/module.py`
//! writes them (names, order, error texts).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::methods::prefix_of;
use crate::interp::torch::nn::module::{arg, bind_python, typename};
use crate::interp::value::{Instance, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// `t.detach()` (what `state_dict` holds).
fn detached(ev: &mut Evaluator, t: &TensorRef) -> R<Value> {
    let method = Value::Method(Box::new(Value::Tensor(Rc::clone(t))), "detach".into());
    ev.call(method, vec![], vec![])
}

/// The entries of `state_dict`: every module's parameters and persistent buffers, by full
/// name, submodules after their parent's own (shared tensors appear under each name).
pub(crate) fn state_entries(root: &Rc<Instance>, prefix: &str) -> Vec<(String, TensorRef)> {
    let mut out = Vec::new();
    let mut pending = vec![(prefix.to_string(), Rc::clone(root))];
    let mut visited = 0usize;
    while let Some((prefix, module)) = pending.pop() {
        visited += 1;
        if visited > 1_000_000 {
            break;
        }
        let state = module.module.borrow();
        let Some(state) = state.as_ref() else {
            continue;
        };
        for (name, t) in &state.parameters {
            if let Some(t) = t {
                out.push((format!("{prefix}{name}"), Rc::clone(t)));
            }
        }
        for (name, t) in &state.buffers {
            if let Some(t) = t {
                if !state.non_persistent.contains(name) {
                    out.push((format!("{prefix}{name}"), Rc::clone(t)));
                }
            }
        }
        for (name, m) in state.modules.iter().rev() {
            if let Some(m) = m {
                pending.push((format!("{prefix}{name}."), Rc::clone(m)));
            }
        }
    }
    out
}

pub(super) fn state_dict(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "*, destination=None, prefix='', keep_vars=False",
        "Module.state_dict",
        &pos,
        &kw,
    )?;
    let keep_vars = ev.truthy(&arg(&args, "keep_vars"))?;
    let mut entries = Vec::new();
    for (name, t) in state_entries(o, &prefix_of(&args)) {
        let value = if keep_vars {
            Value::Tensor(t)
        } else {
            detached(ev, &t)?
        };
        entries.push((Value::Str(name), value));
    }
    Ok(Value::OrderedDict(entries))
}

pub(super) fn load_state_dict(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "state_dict, strict=True, assign=False",
        "Module.load_state_dict",
        &pos,
        &kw,
    )?;
    let strict = ev.truthy(&arg(&args, "strict"))?;
    let given = match arg(&args, "state_dict") {
        Value::Dict(entries) | Value::OrderedDict(entries) => entries,
        other => {
            return Err(ScriptError::Type(format!(
                "Expected state_dict to be dict-like, got {}.",
                typename(&other).replace("__main__.", "")
            )))
        }
    };
    let own = state_entries(o, "");
    let mut missing = Vec::new();
    let mut mismatched = Vec::new();
    let mut copies = Vec::new();
    for (name, target) in &own {
        let found = given
            .iter()
            .find(|(k, _)| matches!(k, Value::Str(s) if s == name));
        match found {
            Some((_, Value::Tensor(source))) => {
                let (want, got) = (
                    target.borrow().tensor.shape().to_vec(),
                    source.borrow().tensor.shape().to_vec(),
                );
                if want != got {
                    mismatched.push(format!(
                        "size mismatch for {name}: copying a param with shape torch.Size([{}]) from checkpoint, the shape in current model is torch.Size([{}]).",
                        list(&got),
                        list(&want)
                    ));
                } else {
                    copies.push((Rc::clone(target), Rc::clone(source)));
                }
            }
            Some((_, other)) => mismatched.push(format!(
                "While copying the parameter named \"{name}\", expected torch.Tensor or Tensor-like object from checkpoint but received {}",
                typename(other)
            )),
            None => missing.push(name.clone()),
        }
    }
    let unexpected: Vec<String> = given
        .iter()
        .filter_map(|(k, _)| match k {
            Value::Str(s) if !own.iter().any(|(n, _)| n == s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    let quoted = |names: &[String]| {
        names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut problems = Vec::new();
    if strict {
        if !unexpected.is_empty() {
            problems.push(format!(
                "Unexpected key(s) in state_dict: {}. ",
                quoted(&unexpected)
            ));
        }
        if !missing.is_empty() {
            problems.push(format!(
                "Missing key(s) in state_dict: {}. ",
                quoted(&missing)
            ));
        }
    }
    problems.extend(mismatched);
    if !problems.is_empty() {
        return Err(ScriptError::Runtime(format!(
            "Error(s) in loading state_dict for {}:\n\t{}",
            o.class.name,
            problems.join("\n\t")
        )));
    }
    let grad_mode = ev.torch.grad_enabled;
    ev.torch.grad_enabled = false;
    let mut result = Ok(());
    for (target, source) in copies {
        let method = Value::Method(Box::new(Value::Tensor(target)), "copy_".into());
        if let Err(e) = ev.call(method, vec![Value::Tensor(source)], vec![]) {
            result = Err(e);
            break;
        }
    }
    ev.torch.grad_enabled = grad_mode;
    result?;
    if missing.is_empty() && unexpected.is_empty() {
        return Ok(Value::Printed("<All keys matched successfully>".into()));
    }
    let names = |v: &[String]| Value::List(v.iter().map(|s| Value::Str(s.clone())).collect());
    Ok(Value::NamedTuple(
        "_IncompatibleKeys".into(),
        vec![
            ("missing_keys".into(), names(&missing)),
            ("unexpected_keys".into(), names(&unexpected)),
        ],
    ))
}

fn list(dims: &[i64]) -> String {
    dims.iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
