//! `torch.einsum(equation, *operands)`, parsed and checked as ATen's `einsum` does (its
//! error texts). One operand: diagonals and permutations are views, summed labels reduce.
//! Several operands: a new contiguous tensor computed on the host.

use crate::core::tensor::layout::{contiguous_strides, numel_of};
use crate::core::tensor::{DType, ScriptError, Tensor};
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::registry::{Forms, OpCall, OpDef, Varargs};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[OpDef {
    names: &["einsum"],
    schemas: &["str equation, Tensor[] tensors, *, int[]? path=None"],
    forms: Forms::Function,
    rule: einsum,
    grad: Grad::node("ViewBackward0"),
    varargs: Varargs::Tensors,
    ..OpDef::PLAIN
}];

/// Labels `A-Z` are 0..26, `a-z` 26..52 (ATen's order); ellipsis dims come after.
const ELLIPSIS_BASE: usize = 52;

#[derive(Clone, Copy, PartialEq)]
enum Sub {
    Label(usize),
    Ellipsis,
}

fn label_index(c: u8) -> Option<usize> {
    match c {
        b'A'..=b'Z' => Some(usize::from(c - b'A')),
        b'a'..=b'z' => Some(usize::from(c - b'a') + 26),
        _ => None,
    }
}

fn label_char(index: usize) -> char {
    if index < 26 {
        char::from(b'A' + index as u8)
    } else {
        char::from(b'a' + (index - 26) as u8)
    }
}

fn err(msg: String) -> ScriptError {
    ScriptError::Runtime(msg)
}

fn invalid_at(i: usize) -> ScriptError {
    err(format!(
        "einsum(): invalid subscript given at index {i} in the equation string, subscripts must be in [a-zA-Z]"
    ))
}

/// Parses the left-hand side into each operand's subscripts.
fn parse_inputs(lhs: &[u8], num_ops: usize) -> R<Vec<Vec<Sub>>> {
    let mut ops: Vec<Vec<Sub>> = vec![Vec::new(); num_ops.max(1)];
    let mut current = 0;
    let mut ellipsis = false;
    let mut i = 0;
    while i < lhs.len() {
        match lhs[i] {
            b' ' => {}
            b'.' => {
                if ellipsis {
                    return Err(err(format!(
                        "einsum(): found '.' for operand {current} for which an ellipsis was already found"
                    )));
                }
                if !(i + 2 < lhs.len() + 1
                    && lhs.get(i + 1) == Some(&b'.')
                    && lhs.get(i + 2) == Some(&b'.'))
                {
                    return Err(err(format!(
                        "einsum(): found '.' for operand {current} that is not part of any ellipsis"
                    )));
                }
                i += 2;
                ops[current].push(Sub::Ellipsis);
                ellipsis = true;
            }
            b',' => {
                current += 1;
                if current >= num_ops {
                    return Err(err(
                        "einsum(): fewer operands were provided than specified in the equation"
                            .into(),
                    ));
                }
                ellipsis = false;
            }
            c => ops[current].push(Sub::Label(label_index(c).ok_or_else(|| invalid_at(i))?)),
        }
        i += 1;
    }
    if current + 1 != num_ops {
        return Err(err(
            "einsum(): more operands were provided than specified in the equation".into(),
        ));
    }
    Ok(ops)
}

