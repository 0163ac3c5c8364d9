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
    // ATen unbinds the initial states into their layers and directions (`hx.unbind(0)`).
    let unbind = |ev: &mut Evaluator, t: &Value| -> R<Vec<Value>> {
        match method(ev, t, "unbind", vec![Value::Int(0)])? {
            Value::Tuple(items) | Value::List(items) => Ok(items),
            _ => Err(ScriptError::Runtime("RNN: the states did not split".into())),
        }
    };
    let h0 = unbind(ev, h0)?;
    let c0 = match c0 {
        Some(c) => Some(unbind(ev, c)?),
        None => None,
    };
    let state = |states: &[Value], i: i64| -> R<Value> {
        states
            .get(i as usize)
            .cloned()
            .ok_or_else(|| ScriptError::Runtime("RNN: too few initial states".into()))
    };
    for layer in 0..layers {
        let mut outputs = Vec::new();
        // The last input projection made and every direction's step outputs, freed after
        // the layer's output is put together.
        let mut held: Option<Value> = None;
        let mut held_steps = Vec::new();
        for d in 0..directions {
            let index = layer * directions + d;
            let w = weights(layer, d);
            let h = state(&h0, index)?;
            let c = match &c0 {
                Some(c) => Some(state(c, index)?),
                None => None,
            };
            let (out, h, c, projection, steps_out) = direction_holding(
                ev,
                mode,
                &layer_input,
                [&w.w_ih, &w.w_hh, &w.b_ih, &w.b_hh],
                (h, c),
                steps,
                d == 1,
                held.take(),
            )?;
            held = Some(projection);
            held_steps.push(steps_out);
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
        drop(held_steps);
        drop(held);
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
    weights: [&Value; 4],
    h: Value,
    c: Option<Value>,
    steps: i64,
    reverse: bool,
) -> R<(Value, Value, Option<Value>)> {
    let (out, h, c, _projection, _steps) =
        direction_holding(ev, mode, layer_input, weights, (h, c), steps, reverse, None)?;
    Ok((out, h, c))
}

/// One direction's run: its stacked output, last `h` (and `c`), input projection and step
/// outputs.
type DirectionRun = (Value, Value, Option<Value>, Value, Vec<Value>);

/// [`direction`], also giving back the input projection and the steps' outputs, which
/// ATen's bidirectional layer holds (`input_w`, `fw_result.outputs`) until the layer
/// returns; `release` (the other direction's projection) is dropped once this one's is
/// made, as that assignment frees it.
#[allow(clippy::too_many_arguments)]
fn direction_holding(
    ev: &mut Evaluator,
    mode: &str,
    layer_input: &Value,
    [w_ih, w_hh, b_ih, b_hh]: [&Value; 4],
    (mut h, mut c): (Value, Option<Value>),
    steps: i64,
    reverse: bool,
    release: Option<Value>,
) -> R<DirectionRun> {
    let igates = functional(
        ev,
        "linear",
        vec![layer_input.clone(), w_ih.clone(), b_ih.clone()],
        vec![],
    )?;
    drop(release);
    let mut outs = Vec::new();
    let order: Vec<i64> = if reverse {
        (0..steps).rev().collect()
    } else {
        (0..steps).collect()
    };
    // ATen unbinds the projected input into its steps (`inputs_w.unbind(0)`).
    let step_inputs = match method(ev, &igates, "unbind", vec![Value::Int(0)])? {
        Value::Tuple(items) | Value::List(items) if items.len() == steps as usize => items,
        _ => return Err(ScriptError::Runtime("RNN: the steps did not split".into())),
    };
    for t in order {
        let x = &step_inputs[t as usize];
        let mut hidden_gates = |ev: &mut Evaluator| {
            functional(
                ev,
                "linear",
                vec![h.clone(), w_hh.clone(), b_hh.clone()],
                vec![],
            )
        };
        let (nh, nc) = cell(ev, mode, x.clone(), &mut hidden_gates, &h, c.as_ref())?;
        h = nh;
        c = nc;
        outs.push(h.clone());
    }
    if reverse {
        outs.reverse();
    }
    drop(step_inputs);
    let stacked = torch_fn(ev, "stack", vec![Value::List(outs.clone()), Value::Int(0)])?;
    Ok((stacked, h, c, igates, outs))
}

/// One time step of a cell from its input gates `x` (`linear(input, w_ih, b_ih)`) and hidden
/// gates (`linear(h, w_hh, b_hh)`, which `hidden_gates` computes: the GRU chunks its input
/// gates first), as ATen's `SimpleCell`, `LSTMCell` and `GRUCell` compute it on the CPU: the
/// gates added and activated in place on `unsafe_chunk` parts of the hidden gates, so the
/// saved results keep their buffer. The new `h` (and `c` for an LSTM).
pub(super) fn cell(
    ev: &mut Evaluator,
    mode: &str,
    x: Value,
    hidden_gates: &mut dyn FnMut(&mut Evaluator) -> R<Value>,
    h: &Value,
    c: Option<&Value>,
) -> R<(Value, Option<Value>)> {
    let chunk = |ev: &mut Evaluator, t: &Value, n: i64| -> R<Vec<Value>> {
        match method(ev, t, "unsafe_chunk", vec![Value::Int(n), Value::Int(1)])? {
            Value::Tuple(items) | Value::List(items) if items.len() == n as usize => Ok(items),
            _ => Err(ScriptError::Runtime("RNN: the gates did not split".into())),
        }
    };
    match (mode, c) {
        ("LSTM", Some(c)) => {
            let hg = &hidden_gates(ev)?;
            // The input gates are a temporary of the add (freed after it).
            let gates = method(ev, hg, "add_", vec![x])?;
            let g = chunk(ev, &gates, 4)?;
            let i = method(ev, &g[0], "sigmoid_", vec![])?;
            let f = method(ev, &g[1], "sigmoid_", vec![])?;
            let cell = method(ev, &g[2], "tanh_", vec![])?;
            let o = method(ev, &g[3], "sigmoid_", vec![])?;
            let fc = method(ev, &f, "mul", vec![c.clone()])?;
            let ig = method(ev, &i, "mul", vec![cell])?;
            let cy = method(ev, &fc, "add_", vec![ig])?;
            let tc = method(ev, &cy, "tanh", vec![])?;
            let hy = method(ev, &o, "mul", vec![tc])?;
            Ok((hy, Some(cy)))
        }
        ("GRU", _) => {
            let xi = chunk(ev, &x, 3)?;
            let hg = &hidden_gates(ev)?;
            let hh = chunk(ev, hg, 3)?;
            let r0 = method(ev, &hh[0], "add_", vec![xi[0].clone()])?;
            let reset = method(ev, &r0, "sigmoid_", vec![])?;
            let z0 = method(ev, &hh[1], "add_", vec![xi[1].clone()])?;
            let input_gate = method(ev, &z0, "sigmoid_", vec![])?;
            let rn = method(ev, &hh[2], "mul_", vec![reset])?;
            let n0 = method(ev, &xi[2], "add", vec![rn])?;
            let new_gate = method(ev, &n0, "tanh_", vec![])?;
            let d = method(ev, h, "sub", vec![new_gate.clone()])?;
            let dz = method(ev, &d, "mul_", vec![input_gate])?;
            Ok((method(ev, &dz, "add_", vec![new_gate])?, None))
        }
        (mode, _) => {
            // `nonlinearity(linear_hh(h).add_(linear_ih(x)))`: the input gates, a temporary
            // of the whole expression, are freed after the activation.
            let hg = &hidden_gates(ev)?;
            let pre = method(ev, hg, "add_", vec![x.clone()])?;
            let act = if mode == "RNN_RELU" { "relu" } else { "tanh" };
            let hy = method(ev, &pre, act, vec![])?;
            drop(x);
            Ok((hy, None))
        }
    }
}
