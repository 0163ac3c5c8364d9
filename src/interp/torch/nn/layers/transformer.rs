//! `MultiheadAttention` (`torch/nn/modules/activation.py`, its forward
//! `F.multi_head_attention_forward`) and `TransformerEncoderLayer` (`transformer.py`), as
//! PyTorch builds them: the packed `in_proj_weight`/`in_proj_bias` (or `q/k/v_proj_weight`
//! for other key and value sizes), the `out_proj` submodule (a
//! `NonDynamicallyQuantizableLinear`, whose default init draws before `_reset_parameters`
//! redraws the projections: xavier-uniform weights, zero biases), and the encoder layer's
//! submodules in PyTorch's order. The forward passes are PyTorch's slow path (the one taken
//! while autograd records) written with the table's ops: projections, heads as
//! `(N * heads, L, head_dim)` batches, `softmax(q * sqrt(1/head_dim) @ k^T) @ v`, the output
//! projection, and the weights averaged over the heads.

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::layers::mha_parts::{
    as_list, canonical_mask, canonical_masks, finish, in_projection_packed, merge_masks,
    project_out,
};
use crate::interp::torch::nn::layers::{
    attr, check_device, dtype_arg, functional, init, int_arg, method, set_attrs, set_parameter,
};
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// The classes of this family.
pub(crate) static MODULES: &[ModuleDef] = &[
    ModuleDef {
        base: Some("Linear"),
        ..ModuleDef::new("NonDynamicallyQuantizableLinear", "torch.nn.modules.linear")
    },
    ModuleDef {
        init: Some(mha_init),
        forward: Some(mha_forward),
        ..ModuleDef::new("MultiheadAttention", "torch.nn.modules.activation")
    },
    ModuleDef {
        init: Some(stack_init),
        forward: Some(stack_forward),
        ..ModuleDef::new("TransformerEncoder", "torch.nn.modules.transformer")
    },
    ModuleDef {
        init: Some(encoder_init),
        forward: Some(encoder_forward),
        ..ModuleDef::new("TransformerEncoderLayer", "torch.nn.modules.transformer")
    },
];

/// Calls `torch.name(*pos)`.
fn torch_fn(ev: &mut Evaluator, name: &str, pos: Vec<Value>) -> R<Value> {
    ev.call(
        Value::Method(Box::new(Value::Torch), name.into()),
        pos,
        vec![],
    )
}

/// Builds the built-in module `class(*pos, **kw)` and makes it the submodule `name` of `o`.
fn submodule(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    name: &str,
    class: &str,
    pos: Vec<Value>,
    kw: Vec<(&str, Value)>,
) -> R<()> {
    let class = ev
        .nn_class(class)
        .ok_or_else(|| ScriptError::Runtime(format!("no class {class}")))?;
    let kw = kw.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    let value = ev.call(Value::Class(class), pos, kw)?;
    ev.module_set_attribute(o, name, &value)?;
    Ok(())
}

/// A submodule of `o` (`None` when absent).
pub(super) fn child(o: &Rc<Instance>, name: &str) -> Value {
    o.module
        .borrow()
        .as_ref()
        .and_then(|s| {
            s.modules
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, m)| m.clone())
        })
        .map_or(Value::None, Value::Instance)
}

