//! The recurrent layers as ATen's CPU loop computes them (`aten/src/ATen/native/RNN.cpp`),
//! written with the table's differentiable ops: `RNN`, `GRU`, and the values of `LSTM`
//! (whose recording is oneDNN's, [`super::rnn_mkldnn`]).

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::layers::{functional, method, rnn_mkldnn};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// Calls `torch.name(*pos)`.
fn torch_fn(ev: &mut Evaluator, name: &str, pos: Vec<Value>) -> R<Value> {
    ev.call(
        Value::Method(Box::new(Value::Torch), name.into()),
        pos,
        vec![],
    )
}

/// The layers as ATen's CPU loop runs them (`RNN`, `GRU`, and `LSTM` where oneDNN does not
/// run it): `(output, h_n, c_n)` from the seq-first input.
pub(super) fn decomposed(
    ev: &mut Evaluator,
    mode: &str,
    input: Value,
    h0: &Value,
    c0: Option<&Value>,
    (layers, directions, steps, dropout, training): (i64, i64, i64, f64, bool),
    weights: &dyn Fn(i64, i64) -> rnn_mkldnn::Weights,
) -> R<(Value, Value, Option<Value>)> {
    let mut layer_input = input;
    let (mut hn, mut cn) = (Vec::new(), Vec::new());
    for layer in 0..layers {
        let mut outputs = Vec::new();
        for d in 0..directions {
            let index = Value::Int(layer * directions + d);
            let w = weights(layer, d);
            let h = method(ev, h0, "select", vec![Value::Int(0), index.clone()])?;
            let c = match c0 {
                Some(c) => Some(method(ev, c, "select", vec![Value::Int(0), index])?),
                None => None,
            };
            let (out, h, c) = direction(
                ev,
                mode,
                &layer_input,
                [&w.w_ih, &w.w_hh, &w.b_ih, &w.b_hh],
                h,
                c,
                steps,
                d == 1,
            )?;
            outputs.push(out);
            hn.push(h);
            if let Some(c) = c {
                cn.push(c);
            }
        }
        let mut output = if outputs.len() == 1 {
            outputs.remove(0)
        } else {
            torch_fn(ev, "cat", vec![Value::List(outputs), Value::Int(2)])?
        };
        if dropout != 0.0 && training && layer < layers - 1 {
            output = functional(
                ev,
                "dropout",
                vec![output, Value::Float(dropout), Value::Bool(true)],
                vec![],
            )?;
        }
        layer_input = output;
    }
    let h_n = torch_fn(ev, "stack", vec![Value::List(hn), Value::Int(0)])?;
    let c_n = if c0.is_some() {
        Some(torch_fn(ev, "stack", vec![Value::List(cn), Value::Int(0)])?)
    } else {
        None
    };
    Ok((layer_input, h_n, c_n))
}

/// One direction of one layer: the input projection of all steps at once, then per step
/// the hidden projection and the cell; the outputs stacked, the last `h` (and `c`).
#[allow(clippy::too_many_arguments)]
pub(super) fn direction(
    ev: &mut Evaluator,
    mode: &str,
    layer_input: &Value,
    [w_ih, w_hh, b_ih, b_hh]: [&Value; 4],
    mut h: Value,
    mut c: Option<Value>,
    steps: i64,
    reverse: bool,
) -> R<(Value, Value, Option<Value>)> {
    let igates = functional(
        ev,
        "linear",
        vec![layer_input.clone(), w_ih.clone(), b_ih.clone()],
        vec![],
    )?;
    let mut outs = Vec::new();
    let order: Vec<i64> = if reverse {
        (0..steps).rev().collect()
    } else {
        (0..steps).collect()
    };
    for t in order {
        let x = method(ev, &igates, "select", vec![Value::Int(0), Value::Int(t)])?;
        let hgates = functional(
            ev,
            "linear",
            vec![h.clone(), w_hh.clone(), b_hh.clone()],
            vec![],
        )?;
        let (nh, nc) = cell(ev, mode, &x, &hgates, &h, c.as_ref())?;
        h = nh;
        c = nc;
        outs.push(h.clone());
    }
    if reverse {
        outs.reverse();
    }
    let stacked = torch_fn(ev, "stack", vec![Value::List(outs), Value::Int(0)])?;
    Ok((stacked, h, c))
}

/// One time step of a cell from its input gates `x` (`linear(input, w_ih, b_ih)`) and hidden
/// gates `hg` (`linear(h, w_hh, b_hh)`), as ATen's `SimpleCell`, `LSTMCell` and `GRUCell`
/// compute it: the new `h` (and `c` for an LSTM).
pub(super) fn cell(
    ev: &mut Evaluator,
    mode: &str,
    x: &Value,
    hg: &Value,
    h: &Value,
    c: Option<&Value>,
) -> R<(Value, Option<Value>)> {
    let chunk = |ev: &mut Evaluator, t: &Value, n: i64| -> R<Vec<Value>> {
        match method(ev, t, "chunk", vec![Value::Int(n), Value::Int(1)])? {
            Value::Tuple(items) | Value::List(items) if items.len() == n as usize => Ok(items),
            _ => Err(ScriptError::Runtime("RNN: the gates did not split".into())),
        }
    };
    match (mode, c) {
        ("LSTM", Some(c)) => {
            let gates = method(ev, hg, "add", vec![x.clone()])?;
            let g = chunk(ev, &gates, 4)?;
            let i = method(ev, &g[0], "sigmoid", vec![])?;
            let f = method(ev, &g[1], "sigmoid", vec![])?;
            let cell = method(ev, &g[2], "tanh", vec![])?;
            let o = method(ev, &g[3], "sigmoid", vec![])?;
            let fc = method(ev, &f, "mul", vec![c.clone()])?;
            let ig = method(ev, &i, "mul", vec![cell])?;
            let cy = method(ev, &fc, "add", vec![ig])?;
            let tc = method(ev, &cy, "tanh", vec![])?;
            let hy = method(ev, &o, "mul", vec![tc])?;
            Ok((hy, Some(cy)))
        }
        ("GRU", _) => {
            let xi = chunk(ev, x, 3)?;
            let hh = chunk(ev, hg, 3)?;
            let r0 = method(ev, &hh[0], "add", vec![xi[0].clone()])?;
            let r = method(ev, &r0, "sigmoid", vec![])?;
            let z0 = method(ev, &hh[1], "add", vec![xi[1].clone()])?;
            let z = method(ev, &z0, "sigmoid", vec![])?;
            let rn = method(ev, &hh[2], "mul", vec![r])?;
            let n0 = method(ev, &xi[2], "add", vec![rn])?;
            let n = method(ev, &n0, "tanh", vec![])?;
            let d = method(ev, h, "sub", vec![n.clone()])?;
            let dz = method(ev, &d, "mul", vec![z])?;
            Ok((method(ev, &dz, "add", vec![n])?, None))
        }
        (mode, _) => {
            let pre = method(ev, hg, "add", vec![x.clone()])?;
            let act = if mode == "RNN_RELU" { "relu" } else { "tanh" };
            Ok((method(ev, &pre, act, vec![])?, None))
        }
    }
}
