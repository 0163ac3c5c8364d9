//! The recurrent layers (`torch/nn/modules/rnn.py`): `RNN`, `LSTM`, `GRU` (on `RNNBase`) and
//! `RNNCell`, `LSTMCell`, `GRUCell` (on `RNNCellBase`). Their parameters are made in
//! PyTorch's order (`weight_ih_l0`, `weight_hh_l0`, `bias_ih_l0`, `bias_hh_l0`, then the
//! `_reverse` direction, then the next layer) and drawn by `reset_parameters` (uniform in
//! `±1/sqrt(hidden_size)`). `RNN` and `GRU` run ATen's CPU loop ([`super::rnn_loop`]);
//! `LSTM` on a float32 CPU input runs as oneDNN's layers ([`super::rnn_mkldnn`]), elsewhere
//! the loop too. `batch_first` transposes in and out; an unbatched input gets a batch of one.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::layers::rnn_loop::{cell, decomposed};
use crate::interp::torch::nn::layers::rnn_mkldnn;
use crate::interp::torch::nn::layers::{
    attr, check_device, dtype_arg, fmt, functional, init, int_arg, method, set_attrs, set_parameter,
};
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// The layer classes of this family.
pub(crate) static MODULES: &[ModuleDef] = &[
    ModuleDef {
        extra_repr: Some(base_repr),
        methods: &[("reset_parameters", |ev, o, _, _| {
            reset(ev, o).map(|()| Value::None)
        })],
        ..ModuleDef::new("RNNBase", "torch.nn.modules.rnn")
    },
    ModuleDef {
        base: Some("RNNBase"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None",
                "RNN.__init__",
                &pos,
                &kw,
            )?;
            let mode = match arg(&args, "nonlinearity") {
                Value::Str(s) if s == "tanh" => "RNN_TANH",
                Value::Str(s) if s == "relu" => "RNN_RELU",
                other => {
                    return Err(ScriptError::Value(format!(
                        "Unknown nonlinearity '{}'. Select from 'tanh' or 'relu'.",
                        fmt(ev, &other)?
                    )))
                }
            };
            base_init(ev, o, mode, &args)?;
            set_attrs(o, vec![("nonlinearity", arg(&args, "nonlinearity"))]);
            Ok(())
        }),
        forward: Some(base_forward),
        ..ModuleDef::new("RNN", "torch.nn.modules.rnn")
    },
    ModuleDef {
        base: Some("RNNBase"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None",
                "LSTM.__init__",
                &pos,
                &kw,
            )?;
            base_init(ev, o, "LSTM", &args)
        }),
        forward: Some(base_forward),
        ..ModuleDef::new("LSTM", "torch.nn.modules.rnn")
    },
    ModuleDef {
        base: Some("RNNBase"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None",
                "GRU.__init__",
                &pos,
                &kw,
            )?;
            base_init(ev, o, "GRU", &args)
        }),
        forward: Some(base_forward),
        ..ModuleDef::new("GRU", "torch.nn.modules.rnn")
    },
    ModuleDef {
        extra_repr: Some(cell_repr),
        methods: &[("reset_parameters", |ev, o, _, _| {
            reset(ev, o).map(|()| Value::None)
        })],
        ..ModuleDef::new("RNNCellBase", "torch.nn.modules.rnn")
    },
    ModuleDef {
        base: Some("RNNCellBase"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "input_size, hidden_size, bias=True, nonlinearity='tanh', device=None, dtype=None",
                "RNNCell.__init__",
                &pos,
                &kw,
            )?;
            cell_init(ev, o, 1, &args)?;
            set_attrs(o, vec![("nonlinearity", arg(&args, "nonlinearity"))]);
            Ok(())
        }),
        forward: Some(|ev, o, pos, kw| cell_forward(ev, o, "RNNCell", pos, kw)),
        ..ModuleDef::new("RNNCell", "torch.nn.modules.rnn")
    },
    ModuleDef {
        base: Some("RNNCellBase"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "input_size, hidden_size, bias=True, device=None, dtype=None",
                "LSTMCell.__init__",
                &pos,
                &kw,
            )?;
            cell_init(ev, o, 4, &args)
        }),
        forward: Some(|ev, o, pos, kw| cell_forward(ev, o, "LSTMCell", pos, kw)),
        ..ModuleDef::new("LSTMCell", "torch.nn.modules.rnn")
    },
    ModuleDef {
        base: Some("RNNCellBase"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "input_size, hidden_size, bias=True, device=None, dtype=None",
                "GRUCell.__init__",
                &pos,
                &kw,
            )?;
            cell_init(ev, o, 3, &args)
        }),
        forward: Some(|ev, o, pos, kw| cell_forward(ev, o, "GRUCell", pos, kw)),
        ..ModuleDef::new("GRUCell", "torch.nn.modules.rnn")
    },
];