fn einsum(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let equation = match call.value("equation") {
        Some(Value::Str(s)) => s.clone(),
        _ => String::new(),
    };
    let operands: Vec<Tensor> = call
        .tensors("tensors")
        .iter()
        .map(|t| t.borrow().tensor.clone())
        .collect();
    if operands.is_empty() {
        return Err(ScriptError::Value(
            "einsum(): must specify the equation string and at least one operand, or at least one operand and its subscripts list".into(),
        ));
    }
    let bytes = equation.as_bytes();
    let arrow = equation.find("->");
    let lhs = &bytes[..arrow.unwrap_or(bytes.len())];
    let subs = parse_inputs(lhs, operands.len())?;

    // Counts, and the dims each operand's ellipsis covers.
    let mut count = [0usize; ELLIPSIS_BASE];
    let mut ell_dims = 0usize;
    for (i, (labels, t)) in subs.iter().zip(&operands).enumerate() {
        let has_ellipsis = labels.contains(&Sub::Ellipsis);
        let n = labels.iter().filter(|s| **s != Sub::Ellipsis).count();
        for s in labels {
            if let Sub::Label(l) = s {
                count[*l] += 1;
            }
        }
        let ok = if has_ellipsis {
            n <= t.ndim()
        } else {
            n == t.ndim()
        };
        if !ok {
            return Err(err(format!(
                "einsum(): the number of subscripts in the equation ({n}) {} the number of dimensions ({}) for operand {i}{}",
                if has_ellipsis { "is more than" } else { "does not match" },
                t.ndim(),
                if has_ellipsis { "" } else { " and no ellipsis was given" }
            )));
        }
        if has_ellipsis {
            ell_dims = ell_dims.max(t.ndim() - n);
        }
    }
    // Each operand's dims as label ids (ellipsis dims right-aligned).
    let dims_of: Vec<Vec<usize>> = subs
        .iter()
        .zip(&operands)
        .map(|(labels, t)| {
            let n = labels.iter().filter(|s| **s != Sub::Ellipsis).count();
            let e = t.ndim().saturating_sub(n);
            labels
                .iter()
                .flat_map(|s| match s {
                    Sub::Label(l) => vec![*l],
                    Sub::Ellipsis => (ell_dims - e..ell_dims)
                        .map(|k| ELLIPSIS_BASE + k)
                        .collect(),
                })
                .collect()
        })
        .collect();

    let ellipsis_labels: Vec<usize> = (0..ell_dims).map(|k| ELLIPSIS_BASE + k).collect();
    let output: Vec<usize> = match arrow {
        None => {
            let mut out = ellipsis_labels.clone();
            out.extend((0..ELLIPSIS_BASE).filter(|&l| count[l] == 1));
            out
        }
        Some(pos) => {
            let rhs = &bytes[pos + 2..];
            let mut out = Vec::new();
            let mut seen_ellipsis = false;
            let mut i = 0;
            while i < rhs.len() {
                match rhs[i] {
                    b' ' => {}
                    b'.' => {
                        if seen_ellipsis {
                            return Err(err("einsum(): found '.' for output but an ellipsis (...) was already found".into()));
                        }
                        if !(rhs.get(i + 1) == Some(&b'.') && rhs.get(i + 2) == Some(&b'.')) {
                            return Err(err("einsum(): found '.' for output that is not part of any ellipsis (...)".into()));
                        }
                        i += 2;
                        seen_ellipsis = true;
                        out.extend(&ellipsis_labels);
                    }
                    c => {
                        let l = label_index(c).ok_or_else(|| invalid_at(lhs.len() + 2 + i))?;
                        let again = out.contains(&l);
                        if count[l] == 0 || again {
                            return Err(err(format!(
                                "einsum(): output subscript {} {}",
                                char::from(c),
                                if again {
                                    "appears more than once in the output"
                                } else {
                                    "does not appear in the equation for any input operand"
                                }
                            )));
                        }
                        out.push(l);
                    }
                }
                i += 1;
            }
            out
        }
    };

    // Sizes, broadcasting size-1 dims.
    let mut size = vec![1i64; ELLIPSIS_BASE + ell_dims];
    let mut seen = vec![false; ELLIPSIS_BASE + ell_dims];
    for (i, (dims, t)) in dims_of.iter().zip(&operands).enumerate() {
        for (&l, &n) in dims.iter().zip(t.shape()) {
            if !seen[l] || size[l] == 1 {
                size[l] = n;
                seen[l] = true;
            } else if n != 1 && n != size[l] {
                let name = if l < ELLIPSIS_BASE {
                    format!("subscript {}", label_char(l))
                } else {
                    "dimension covered by ellipsis".to_string()
                };
                return Err(err(format!(
                    "einsum(): {name} has size {n} for operand {i} which does not broadcast with previously seen size {}",
                    size[l]
                )));
            }
        }
    }
    if operands.len() == 1 {
        return single(ev, &operands[0], &dims_of[0], &output);
    }
    several(ev, &operands, &dims_of, &output, &size)
}