fn mha_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None, dtype=None",
        "MultiheadAttention.__init__",
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    let embed = int_arg(ev, &arg(&args, "embed_dim"))?;
    let heads = int_arg(ev, &arg(&args, "num_heads"))?;
    if embed <= 0 || heads <= 0 {
        return Err(ScriptError::Value(format!(
            "embed_dim and num_heads must be greater than 0, got embed_dim={embed} and num_heads={heads} instead"
        )));
    }
    if ev.truthy(&arg(&args, "add_bias_kv"))? || ev.truthy(&arg(&args, "add_zero_attn"))? {
        return Err(ScriptError::NotImplemented(
            "MultiheadAttention with add_bias_kv or add_zero_attn is not supported by Stridescope"
                .into(),
        ));
    }
    let or_embed = |ev: &mut Evaluator, v: Value| -> R<i64> {
        match v {
            Value::None => Ok(embed),
            v => int_arg(ev, &v),
        }
    };
    let kdim = or_embed(ev, arg(&args, "kdim"))?;
    let vdim = or_embed(ev, arg(&args, "vdim"))?;
    let same = kdim == embed && vdim == embed;
    let head_dim = embed / heads;
    if head_dim * heads != embed {
        return Err(ScriptError::Other {
            class: "AssertionError".into(),
            message: "embed_dim must be divisible by num_heads".into(),
        });
    }
    let dropout = match arg(&args, "dropout") {
        Value::Int(i) => Value::Float(i as f64),
        v => v,
    };
    set_attrs(
        o,
        vec![
            ("embed_dim", Value::Int(embed)),
            ("kdim", Value::Int(kdim)),
            ("vdim", Value::Int(vdim)),
            ("_qkv_same_embed_dim", Value::Bool(same)),
            ("num_heads", Value::Int(heads)),
            ("dropout", dropout),
            ("batch_first", arg(&args, "batch_first")),
            ("head_dim", Value::Int(head_dim)),
        ],
    );
    check_device(ev, &arg(&args, "device"))?;
    let dtype = dtype_arg(&arg(&args, "dtype"))?;
    if same {
        let w = ev.empty_parameter(&[3 * embed, embed], dtype)?;
        set_parameter(o, "in_proj_weight", Some(w));
        for name in ["q_proj_weight", "k_proj_weight", "v_proj_weight"] {
            set_parameter(o, name, None);
        }
    } else {
        for (name, cols) in [
            ("q_proj_weight", embed),
            ("k_proj_weight", kdim),
            ("v_proj_weight", vdim),
        ] {
            let w = ev.empty_parameter(&[embed, cols], dtype)?;
            set_parameter(o, name, Some(w));
        }
        set_parameter(o, "in_proj_weight", None);
    }
    let bias = ev.truthy(&arg(&args, "bias"))?;
    if bias {
        let b = ev.empty_parameter(&[3 * embed], dtype)?;
        set_parameter(o, "in_proj_bias", Some(b));
    } else {
        set_parameter(o, "in_proj_bias", None);
    }
    submodule(
        ev,
        o,
        "out_proj",
        "NonDynamicallyQuantizableLinear",
        vec![Value::Int(embed), Value::Int(embed)],
        vec![("bias", Value::Bool(bias))],
    )?;
    set_attrs(
        o,
        vec![
            ("bias_k", Value::None),
            ("bias_v", Value::None),
            ("add_zero_attn", Value::Bool(false)),
        ],
    );
    // `_reset_parameters`.
    if same {
        init(
            ev,
            "xavier_uniform_",
            vec![attr(o, "in_proj_weight")],
            vec![],
        )?;
    } else {
        for name in ["q_proj_weight", "k_proj_weight", "v_proj_weight"] {
            init(ev, "xavier_uniform_", vec![attr(o, name)], vec![])?;
        }
    }
    if bias {
        init(
            ev,
            "constant_",
            vec![attr(o, "in_proj_bias"), Value::Float(0.0)],
            vec![],
        )?;
        if let Value::Instance(out) = child(o, "out_proj") {
            init(
                ev,
                "constant_",
                vec![attr(&out, "bias"), Value::Float(0.0)],
                vec![],
            )?;
        }
    }
    Ok(())
}

/// Whether a module is in training mode.
fn training(o: &Rc<Instance>) -> bool {
    o.module.borrow().as_ref().is_some_and(|s| s.training)
}

fn mha_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None, average_attn_weights=True, is_causal=False",
        "MultiheadAttention.forward",
        &pos,
        &kw,
    )?;
    let need_weights = ev.truthy(&arg(&args, "need_weights"))?;
    let average = ev.truthy(&arg(&args, "average_attn_weights"))?;
    let (query, key, value) = (arg(&args, "query"), arg(&args, "key"), arg(&args, "value"));
    // `MultiheadAttention.forward` canonicalizes the masks itself and holds them until it
    // returns (`F.multi_head_attention_forward` keeps a float mask as it is).
    let (key_padding_mask, attn_mask) =
        canonical_masks(ev, &args, "query", "key_padding_mask", "attn_mask")?;
    let masks = Masks {
        attn_mask: attn_mask.clone(),
        key_padding_mask: key_padding_mask.clone(),
        is_causal: ev.truthy(&arg(&args, "is_causal"))?,
    };
    let out = attention(ev, o, [query, key, value], masks, need_weights, average);
    drop((attn_mask, key_padding_mask));
    out
}

/// The masks a call gave (`None` where not).
pub(super) struct Masks {
    pub attn_mask: Value,
    pub key_padding_mask: Value,
    pub is_causal: bool,
}

/// The dims of a tensor value.
fn shape(v: &Value) -> Vec<i64> {
    v.as_tensor()
        .map(|t| t.shape().to_vec())
        .unwrap_or_default()
}

