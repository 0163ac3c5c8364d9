//! The backward formulas of the ops that select, place or rearrange elements
//! (`derivatives.yaml`): `where`, `masked_fill`, `index_select`, `gather`, `scatter`,
//! `scatter_add`, `take`, `index_add`/`index_copy`/`index_fill`, `cat`/`stack`, the splits
//! (one node per piece here, so a piece's gradient is padded with zeros to the input's
//! shape), `select`/`narrow`, `repeat`/`tile`, `flip`, `roll`, `rot90`, `tril`/`triu` and
//! `movedim`.

use crate::interp::torch::autograd::backward::{shape_value, unsupported};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::formulas_reduce::{ints_of, m, wrap};
use crate::interp::torch::autograd::{number, Saved};
use crate::interp::torch::optim::{call_method, call_torch};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

fn int_arg(b: &Backward, name: &str, default: i64) -> i64 {
    b.arg(name).and_then(number).map_or(default, |x| x as i64)
}

fn zeros_like(ev: &mut Evaluator, v: &Value) -> R<Value> {
    call_torch(ev, "zeros_like", vec![v.clone()], vec![])
}

/// `where(condition, self, other)`: `where(condition, grad, 0)` and `where(condition, 0,
/// grad)`. The function form binds the condition first, the method form second.
pub(crate) static WHERE: Formula = Formula {
    inputs: &["self", "condition", "other"],
    saves: &["self", "condition"],
    args: &[],
    backward: where_,
};

fn where_(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let first_is_condition = b
        .node
        .operands
        .first()
        .is_some_and(|o| o.dtype == Some(crate::core::tensor::DType::Bool))
        && b.node.operands.get(1).and_then(|o| o.dtype) != Some(crate::core::tensor::DType::Bool);
    let (cond_slot, input_at) = if first_is_condition {
        ("self", 1)
    } else {
        ("condition", 0)
    };
    let cond = ev.saved_input(b, cond_slot)?;
    let mut out = b.none();
    for (i, picks) in [(input_at, true), (2, false)] {
        if !b.needs(i) {
            continue;
        }
        // `where(condition, grad, 0)` (the 0 a `scalar_tensor`, as `where` makes one).
        let (x, y) = if picks {
            (b.g(), Value::Int(0))
        } else {
            (Value::Int(0), b.g())
        };
        let g = call_torch(ev, "where", vec![cond.clone(), x, y], vec![])?;
        out[i] = Some(ev.sum_to(g, &b.shape(i))?);
    }
    Ok(out)
}

/// `masked_fill(mask, value)`: `grad.masked_fill(mask, 0)`; a tensor `value` gets the sum of
/// the gradient where the mask is set.
pub(crate) static MASKED_FILL: Formula = Formula {
    inputs: &["self", "mask", "value"],
    saves: &["mask"],
    args: &[],
    backward: masked_fill,
};

fn masked_fill(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mask = ev.saved_input(b, "mask")?;
    let mut out = b.none();
    if b.needs(0) {
        let g = m(ev, &b.g(), "masked_fill", vec![mask.clone(), Value::Int(0)])?;
        out[0] = Some(ev.sum_to(g, &b.shape(0))?);
    }
    if b.needs(2) {
        let zeros = zeros_like(ev, &b.g())?;
        let w = call_torch(ev, "where", vec![mask, b.g(), zeros], vec![])?;
        out[2] = Some(m(ev, &w, "sum", vec![])?);
    }
    Ok(out)
}

/// `index_select(dim, index)`: `zeros(sizes).index_add_(dim, index, grad)`; `gather(dim,
/// index)`: `zeros(sizes).scatter_add_(dim, index, grad)`.
pub(crate) static GATHERING: Formula = Formula {
    inputs: &["self", "dim", "index"],
    saves: &["index"],
    args: &["dim"],
    backward: gathering,
};

fn gathering(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let index = ev.saved_input(b, "index")?;
    let dim = Value::Int(int_arg(b, "dim", 0));
    let zeros = m(ev, &b.g(), "new_zeros", vec![shape_value(&b.shape(0))])?;
    let op = if b.node.name.starts_with("Gather") {
        "scatter_add"
    } else {
        "index_add"
    };
    out[0] = Some(m(ev, &zeros, op, vec![dim, index, b.g()])?);
    Ok(out)
}