/// One operand: diagonals of repeated labels, sums over the labels not in the output, then
/// the output's order (views where nothing is summed).
fn single(ev: &mut Evaluator, t: &Tensor, dims: &[usize], output: &[usize]) -> R<Value> {
    let mut t = t.clone();
    let mut labels = dims.to_vec();
    while let Some((p, q)) = (0..labels.len())
        .flat_map(|p| (p + 1..labels.len()).map(move |q| (p, q)))
        .find(|&(p, q)| labels[p] == labels[q])
    {
        t = ev.diagonal(&t, 0, p as i64, q as i64)?;
        let l = labels[p];
        labels.remove(q);
        labels.remove(p);
        labels.push(l);
    }
    let mut order: Vec<i64> = output
        .iter()
        .filter_map(|l| labels.iter().position(|x| x == l).map(|p| p as i64))
        .collect();
    let summed: Vec<i64> = (0..labels.len() as i64)
        .filter(|p| !order.contains(p))
        .collect();
    let kept = order.len() as i64;
    order.extend(&summed);
    let permuted = ev.permute(&t, &order)?;
    if summed.is_empty() {
        return Ok(Value::tensor(permuted, "einsum", None));
    }
    let sum_dims: Vec<i64> = (kept..order.len() as i64).collect();
    let out = ev.reduce(
        crate::engines::ReduceOp::Sum,
        &permuted,
        Some(&sum_dims),
        false,
        None,
    )?;
    Ok(Value::tensor(out, "einsum", None))
}

/// Several operands: products summed over the labels not in the output, into a new
/// contiguous tensor.
fn several(
    ev: &mut Evaluator,
    operands: &[Tensor],
    dims_of: &[Vec<usize>],
    output: &[usize],
    size: &[i64],
) -> R<Value> {
    let first = operands[0].dtype;
    let contracted: Vec<usize> = (0..size.len())
        .filter(|l| !output.contains(l) && dims_of.iter().any(|d| d.contains(l)))
        .collect();
    let mut dtype = first;
    for t in &operands[1..] {
        if t.dtype != first {
            if !contracted.is_empty() {
                return Err(err(format!(
                    "expected scalar type {} but found {}",
                    first.scalar_type_name(),
                    t.dtype.scalar_type_name()
                )));
            }
            dtype = DType::promote(dtype, t.dtype);
        }
    }
    let out_shape: Vec<i64> = output.iter().map(|&l| size[l]).collect();
    let mut all = output.to_vec();
    all.extend(&contracted);
    let sizes: Vec<i64> = all.iter().map(|&l| size[l]).collect();
    let total = numel_of(&sizes);
    ev.check_work(total, "einsum")?;
    let values: Vec<Vec<f64>> = operands
        .iter()
        .map(|t| ev.engine.values(t).iter().map(|v| v.to_f64()).collect())
        .collect();
    // Each operand's row-major stride per label (0 for broadcast size-1 dims).
    let strides: Vec<Vec<i64>> = operands
        .iter()
        .zip(dims_of)
        .map(|(t, dims)| {
            let row = contiguous_strides(t.shape());
            all.iter()
                .map(|l| {
                    dims.iter()
                        .zip(t.shape())
                        .zip(&row)
                        .filter(|((d, &n), _)| *d == l && n != 1)
                        .map(|(_, &s)| s)
                        .sum()
                })
                .collect()
        })
        .collect();
    let out_count = numel_of(&out_shape).max(0) as usize;
    let inner = numel_of(&sizes[output.len()..]).max(0) as usize;
    let mut out = vec![0.0f64; out_count];
    let mut index = vec![0i64; all.len()];
    if total > 0 {
        for slot in out.iter_mut() {
            let mut acc = 0.0;
            for _ in 0..inner {
                let mut product = 1.0;
                for (vals, st) in values.iter().zip(&strides) {
                    let at: i64 = index.iter().zip(st).map(|(i, s)| i * s).sum();
                    product *= vals.get(at as usize).copied().unwrap_or(0.0);
                }
                acc += product;
                for d in (0..all.len()).rev() {
                    index[d] += 1;
                    if index[d] < sizes[d] {
                        break;
                    }
                    index[d] = 0;
                }
            }
            *slot = acc;
        }
    }
    crate::interp::torch::ops::linalg::from_floats(ev, &out_shape, dtype, &out, "einsum")
}
