//! The parts of `F.multi_head_attention_forward` around the attention itself: the input
//! projections as `_in_projection_packed` runs them, the output projection, and the module's
//! return in the input's layout, and the masks (`_canonical_mask`, the key padding mask merged
//! into the attention mask).

use std::rc::Rc;

use crate::interp::torch::nn::layers::transformer::{child, same_tensor};
use crate::interp::torch::nn::layers::{attr, functional, method};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// `_in_projection_packed`: self-attention (query, key and value the same tensor) runs one
/// `linear` with the packed weight and splits a contiguous `(3, L, N, E)` copy; key the same
/// as value runs two (`q`, then `kv` split the same way); otherwise three, with the weight's
/// chunks.
pub(super) fn in_projection_packed(
    ev: &mut Evaluator,
    q: &Value,
    k: &Value,
    v: &Value,
    w: &Value,
    b: &Value,
    embed: i64,
) -> R<(Value, Value, Value)> {
    // `proj.unflatten(-1, (n, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()`.
    let packed = |ev: &mut Evaluator, proj: Value, n: i64| -> R<Vec<Value>> {
        let sizes = Value::Tuple(vec![Value::Int(n), Value::Int(embed)]);
        let x = method(ev, &proj, "unflatten", vec![Value::Int(-1), sizes])?;
        drop(proj);
        let x = method(ev, &x, "unsqueeze", vec![Value::Int(0)])?;
        let x = method(ev, &x, "transpose", vec![Value::Int(0), Value::Int(-2)])?;
        let x = method(ev, &x, "squeeze", vec![Value::Int(-2)])?;
        let x = method(ev, &x, "contiguous", vec![])?;
        (0..n)
            .map(|i| ev.get_item(x.clone(), &Value::Int(i)))
            .collect()
    };
    let pieces = |ev: &mut Evaluator, x: &Value, how: &str, arg: Value| -> R<Vec<Value>> {
        if matches!(x, Value::None) {
            return Ok(vec![Value::None; 3]);
        }
        Ok(as_list(method(ev, x, how, vec![arg])?))
    };
    if same_tensor(k, v) {
        if same_tensor(q, k) {
            let proj = functional(ev, "linear", vec![q.clone(), w.clone(), b.clone()], vec![])?;
            let mut qkv = packed(ev, proj, 3)?.into_iter();
            let mut next = || qkv.next().unwrap_or(Value::None);
            return Ok((next(), next(), next()));
        }
        let split = Value::List(vec![Value::Int(embed), Value::Int(2 * embed)]);
        let ws = pieces(ev, w, "split", split.clone())?;
        let bs = pieces(ev, b, "split", split)?;
        let get = |v: &[Value], i: usize| v.get(i).cloned().unwrap_or(Value::None);
        let q_proj = functional(
            ev,
            "linear",
            vec![q.clone(), get(&ws, 0), get(&bs, 0)],
            vec![],
        )?;
        let kv = functional(
            ev,
            "linear",
            vec![k.clone(), get(&ws, 1), get(&bs, 1)],
            vec![],
        )?;
        let mut kv = packed(ev, kv, 2)?.into_iter();
        let mut next = || kv.next().unwrap_or(Value::None);
        return Ok((q_proj, next(), next()));
    }
    let ws = pieces(ev, w, "chunk", Value::Int(3))?;
    let bs = pieces(ev, b, "chunk", Value::Int(3))?;
    let get = |v: &[Value], i: usize| v.get(i).cloned().unwrap_or(Value::None);
    let lin = |ev: &mut Evaluator, x: &Value, i: usize| {
        functional(
            ev,
            "linear",
            vec![x.clone(), get(&ws, i), get(&bs, i)],
            vec![],
        )
    };
    Ok((lin(ev, q, 0)?, lin(ev, k, 1)?, lin(ev, v, 2)?))
}

/// The output projection: the heads' output (an `(L, N, heads, head_dim)`-ordered view) made
/// contiguous as `(L * N, E)` rows (the view dies with it, as Python rebinds the name),
/// projected, and viewed back as `(L, N, E)`.
pub(super) fn project_out(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    heads_out: Value,
    tgt: i64,
    bsz: i64,
    embed: i64,
) -> R<Value> {
    let rows = method(ev, &heads_out, "contiguous", vec![])?;
    drop(heads_out);
    let out = method(
        ev,
        &rows,
        "view",
        vec![Value::Int(tgt * bsz), Value::Int(embed)],
    )?;
    drop(rows);
    let proj = child(o, "out_proj");
    let (w, b) = match &proj {
        Value::Instance(p) => (attr(p, "weight"), attr(p, "bias")),
        _ => (Value::None, Value::None),
    };
    let out = functional(ev, "linear", vec![out, w, b], vec![])?;
    method(
        ev,
        &out,
        "view",
        vec![Value::Int(tgt), Value::Int(bsz), Value::Int(embed)],
    )
}

/// The module's return: `(output, weights)`, unbatched or batch-first as the input was.
pub(super) fn finish(
    ev: &mut Evaluator,
    mut out: Value,
    mut weights: Value,
    batched: bool,
    batch_first: bool,
) -> R<Value> {
    let t01 = vec![Value::Int(1), Value::Int(0)];
    if !batched {
        out = method(ev, &out, "squeeze", vec![Value::Int(1)])?;
        if !matches!(weights, Value::None) {
            weights = method(ev, &weights, "squeeze", vec![Value::Int(0)])?;
        }
    } else if batch_first {
        out = method(ev, &out, "transpose", t01)?;
    }
    Ok(Value::Tuple(vec![out, weights]))
}