/// `scatter(dim, index, src)` (`self: grad.scatter(dim, index, 0)`, `src: grad.gather(dim,
/// index)`) and `scatter_add` (`self: grad`).
pub(crate) static SCATTER: Formula = Formula {
    inputs: &["self", "dim", "index", "src"],
    saves: &["index"],
    args: &["dim", "reduce"],
    backward: scatter,
};

fn scatter(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    if b.arg("reduce").is_some_and(|r| !matches!(r, Value::None)) {
        return Err(unsupported(b.node));
    }
    let index = ev.saved_input(b, "index")?;
    let dim = Value::Int(int_arg(b, "dim", 0));
    let add = b.node.name.starts_with("ScatterAdd");
    let mut out = b.none();
    if b.needs(0) {
        out[0] = Some(if add {
            b.g()
        } else {
            m(
                ev,
                &b.g(),
                "scatter",
                vec![dim.clone(), index.clone(), Value::Int(0)],
            )?
        });
    }
    if b.needs(3) {
        out[3] = Some(m(ev, &b.g(), "gather", vec![dim, index])?);
    }
    Ok(out)
}

/// `take(index)`: `zeros_like(self).put_(index, grad, accumulate=True)`.
pub(crate) static TAKE: Formula = Formula {
    inputs: &["self", "index"],
    saves: &["self", "index"],
    args: &[],
    backward: take,
};

fn take(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if b.needs(0) {
        let this = ev.saved_input(b, "self")?;
        let index = ev.saved_input(b, "index")?;
        let zeros = zeros_like(ev, &this)?;
        out[0] = Some(m(ev, &zeros, "put", vec![index, b.g(), Value::Bool(true)])?);
    }
    Ok(out)
}

/// `index_add(dim, index, source, alpha)`, `index_copy(dim, index, source)` and
/// `index_fill(dim, index, value)`.
pub(crate) static INDEX_ALONG: Formula = Formula {
    inputs: &["self", "dim", "index", "source"],
    saves: &["index", "source"],
    args: &["dim", "alpha"],
    backward: index_along,
};

fn index_along(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let index = ev.saved_input(b, "index")?;
    let dim = Value::Int(int_arg(b, "dim", 0));
    let name = b.node.name.to_string();
    let mut out = b.none();
    if b.needs(0) {
        out[0] = Some(if name.starts_with("IndexAdd") {
            b.g()
        } else {
            m(
                ev,
                &b.g(),
                "index_fill",
                vec![dim.clone(), index.clone(), Value::Int(0)],
            )?
        });
    }
    if b.needs(3) {
        let picked = m(ev, &b.g(), "index_select", vec![dim, index])?;
        let v = if name.starts_with("IndexFill") {
            m(ev, &picked, "sum", vec![])?
        } else {
            let alpha = b.arg("alpha").and_then(number).unwrap_or(1.0);
            let picked = if alpha == 1.0 {
                picked
            } else {
                ev.binary(BinOp::Mul, picked, Value::Float(alpha))?
            };
            let source = ev.saved_input(b, "source")?;
            if source.as_tensor().is_some_and(|t| t.shape().is_empty()) {
                m(ev, &picked, "squeeze", vec![])?
            } else {
                picked
            }
        };
        out[3] = Some(v);
    }
    Ok(out)
}

/// The tensor operands of a node (a list argument's tensors are one operand each), with
/// their positions.
fn tensor_operands(b: &Backward) -> Vec<usize> {
    b.node
        .operands
        .iter()
        .enumerate()
        .filter(|(_, o)| !matches!(o.saved, Saved::Number(_)) && o.dtype.is_some())
        .map(|(i, _)| i)
        .collect()
}

/// `cat(tensors, dim)` (and `hstack`/`vstack`/`dstack`): each input gets its slice of the
/// gradient; `stack(tensors, dim)`: `grad.unbind(dim)`.
pub(crate) static JOIN: Formula = Formula {
    inputs: &[],
    saves: &[],
    args: &["dim"],
    backward: join,
};