/// A bool argument, with `RNNBase`'s type check.
fn bool_arg(name: &str, v: &Value) -> R<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => Err(ScriptError::Type(format!(
            "{name} should be of type bool, got: {}",
            other.type_name()
        ))),
    }
}

/// A size argument, with `RNNBase`'s checks (`input_size should be of type int`,
/// `hidden_size must be greater than zero`).
fn size_arg(name: &str, v: &Value) -> R<i64> {
    match v {
        Value::Int(i) if *i > 0 => Ok(*i),
        Value::Int(_) => Err(ScriptError::Value(format!(
            "{name} must be greater than zero"
        ))),
        other => Err(ScriptError::Type(format!(
            "{name} should be of type int, got: {}",
            other.type_name()
        ))),
    }
}

/// `RNNBase.__init__(mode, ...)`: the attributes, then the parameters of every layer and
/// direction, then `reset_parameters()`.
fn base_init(ev: &mut Evaluator, o: &Rc<Instance>, mode: &str, args: &[(String, Value)]) -> R<()> {
    ev.module_init(o, &[], &[])?;
    let dropout = match arg(args, "dropout") {
        Value::Float(f) if (0.0..=1.0).contains(&f) => f,
        Value::Int(i) if (0..=1).contains(&i) => i as f64,
        _ => {
            return Err(ScriptError::Value(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
                    .into(),
            ))
        }
    };
    let bias = bool_arg("bias", &arg(args, "bias"))?;
    bool_arg("batch_first", &arg(args, "batch_first"))?;
    let input_size = size_arg("input_size", &arg(args, "input_size"))?;
    let hidden_size = size_arg("hidden_size", &arg(args, "hidden_size"))?;
    let num_layers = int_arg(ev, &arg(args, "num_layers"))?;
    if num_layers <= 0 {
        return Err(ScriptError::Value(
            "num_layers must be greater than zero".into(),
        ));
    }
    let proj_size = match arg(args, "proj_size") {
        Value::None => 0,
        v => int_arg(ev, &v)?,
    };
    if proj_size != 0 {
        return Err(ScriptError::NotImplemented(
            "LSTM with proj_size is not supported by Stridescope".into(),
        ));
    }
    let bidirectional = ev.truthy(&arg(args, "bidirectional"))?;
    set_attrs(
        o,
        vec![
            ("mode", Value::Str(mode.into())),
            ("input_size", arg(args, "input_size")),
            ("hidden_size", arg(args, "hidden_size")),
            ("num_layers", arg(args, "num_layers")),
            ("bias", arg(args, "bias")),
            ("batch_first", arg(args, "batch_first")),
            ("dropout", Value::Float(dropout)),
            ("bidirectional", arg(args, "bidirectional")),
            ("proj_size", Value::Int(0)),
        ],
    );
    let dtype = dtype_arg(&arg(args, "dtype"))?;
    check_device(ev, &arg(args, "device"))?;
    let gate = gates(mode) * hidden_size;
    let directions = if bidirectional { 2 } else { 1 };
    let mut flat = Vec::new();
    let mut all = Vec::new();
    let mut unused = (None, None);
    for layer in 0..num_layers {
        for direction in 0..directions {
            let layer_input = if layer == 0 {
                input_size
            } else {
                hidden_size * directions
            };
            let suffix = if direction == 1 { "_reverse" } else { "" };
            let mut names = vec![
                (
                    format!("weight_ih_l{layer}{suffix}"),
                    vec![gate, layer_input],
                ),
                (
                    format!("weight_hh_l{layer}{suffix}"),
                    vec![gate, hidden_size],
                ),
            ];
            if bias {
                names.push((format!("bias_ih_l{layer}{suffix}"), vec![gate]));
                names.push((format!("bias_hh_l{layer}{suffix}"), vec![gate]));
            }
            let mut group = Vec::new();
            for (name, shape) in names {
                let p = ev.empty_parameter(&shape, dtype)?;
                set_parameter(o, &name, Some(p));
                flat.push(Value::Str(name.clone()));
                group.push(Value::Str(name));
            }
            if !bias {
                // `b_ih`/`b_hh` are made all the same and dropped when rebound.
                unused.0 = Some(ev.empty_parameter(&[gate], dtype)?);
                unused.1 = Some(ev.empty_parameter(&[gate], dtype)?);
            }
            all.push(Value::List(group));
        }
    }
    set_attrs(
        o,
        vec![
            ("_flat_weights_names", Value::List(flat)),
            ("_all_weights", Value::List(all)),
        ],
    );
    reset(ev, o)
}