/// Whether two values are the same tensor object.
pub(super) fn same_tensor(a: &Value, b: &Value) -> bool {
    matches!((a, b), (Value::Tensor(x), Value::Tensor(y)) if Rc::ptr_eq(x, y))
}

/// `F.multi_head_attention_forward`: `(attn_output, attn_weights or None)`.
fn attention(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    [mut query, mut key, mut value]: [Value; 3],
    masks: Masks,
    need_weights: bool,
    average: bool,
) -> R<Value> {
    let rank = shape(&query).len();
    if rank != 2 && rank != 3 {
        return Err(ScriptError::Other {
            class: "AssertionError".into(),
            message: format!(
                "query should be unbatched 2D or batched 3D tensor but received {rank}-D query tensor"
            ),
        });
    }
    let batched = rank == 3;
    let batch_first = matches!(attr(o, "batch_first"), Value::Bool(true));
    let (same_qk, same_kv) = (same_tensor(&query, &key), same_tensor(&key, &value));
    let t01 = || vec![Value::Int(1), Value::Int(0)];
    if batched && batch_first {
        query = method(ev, &query, "transpose", t01())?;
        key = if same_qk {
            query.clone()
        } else {
            method(ev, &key, "transpose", t01())?
        };
        value = if same_kv {
            key.clone()
        } else {
            method(ev, &value, "transpose", t01())?
        };
    }
    if !batched {
        query = method(ev, &query, "unsqueeze", vec![Value::Int(1)])?;
        key = method(ev, &key, "unsqueeze", vec![Value::Int(1)])?;
        value = method(ev, &value, "unsqueeze", vec![Value::Int(1)])?;
    }
    let dtype = query.as_tensor().map(|t| t.dtype);
    let key_padding_mask = canonical_mask(ev, masks.key_padding_mask, "key_padding_mask", dtype)?;
    if masks.is_causal && matches!(masks.attn_mask, Value::None) {
        return Err(ScriptError::Runtime(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method `generate_square_subsequent_mask` to create this mask.".into(),
        ));
    }
    let mut is_causal = masks.is_causal;
    let mut attn_mask = Value::None;
    if !(is_causal && matches!(key_padding_mask, Value::None) && !need_weights) {
        attn_mask = canonical_mask(ev, masks.attn_mask, "attn_mask", dtype)?;
        if !matches!(key_padding_mask, Value::None) {
            is_causal = false;
        }
    }
    let embed = int_arg(ev, &attr(o, "embed_dim"))?;
    let heads = int_arg(ev, &attr(o, "num_heads"))?;
    let head_dim = embed / heads;
    let q_shape = shape(&query);
    let (tgt, bsz) = (q_shape[0], q_shape[1]);
    if q_shape[2] != embed {
        return Err(ScriptError::Other {
            class: "AssertionError".into(),
            message: format!(
                "was expecting embedding dimension of {embed}, but got {}",
                q_shape[2]
            ),
        });
    }
    let bias = attr(o, "in_proj_bias");
    let biases = if matches!(bias, Value::None)
        || matches!(attr(o, "_qkv_same_embed_dim"), Value::Bool(true))
    {
        vec![Value::None; 3]
    } else {
        as_list(method(ev, &bias, "chunk", vec![Value::Int(3)])?)
    };
    let (q, k, v) = if matches!(attr(o, "_qkv_same_embed_dim"), Value::Bool(true)) {
        in_projection_packed(
            ev,
            &query,
            &key,
            &value,
            &attr(o, "in_proj_weight"),
            &bias,
            embed,
        )?
    } else {
        let lin = |ev: &mut Evaluator, x: &Value, w: &str, i: usize| {
            functional(
                ev,
                "linear",
                vec![x.clone(), attr(o, w), biases[i].clone()],
                vec![],
            )
        };
        (
            lin(ev, &query, "q_proj_weight", 0)?,
            lin(ev, &key, "k_proj_weight", 1)?,
            lin(ev, &value, "v_proj_weight", 2)?,
        )
    };
    let heads_view = |ev: &mut Evaluator, x: &Value| -> R<Value> {
        let len = shape(x)[0];
        let dims = vec![
            Value::Int(len),
            Value::Int(bsz * heads),
            Value::Int(head_dim),
        ];
        let viewed = method(ev, x, "reshape", vec![Value::Tuple(dims)])?;
        method(ev, &viewed, "transpose", vec![Value::Int(0), Value::Int(1)])
    };
    let q = heads_view(ev, &q)?;
    let k = heads_view(ev, &k)?;
    let v = heads_view(ev, &v)?;
    let src = shape(&k)[1];
    let (attn_mask, _key_padding_mask) =
        merge_masks(ev, attn_mask, key_padding_mask, [bsz, heads, tgt, src])?;
    let p = match attr(o, "dropout") {
        Value::Float(f) if training(o) => f,
        _ => 0.0,
    };
    if !need_weights {
        // `scaled_dot_product_attention` on `(N, heads, L, head_dim)` views.
        let split = |ev: &mut Evaluator, x: &Value, len: i64| {
            let dims = [bsz, heads, len, head_dim].map(Value::Int).to_vec();
            method(ev, x, "view", dims)
        };
        let (q, k, v) = (
            split(ev, &q, tgt)?,
            split(ev, &k, src)?,
            split(ev, &v, src)?,
        );
        // A `(1, L, S)` mask broadcasts over the batch; `(N * heads, L, S)` is split.
        let attn_mask = match attn_mask.as_tensor() {
            Some(m) if m.ndim() == 3 && m.shape()[0] == 1 => {
                method(ev, &attn_mask, "unsqueeze", vec![Value::Int(0)])?
            }
            Some(_) => {
                let dims = [bsz, heads, -1, src].map(Value::Int).to_vec();
                method(ev, &attn_mask, "view", dims)?
            }
            None => Value::None,
        };
        let attended = functional(
            ev,
            "scaled_dot_product_attention",
            vec![q, k, v, attn_mask, Value::Float(p), Value::Bool(is_causal)],
            vec![],
        )?;
        let perm = [2, 0, 1, 3].map(Value::Int).to_vec();
        let out = method(ev, &attended, "permute", perm)?;
        drop(attended);
        let out = project_out(ev, o, out, tgt, bsz, embed)?;
        return finish(ev, out, Value::None, batched, batch_first);
    }
    let scale = Value::Float((1.0 / head_dim as f64).sqrt());
    let q_scaled = method(ev, &q, "mul", vec![scale])?;
    let kt = method(ev, &k, "transpose", vec![Value::Int(-2), Value::Int(-1)])?;
    let scores = if matches!(attn_mask, Value::None) {
        torch_fn(ev, "bmm", vec![q_scaled, kt])?
    } else {
        // The mask stays bound until the function returns, as Python's `attn_mask` does.
        torch_fn(ev, "baddbmm", vec![attn_mask.clone(), q_scaled, kt])?
    };
    let mut weights = functional(
        ev,
        "softmax",
        vec![scores],
        vec![("dim".into(), Value::Int(-1))],
    )?;
    if p > 0.0 {
        weights = functional(ev, "dropout", vec![weights, Value::Float(p)], vec![])?;
    }
    // One binding rebound, as Python rebinds `attn_output`: each value dies with its name.
    let mut out = torch_fn(ev, "bmm", vec![weights.clone(), v])?;
    out = method(ev, &out, "transpose", vec![Value::Int(0), Value::Int(1)])?;
    let out = project_out(ev, o, out, tgt, bsz, embed)?;
    let weights = if need_weights {
        let dims = vec![
            Value::Int(bsz),
            Value::Int(heads),
            Value::Int(tgt),
            Value::Int(src),
        ];
        let w = method(ev, &weights, "view", dims)?;
        if average {
            ev.call(
                Value::Method(Box::new(w), "mean".into()),
                vec![],
                vec![("dim".into(), Value::Int(1))],
            )?
        } else {
            w
        }
    } else {
        Value::None
    };
    finish(ev, out, weights, batched, batch_first)
}

