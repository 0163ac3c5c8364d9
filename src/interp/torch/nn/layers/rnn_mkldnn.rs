//! `nn.LSTM` on CPU float32 as PyTorch 2.15 runs it: through oneDNN, one
//! `aten::mkldnn_rnn_layer` per layer and direction (`aten/src/ATen/native/mkldnn/RNN.cpp`).
//! The values are the decomposed cell's ([`super::rnn_loop::direction`], computed where memory
//! accounting does not see it); what is recorded is PyTorch's: the allocations in its order
//! (the seq-first input copy, then per layer the output, `hy`, `cy`, the summed bias, the
//! uint8 workspace, oneDNN's weight reorders and scratchpad, freed again) and one
//! `MkldnnRnnLayerBackward0` node per layer and direction saving `input, weight0..3, hx_,
//! cx_, result0..3` (result3 the workspace).
//!
//! Autograd here has one output per node, so the node of `output` carries the saved tensors
//! and the gradient of the output; `hy` and `cy` get nodes of the same name that read the
//! first node's saved tensors and carry their own gradient (the three add up to the one
//! backward of PyTorch's node). The workspace and scratchpad sizes are oneDNN's
//! (`rnn_utils::set_offsets`, page-aligned parts; measured on 32 shapes with
//! torch 2.15: all equal).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::objects::FREED;
use crate::interp::torch::autograd::{Grad, GradNode, GradOp, Node, Saved};
use crate::interp::torch::nn::layers::{functional, method};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

const INPUTS: &[&str] = &[
    "input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_",
];

/// The node of a layer's `output`: saves its operands (and, as extras, `result0..3`).
static LAYER: Formula = Formula {
    inputs: INPUTS,
    saves: INPUTS,
    args: &["reverse"],
    backward: layer_backward,
};

/// The node of a layer's `hy` (`which` 1) or `cy` (`which` 2): reads the output node's
/// saved tensors (operand 0 is the output, to reach that node).
static STATE: Formula = Formula {
    inputs: &[
        "result0", "input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_",
    ],
    saves: &[],
    args: &["reverse", "which"],
    backward: state_backward,
};

const LAYER_GRAD: Grad = Grad {
    node: Node::Fixed("MkldnnRnnLayerBackward0"),
    formula: Some(&LAYER),
    tracked: true,
};

const STATE_GRAD: Grad = Grad {
    node: Node::Fixed("MkldnnRnnLayerBackward0"),
    formula: Some(&STATE),
    tracked: true,
};

/// oneDNN's `get_good_ld` for 4-byte elements: a multiple of 16, not of 256.
fn good_ld(d: i64) -> i64 {
    let ld = (d + 15) / 16 * 16;
    if ld % 256 == 0 {
        ld + 16
    } else {
        ld
    }
}

fn page(x: i64) -> i64 {
    (x + 4095) / 4096 * 4096
}

/// The training workspace of one layer (`seq` steps, `batch`, input `i`, hidden `h`): gates,
/// ht, states, c-states and the three diff-state buffers, each page-aligned.
pub(crate) fn workspace_bytes(seq: i64, batch: i64, i: i64, h: i64) -> i64 {
    let states = 2 * (seq + 1) * batch * good_ld(i.max(h)) * 4;
    let c_states = 2 * (seq + 1) * batch * h * 4;
    let parts = [
        seq * batch * good_ld(4 * h) * 4,
        seq * batch * good_ld(h) * 4,
        states,
        c_states,
        states,
        states,
        c_states,
        0,
    ];
    parts.iter().fold(0, |off, s| page(off) + s)
}

/// oneDNN's scratchpad for one layer: the gates (all steps when the layer GEMM is merged),
/// ht and diff-ht, page-aligned, plus 4664 bytes of bookkeeping (constant on every shape
/// measured).
fn scratch_bytes(seq: i64, batch: i64, h: i64, merged: bool) -> i64 {
    let gates = if merged { seq } else { 1 } * batch * good_ld(4 * h) * 4;
    let ht = batch * good_ld(h) * 4;
    page(page(page(gates) + ht) + ht) + 4664
}

