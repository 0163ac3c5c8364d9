//! Shape helpers that return views: `broadcast_tensors` (stride-0 expands), `atleast_1d`/
//! `atleast_2d`/`atleast_3d`, and `meshgrid` (`indexing='ij'|'xy'`).

use crate::core::tensor::layout::broadcast_shapes;
use crate::core::tensor::{ScriptError, Tensor};
use crate::interp::torch::registry::{Forms, OpCall, OpDef, Varargs};
use crate::interp::value::TensorRef;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["broadcast_tensors"],
        schemas: &["Tensor[] tensors"],
        forms: Forms::Function,
        rule: broadcast_tensors,
        varargs: Varargs::TensorsOnly,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["atleast_1d", "atleast_2d", "atleast_3d"],
        schemas: &["Tensor self", "Tensor[] tensors"],
        forms: Forms::Function,
        rule: atleast,
        varargs: Varargs::Tensors,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["meshgrid"],
        schemas: &["Tensor[] tensors, *, str? indexing=None"],
        forms: Forms::Function,
        rule: meshgrid,
        varargs: Varargs::Tensors,
        ..OpDef::PLAIN
    },
];

fn broadcast_tensors(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    if let Some(Value::Tuple(items) | Value::List(items)) = call.value("tensors") {
        if let Some((i, v)) = items
            .iter()
            .enumerate()
            .find(|(_, v)| !matches!(v, Value::Tensor(_)))
        {
            return Err(ScriptError::Type(format!(
                "expected Tensor as element {i} in argument 0, but got {}",
                v.type_name()
            )));
        }
    }
    let tensors: Vec<Tensor> = call
        .tensors("tensors")
        .iter()
        .map(|t| t.borrow().tensor.clone())
        .collect();
    let mut shape: Vec<i64> = Vec::new();
    for t in &tensors {
        shape = broadcast_shapes(&shape, t.shape()).map_err(ScriptError::Runtime)?;
    }
    let mut out = Vec::with_capacity(tensors.len());
    for t in &tensors {
        out.push(Value::tensor(
            ev.expand(t, &shape)?,
            "broadcast_tensors",
            None,
        ));
    }
    Ok(Value::Tuple(out))
}

/// `atleast_Nd` of one tensor: the tensor itself when it has N dims or more, else a view.
fn atleast_one(ev: &mut Evaluator, t: &TensorRef, n: usize) -> R<Value> {
    let tensor = t.borrow().tensor.clone();
    let name = format!("atleast_{n}d");
    if tensor.ndim() >= n {
        return Ok(Value::Tensor(std::rc::Rc::clone(t)));
    }
    let shape: Vec<i64> = match (n, tensor.ndim()) {
        (_, 0) => vec![1; n],
        (2, 1) | (3, 1) => {
            let mut s = vec![1, tensor.shape()[0]];
            if n == 3 {
                s.push(1);
            }
            s
        }
        _ => {
            let mut s = tensor.shape().to_vec();
            s.push(1);
            s
        }
    };
    let out = if tensor.ndim() == 0 {
        ev.view(&tensor, &shape)?
    } else {
        // Unsqueezes (their strides, not a reshape's).
        let mut v = tensor.clone();
        if tensor.ndim() == 1 {
            v = ev.unsqueeze(&v, 0)?;
        }
        if n == 3 {
            v = ev.unsqueeze(&v, -1)?;
        }
        v
    };
    Ok(Value::tensor(out, &name, None))
}

fn atleast(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let n = match call.name.as_str() {
        "atleast_1d" => 1,
        "atleast_2d" => 2,
        _ => 3,
    };
    if call.overload() == 0 {
        let t = call.self_ref()?;
        return atleast_one(ev, &t, n);
    }
    // The registry names the first parameter of every overload `input`.
    let mut out = Vec::new();
    for t in call.tensors("input") {
        out.push(atleast_one(ev, &t, n)?);
    }
    Ok(Value::Tuple(out))
}

fn meshgrid(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let tensors: Vec<Tensor> = call
        .tensors("tensors")
        .iter()
        .map(|t| t.borrow().tensor.clone())
        .collect();
    let indexing = match call.value("indexing") {
        Some(Value::Str(s)) => s.clone(),
        _ => "ij".to_string(),
    };
    if indexing != "ij" && indexing != "xy" {
        return Err(ScriptError::Runtime(format!(
            "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}"
        )));
    }
    if tensors.is_empty() {
        return Err(ScriptError::Runtime(
            "meshgrid expects a non-empty TensorList".into(),
        ));
    }
    for t in &tensors {
        if t.ndim() > 1 {
            return Err(ScriptError::Runtime(format!(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {}",
                tensor_text(ev, t)
            )));
        }
    }
    if tensors.iter().any(|t| t.dtype != tensors[0].dtype) {
        return Err(ScriptError::Runtime(
            "meshgrid expects all tensors to have the same dtype".into(),
        ));
    }
    let k = tensors.len();
    // 'xy' swaps the first two dims of the grid.
    let position = |i: usize| -> usize {
        if indexing == "xy" && k >= 2 && i < 2 {
            1 - i
        } else {
            i
        }
    };
    let mut shape = vec![0i64; k];
    for (i, t) in tensors.iter().enumerate() {
        shape[position(i)] = t.numel();
    }
    let mut out = Vec::with_capacity(k);
    for (i, t) in tensors.iter().enumerate() {
        let mut view_shape = vec![1i64; k];
        view_shape[position(i)] = -1;
        let v = ev.view(t, &view_shape)?;
        out.push(Value::tensor(ev.expand(&v, &shape)?, "meshgrid", None));
    }
    Ok(Value::Tuple(out))
}

/// The first line of a tensor as ATen prints it in a message (` 1  1`).
fn tensor_text(ev: &mut Evaluator, t: &Tensor) -> String {
    let values = ev.engine.values(t);
    let cols = t.shape().last().copied().unwrap_or(1).max(1) as usize;
    let row: Vec<String> = values
        .iter()
        .take(cols)
        .map(|v| crate::core::print::pyfmt::general(v.to_f64(), 6))
        .collect();
    format!(" {}", row.join("  "))
}