/// The number of gates of a mode (`4` for LSTM, `3` for GRU, `1` for the plain RNN).
fn gates(mode: &str) -> i64 {
    match mode {
        "LSTM" => 4,
        "GRU" => 3,
        _ => 1,
    }
}

/// `reset_parameters()`: every parameter uniform in `±1/sqrt(hidden_size)`, in order.
fn reset(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    let hidden = match attr(o, "hidden_size") {
        Value::Int(h) => h,
        _ => 0,
    };
    let stdv = if hidden > 0 {
        1.0 / (hidden as f64).sqrt()
    } else {
        0.0
    };
    let params: Vec<Value> = o
        .module
        .borrow()
        .as_ref()
        .map(|s| {
            s.parameters
                .iter()
                .filter_map(|(_, p)| p.clone().map(Value::Tensor))
                .collect()
        })
        .unwrap_or_default();
    for p in params {
        init(
            ev,
            "uniform_",
            vec![p, Value::Float(-stdv), Value::Float(stdv)],
            vec![],
        )?;
    }
    Ok(())
}

/// `RNNBase.extra_repr`.
fn base_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let mut s = format!(
        "{}, {}",
        fmt(ev, &attr(o, "input_size"))?,
        fmt(ev, &attr(o, "hidden_size"))?
    );
    if !matches!(attr(o, "num_layers"), Value::Int(1)) {
        s += &format!(", num_layers={}", fmt(ev, &attr(o, "num_layers"))?);
    }
    if !matches!(attr(o, "bias"), Value::Bool(true)) {
        s += &format!(", bias={}", fmt(ev, &attr(o, "bias"))?);
    }
    if !matches!(attr(o, "batch_first"), Value::Bool(false)) {
        s += &format!(", batch_first={}", fmt(ev, &attr(o, "batch_first"))?);
    }
    if !matches!(attr(o, "dropout"), Value::Float(f) if f == 0.0) {
        s += &format!(", dropout={}", fmt(ev, &attr(o, "dropout"))?);
    }
    if !matches!(attr(o, "bidirectional"), Value::Bool(false)) {
        s += &format!(", bidirectional={}", fmt(ev, &attr(o, "bidirectional"))?);
    }
    Ok(s)
}

/// A tensor's dims (`0` for a non-tensor).
fn ndim(v: &Value) -> usize {
    v.as_tensor().map_or(0, |t| t.shape().len())
}

/// A tensor's size along `dim`.
fn size(v: &Value, dim: usize) -> i64 {
    v.as_tensor()
        .and_then(|t| t.shape().get(dim).copied())
        .unwrap_or(0)
}

/// `torch.zeros(shape, dtype=like.dtype)`.
fn zeros(ev: &mut Evaluator, shape: &[i64], like: &Value) -> R<Value> {
    let dims = Value::Tuple(shape.iter().map(|&d| Value::Int(d)).collect());
    let dtype = like
        .as_tensor()
        .map_or(Value::None, |t| Value::DType(t.dtype));
    ev.call(
        Value::Method(Box::new(Value::Torch), "zeros".into()),
        vec![dims],
        vec![("dtype".into(), dtype)],
    )
}