/// The items of a tuple or list value.
pub(super) fn as_list(v: Value) -> Vec<Value> {
    match v {
        Value::Tuple(items) | Value::List(items) => items,
        other => vec![other],
    }
}

/// `_canonical_mask`: a boolean mask as the query's dtype (`-inf` where it is `True`), a float
/// mask as it is.
pub(super) fn canonical_mask(
    ev: &mut Evaluator,
    mask: Value,
    name: &str,
    dtype: Option<crate::core::tensor::DType>,
) -> R<Value> {
    let Some(t) = mask.as_tensor() else {
        return Ok(Value::None);
    };
    if t.dtype == crate::core::tensor::DType::Bool {
        let like = ev.call(
            Value::Method(Box::new(Value::Torch), "zeros_like".into()),
            vec![mask.clone()],
            vec![("dtype".into(), dtype.map_or(Value::None, Value::DType))],
        )?;
        return method(
            ev,
            &like,
            "masked_fill_",
            vec![mask, Value::Float(f64::NEG_INFINITY)],
        );
    }
    if !t.dtype.is_floating() {
        return Err(crate::core::tensor::ScriptError::Other {
            class: "AssertionError".into(),
            message: format!("only bool and floating types of {name} are supported"),
        });
    }
    Ok(mask)
}

/// A forward's two masks, by their parameter names, canonicalized to the dtype of the
/// argument `input` (the key padding mask first, as PyTorch's forwards do).
pub(super) fn canonical_masks(
    ev: &mut Evaluator,
    args: &[(String, Value)],
    input: &str,
    padding_name: &str,
    mask_name: &str,
) -> R<(Value, Value)> {
    let get = |name: &str| crate::interp::torch::nn::module::arg(args, name);
    let dtype = get(input).as_tensor().map(|t| t.dtype);
    let padding = canonical_mask(ev, get(padding_name), padding_name, dtype)?;
    let mask = canonical_mask(ev, get(mask_name), mask_name, dtype)?;
    Ok((padding, mask))
}

/// The attention mask as the scores take it: a 2-D `(L, S)` mask unsqueezed, a 3-D one
/// checked against `(N * heads, L, S)`, and the key padding mask `(N, S)` merged in (added,
/// or alone), as `(N * heads, 1, S)`; and that reshaped key padding mask, which Python's
/// `key_padding_mask` keeps alive until the forward returns.
pub(super) fn merge_masks(
    ev: &mut Evaluator,
    attn_mask: Value,
    key_padding_mask: Value,
    [bsz, heads, tgt, src]: [i64; 4],
) -> R<(Value, Value)> {
    let size = |dims: &[i64]| {
        let list: Vec<String> = dims.iter().map(i64::to_string).collect();
        format!("torch.Size([{}])", list.join(", "))
    };
    let mut attn_mask = match attn_mask.as_tensor() {
        Some(m) if m.ndim() == 2 => {
            if m.shape() != [tgt, src] {
                return Err(crate::core::tensor::ScriptError::Runtime(format!(
                    "The shape of the 2D attn_mask is {}, but should be ({tgt}, {src}).",
                    size(m.shape())
                )));
            }
            method(ev, &attn_mask, "unsqueeze", vec![Value::Int(0)])?
        }
        Some(m) if m.ndim() == 3 => {
            if m.shape() != [bsz * heads, tgt, src] {
                return Err(crate::core::tensor::ScriptError::Runtime(format!(
                    "The shape of the 3D attn_mask is {}, but should be ({}, {tgt}, {src}).",
                    size(m.shape()),
                    bsz * heads
                )));
            }
            attn_mask
        }
        Some(m) => {
            return Err(crate::core::tensor::ScriptError::Runtime(format!(
                "attn_mask's dimension {} is not supported",
                m.ndim()
            )))
        }
        None => Value::None,
    };
    if let Some(k) = key_padding_mask.as_tensor() {
        if k.shape() != [bsz, src] {
            return Err(crate::core::tensor::ScriptError::Other {
                class: "AssertionError".into(),
                message: format!(
                    "expecting key_padding_mask shape of ({bsz}, {src}), but got {}",
                    size(k.shape())
                ),
            });
        }
        let dims = [bsz, 1, 1, src].map(Value::Int).to_vec();
        let kpm = method(ev, &key_padding_mask, "view", dims)?;
        let kpm = method(
            ev,
            &kpm,
            "expand",
            [-1, heads, -1, -1].map(Value::Int).to_vec(),
        )?;
        let shape = Value::Tuple([bsz * heads, 1, src].map(Value::Int).to_vec());
        let kpm = method(ev, &kpm, "reshape", vec![shape])?;
        attn_mask = if matches!(attn_mask, Value::None) {
            kpm.clone()
        } else {
            method(ev, &attn_mask, "add", vec![kpm.clone()])?
        };
        return Ok((attn_mask, kpm));
    }
    Ok((attn_mask, Value::None))
}
