//! `EmbeddingBag` (`torch/nn/modules/sparse.py`): its `__init__` (the weight drawn by
//! `init.normal_`, the padding row zeroed), its `forward` through `F.embedding_bag` and its
//! `extra_repr` (the attributes' `repr`s).

use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::layers::{
    attr, dtype_arg, fmt, functional, init, int_arg, method, no_grad, reset_parameters, set_attrs,
    set_parameter,
};
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// The layer classes of this family.
pub(crate) static MODULES: &[ModuleDef] = &[ModuleDef {
    init: Some(embedding_bag_init),
    forward: Some(|ev, o, pos, kw| {
        let args = bind_python(
            "input, offsets=None, per_sample_weights=None",
            "EmbeddingBag.forward",
            &pos,
            &kw,
        )?;
        let pos = vec![
            arg(&args, "input"),
            attr(o, "weight"),
            arg(&args, "offsets"),
            attr(o, "max_norm"),
            attr(o, "norm_type"),
            attr(o, "scale_grad_by_freq"),
            attr(o, "mode"),
            attr(o, "sparse"),
            arg(&args, "per_sample_weights"),
            attr(o, "include_last_offset"),
            attr(o, "padding_idx"),
        ];
        functional(ev, "embedding_bag", pos, vec![])
    }),
    extra_repr: Some(embedding_bag_repr),
    methods: &[("reset_parameters", |ev, o, _, _| {
        reset(ev, o).map(|()| Value::None)
    })],
    ..ModuleDef::new("EmbeddingBag", "torch.nn.modules.sparse")
}];

fn embedding_bag_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, mode='mean', sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None, dtype=None",
        "EmbeddingBag.__init__",
        &pos,
        &kw,
    )?;
    ev.module_init(o, &[], &[])?;
    let num = arg(&args, "num_embeddings");
    let n = int_arg(ev, &num)?;
    let dim = int_arg(ev, &arg(&args, "embedding_dim"))?;
    set_attrs(
        o,
        vec![
            ("num_embeddings", num),
            ("embedding_dim", arg(&args, "embedding_dim")),
            ("max_norm", arg(&args, "max_norm")),
            ("norm_type", arg(&args, "norm_type")),
            ("scale_grad_by_freq", arg(&args, "scale_grad_by_freq")),
        ],
    );
    let assertion = || ScriptError::Other {
        class: "AssertionError".into(),
        message: "padding_idx must be within num_embeddings".into(),
    };
    let padding = match arg(&args, "padding_idx") {
        Value::None => Value::None,
        v => {
            let p = int_arg(ev, &v)?;
            if p >= n || p < -n {
                return Err(assertion());
            }
            Value::Int(if p < 0 { p + n } else { p })
        }
    };
    set_attrs(o, vec![("padding_idx", padding)]);
    let dtype = dtype_arg(&arg(&args, "dtype"))?;
    match arg(&args, "_weight") {
        Value::None => {
            let weight = ev.empty_parameter(&[n, dim], dtype)?;
            set_parameter(o, "weight", Some(weight));
            reset_parameters(ev, o)?;
        }
        Value::Tensor(t) => {
            if t.borrow().tensor.shape() != [n, dim] {
                return Err(ScriptError::Other {
                    class: "AssertionError".into(),
                    message: "Shape of weight does not match num_embeddings and embedding_dim"
                        .into(),
                });
            }
            if let Value::Tensor(p) = ev.make_parameter(&t, true)? {
                set_parameter(o, "weight", Some(p));
            }
        }
        other => {
            return Err(ScriptError::Type(format!(
                "_weight must be a Tensor, not {}",
                other.type_name()
            )))
        }
    }
    set_attrs(
        o,
        vec![
            ("mode", arg(&args, "mode")),
            ("sparse", arg(&args, "sparse")),
            ("include_last_offset", arg(&args, "include_last_offset")),
        ],
    );
    Ok(())
}

/// `init.normal_(self.weight)`, then the padding row zeroed.
fn reset(ev: &mut Evaluator, o: &Rc<Instance>) -> R<()> {
    init(ev, "normal_", vec![attr(o, "weight")], vec![])?;
    if let Value::Int(p) = attr(o, "padding_idx") {
        let weight = attr(o, "weight");
        no_grad(ev, |ev| {
            let row = ev.get_item(weight.clone(), &Value::Int(p))?;
            method(ev, &row, "fill_", vec![Value::Int(0)])
        })?;
    }
    Ok(())
}

fn embedding_bag_repr(ev: &mut Evaluator, o: &Rc<Instance>) -> R<String> {
    let repr = |ev: &mut Evaluator, name: &str| ev.repr(&attr(o, name));
    let mut s = format!(
        "{}, {}",
        fmt(ev, &attr(o, "num_embeddings"))?,
        fmt(ev, &attr(o, "embedding_dim"))?
    );
    if !matches!(attr(o, "max_norm"), Value::None) {
        s.push_str(&format!(", max_norm={}", repr(ev, "max_norm")?));
    }
    let two = match attr(o, "norm_type") {
        Value::Int(i) => i == 2,
        Value::Float(f) => f == 2.0,
        _ => false,
    };
    if !two {
        s.push_str(&format!(", norm_type={}", repr(ev, "norm_type")?));
    }
    if !matches!(attr(o, "scale_grad_by_freq"), Value::Bool(false)) {
        s.push_str(&format!(
            ", scale_grad_by_freq={}",
            repr(ev, "scale_grad_by_freq")?
        ));
    }
    s.push_str(&format!(", mode={}", repr(ev, "mode")?));
    if !matches!(attr(o, "padding_idx"), Value::None) {
        s.push_str(&format!(", padding_idx={}", repr(ev, "padding_idx")?));
    }
    Ok(s)
}