fn encoder_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "d_model, nhead, dim_feedforward=2048, dropout=0.1, activation='relu', layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True, device=None, dtype=None",
        "TransformerEncoderLayer.__init__",
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    let (d_model, nhead) = (arg(&args, "d_model"), arg(&args, "nhead"));
    let (dropout, bias) = (arg(&args, "dropout"), arg(&args, "bias"));
    let ff = arg(&args, "dim_feedforward");
    let eps = arg(&args, "layer_norm_eps");
    submodule(
        ev,
        o,
        "self_attn",
        "MultiheadAttention",
        vec![d_model.clone(), nhead],
        vec![
            ("dropout", dropout.clone()),
            ("bias", bias.clone()),
            ("batch_first", arg(&args, "batch_first")),
        ],
    )?;
    submodule(
        ev,
        o,
        "linear1",
        "Linear",
        vec![d_model.clone(), ff.clone()],
        vec![("bias", bias.clone())],
    )?;
    submodule(ev, o, "dropout", "Dropout", vec![dropout.clone()], vec![])?;
    submodule(
        ev,
        o,
        "linear2",
        "Linear",
        vec![ff, d_model.clone()],
        vec![("bias", bias.clone())],
    )?;
    set_attrs(o, vec![("norm_first", arg(&args, "norm_first"))]);
    for name in ["norm1", "norm2"] {
        submodule(
            ev,
            o,
            name,
            "LayerNorm",
            vec![d_model.clone()],
            vec![("eps", eps.clone()), ("bias", bias.clone())],
        )?;
    }
    submodule(ev, o, "dropout1", "Dropout", vec![dropout.clone()], vec![])?;
    submodule(ev, o, "dropout2", "Dropout", vec![dropout], vec![])?;
    let functional_fn = |name: &str| {
        Value::Method(
            Box::new(Value::Module("torch.nn.functional".into())),
            name.into(),
        )
    };
    let activation = match arg(&args, "activation") {
        Value::Str(s) if s == "relu" || s == "gelu" => functional_fn(&s),
        Value::Str(s) => {
            return Err(ScriptError::Runtime(format!(
                "activation should be relu/gelu, not {s}"
            )))
        }
        other => other,
    };
    let relu_or_gelu = match &activation {
        Value::Method(_, f) if f == "relu" => 1,
        Value::Method(_, f) if f == "gelu" => 2,
        _ => 0,
    };
    set_attrs(
        o,
        vec![("activation_relu_or_gelu", Value::Int(relu_or_gelu))],
    );
    // A module (`nn.GELU()`) becomes a submodule, as `self.activation = ...` registers it.
    let registered = matches!(activation, Value::Instance(_))
        && ev.module_set_attribute(o, "activation", &activation)?;
    if !registered {
        set_attrs(o, vec![("activation", activation)]);
    }
    Ok(())
}

