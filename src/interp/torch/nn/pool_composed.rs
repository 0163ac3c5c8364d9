//! The poolings `torch/nn/functional.py` composes in Python: `F.lp_pool1d`/`F.lp_pool2d`
//! (an average of powers, as the ops it calls, in its order, each temporary released where
//! CPython releases it), and `F.max_unpool1d/2d/3d` (`_unpool_output_size`'s checks, then
//! ATen's `max_unpool2d`/`max_unpool3d`, whose `MaxUnpool2DBackward0` keeps the indices).

use crate::core::tensor::layout::list_str;
use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::{Grad, GradOp};
use crate::interp::torch::nn::conv::{host_tensor, meta_op};
use crate::interp::torch::nn::functional::functional;
use crate::interp::torch::nn::pool::{input_value, runtime, tensor_of};
use crate::interp::torch::registry::{OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    functional(
        &["lp_pool1d", "lp_pool2d"],
        &["input, norm_type, kernel_size, stride=None, ceil_mode=False"],
        lp_pool,
        Grad::UNTRACKED,
    ),
    functional(
        &["max_unpool1d", "max_unpool2d", "max_unpool3d"],
        &["input, indices, kernel_size, stride=None, padding=0, output_size=None"],
        max_unpool,
        Grad::UNTRACKED,
    ),
];

/// `torch.<name>(*pos)`.
fn torch(ev: &mut Evaluator, name: &str, pos: Vec<Value>) -> R<Value> {
    ev.call(
        Value::Method(Box::new(Value::Torch), name.into()),
        pos,
        vec![],
    )
}

/// `F.<name>(*pos, **kw)`.
fn nn_functional(
    ev: &mut Evaluator,
    name: &str,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    ev.call_table_functional(name, &pos, &kw)
        .unwrap_or_else(|| {
            Err(ScriptError::Attribute(format!(
                "module 'torch.nn.functional' has no attribute '{name}'"
            )))
        })
}

/// `_single`/`_pair` of a Python value: an int repeated, a sequence's ints.
fn ntuple(ev: &mut Evaluator, v: &Value, n: usize, what: &str) -> R<Vec<i64>> {
    match v {
        Value::Int(i) => Ok(vec![*i; n]),
        Value::Bool(b) => Ok(vec![i64::from(*b); n]),
        other => ev.int_list(other, what, "kernel_size"),
    }
}

/// `F.lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False)` and
/// `F.lp_pool2d`.
fn lp_pool(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = input_value(call)?;
    let two = call.name == "lp_pool2d";
    let norm = call.value("norm_type").cloned().unwrap_or(Value::None);
    let kernel = call.value("kernel_size").cloned().unwrap_or(Value::None);
    let stride = call.value("stride").cloned().unwrap_or(Value::None);
    let ceil = call
        .value("ceil_mode")
        .cloned()
        .unwrap_or(Value::Bool(false));
    // `kw, kh = _pair(kernel_size)` (2-d) before anything else.
    let window: i64 = if two {
        let k = ntuple(ev, &kernel, 2, &call.name)?;
        if k.len() != 2 {
            return Err(ScriptError::Value(format!(
                "{} to unpack (expected 2)",
                if k.len() > 2 {
                    "too many values"
                } else {
                    "not enough values"
                }
            )));
        }
        k[0] * k[1]
    } else {
        match &kernel {
            Value::Int(k) => *k,
            other => {
                return Err(ScriptError::Type(format!(
                    "unsupported operand type(s) for *: 'int' and '{}'",
                    other.type_name()
                )))
            }
        }
    };
    let p = match &norm {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    };
    let max_name = if two { "max_pool2d" } else { "max_pool1d" };
    if let Some(p) = p {
        if p == 0.0 {
            let shown = ev.str_of(&norm)?;
            return Err(ScriptError::Value(format!(
                "norm_type must be a non-zero value, but got {shown}"
            )));
        }
        if p.is_infinite() {
            let a = ev.method(input.clone(), "abs", vec![])?;
            let a = if p < 0.0 {
                ev.method(a, "neg", vec![])?
            } else {
                a
            };
            let pos = vec![a, kernel, stride, Value::Int(0), Value::Int(1), ceil];
            let m = nn_functional(ev, max_name, pos, vec![])?;
            return if p < 0.0 {
                ev.method(m, "neg", vec![])
            } else {
                Ok(m)
            };
        }
    }
    let avg_name = if two { "avg_pool2d" } else { "avg_pool1d" };
    let powered = ev.method(input, "pow", vec![norm.clone()])?;
    let out = if matches!(stride, Value::None) {
        let kw = vec![
            ("padding".to_string(), Value::Int(0)),
            ("ceil_mode".to_string(), ceil),
        ];
        nn_functional(ev, avg_name, vec![powered, kernel], kw)?
    } else {
        let pos = vec![powered, kernel, stride, Value::Int(0), ceil];
        nn_functional(ev, avg_name, pos, vec![])?
    };
    // `(torch.sign(out) * relu(torch.abs(out))).mul(kw * kh).pow(1.0 / norm_type)`
    let sign = torch(ev, "sign", vec![out.clone()])?;
    let abs = torch(ev, "abs", vec![out.clone()])?;
    let relu = nn_functional(ev, "relu", vec![abs], vec![])?;
    let product = ev.method(sign, "mul", vec![relu])?;
    let scaled = ev.method(product, "mul", vec![Value::Int(window)])?;
    let exponent = match p {
        Some(p) => Value::Float(1.0 / p),
        None => {
            return Err(ScriptError::Type(format!(
                "unsupported operand type(s) for /: 'float' and '{}'",
                norm.type_name()
            )))
        }
    };
    let result = ev.method(scaled, "pow", vec![exponent]);
    drop(out);
    result
}