/// PyTorch's `Expected hidden size (2, 3, 20), got [1, 3, 20]` check.
fn check_hidden(v: &Value, expected: &[i64], what: &str) -> R<()> {
    let got = v
        .as_tensor()
        .map(|t| t.shape().to_vec())
        .unwrap_or_default();
    if got != expected {
        let tuple = expected
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let list = got
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(ScriptError::Runtime(format!(
            "Expected {what} size ({tuple}), got [{list}]"
        )));
    }
    Ok(())
}

/// `RNN.forward` / `LSTM.forward` / `GRU.forward` on a padded (not packed) input.
fn base_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "input, hx=None",
        &format!("{}.forward", o.class.name),
        &pos,
        &kw,
    )?;
    let mode = match attr(o, "mode") {
        Value::Str(m) => m,
        _ => "RNN_TANH".into(),
    };
    let lstm = mode == "LSTM";
    let name = if lstm {
        "LSTM"
    } else if mode == "GRU" {
        "GRU"
    } else {
        "RNN"
    };
    let mut input = arg(&args, "input");
    let hx = arg(&args, "hx");
    let rank = ndim(&input);
    if input.as_tensor().is_none() || !(2..=3).contains(&rank) {
        return Err(ScriptError::Value(format!(
            "{name}: Expected input to be 2D or 3D, got {rank}D {}",
            if lstm { "instead" } else { "tensor instead" }
        )));
    }
    let batch_first = matches!(attr(o, "batch_first"), Value::Bool(true));
    let batched = rank == 3;
    let batch_dim = if batch_first { 0 } else { 1 };
    let (mut h0, mut c0) = match (&hx, lstm) {
        (Value::None, _) => (None, None),
        (Value::Tuple(items) | Value::List(items), true) if items.len() == 2 => {
            (Some(items[0].clone()), Some(items[1].clone()))
        }
        (v, false) => (Some(v.clone()), None),
        (v, true) => {
            return Err(ScriptError::Type(format!(
                "LSTM.forward: hx must be a tuple of two tensors, got {}",
                v.type_name()
            )))
        }
    };
    let hidden_rank = if batched { 3 } else { 2 };
    for h in h0.iter().chain(c0.iter()) {
        if ndim(h) != hidden_rank {
            return Err(ScriptError::Runtime(if batched {
                format!(
                    "For batched 3-D input, hx{} should also be 3-D but got {}-D tensor",
                    if lstm { " and cx" } else { "" },
                    ndim(h)
                )
            } else {
                format!(
                    "For unbatched 2-D input, hx{} should also be 2-D but got {}-D tensor",
                    if lstm { " and cx" } else { "" },
                    ndim(h)
                )
            }));
        }
    }
    if !batched {
        input = method(ev, &input, "unsqueeze", vec![Value::Int(batch_dim)])?;
        for h in h0.iter_mut().chain(c0.iter_mut()) {
            *h = method(ev, h, "unsqueeze", vec![Value::Int(1)])?;
        }
    }
    let hidden = int_arg(ev, &attr(o, "hidden_size"))?;
    let layers = int_arg(ev, &attr(o, "num_layers"))?;
    let directions: i64 = if ev.truthy(&attr(o, "bidirectional"))? {
        2
    } else {
        1
    };
    let batch = size(&input, if batch_first { 0 } else { 1 });
    let expected = [layers * directions, batch, hidden];
    let h0 = match h0 {
        Some(h) => h,
        None => zeros(ev, &expected, &input)?,
    };
    let c0 = match (lstm, c0) {
        (true, Some(c)) => Some(c),
        (true, None) => Some(zeros(ev, &expected, &input)?),
        (false, _) => None,
    };
    let input_size = int_arg(ev, &attr(o, "input_size"))?;
    let last = size(&input, 2);
    if input_size != last {
        return Err(ScriptError::Runtime(format!(
            "input.size(-1) must be equal to input_size. Expected {input_size}, got {last}"
        )));
    }
    if lstm {
        check_hidden(&h0, &expected, "hidden[0]")?;
        if let Some(c) = &c0 {
            check_hidden(c, &expected, "hidden[1]")?;
        }
    } else {
        check_hidden(&h0, &expected, "hidden")?;
    }
    if batch_first {
        input = method(ev, &input, "transpose", vec![Value::Int(0), Value::Int(1)])?;
    }
    let steps = size(&input, 0);
    let dropout = match attr(o, "dropout") {
        Value::Float(f) => f,
        _ => 0.0,
    };
    let training = o.module.borrow().as_ref().is_some_and(|s| s.training);
    let weights = |layer: i64, direction: i64| {
        let suffix = if direction == 1 { "_reverse" } else { "" };
        let weight = |kind: &str| attr(o, &format!("{kind}_l{layer}{suffix}"));
        rnn_mkldnn::Weights {
            w_ih: weight("weight_ih"),
            w_hh: weight("weight_hh"),
            b_ih: weight("bias_ih"),
            b_hh: weight("bias_hh"),
        }
    };
    let (mut output, mut h_n, mut c_n) = match &c0 {
        Some(c) if rnn_mkldnn::applies(ev, &input) => {
            let (output, h_n, c_n) = rnn_mkldnn::forward(
                ev, input, &h0, c, layers, directions, dropout, training, &weights,
            )?;
            (output, h_n, Some(c_n))
        }
        _ => {
            let shape = (layers, directions, steps, dropout, training);
            decomposed(ev, &mode, input, &h0, c0.as_ref(), shape, &weights)?
        }
    };
    if batch_first {
        // ATen's RNN/GRU loop transposes its result in place (`TransposeBackward1`).
        let transpose = if lstm { "transpose" } else { "transpose_" };
        output = method(ev, &output, transpose, vec![Value::Int(0), Value::Int(1)])?;
    }
    if !batched {
        output = method(ev, &output, "squeeze", vec![Value::Int(batch_dim)])?;
        h_n = method(ev, &h_n, "squeeze", vec![Value::Int(1)])?;
        if let Some(c) = c_n.as_mut() {
            *c = method(ev, c, "squeeze", vec![Value::Int(1)])?;
        }
    }
    Ok(Value::Tuple(vec![
        output,
        match c_n {
            Some(c) => Value::Tuple(vec![h_n, c]),
            None => h_n,
        },
    ]))
}