/// The forward's buffers after the workspace: the weights reordered to `ldigo` (none for a
/// single input row) and the scratchpad.
fn forward_buffers(seq: i64, batch: i64, i: i64, h: i64) -> Vec<i64> {
    let mut out = Vec::new();
    if i > 1 {
        out.push(i * good_ld(4 * h) * 4);
    }
    if h > 1 {
        out.push(h * good_ld(4 * h) * 4);
    }
    out.push(scratch_bytes(seq, batch, h, batch < 128));
    out
}

/// The inference forward's buffers (under `no_grad`): the weights in the blocked layout of
/// the brgemm kernels (the gates padded to 128) and the scratchpad, which holds the states
/// then (no workspace), plus 4952 bytes of bookkeeping (5112 when `i == h`).
fn inference_buffers(seq: i64, batch: i64, i: i64, h: i64) -> Vec<i64> {
    let gates = (4 * h + 127) / 128 * 128;
    let parts = [
        2 * (seq + 1) * batch * good_ld(i.max(h)) * 4,
        2 * (seq + 1) * batch * h * 4,
        batch * good_ld(4 * h) * 4,
        batch * good_ld(h) * 4,
    ];
    let space = page(parts.iter().fold(0, |off, s| page(off) + s));
    let books = if i == h { 5112 } else { 4952 };
    vec![i * gates * 4, h * gates * 4, space + books]
}

/// The backward's buffers inside oneDNN: the weights as `ldgoi` with a good leading
/// dimension (when it pads), as `ldigo`, a bias-sized buffer, the scratchpad.
fn backward_buffers(seq: i64, batch: i64, i: i64, h: i64) -> Vec<i64> {
    let g = 4 * h;
    let mut out = Vec::new();
    if good_ld(i) != i {
        out.push(g * good_ld(i) * 4);
    }
    if good_ld(h) != h {
        out.push(g * good_ld(h) * 4);
    }
    out.push(if i > 1 { i * good_ld(g) * 4 } else { g * 4 });
    out.push(if h > 1 { h * good_ld(g) * 4 } else { g * 4 });
    out.push(g * 4);
    out.push(scratch_bytes(seq, batch, h, true));
    out
}

/// Whether PyTorch takes the oneDNN path: a float32 CPU input (not meta, not CUDA).
pub(crate) fn applies(ev: &Evaluator, input: &Value) -> bool {
    input.as_tensor().is_some_and(|t| {
        t.dtype == DType::Float32
            && ev.device_of(&t) == crate::interp::torch::device::Device::Cpu
            && t.numel() > 0
    })
}

/// A buffer of `nbytes` oneDNN or ATen allocates and frees inside the op (values unused).
fn buffer(ev: &mut Evaluator, nbytes: i64) -> R<Value> {
    let t = ev.empty(
        &[nbytes],
        DType::UInt8,
        MemoryFormat::Contiguous,
        "mkldnn_rnn_layer",
    )?;
    Ok(Value::tensor(t, "mkldnn_rnn_layer", None))
}

fn floats(ev: &mut Evaluator, shape: &[i64], values: &[f64]) -> R<Value> {
    let scalars: Vec<Scalar> = values.iter().map(|v| Scalar::Float(*v)).collect();
    let t = ev.tensor_from_values(shape, DType::Float32, &scalars, "mkldnn_rnn_layer")?;
    Ok(Value::tensor(t, "mkldnn_rnn_layer", None))
}

fn host(ev: &mut Evaluator, t: &Tensor) -> Vec<f64> {
    ev.engine
        .values(t)
        .into_iter()
        .map(Scalar::to_f64)
        .collect()
}

fn shape_of(v: &Value) -> Vec<i64> {
    v.as_tensor()
        .map(|t| t.shape().to_vec())
        .unwrap_or_default()
}

/// One layer's weights as the module holds them.
pub(crate) struct Weights {
    pub w_ih: Value,
    pub w_hh: Value,
    pub b_ih: Value,
    pub b_hh: Value,
}