/// `F.max_unpool1d/2d/3d(input, indices, kernel_size, stride=None, padding=0,
/// output_size=None)`.
fn max_unpool(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let input = input_value(call)?;
    let dims = match call.name.as_str() {
        "max_unpool1d" => 1,
        "max_unpool3d" => 3,
        _ => 2,
    };
    let get = |n: &str| call.value(n).cloned().unwrap_or(Value::None);
    let kernel = ntuple(ev, &get("kernel_size"), dims, &call.name)?;
    let stride = match get("stride") {
        Value::None => kernel.clone(),
        v => ntuple(ev, &v, dims, &call.name)?,
    };
    let padding = match get("padding") {
        Value::None => vec![0; dims],
        v => ntuple(ev, &v, dims, &call.name)?,
    };
    let x = tensor_of(&input)?;
    let indices = get("indices");
    let given = match get("output_size") {
        Value::None => None,
        v => {
            let ints = ev.int_list(&v, &call.name, "output_size")?;
            // `output_size[2:]` when it has the batch and channel sizes too.
            let shown = if ints.len() == dims + 2 {
                match v {
                    Value::Size(s) => Value::Size(s[2..].to_vec()),
                    Value::Tuple(items) => Value::Tuple(items[2..].to_vec()),
                    Value::List(items) => Value::List(items[2..].to_vec()),
                    other => other,
                }
            } else {
                v
            };
            Some((ints, ev.str_of(&shown)?))
        }
    };
    let size = unpool_output_size(&x, &kernel, &stride, &padding, given)?;
    if dims == 1 {
        // `max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), output_size + [1])
        // .squeeze(-1)`.
        let u = ev.method(input, "unsqueeze", vec![Value::Int(-1)])?;
        let ui = ev.method(indices, "unsqueeze", vec![Value::Int(-1)])?;
        let out = unpool(ev, &u, &ui, &[size[0], 1])?;
        return ev.method(out, "squeeze", vec![Value::Int(-1)]);
    }
    unpool(ev, &input, &indices, &size)
}

/// `_unpool_output_size`: the default size, or the given one within a stride of it.
fn unpool_output_size(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    given: Option<(Vec<i64>, String)>,
) -> R<Vec<i64>> {
    let n = kernel.len();
    let sh = x.shape();
    let mut default = Vec::with_capacity(n);
    for (d, &k) in kernel.iter().enumerate() {
        let at = sh.len() as i64 - n as i64 + d as i64;
        let size = usize::try_from(at)
            .ok()
            .and_then(|i| sh.get(i))
            .copied()
            .ok_or_else(|| ScriptError::Index("tuple index out of range".into()))?;
        let s = stride.get(d).copied().unwrap_or(1);
        let p = padding.get(d).copied().unwrap_or(0);
        default.push((size - 1) * s + k - 2 * p);
    }
    let Some((mut size, shown)) = given else {
        return Ok(default);
    };
    if size.len() == n + 2 {
        size = size[2..].to_vec();
    }
    if size.len() != n {
        return Err(ScriptError::Value(format!(
            "output_size should be a sequence containing {n} or {} elements, but it has a length of '{}'",
            n + 2,
            size.len()
        )));
    }
    for d in 0..n {
        let s = stride.get(d).copied().unwrap_or(1);
        let (lo, hi) = (default[d] - s, default[d] + s);
        if !(lo < size[d] && size[d] < hi) {
            return Err(ScriptError::Value(format!(
                "invalid output_size \"{shown}\" (dim {d} must be between {lo} and {hi})"
            )));
        }
    }
    Ok(size)
}