/// Calls the submodule `name` of `o` on `x`.
fn call_child(ev: &mut Evaluator, o: &Rc<Instance>, name: &str, x: Value) -> R<Value> {
    let m = child(o, name);
    ev.call(m, vec![x], vec![])
}

fn encoder_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "src, src_mask=None, src_key_padding_mask=None, is_causal=False",
        "TransformerEncoderLayer.forward",
        &pos,
        &kw,
    )?;
    // The masks become the input's dtype first (`F._canonical_mask`), then go to attention.
    let (key_padding_mask, src_mask) =
        canonical_masks(ev, &args, "src", "src_key_padding_mask", "src_mask")?;
    let is_causal = ev.truthy(&arg(&args, "is_causal"))?;
    let sa_block = |ev: &mut Evaluator, x: Value| -> R<Value> {
        let Value::Instance(attn) = child(o, "self_attn") else {
            return Err(ScriptError::Runtime("no self_attn".into()));
        };
        let masks = Masks {
            attn_mask: src_mask.clone(),
            key_padding_mask: key_padding_mask.clone(),
            is_causal,
        };
        let out = attention(ev, &attn, [x.clone(), x.clone(), x], masks, false, true)?;
        let first = as_list(out).into_iter().next().unwrap_or(Value::None);
        call_child(ev, o, "dropout1", first)
    };
    let ff_block = |ev: &mut Evaluator, x: Value| -> R<Value> {
        let h = call_child(ev, o, "linear1", x)?;
        let activation = match attr(o, "activation") {
            Value::None => child(o, "activation"),
            f => f,
        };
        let h = ev.call(activation, vec![h], vec![])?;
        let h = call_child(ev, o, "dropout", h)?;
        let h = call_child(ev, o, "linear2", h)?;
        call_child(ev, o, "dropout2", h)
    };
    let x = arg(&args, "src");
    let norm_first = ev.truthy(&attr(o, "norm_first"))?;
    if norm_first {
        let n1 = call_child(ev, o, "norm1", x.clone())?;
        let sa = sa_block(ev, n1)?;
        let x = method(ev, &x, "add", vec![sa])?;
        let n2 = call_child(ev, o, "norm2", x.clone())?;
        let ff = ff_block(ev, n2)?;
        method(ev, &x, "add", vec![ff])
    } else {
        let sa = sa_block(ev, x.clone())?;
        let sum = method(ev, &x, "add", vec![sa])?;
        let x = call_child(ev, o, "norm1", sum)?;
        let ff = ff_block(ev, x.clone())?;
        let sum = method(ev, &x, "add", vec![ff])?;
        call_child(ev, o, "norm2", sum)
    }
}