/// The LSTM's layers on oneDNN, from the seq-first input: `(output, h_n, c_n)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward(
    ev: &mut Evaluator,
    input: Value,
    h0: &Value,
    c0: &Value,
    layers: i64,
    directions: i64,
    dropout: f64,
    training: bool,
    weights: &dyn Fn(i64, i64) -> Weights,
) -> R<(Value, Value, Value)> {
    let input = method(ev, &input, "contiguous", vec![])?;
    let h0 = method(ev, h0, "contiguous", vec![])?;
    let c0 = method(ev, c0, "contiguous", vec![])?;
    let grad = ev.torch.grad_enabled;
    let mut layer_input = input;
    let (mut hys, mut cys) = (Vec::new(), Vec::new());
    for layer in 0..layers {
        let mut outs = Vec::new();
        for direction in 0..directions {
            let index = layer * directions + direction;
            let w = weights(layer, direction);
            let has_bias = !matches!(w.b_ih, Value::None);
            let (w2, w3) = if has_bias {
                (w.b_ih.clone(), w.b_hh.clone())
            } else {
                // `at::zeros(layer_weights[1].sizes())` is made before the other.
                let w3 = zeros_like(ev, &w.w_hh)?;
                let w2 = zeros_like(ev, &w.w_ih)?;
                (w2, w3)
            };
            let hx = method(ev, &h0, "select", vec![Value::Int(0), Value::Int(index)])?;
            let cx = method(ev, &c0, "select", vec![Value::Int(0), Value::Int(index)])?;
            let (out, hy, cy) = layer_forward(
                ev,
                &layer_input,
                &w,
                &w2,
                &w3,
                &hx,
                &cx,
                direction == 1,
                grad,
            )?;
            outs.push(out);
            hys.push(hy);
            cys.push(cy);
        }
        let mut output = if outs.len() == 1 {
            outs.remove(0)
        } else {
            torch_fn(ev, "cat", vec![Value::List(outs), Value::Int(-1)])?
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
    let h_n = torch_fn(ev, "stack", vec![Value::List(hys), Value::Int(0)])?;
    let c_n = torch_fn(ev, "stack", vec![Value::List(cys), Value::Int(0)])?;
    Ok((layer_input, h_n, c_n))
}

fn torch_fn(ev: &mut Evaluator, name: &str, pos: Vec<Value>) -> R<Value> {
    ev.call(
        Value::Method(Box::new(Value::Torch), name.into()),
        pos,
        vec![],
    )
}

fn zeros_like(ev: &mut Evaluator, like: &Value) -> R<Value> {
    let t = ev.full(&shape_of(like), Scalar::Float(0.0), DType::Float32, "zeros")?;
    Ok(Value::tensor(t, "zeros", None))
}

/// One `mkldnn_rnn_layer`: the values (computed unseen), then PyTorch's allocations and the
/// nodes.
#[allow(clippy::too_many_arguments)]
fn layer_forward(
    ev: &mut Evaluator,
    input: &Value,
    w: &Weights,
    w2: &Value,
    w3: &Value,
    hx: &Value,
    cx: &Value,
    reverse: bool,
    grad: bool,
) -> R<(Value, Value, Value)> {
    let shape = shape_of(input);
    let (seq, batch, i) = (shape[0], shape[1], shape[2]);
    let h = shape_of(hx).get(1).copied().unwrap_or(0);
    let values = ev.uncounted(|ev| -> R<(Vec<f64>, Vec<f64>, Vec<f64>)> {
        let was = ev.torch.grad_enabled;
        ev.torch.grad_enabled = false;
        let run = super::rnn_loop::direction(
            ev,
            "LSTM",
            input,
            [&w.w_ih, &w.w_hh, &w.b_ih, &w.b_hh],
            hx.clone(),
            Some(cx.clone()),
            seq,
            reverse,
        );
        ev.torch.grad_enabled = was;
        let (out, hy, cy) = run?;
        let of =
            |ev: &mut Evaluator, v: &Value| v.as_tensor().map(|t| host(ev, &t)).unwrap_or_default();
        let out = of(ev, &out);
        let hy = of(ev, &hy);
        let cy = cy.map(|c| of(ev, &c)).unwrap_or_default();
        Ok((out, hy, cy))
    })?;
    let out = floats(ev, &[seq, batch, h], &values.0)?;
    let hy = floats(ev, &[batch, h], &values.1)?;
    let cy = floats(ev, &[batch, h], &values.2)?;
    let bias = buffer(ev, 4 * h * 4)?;
    let workspace = if grad {
        Some(buffer(ev, workspace_bytes(seq, batch, i, h))?)
    } else {
        None
    };
    let mut inside = Vec::new();
    let sizes = if grad {
        forward_buffers(seq, batch, i, h)
    } else {
        inference_buffers(seq, batch, i, h)
    };
    for n in sizes {
        inside.push(buffer(ev, n)?);
    }
    drop(inside);
    drop(bias);
    if let Some(ws) = workspace {
        let rev = Value::Bool(reverse);
        let args: Vec<(&str, &Value)> = vec![("reverse", &rev)];
        let operands = [input, &w.w_ih, &w.w_hh, w2, w3, hx, cx];
        ev.record_grad(
            GradOp::Named {
                name: "mkldnn_rnn_layer",
                grad: &LAYER_GRAD,
                args: &args,
            },
            &operands,
            &out,
        );
        // Saved under other objects on the same storages (a node holding its own output
        // would keep itself alive).
        let alias = |v: &Value| match v.as_tensor() {
            Some(t) => Value::tensor(t, "mkldnn_rnn_layer", None),
            None => Value::None,
        };
        let (a0, a1, a2) = (alias(&out), alias(&hy), alias(&cy));
        ev.save_extras(
            &out,
            &[
                ("result0", &a0),
                ("result1", &a1),
                ("result2", &a2),
                ("result3", &ws),
            ],
        );
        for (which, target) in [(1, &hy), (2, &cy)] {
            let which = Value::Int(which);
            let args: Vec<(&str, &Value)> = vec![("reverse", &rev), ("which", &which)];
            let operands = [&out, input, &w.w_ih, &w.w_hh, w2, w3, hx, cx];
            ev.record_grad(
                GradOp::Named {
                    name: "mkldnn_rnn_layer",
                    grad: &STATE_GRAD,
                    args: &args,
                },
                &operands,
                target,
            );
        }
    }
    Ok((out, hy, cy))
}

/// A layer's sizes and host values, read from the output node's saved tensors.
struct Saved7 {
    seq: usize,
    batch: usize,
    i: usize,
    h: usize,
    x: Vec<f64>,
    w_ih: Vec<f64>,
    w_hh: Vec<f64>,
    bias: Vec<f64>,
    h0: Vec<f64>,
    c0: Vec<f64>,
    has_bias: bool,
}

fn saved_values(ev: &mut Evaluator, node: &GradNode) -> R<Saved7> {
    let missing =
        || ScriptError::Runtime("mkldnn_rnn_layer_backward: a saved tensor is missing".into());
    let mut tensors = Vec::new();
    for op in node.operands.iter().take(7) {
        match &op.saved {
            Saved::Tensor(s) => tensors.push(s.tensor.clone()),
            _ => return Err(missing()),
        }
    }
    if tensors.len() != 7 {
        return Err(missing());
    }
    let xs = tensors[0].shape().to_vec();
    let h = tensors[2].shape().get(1).copied().unwrap_or(0);
    let has_bias = tensors[3].ndim() == 1;
    let vals: Vec<Vec<f64>> = tensors.iter().map(|t| host(ev, t)).collect();
    let g = 4 * h as usize;
    let bias = if has_bias {
        (0..g).map(|k| vals[3][k] + vals[4][k]).collect()
    } else {
        vec![0.0; g]
    };
    Ok(Saved7 {
        seq: xs[0] as usize,
        batch: xs[1] as usize,
        i: xs[2] as usize,
        h: h as usize,
        x: vals[0].clone(),
        w_ih: vals[1].clone(),
        w_hh: vals[2].clone(),
        bias,
        h0: vals[5].clone(),
        c0: vals[6].clone(),
        has_bias,
    })
}

/// The gradients of one layer (dx, dW_ih, dW_hh, db, dh0, dc0) from those of its output,
/// `hy` and `cy`, by backpropagation through time on the recomputed gates (in f64).
fn bptt(s: &Saved7, reverse: bool, gy: &[f64], ghy: &[f64], gcy: &[f64]) -> [Vec<f64>; 6] {
    let (t_n, b_n, i_n, h_n) = (s.seq, s.batch, s.i, s.h);
    let g_n = 4 * h_n;
    let sig = |v: f64| 1.0 / (1.0 + (-v).exp());
    let order: Vec<usize> = if reverse {
        (0..t_n).rev().collect()
    } else {
        (0..t_n).collect()
    };
    // Per step (in execution order): gates after activation, c, previous h and c.
    let mut acts = Vec::with_capacity(t_n);
    let mut cs = Vec::with_capacity(t_n);
    let mut hps = Vec::with_capacity(t_n);
    let mut cps = Vec::with_capacity(t_n);
    let (mut h, mut c) = (s.h0.clone(), s.c0.clone());
    for &t in &order {
        let mut a = vec![0.0; b_n * g_n];
        let mut nc = vec![0.0; b_n * h_n];
        let mut nh = vec![0.0; b_n * h_n];
        for b in 0..b_n {
            for g in 0..g_n {
                let mut v = s.bias[g];
                for k in 0..i_n {
                    v += s.x[(t * b_n + b) * i_n + k] * s.w_ih[g * i_n + k];
                }
                for k in 0..h_n {
                    v += h[b * h_n + k] * s.w_hh[g * h_n + k];
                }
                a[b * g_n + g] = if g / h_n == 2 { v.tanh() } else { sig(v) };
            }
            for k in 0..h_n {
                let at = |q: usize| a[b * g_n + q * h_n + k];
                let cv = at(1) * c[b * h_n + k] + at(0) * at(2);
                nc[b * h_n + k] = cv;
                nh[b * h_n + k] = at(3) * cv.tanh();
            }
        }
        hps.push(std::mem::replace(&mut h, nh));
        cps.push(std::mem::replace(&mut c, nc.clone()));
        acts.push(a);
        cs.push(nc);
    }
    let mut dx = vec![0.0; t_n * b_n * i_n];
    let mut dwih = vec![0.0; g_n * i_n];
    let mut dwhh = vec![0.0; g_n * h_n];
    let mut db = vec![0.0; g_n];
    let mut dh = ghy.to_vec();
    let mut dc = gcy.to_vec();
    dh.resize(b_n * h_n, 0.0);
    dc.resize(b_n * h_n, 0.0);
    for step in (0..t_n).rev() {
        let t = order[step];
        let (a, cv, hp, cp) = (&acts[step], &cs[step], &hps[step], &cps[step]);
        let mut dhp = vec![0.0; b_n * h_n];
        let mut dcp = vec![0.0; b_n * h_n];
        let mut da = vec![0.0; g_n];
        for b in 0..b_n {
            for k in 0..h_n {
                let at = |q: usize| a[b * g_n + q * h_n + k];
                let (ig, fg, gg, og) = (at(0), at(1), at(2), at(3));
                let dhv = dh[b * h_n + k] + gy.get((t * b_n + b) * h_n + k).copied().unwrap_or(0.0);
                let tc = cv[b * h_n + k].tanh();
                let dcv = dc[b * h_n + k] + dhv * og * (1.0 - tc * tc);
                da[k] = dcv * gg * ig * (1.0 - ig);
                da[h_n + k] = dcv * cp[b * h_n + k] * fg * (1.0 - fg);
                da[2 * h_n + k] = dcv * ig * (1.0 - gg * gg);
                da[3 * h_n + k] = dhv * tc * og * (1.0 - og);
                dcp[b * h_n + k] = dcv * fg;
            }
            for g in 0..g_n {
                let d = da[g];
                db[g] += d;
                for k in 0..i_n {
                    let xi = (t * b_n + b) * i_n + k;
                    dx[xi] += d * s.w_ih[g * i_n + k];
                    dwih[g * i_n + k] += d * s.x[xi];
                }
                for k in 0..h_n {
                    dhp[b * h_n + k] += d * s.w_hh[g * h_n + k];
                    dwhh[g * h_n + k] += d * hp[b * h_n + k];
                }
            }
        }
        dh = dhp;
        dc = dcp;
    }
    [dx, dwih, dwhh, db, dh, dc]
}

/// `mkldnn_rnn_layer_backward`'s allocations around the gradients, in PyTorch's order, and
/// the gradients of `input, weight0..3, hx_, cx_`. `made` are the zero or contiguous
/// incoming gradients ATen makes first (bytes each).
fn backward_tensors(
    ev: &mut Evaluator,
    s: &Saved7,
    grads: [Vec<f64>; 6],
    made: &[i64],
) -> R<Vec<Value>> {
    let (seq, batch, i, h) = (s.seq as i64, s.batch as i64, s.i as i64, s.h as i64);
    let mut held = Vec::new();
    for &n in made {
        held.push(buffer(ev, n)?);
    }
    held.push(buffer(ev, 4 * h * 4)?);
    let [dx, dwih, dwhh, db, dh0, dc0] = grads;
    let gx = floats(ev, &[seq, batch, i], &dx)?;
    let ghx = floats(ev, &[batch, h], &dh0)?;
    let gcx = floats(ev, &[batch, h], &dc0)?;
    let gw1 = floats(ev, &[4 * h, i], &dwih)?;
    let gw2 = floats(ev, &[4 * h, h], &dwhh)?;
    let gb = floats(ev, &[4 * h], &db)?;
    let mut inside = Vec::new();
    for n in backward_buffers(seq, batch, i, h) {
        inside.push(buffer(ev, n)?);
    }
    drop(inside);
    let gb2 = floats(ev, &[4 * h], &db)?;
    drop(held);
    let (gb, gb2) = if s.has_bias {
        (gb, gb2)
    } else {
        (Value::None, Value::None)
    };
    Ok(vec![gx, gw1, gw2, gb, gb2, ghx, gcx])
}

/// Host values of an incoming gradient, and whether ATen would copy it (not contiguous).
fn grad_values(ev: &mut Evaluator, g: &Value) -> (Vec<f64>, bool) {
    match g.as_tensor() {
        Some(t) => {
            let copied = !t.layout.is_contiguous();
            (host(ev, &t), copied)
        }
        None => (vec![], true),
    }
}

thread_local! {
    /// The gradients `hy`'s and `cy`'s nodes left for their layer's output node, by that
    /// node's address, until it runs (what PyTorch's engine buffers for its one node).
    static STASH: RefCell<HashMap<usize, [Option<Value>; 2]>> = RefCell::new(HashMap::new());
}

fn node_key(node: &GradNode) -> usize {
    node as *const GradNode as usize
}

/// `mkldnn_rnn_layer_backward` with the gradients of the output (this node's), `hy` and `cy`
/// (left by their nodes, which run first): ATen's contiguous copies (or zeros for a missing
/// one) come first, then its buffers and the gradients.
fn layer_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let s = saved_values(ev, b.node)?;
    let reverse = matches!(b.arg("reverse"), Some(Value::Bool(true)));
    let state = (s.batch * s.h * 4) as i64;
    let out_bytes = (s.seq * s.batch * s.h * 4) as i64;
    let (gy, copied) = grad_values(ev, &b.g());
    let mut made = Vec::new();
    if copied {
        made.push(out_bytes);
    }
    let mut states = Vec::new();
    let stash = STASH.with(|m| m.borrow_mut().remove(&node_key(b.node)));
    for g in stash.unwrap_or_default() {
        let (g, copied) = match g {
            Some(g) => grad_values(ev, &g),
            None => (vec![], true),
        };
        if copied {
            made.push(state);
        }
        states.push(g);
    }
    let grads = bptt(&s, reverse, &gy, &states[0], &states[1]);
    let out = backward_tensors(ev, &s, grads, &made)?;
    Ok(out
        .into_iter()
        .enumerate()
        .map(|(k, v)| (b.needs(k) && !matches!(v, Value::None)).then_some(v))
        .collect())
}

/// `hy`'s (`which` 1) or `cy`'s (`which` 2) node: leaves its gradient with the output's
/// node, and sends that node a zero gradient (a stride-0 view, which ATen's `zeros_like`
/// then stands for) so that it runs when the output itself got none.
fn state_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let out = b
        .node
        .operands
        .first()
        .and_then(|o| o.tracked.clone())
        .ok_or_else(|| {
            ScriptError::Runtime("mkldnn_rnn_layer_backward: the output is missing".into())
        })?;
    let layer: Option<Rc<GradNode>> = out.try_borrow().ok().and_then(|t| t.grad_fn.clone());
    let Some(layer) = layer else {
        return Err(ScriptError::Runtime(
            "mkldnn_rnn_layer_backward: the layer's node is missing".into(),
        ));
    };
    if layer.freed.get() {
        return Err(ScriptError::Runtime(FREED.into()));
    }
    let which = usize::from(matches!(b.arg("which"), Some(Value::Int(2))));
    let g = b.g();
    STASH.with(|m| m.borrow_mut().entry(node_key(&layer)).or_default()[which] = Some(g));
    let shape = out.borrow().tensor.shape().to_vec();
    let zero = ev.uncounted(|ev| -> R<Value> {
        let t = ev.full(&[1], Scalar::Float(0.0), DType::Float32, "zeros")?;
        let dims = Value::Tuple(shape.iter().map(|&d| Value::Int(d)).collect());
        method(ev, &Value::tensor(t, "zeros", None), "expand", vec![dims])
    })?;
    let mut result = vec![Some(zero)];
    result.resize(b.node.operands.len(), None);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Workspace bytes measured with torch 2.15 (`MkldnnRnnLayerBackward0._saved_result3`).
    #[test]
    fn workspace_matches_torch() {
        for (seq, batch, i, h, bytes) in [
            (5, 2, 8, 16, 28672),
            (20, 8, 32, 64, 647168),
            (5, 2, 8, 33, 45056),
            (5, 2, 64, 16, 40960),
            (5, 32, 8, 16, 176128),
            (5, 2, 16, 64, 57344),
            (3, 16, 10, 20, 98304),
            (5, 2, 8, 256, 192512),
        ] {
            assert_eq!(
                workspace_bytes(seq, batch, i, h),
                bytes,
                "{seq} {batch} {i} {h}"
            );
        }
    }

    /// oneDNN's buffers inside the forward and the backward, measured with torch 2.15.
    #[test]
    fn buffers_match_torch() {
        assert_eq!(forward_buffers(5, 2, 8, 16), vec![2048, 4096, 16952]);
        assert_eq!(forward_buffers(1, 1, 1, 1), vec![16952]);
        assert_eq!(forward_buffers(5, 2, 8, 128), vec![16896, 270336, 37432]);
        assert_eq!(forward_buffers(5, 200, 8, 16), vec![2048, 4096, 90680]);
        assert_eq!(
            backward_buffers(5, 2, 8, 16),
            vec![4096, 2048, 4096, 256, 16952]
        );
        assert_eq!(
            backward_buffers(1, 1, 1, 1),
            vec![256, 256, 16, 16, 16, 16952]
        );
        assert_eq!(
            backward_buffers(5, 2, 8, 17),
            vec![4352, 8704, 2560, 5440, 272, 16952]
        );
        assert_eq!(
            backward_buffers(5, 200, 8, 16),
            vec![4096, 2048, 4096, 256, 295480]
        );
        assert_eq!(inference_buffers(5, 2, 8, 16), vec![4096, 8192, 21336]);
        assert_eq!(inference_buffers(5, 2, 16, 16), vec![8192, 8192, 21496]);
        assert_eq!(inference_buffers(20, 8, 32, 64), vec![32768, 65536, 193368]);
        assert_eq!(inference_buffers(5, 200, 8, 16), vec![4096, 8192, 385880]);
        assert_eq!(
            inference_buffers(5, 2, 100, 100),
            vec![204800, 204800, 37880]
        );
    }
}