/// `RNNCellBase.__init__`: the attributes, `weight_ih`, `weight_hh`, `bias_ih`, `bias_hh`
/// (`None` without bias), then `reset_parameters()`.
fn cell_init(ev: &mut Evaluator, o: &Rc<Instance>, chunks: i64, args: &[(String, Value)]) -> R<()> {
    ev.module_init(o, &[], &[])?;
    let input_size = int_arg(ev, &arg(args, "input_size"))?;
    let hidden_size = int_arg(ev, &arg(args, "hidden_size"))?;
    let bias = ev.truthy(&arg(args, "bias"))?;
    set_attrs(
        o,
        vec![
            ("input_size", arg(args, "input_size")),
            ("hidden_size", arg(args, "hidden_size")),
            ("bias", arg(args, "bias")),
        ],
    );
    let dtype = dtype_arg(&arg(args, "dtype"))?;
    check_device(ev, &arg(args, "device"))?;
    let gate = chunks * hidden_size;
    let w_ih = ev.empty_parameter(&[gate, input_size], dtype)?;
    set_parameter(o, "weight_ih", Some(w_ih));
    let w_hh = ev.empty_parameter(&[gate, hidden_size], dtype)?;
    set_parameter(o, "weight_hh", Some(w_hh));
    if bias {
        let b_ih = ev.empty_parameter(&[gate], dtype)?;
        set_parameter(o, "bias_ih", Some(b_ih));
        let b_hh = ev.empty_parameter(&[gate], dtype)?;
        set_parameter(o, "bias_hh", Some(b_hh));
    } else {
        set_parameter(o, "bias_ih", None);
        set_parameter(o, "bias_hh", None);
    }
    reset(ev, o)
}

/// `RNNCellBase.extra_repr`.
fn cell_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let mut s = format!(
        "{}, {}",
        fmt(ev, &attr(o, "input_size"))?,
        fmt(ev, &attr(o, "hidden_size"))?
    );
    if !matches!(attr(o, "bias"), Value::Bool(true)) {
        s += &format!(", bias={}", fmt(ev, &attr(o, "bias"))?);
    }
    match attr(o, "nonlinearity") {
        Value::None => {}
        Value::Str(n) if n == "tanh" => {}
        n => s += &format!(", nonlinearity={}", fmt(ev, &n)?),
    }
    Ok(s)
}