/// `TransformerEncoder.__init__`: `num_layers` deep copies of the layer in a `ModuleList`.
fn stack_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True",
        "TransformerEncoder.__init__",
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    let n = int_arg(ev, &arg(&args, "num_layers"))?;
    let layer = arg(&args, "encoder_layer");
    let mut clones = Vec::new();
    for _ in 0..n {
        clones.push(ev.call_module("copy", "deepcopy", vec![layer.clone()], vec![])?);
    }
    submodule(
        ev,
        o,
        "layers",
        "ModuleList",
        vec![Value::List(clones)],
        vec![],
    )?;
    set_attrs(o, vec![("num_layers", arg(&args, "num_layers"))]);
    let norm = arg(&args, "norm");
    let registered =
        matches!(norm, Value::Instance(_)) && ev.module_set_attribute(o, "norm", &norm)?;
    if !registered {
        set_attrs(o, vec![("norm", norm)]);
    }
    set_attrs(
        o,
        vec![
            ("enable_nested_tensor", arg(&args, "enable_nested_tensor")),
            ("use_nested_tensor", arg(&args, "enable_nested_tensor")),
            ("mask_check", arg(&args, "mask_check")),
        ],
    );
    Ok(())
}

/// `TransformerEncoder.forward`: each layer in turn, then the final norm if there is one.
fn stack_forward(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let args = bind_python(
        "src, mask=None, src_key_padding_mask=None, is_causal=None",
        "TransformerEncoder.forward",
        &pos,
        &kw,
    )?;
    let src = arg(&args, "src");
    let (key_padding_mask, mask) =
        canonical_masks(ev, &args, "src", "src_key_padding_mask", "mask")?;
    let layers: Vec<Rc<Instance>> = match child(o, "layers") {
        Value::Instance(list) => list
            .module
            .borrow()
            .as_ref()
            .map(|s| s.modules.iter().filter_map(|(_, m)| m.clone()).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    // `_detect_is_causal_mask`: a mask equal to the square subsequent mask is causal.
    let is_causal = match arg(&args, "is_causal") {
        Value::None if !matches!(mask, Value::None) => {
            let batch_first = layers.first().is_some_and(|l| match child(l, "self_attn") {
                Value::Instance(a) => matches!(attr(&a, "batch_first"), Value::Bool(true)),
                _ => false,
            });
            let dims = shape(&src);
            let at = if dims.len() == 3 && batch_first { 1 } else { 0 };
            let size = dims.get(at).copied().unwrap_or(0);
            let causal = subsequent_mask(ev, size, &mask)?;
            let same_size = shape(&causal) == shape(&mask);
            let equal = if same_size {
                let eq = method(ev, &mask, "eq", vec![causal])?;
                let all = method(ev, &eq, "all", vec![])?;
                ev.truthy(&all)?
            } else {
                false
            };
            Value::Bool(equal)
        }
        Value::None => Value::Bool(false),
        given => Value::Bool(ev.truthy(&given)?),
    };
    let mut output = src;
    for layer in layers {
        let kw = vec![
            ("src_mask".to_string(), mask.clone()),
            ("is_causal".to_string(), is_causal.clone()),
            ("src_key_padding_mask".to_string(), key_padding_mask.clone()),
        ];
        output = ev.call(Value::Instance(layer), vec![output], kw)?;
    }
    match child(o, "norm") {
        Value::None => Ok(output),
        norm => ev.call(norm, vec![output], vec![]),
    }
}

/// `_generate_square_subsequent_mask(size)` in `like`'s dtype: `-inf` above the diagonal.
fn subsequent_mask(ev: &mut Evaluator, size: i64, like: &Value) -> R<Value> {
    let dtype = like
        .as_tensor()
        .map_or(Value::None, |t| Value::DType(t.dtype));
    let full = ev.call(
        Value::Method(Box::new(Value::Torch), "full".into()),
        vec![
            Value::Tuple(vec![Value::Int(size), Value::Int(size)]),
            Value::Float(f64::NEG_INFINITY),
        ],
        vec![("dtype".into(), dtype)],
    )?;
    ev.call(
        Value::Method(Box::new(Value::Torch), "triu".into()),
        vec![full],
        vec![("diagonal".into(), Value::Int(1))],
    )
}