fn join(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    let name = b.node.name.to_string();
    let stack = name.starts_with("Stack");
    let gdim = b.grad.as_tensor().map_or(0, |t| t.shape().len());
    let dim = wrap(int_arg(b, "dim", 0), if stack { gdim } else { gdim.max(1) });
    let mut offset = 0;
    for i in tensor_operands(b) {
        let shape = b.shape(i);
        if stack {
            if b.needs(i) {
                out[i] = Some(m(
                    ev,
                    &b.g(),
                    "select",
                    vec![Value::Int(dim), Value::Int(offset)],
                )?);
            }
            offset += 1;
            continue;
        }
        // PyTorch's cat skips 1-D empty tensors.
        if shape == [0] && gdim != 1 {
            continue;
        }
        let size = shape.get(dim as usize).copied().unwrap_or(1);
        if b.needs(i) {
            let piece = m(
                ev,
                &b.g(),
                "narrow",
                vec![Value::Int(dim), Value::Int(offset), Value::Int(size)],
            )?;
            out[i] = Some(piece);
        }
        offset += size;
    }
    Ok(out)
}

/// `gap` zeros of the gradient's dtype, shaped as `shape` with `size` along `dim`.
fn zero_block(ev: &mut Evaluator, g: &Value, shape: &[i64], dim: usize, size: i64) -> R<Value> {
    let mut s = shape.to_vec();
    s[dim] = size;
    m(ev, g, "new_zeros", vec![shape_value(&s)])
}

/// The gradient `g` of `input.narrow(dim, start, len)` placed in zeros of `shape`.
fn embed(ev: &mut Evaluator, g: Value, shape: &[i64], dim: usize, start: i64) -> R<Value> {
    let len = g
        .as_tensor()
        .map_or(1, |t| t.shape().get(dim).copied().unwrap_or(1));
    let after = shape[dim] - start - len;
    let mut parts = Vec::new();
    if start > 0 {
        parts.push(zero_block(ev, &g, shape, dim, start)?);
    }
    parts.push(g.clone());
    if after > 0 {
        parts.push(zero_block(ev, &g, shape, dim, after)?);
    }
    if parts.len() == 1 {
        return ev.method(g, "contiguous", vec![]);
    }
    call_torch(
        ev,
        "cat",
        vec![Value::List(parts), Value::Int(dim as i64)],
        vec![],
    )
}

/// The pieces of `split`, `chunk`, `unbind`, `tensor_split`, `hsplit`...: a node per piece,
/// which finds where its piece starts from the piece's offset in the input's storage.
pub(crate) static PIECE: Formula = Formula {
    inputs: &["self"],
    saves: &["self", "result"],
    args: &["dim"],
    backward: piece,
};

fn piece(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let (dim, start, g) = piece_place(ev, b)?;
    out[0] = Some(embed(ev, g, &b.shape(0), dim, start)?);
    Ok(out)
}

/// Where a piece's gradient goes in its input's: the split dim, the piece's start along it,
/// and the gradient shaped as the piece (an `unbind` piece's unsqueezed).
pub(crate) fn piece_place(ev: &mut Evaluator, b: &Backward) -> R<(usize, i64, Value)> {
    let shape = b.shape(0);
    let (Saved::Tensor(input), Saved::Tensor(result)) = (
        &b.node
            .operands
            .first()
            .map_or(Saved::Missing, |o| o.saved.clone()),
        &b.node.result,
    ) else {
        return Err(unsupported(b.node));
    };
    let name = b.node.name.to_string();
    let mut g = b.g();
    let unbind = name.starts_with("Unbind");
    // The split dim is where the piece is shorter than the input (`hsplit` and the like name
    // none); a piece as long as the input sits at its start along any dim.
    let shorter = (!unbind)
        .then(|| {
            let piece = result.tensor.shape();
            (0..shape.len()).find(|&d| piece.get(d) != shape.get(d))
        })
        .flatten();
    let dim = match shorter {
        Some(d) => d,
        None => wrap(int_arg(b, "dim", 0), shape.len()) as usize,
    };
    if unbind {
        g = m(ev, &g, "unsqueeze", vec![Value::Int(dim as i64)])?;
    }
    let stride = input.tensor.strides().get(dim).copied().unwrap_or(1);
    let delta = result.tensor.layout.offset - input.tensor.layout.offset;
    let start = if stride == 0 { 0 } else { delta / stride };
    Ok((dim, start, g))
}