/// `torch._C._nn.max_unpool2d(input, indices, output_size)` (and the 3-d one): ATen's checks,
/// a zeroed output with each value written at its index, and `MaxUnpool2DBackward0`.
fn unpool(ev: &mut Evaluator, input: &Value, indices: &Value, size: &[i64]) -> R<Value> {
    let x = tensor_of(input)?;
    let i = match indices {
        Value::Tensor(t) => t.borrow().tensor.clone(),
        other => {
            return Err(ScriptError::Type(format!(
                "max_unpool{}d(): argument 'indices' (position 2) must be Tensor, not {}",
                size.len(),
                other.type_name()
            )))
        }
    };
    let dims = size.len();
    let name = format!("max_unpool{dims}d");
    if i.dtype != DType::Int64 {
        return Err(runtime(format!(
            "elements in indices should be type int64 but got: {}",
            i.dtype.scalar_type_name()
        )));
    }
    let ranks = [dims + 1, dims + 2];
    if dims == 2 {
        if !ranks.contains(&x.ndim()) {
            return Err(runtime(format!(
                "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {} dimensions.",
                x.ndim()
            )));
        }
    } else if !ranks.contains(&x.ndim()) {
        return Err(runtime(format!(
            "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with {} dimensions.",
            x.ndim()
        )));
    }
    if x.shape() != i.shape() {
        return Err(runtime(format!(
            "Expected shape of indices to be same as that of the input tensor ({}) but got indices tensor with shape: {}",
            list_str(x.shape()),
            list_str(i.shape())
        )));
    }
    for (d, &n) in x.shape().iter().enumerate().skip(1) {
        if n <= 0 {
            return Err(runtime(format!(
                "max_unpooling{dims}d_forward_out_cpu(): Expected input to have non-zero size for non-batch dimensions, but got {} with dimension {d} being empty.",
                list_str(x.shape())
            )));
        }
    }
    let sh = x.shape();
    let mut out_shape = sh[..sh.len() - dims].to_vec();
    out_shape.extend_from_slice(size);
    ev.check_shape(&out_shape)?;
    let out = if meta_op(ev) {
        crate::interp::torch::nn::conv::empty_output(
            ev,
            &out_shape,
            MemoryFormat::Contiguous,
            x.dtype,
            &name,
        )?
    } else {
        let plane: i64 = size.iter().product();
        let values = ev.engine.values(&x);
        let index = ev.engine.values(&i);
        let in_plane: usize = sh[sh.len() - dims..].iter().product::<i64>().max(0) as usize;
        let planes = (out_shape.iter().product::<i64>() / plane.max(1)).max(0) as usize;
        let mut out = vec![Scalar::Float(0.0); planes * plane.max(0) as usize];
        if x.dtype.is_complex() || x.dtype == DType::Bool {
            return Err(ScriptError::NotImplemented(format!(
                "\"max_unpooling{dims}d_forward_out_frame\" not implemented for '{}'",
                x.dtype.scalar_type_name()
            )));
        }
        if !x.dtype.is_floating() {
            out.fill(Scalar::Int(0));
        }
        for p in 0..planes {
            for k in 0..in_plane {
                let at = p * in_plane + k;
                let idx = index[at].to_wrapped_int();
                if idx < 0 || idx >= plane {
                    let sizes: Vec<String> = size.iter().map(i64::to_string).collect();
                    return Err(runtime(format!(
                        "Found an invalid max index: {idx} (output volumes are of size {}",
                        sizes.join("x")
                    )));
                }
                out[p * plane as usize + idx as usize] = values[at];
            }
        }
        host_tensor(
            ev,
            &out_shape,
            MemoryFormat::Contiguous,
            x.dtype,
            &out,
            &name,
        )?
    };
    let result = Value::tensor(out, &name, None);
    let output_size = Value::Tuple(size.iter().map(|&n| Value::Int(n)).collect());
    let node = if dims == 3 {
        &UNPOOL3D_GRAD
    } else {
        &UNPOOL_GRAD
    };
    ev.record_grad(
        GradOp::Named {
            name: &name,
            grad: node,
            args: &[("output_size", &output_size)],
        },
        &[input, indices],
        &result,
    );
    Ok(result)
}

const UNPOOL_GRAD: Grad = Grad::named("MaxUnpool2DBackward0", &MAX_UNPOOL);
const UNPOOL3D_GRAD: Grad = Grad::named("MaxUnpool3DBackward0", &MAX_UNPOOL);

/// `max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size)`: `self:
/// max_pool_double_backward(grad, indices, 2)` (the gradient gathered at the indices).
static MAX_UNPOOL: Formula = Formula {
    inputs: &["self", "indices"],
    saves: &["indices"],
    args: &["output_size"],
    backward: max_unpool_backward,
};

fn max_unpool_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let dims = match b.arg("output_size") {
        Some(Value::Tuple(items)) => items.len(),
        _ => 2,
    };
    let indices = ev.saved_input(b, "indices")?;
    // `grad.flatten(-dims).gather(-1, indices.flatten(-dims)).view_as(indices)`.
    let g = ev.method(b.g(), "flatten", vec![Value::Int(-(dims as i64))])?;
    let i = ev.method(indices.clone(), "flatten", vec![Value::Int(-(dims as i64))])?;
    let gathered = ev.method(g, "gather", vec![Value::Int(-1), i])?;
    out[0] = Some(ev.method(gathered, "view_as", vec![indices])?);
    Ok(out)
}