/// `RNNCell.forward` / `LSTMCell.forward` / `GRUCell.forward`.
fn cell_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    name: &str,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python("input, hx=None", &format!("{name}.forward"), &pos, &kw)?;
    let mut input = arg(&args, "input");
    let rank = ndim(&input);
    if input.as_tensor().is_none() || !(1..=2).contains(&rank) {
        return Err(ScriptError::Value(format!(
            "{name}: Expected input to be 1D or 2D, got {rank}D instead"
        )));
    }
    let lstm = name == "LSTMCell";
    let (h, c) = match (arg(&args, "hx"), lstm) {
        (Value::None, _) => (None, None),
        (Value::Tuple(items) | Value::List(items), true) if items.len() == 2 => {
            (Some(items[0].clone()), Some(items[1].clone()))
        }
        (v, _) => (Some(v.clone()), None),
    };
    for v in h.iter().chain(c.iter()) {
        if !(1..=2).contains(&ndim(v)) {
            return Err(ScriptError::Value(format!(
                "{name}: Expected hidden to be 1D or 2D, got {}D instead",
                ndim(v)
            )));
        }
    }
    let batched = rank == 2;
    if !batched {
        input = method(ev, &input, "unsqueeze", vec![Value::Int(0)])?;
    }
    let hidden = int_arg(ev, &attr(o, "hidden_size"))?;
    let batch = size(&input, 0);
    let mut state = Vec::new();
    // Without `hx`, an LSTMCell's `h` and `c` are one zeros tensor (`hx = (zeros, zeros)`).
    let mut fresh: Option<Value> = None;
    for v in [h, c].into_iter().take(if lstm { 2 } else { 1 }) {
        state.push(match v {
            None => match &fresh {
                Some(z) => z.clone(),
                None => {
                    let z = zeros(ev, &[batch, hidden], &input)?;
                    fresh = Some(z.clone());
                    z
                }
            },
            Some(v) if !batched => method(ev, &v, "unsqueeze", vec![Value::Int(0)])?,
            Some(v) => v,
        });
    }
    let linear = |ev: &mut Evaluator, x: Value, w: &str, b: &str| {
        functional(ev, "linear", vec![x, attr(o, w), attr(o, b)], vec![])
    };
    // ATen's GRU cell projects the input first; the LSTM and plain cells the hidden state.
    // (and chunks it before it projects the hidden state).
    let (x, hg) = if name == "GRUCell" {
        (linear(ev, input, "weight_ih", "bias_ih")?, None)
    } else {
        let hg = linear(ev, state[0].clone(), "weight_hh", "bias_hh")?;
        (linear(ev, input, "weight_ih", "bias_ih")?, Some(hg))
    };
    let hidden = state[0].clone();
    let mut hidden_gates = |ev: &mut Evaluator| match &hg {
        Some(hg) => Ok(hg.clone()),
        None => linear(ev, hidden.clone(), "weight_hh", "bias_hh"),
    };
    let mode = match name {
        "LSTMCell" => "LSTM",
        "GRUCell" => "GRU",
        _ => match attr(o, "nonlinearity") {
            Value::Str(n) if n == "relu" => "RNN_RELU",
            Value::Str(n) if n == "tanh" => "RNN_TANH",
            n => {
                return Err(ScriptError::Runtime(format!(
                    "Unknown nonlinearity: {}",
                    fmt(ev, &n)?
                )))
            }
        },
    };
    let (mut hy, cy) = cell(ev, mode, x, &mut hidden_gates, &state[0], state.get(1))?;
    if !batched {
        hy = method(ev, &hy, "squeeze", vec![Value::Int(0)])?;
    }
    Ok(match cy {
        Some(mut cy) => {
            if !batched {
                cy = method(ev, &cy, "squeeze", vec![Value::Int(0)])?;
            }
            Value::Tuple(vec![hy, cy])
        }
        None => hy,
    })
}