/// The input's gradient from its pieces' (`split_backward`, `unbind_backward`): each
/// piece's gradient at its place, zeros where no gradient reached a piece, concatenated.
/// `placed` holds (dim, start, gradient) of the pieces that have one.
pub(crate) fn join_pieces(
    ev: &mut Evaluator,
    shape: &[i64],
    mut placed: Vec<(usize, i64, Value)>,
) -> R<Option<Value>> {
    let Some(dim) = placed.first().map(|(d, _, _)| *d) else {
        return Ok(None);
    };
    placed.sort_by_key(|(_, start, _)| *start);
    let mut parts = Vec::new();
    let mut at = 0;
    for (_, start, g) in &placed {
        if *start > at {
            parts.push(zero_block(ev, g, shape, dim, start - at)?);
        }
        let len = g
            .as_tensor()
            .map_or(1, |t| t.shape().get(dim).copied().unwrap_or(1));
        parts.push(g.clone());
        at = start + len;
    }
    let total = shape.get(dim).copied().unwrap_or(at);
    if total > at {
        if let Some((_, _, g)) = placed.last() {
            parts.push(zero_block(ev, g, shape, dim, total - at)?);
        }
    }
    drop(placed);
    if parts.len() == 1 {
        let only = parts.remove(0);
        return ev.method(only, "contiguous", vec![]).map(Some);
    }
    call_torch(
        ev,
        "cat",
        vec![Value::List(parts), Value::Int(dim as i64)],
        vec![],
    )
    .map(Some)
}

/// `select(dim, index)` and `narrow(dim, start, length)`: the gradient in zeros.
pub(crate) static SLICE: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["dim", "index", "start"],
    backward: slice,
};

fn slice(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let shape = b.shape(0);
    let dim = wrap(int_arg(b, "dim", 0), shape.len()) as usize;
    let n = shape.get(dim).copied().unwrap_or(1);
    let mut g = b.g();
    let start = if let Some(index) = b.arg("index").and_then(number) {
        g = m(ev, &g, "unsqueeze", vec![Value::Int(dim as i64)])?;
        index as i64
    } else {
        b.arg("start")
            .and_then(number)
            .ok_or_else(|| unsupported(b.node))? as i64
    };
    let start = if start < 0 { start + n } else { start };
    out[0] = Some(embed(ev, g, &shape, dim, start)?);
    Ok(out)
}

/// `repeat(repeats)` and `tile(dims)`: `repeat_backward` (the repeats summed out).
pub(crate) static REPEAT: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["repeats", "dims"],
    backward: repeat,
};

fn repeat(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let input = b.shape(0);
    let mut repeats =
        ints_of(b.arg("repeats").or_else(|| b.arg("dims"))).ok_or_else(|| unsupported(b.node))?;
    // `tile` pads its dims with ones on the left up to the input's dimensions.
    while repeats.len() < input.len() {
        repeats.insert(0, 1);
    }
    if repeats.contains(&0) {
        out[0] = Some(m(ev, &b.g(), "new_zeros", vec![shape_value(&input)])?);
        return Ok(out);
    }
    let mut g = b.g();
    let unsqueezed = repeats.len() - input.len();
    for _ in 0..unsqueezed {
        g = m(ev, &g, "sum", vec![Value::Int(0), Value::Bool(false)])?;
    }
    let mut size = Vec::new();
    let mut sum_dims = Vec::new();
    for (d, &n) in input.iter().enumerate() {
        let r = repeats[d + unsqueezed];
        if r != 1 {
            size.push(r);
            sum_dims.push(Value::Int(size.len() as i64 - 1));
        }
        size.push(n);
    }
    g = m(ev, &g, "reshape", vec![shape_value(&size)])?;
    if !sum_dims.is_empty() {
        g = m(ev, &g, "sum", vec![Value::List(sum_dims)])?;
    }
    out[0] = Some(g);
    Ok(out)
}

/// `flip`, `fliplr`, `flipud`, `roll`, `tril`, `triu`, `movedim`: the same op, undone, on
/// the gradient.
pub(crate) static REARRANGE: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["dims", "shifts", "diagonal", "source", "destination"],
    backward: rearrange,
};

fn rearrange(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let name = b.node.name.to_string();
    let arg = |n: &str| b.arg(n).cloned();
    let g = b.g();
    let v = if name.starts_with("Flip") {
        match name.as_str() {
            n if n.starts_with("Fliplr") => m(ev, &g, "fliplr", vec![])?,
            n if n.starts_with("Flipud") => m(ev, &g, "flipud", vec![])?,
            _ => m(
                ev,
                &g,
                "flip",
                vec![arg("dims").ok_or_else(|| unsupported(b.node))?],
            )?,
        }
    } else if name.starts_with("Roll") {
        let shifts = ints_of(b.arg("shifts")).ok_or_else(|| unsupported(b.node))?;
        let back = Value::List(shifts.iter().map(|s| Value::Int(-s)).collect());
        match ints_of(b.arg("dims")) {
            Some(d) if !d.is_empty() => {
                let dims = Value::List(d.into_iter().map(Value::Int).collect());
                m(ev, &g, "roll", vec![back, dims])?
            }
            _ => m(ev, &g, "roll", vec![back])?,
        }
    } else if name.starts_with("Tril") || name.starts_with("Triu") {
        let op = if name.starts_with("Tril") {
            "tril"
        } else {
            "triu"
        };
        m(ev, &g, op, vec![Value::Int(int_arg(b, "diagonal", 0))])?
    } else if name.starts_with("Permute") || name.starts_with("Movedim") {
        let (s, d) = (arg("source"), arg("destination"));
        match (s, d) {
            (Some(s), Some(d)) => m(ev, &g, "movedim", vec![d, s])?,
            _ => return Err(unsupported(b.node)),
        }
    } else {
        return Err(unsupported(b.node));
    };
    out[0] = Some(v);
    Ok(out)
}

/// `masked_select(mask)`: the gradient written where the mask is set, in zeros of the
/// broadcast shape, summed back to `self`'s shape.
pub(crate) static MASKED_SELECT: Formula = Formula {
    inputs: &["self", "mask"],
    saves: &["mask"],
    args: &[],
    backward: masked_select,
};

fn masked_select(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let mask = ev.saved_input(b, "mask")?;
    let mask_shape = mask
        .as_tensor()
        .map(|t| t.shape().to_vec())
        .unwrap_or_default();
    let shape = crate::core::tensor::layout::broadcast_shapes(&b.shape(0), &mask_shape)
        .map_err(crate::core::tensor::ScriptError::Runtime)?;
    let mask = m(ev, &mask, "expand", vec![shape_value(&shape)])?;
    let zeros = m(ev, &b.g(), "new_zeros", vec![shape_value(&shape)])?;
    let Value::Tensor(z) = &zeros else {
        return Err(unsupported(b.node));
    };
    let target = z.borrow().tensor.clone();
    ev.set_item(&target, &mask, b.grad)?;
    out[0] = Some(ev.sum_to(zeros, &b.shape(0))?);
    Ok(out)
}

/// `diagonal(offset, dim1, dim2)`: zeros with the gradient on the diagonal.
pub(crate) static DIAGONAL: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["offset", "dim1", "dim2"],
    backward: diagonal,
};

fn diagonal(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let mut out = b.none();
    if !b.needs(0) {
        return Ok(out);
    }
    let zeros = m(ev, &b.g(), "new_zeros", vec![shape_value(&b.shape(0))])?;
    let view = call_method(
        ev,
        &zeros,
        "diagonal",
        vec![],
        vec![
            ("offset", Value::Int(int_arg(b, "offset", 0))),
            ("dim1", Value::Int(int_arg(b, "dim1", 0))),
            ("dim2", Value::Int(int_arg(b, "dim2", 1))),
        ],
    )?;
    let before = ev.torch.grad_enabled;
    if before {
        return Err(unsupported(b.node));
    }
    m(ev, &view, "copy_", vec![b.g()])?;
    out[0] = Some(zeros);
    Ok(out)
}

/// `split`'s node: `SplitWithSizesBackward0` when the sizes are a list.
pub(crate) fn split_node(q: &crate::interp::torch::autograd::nodes::NodeQuery) -> String {
    let sizes = q
        .args
        .iter()
        .any(|(n, v)| *n == "split_size" && matches!(v, Value::List(_) | Value::Tuple(_)));
    if sizes {
        "SplitWithSizesBackward0".into()
    } else {
        "SplitBackward0".into()
    }
}
