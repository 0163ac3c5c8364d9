//! Autograd nodes as a script inspects them: `y.grad_fn` is an object
//! (`<MulBackward0 object at 0x...>`) with `name()`, `next_functions` (the nodes its
//! gradients flow to: the inputs' nodes, a leaf's `AccumulateGrad` whose `variable` is the
//! leaf, or `None` for an input that needs no gradient) and the values it saved for backward
//! under PyTorch's slot names (`_saved_self`, `_saved_result`, `_saved_dim`, recorded from
//! torch 2.15), which raise once a `backward()` freed them.

use std::collections::BTreeSet;
use std::rc::Rc;

use crate::core::tensor::{DType, Scalar, ScriptError, StorageId};
use crate::interp::torch::autograd::{GradNode, Saved, SavedObject};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The error of reading what a `backward()` freed.
pub(crate) const FREED: &str = "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.";

/// A node object: a recorded node, or the `AccumulateGrad` of a leaf.
#[derive(Clone, Debug)]
pub enum FnRef {
    /// The node that made a non-leaf tensor.
    Node(Rc<GradNode>),
    /// The node that accumulates into a leaf's `.grad`.
    Accumulate(TensorRef),
}

impl FnRef {
    /// The node's class (`MulBackward0`, `AccumulateGrad`).
    pub fn class_name(&self) -> String {
        match self {
            FnRef::Node(node) => node.name.to_string(),
            FnRef::Accumulate(_) => "AccumulateGrad".into(),
        }
    }

    /// `<MulBackward0 object at 0x7f...>`: the address is stable for one node.
    pub fn repr(&self) -> String {
        let ptr = match self {
            FnRef::Node(node) => Rc::as_ptr(node) as *const () as usize as u64,
            FnRef::Accumulate(t) => Rc::as_ptr(t) as *const () as usize as u64 ^ 0x8_0000,
        };
        // A custom function's node is a Python class of `torch.autograd.function`.
        let module = match self {
            FnRef::Node(node) if node.custom.is_some() => "torch.autograd.function.",
            _ => "",
        };
        format!(
            "<{module}{} object at 0x{:x}>",
            self.class_name(),
            0x7f1c_0000_0000_u64 + (ptr & 0xff_fff0)
        )
    }

    /// Whether two node objects are the same node (`is`).
    pub fn same(&self, other: &FnRef) -> bool {
        match (self, other) {
            (FnRef::Node(a), FnRef::Node(b)) => {
                // A custom function's `ctx` is the node of its outputs.
                Rc::ptr_eq(a, b)
                    || matches!((&a.custom, &b.custom), (Some(x), Some(y)) if Rc::ptr_eq(x, y))
            }
            (FnRef::Accumulate(a), FnRef::Accumulate(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The storages the node keeps alive (see [`crate::interp::runtime::memory::reach`]).
    pub(crate) fn storages(&self, live: &mut BTreeSet<StorageId>, seen: &mut BTreeSet<usize>) {
        match self {
            FnRef::Node(node) => crate::interp::torch::autograd::graph_storages(node, live, seen),
            FnRef::Accumulate(t) => {
                if let Ok(t) = t.try_borrow() {
                    live.insert(t.tensor.storage);
                }
            }
        }
    }
}

/// The node object a gradient for `t` flows to: its `grad_fn`, or its `AccumulateGrad`
/// when it is a leaf that requires grad.
pub(crate) fn fn_of(t: &TensorRef) -> Value {
    let Ok(object) = t.try_borrow() else {
        return Value::None;
    };
    match &object.grad_fn {
        Some(node) => Value::GradFn(FnRef::Node(Rc::clone(node))),
        None if object.requires_grad => Value::GradFn(FnRef::Accumulate(Rc::clone(t))),
        None => Value::None,
    }
}

/// What a node saved under one slot name.
enum Slot {
    /// Operand `i` (a tensor or a wrapped number).
    Operand(usize),
    /// The node's output.
    Result,
    /// A value as is (`_saved_dim`, `_saved_alpha`), or `None` where not saved.
    Plain(Value),
    /// One of the node's extras ([`GradNode::extras`]).
    Extra(usize),
}

fn ints(v: &[i64]) -> Value {
    Value::Tuple(v.iter().map(|&n| Value::Int(n)).collect())
}

impl Evaluator {
    /// `node.name` for a node object.
    pub(crate) fn grad_fn_attribute(&mut self, f: &FnRef, name: &str) -> R<Value> {
        if let FnRef::Node(node) = f {
            if let Some(found) = self.ctx_attribute(node, name) {
                return found;
            }
        }
        let method = || {
            Ok(Value::Method(
                Box::new(Value::GradFn(f.clone())),
                name.into(),
            ))
        };
        match name {
            "name" | "register_hook" | "register_prehook" => return method(),
            "next_functions" => return Ok(next_functions(f)),
            "metadata" => return Ok(Value::Dict(vec![])),
            "requires_grad" => return Ok(Value::Bool(true)),
            "__class__" => return Ok(Value::Printed(format!("<class '{}'>", f.class_name()))),
            _ => {}
        }
        let missing = || {
            ScriptError::Attribute(format!(
                "'{}' object has no attribute '{name}'",
                f.class_name()
            ))
        };
        match f {
            FnRef::Accumulate(t) if name == "variable" => Ok(Value::Tensor(Rc::clone(t))),
            FnRef::Accumulate(_) => Err(missing()),
            FnRef::Node(node) => {
                let Some(slot) = name.strip_prefix("_saved_") else {
                    return Err(missing());
                };
                let mut slots = saved_slots(node);
                let extras = node.extras.get().map_or(&[][..], |e| &e[..]);
                slots.extend(
                    extras
                        .iter()
                        .enumerate()
                        .map(|(i, (name, _))| (*name, Slot::Extra(i))),
                );
                let Some((_, found)) = slots.into_iter().find(|(s, _)| *s == slot) else {
                    return Err(missing());
                };
                self.unpack_slot(node, found)
            }
        }
    }

    /// A node object's method: `name()`.
    pub(crate) fn call_grad_fn(&mut self, f: &FnRef, name: &str, pos: &[Value]) -> R<Value> {
        if let FnRef::Node(node) = f {
            if let Some(result) = self.call_ctx_method(node, name, pos) {
                return result;
            }
        }
        match name {
            "name" if pos.is_empty() => Ok(Value::Str(match f {
                // The nodes defined in C++ by hand (not generated) carry their namespace.
                FnRef::Node(node) if matches!(&*node.name, "CopyBackwards" | "CopySlices") => {
                    format!("torch::autograd::{}", node.name)
                }
                FnRef::Node(node) => node.name.to_string(),
                FnRef::Accumulate(_) => "torch::autograd::AccumulateGrad".into(),
            })),
            "name" => Err(ScriptError::Type(format!(
                "name() takes no arguments ({} given)",
                pos.len()
            ))),
            _ => Err(ScriptError::NotImplemented(format!(
                "{}.{name}() is not supported by Stridescope",
                f.class_name()
            ))),
        }
    }

    fn unpack_slot(&mut self, node: &GradNode, slot: Slot) -> R<Value> {
        let saved = match slot {
            Slot::Plain(v) => return Ok(v),
            Slot::Result => &node.result,
            Slot::Extra(i) => match node.extras.get().and_then(|e| e.get(i)) {
                Some((_, saved)) => saved,
                None => return Ok(Value::None),
            },
            Slot::Operand(i) => match node.operands.get(i) {
                Some(op) => &op.saved,
                None => return Ok(Value::None),
            },
        };
        if !matches!(saved, Saved::Missing) && node.freed.get() {
            return Err(ScriptError::Runtime(FREED.into()));
        }
        if let Saved::Tensor(s) = saved {
            if let Some(unpacked) = self.unpack_saved(None, s) {
                return unpacked;
            }
        }
        match saved {
            Saved::Tensor(s) => Ok(match &s.object {
                SavedObject::Input(t) => Value::Tensor(Rc::clone(t)),
                SavedObject::Packed(p) => p.object().map_or(Value::None, Value::Tensor),
                SavedObject::Output(w) => match w.upgrade() {
                    Some(t) => {
                        // PyTorch unpacks a saved output as a new tensor object on the same
                        // storage, with the node as its `grad_fn`.
                        let object = t.borrow();
                        let copy = Value::tensor(object.tensor.clone(), "saved", None);
                        if let Value::Tensor(c) = &copy {
                            c.borrow_mut().grad_fn = object.grad_fn.clone();
                        }
                        copy
                    }
                    None => Value::tensor(s.tensor.clone(), "saved", None),
                },
            }),
            Saved::Number(x) => {
                let dtype = match slot_dtype(node, saved) {
                    Some(d) => d,
                    None => DType::Float64,
                };
                let value = dtype.round(Scalar::Float(*x));
                let t = self.full(&[], value, dtype, "saved")?;
                Ok(Value::tensor(t, "saved", None))
            }
            Saved::Missing => Ok(Value::None),
        }
    }
}

/// The dtype a node's saved number is wrapped in (`tensor(3)`, `tensor(3.5000, dtype=torch.float64)`).
fn slot_dtype(node: &GradNode, saved: &Saved) -> Option<DType> {
    node.operands
        .iter()
        .find(|o| std::ptr::eq(&o.saved, saved))
        .and_then(|o| o.dtype)
}

/// `node.next_functions`: `(node, 0)` per tensor operand, `None` for those that need no
/// gradient; a leaf's `AccumulateGrad` has none.
fn next_functions(f: &FnRef) -> Value {
    let FnRef::Node(node) = f else {
        return Value::Tuple(vec![]);
    };
    let pairs = node
        .operands
        .iter()
        .filter(|o| o.dtype.is_some() || o.tracked.is_some())
        .map(|o| {
            let next = o.tracked.as_ref().map_or(Value::None, fn_of);
            let nr = o
                .tracked
                .as_ref()
                .map_or(0, super::custom_function::output_nr);
            Value::Tuple(vec![next, Value::Int(nr as i64)])
        })
        .collect();
    Value::Tuple(pairs)
}

/// The slots a node shows as `_saved_*`, by PyTorch's names (as `dir(grad_fn)` lists them
/// in torch 2.15); a slot a formula only needs for a gradient not asked for holds `None`.
fn saved_slots(node: &GradNode) -> Vec<(&'static str, Slot)> {
    let needs = |i: usize| node.operands.get(i).is_some_and(|o| o.tracked.is_some());
    let shape = |i: usize| node.operands.get(i).map_or(vec![], |o| o.shape.clone());
    let arg = |name: &str| {
        node.args
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let when = |c: bool, slot: Slot| if c { slot } else { Slot::Plain(Value::None) };
    let alpha = || ("alpha", Slot::Plain(arg("alpha").unwrap_or(Value::Int(1))));
    let dims = || match arg("dim") {
        Some(Value::Int(d)) => ints(&[d]),
        Some(Value::List(v)) => Value::Tuple(v),
        Some(v) => v,
        None => Value::None,
    };
    let keepdim = || arg("keepdim").unwrap_or(Value::Bool(false));
    let sizes = |i: usize| Slot::Plain(ints(&shape(i)));
    // A number operand a slot shows as a Python number (`_saved_exponent`: `2`).
    let number = |i: usize| {
        Slot::Plain(match node.operands.get(i) {
            Some(o) => match (&o.saved, o.dtype) {
                (Saved::Number(x), Some(DType::Float64)) => Value::Float(*x),
                (Saved::Number(x), _) => Value::Int(*x as i64),
                _ => Value::None,
            },
            None => Value::None,
        })
    };
    let numel = |i: usize| Slot::Plain(Value::Int(shape(i).iter().product()));
    match &*node.name {
        // Reductions that select: the indices they picked are kept (an extra), with these.
        "MaxBackward0" | "MinBackward0" | "MedianBackward1" | "NanmedianBackward1"
        | "KthvalueBackward0" => vec![
            ("dim", Slot::Plain(arg("dim").unwrap_or(Value::Int(-1)))),
            ("keepdim", Slot::Plain(keepdim())),
            ("self_sym_sizes", sizes(0)),
        ],
        "SortBackward0" | "TopkBackward0" => vec![
            ("dim", Slot::Plain(arg("dim").unwrap_or(Value::Int(-1)))),
            ("self_sym_sizes", sizes(0)),
        ],
        // The condition, whichever operand it was bound to.
        "WhereBackward0" => {
            let first = node
                .operands
                .first()
                .is_some_and(|o| o.dtype == Some(DType::Bool));
            vec![("condition", Slot::Operand(usize::from(!first)))]
        }
        "MulBackward0" => vec![
            ("other", when(needs(0), Slot::Operand(1))),
            ("self", when(needs(1), Slot::Operand(0))),
        ],
        // `mul(Tensor, Scalar)` from C++ keeps the number, not a tensor.
        "MulBackward1" => vec![("other", number(1)), ("self", Slot::Plain(Value::None))],
        "ScaledDotProductFlashAttentionForCpuBackward0" => generic_slots(node)
            .into_iter()
            .map(|(name, slot)| (if name == "result" { "output" } else { name }, slot))
            .collect(),
        "DivBackward0" => vec![
            ("other", Slot::Operand(1)),
            ("self", when(needs(1), Slot::Operand(0))),
        ],
        "AddBackward0" | "SubBackward0" | "RsubBackward1" => vec![alpha()],
        // Scalar bounds are kept as Python numbers, not as wrapped-number tensors.
        "ClampBackward1" => vec![
            ("max", Slot::Plain(arg("max").unwrap_or(Value::None))),
            ("min", Slot::Plain(arg("min").unwrap_or(Value::None))),
            ("self", Slot::Operand(0)),
        ],
        "ClampMinBackward0" => vec![
            ("min", Slot::Plain(arg("min").unwrap_or(Value::None))),
            ("self", Slot::Operand(0)),
        ],
        "ClampMaxBackward0" => vec![
            ("max", Slot::Plain(arg("max").unwrap_or(Value::None))),
            ("self", Slot::Operand(0)),
        ],
        // `x.square()` has no exponent operand: it is 2.
        "PowBackward0" if node.operands.len() == 1 => vec![
            ("exponent", Slot::Plain(Value::Int(2))),
            ("self", Slot::Operand(0)),
        ],
        "PowBackward0" => vec![("exponent", number(1)), ("self", Slot::Operand(0))],
        "PowBackward1" => vec![
            ("exponent", Slot::Operand(1)),
            ("result", Slot::Result),
            ("self", Slot::Operand(0)),
        ],
        "PowBackward2" => vec![
            ("exponent", Slot::Operand(1)),
            ("result", Slot::Result),
            ("self", number(0)),
        ],
        "SumBackward0" | "ViewBackward0" | "UnsafeViewBackward0" => {
            vec![("self_sym_sizes", sizes(0))]
        }
        "SumBackward1" => vec![
            ("dim", Slot::Plain(dims())),
            ("keepdim", Slot::Plain(keepdim())),
            ("self_sym_sizes", sizes(0)),
        ],
        "MeanBackward0" => vec![("self_sym_numel", numel(0)), ("self_sym_sizes", sizes(0))],
        "MeanBackward1" => vec![
            ("dim", Slot::Plain(dims())),
            ("keepdim", Slot::Plain(keepdim())),
            ("self_sym_numel", numel(0)),
            ("self_sym_sizes", sizes(0)),
        ],
        "MmBackward0" => vec![
            ("mat2", when(needs(0), Slot::Operand(1))),
            ("mat2_sym_sizes", sizes(1)),
            ("self", when(needs(1), Slot::Operand(0))),
            ("self_sym_sizes", sizes(0)),
        ],
        "AddmmBackward0" => vec![
            ("alpha", Slot::Plain(arg("alpha").unwrap_or(Value::Int(1)))),
            ("beta", Slot::Plain(arg("beta").unwrap_or(Value::Int(1)))),
            ("mat1", when(needs(2), Slot::Operand(1))),
            ("mat1_sym_sizes", sizes(1)),
            ("mat1_sym_strides", Slot::Plain(Value::None)),
            ("mat2", when(needs(1), Slot::Operand(2))),
            ("mat2_sym_sizes", sizes(2)),
            ("mat2_sym_strides", Slot::Plain(Value::None)),
        ],
        "BaddbmmBackward0" => vec![
            ("alpha", Slot::Plain(arg("alpha").unwrap_or(Value::Int(1)))),
            ("batch1", when(needs(2), Slot::Operand(1))),
            ("batch2", when(needs(1), Slot::Operand(2))),
            ("beta", Slot::Plain(arg("beta").unwrap_or(Value::Int(1)))),
        ],
        "BmmBackward0" => vec![
            ("mat2", when(needs(0), Slot::Operand(1))),
            ("self", when(needs(1), Slot::Operand(0))),
        ],
        "MvBackward0" => vec![
            ("self", when(needs(1), Slot::Operand(0))),
            ("vec", when(needs(0), Slot::Operand(1))),
        ],
        "DotBackward0" => vec![
            ("self", when(needs(1), Slot::Operand(0))),
            ("tensor", when(needs(0), Slot::Operand(1))),
        ],
        "SelectBackward0" | "SliceBackward0" => index_slots(node).unwrap_or_default(),
        // `F.glu`'s and the shrinks' defaults, passed by the Python function.
        "GluBackward0" => vec![
            (
                "dim",
                Slot::Plain(match arg("dim") {
                    Some(Value::Int(d)) => sym_int(d),
                    Some(v) => v,
                    None => sym_int(-1),
                }),
            ),
            ("self", Slot::Operand(0)),
        ],
        "HardshrinkBackward0" | "SoftshrinkBackward0" => vec![
            (
                "lambd",
                Slot::Plain(arg("lambd").unwrap_or(Value::Float(0.5))),
            ),
            ("self", Slot::Operand(0)),
        ],
        _ => {
            let mut slots = generic_slots(node);
            let formula = node.formula.map(|f| f as *const _);
            let is = |f: &'static super::Formula| formula == Some(f as *const _);
            if is(&super::formulas_index::PIECE) {
                // `split`/`chunk`/`unbind` keep sizes and the dim, no tensor (the pieces are
                // views; the formula here reads them only to place each piece).
                slots.retain(|(_, s)| matches!(s, Slot::Plain(_)));
            } else if is(&super::formulas_pointwise::POINTWISE) && !node.name.starts_with("Sgn") {
                // One formula for many ops: each keeps what its derivative reads.
                let keep = pointwise_slot(&node.name);
                slots.retain(|(name, s)| matches!(s, Slot::Plain(_)) || Some(*name) == keep);
            }
            slots
        }
    }
}

/// What a pointwise op of [`super::formulas_pointwise::POINTWISE`] saves (`derivatives.yaml`):
/// `exp`/`sqrt`/`rsqrt`/`tan`/`tanh`/`sigmoid` their result, `log`/`log2`/`log10`/`sin`/`cos`
/// their input, the step functions (`floor`, `sign`, ...) nothing (`sgn` keeps both).
fn pointwise_slot(node: &str) -> Option<&'static str> {
    let op = node
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .trim_end_matches("Backward");
    match op {
        "Exp" | "Sqrt" | "Rsqrt" | "Tan" | "Tanh" | "Sigmoid" => Some("result"),
        "Log" | "Log2" | "Log10" | "Sin" | "Cos" => Some("self"),
        _ => None,
    }
}

/// The tensors (and wrapped numbers) `node` saved for backward, by PyTorch's slot names:
/// what `_saved_<slot>` unpacks, as memory accounting counts it.
pub(crate) fn saved_tensors(
    node: &GradNode,
) -> Vec<(
    &'static str,
    crate::interp::runtime::accounting::SavedSlotRef<'_>,
)> {
    use crate::interp::runtime::accounting::SavedSlotRef;
    let mut out = Vec::new();
    for (name, slot) in saved_slots(node) {
        let saved = match slot {
            Slot::Result => &node.result,
            Slot::Operand(i) => match node.operands.get(i) {
                Some(op) => &op.saved,
                None => continue,
            },
            Slot::Plain(_) | Slot::Extra(_) => continue,
        };
        match saved {
            Saved::Tensor(s) if held_by_hook(s) => {}
            Saved::Tensor(s) => out.push((name, SavedSlotRef::Tensor(s))),
            Saved::Number(_) => {
                let dtype = slot_dtype(node, saved).unwrap_or(DType::Float64);
                out.push((name, SavedSlotRef::Number(dtype)));
            }
            Saved::Missing => {}
        }
    }
    for (name, saved) in node.extras.get().into_iter().flatten() {
        if let Saved::Tensor(s) = saved {
            if !held_by_hook(s) {
                out.push((*name, SavedSlotRef::Tensor(s)));
            }
        }
    }
    out
}

/// Whether a pack hook replaced the saved tensor by something that holds no tensor (the
/// non-reentrant checkpoint's holder): the node keeps no tensor there, and the oracle's walk
/// lists none.
fn held_by_hook(s: &crate::interp::torch::autograd::SavedTensor) -> bool {
    let SavedObject::Packed(p) = &s.object else {
        return false;
    };
    let packed = p.value.borrow();
    let mut pending: Vec<&Value> = match packed.as_ref() {
        Some(v) => vec![v],
        None => return false,
    };
    while let Some(v) = pending.pop() {
        match v {
            Value::Tensor(_) => return false,
            Value::Tuple(items) | Value::List(items) => pending.extend(items.iter()),
            _ => {}
        }
    }
    true
}

/// An index as PyTorch's `SymInt` slots show it: a negative one as its unsigned 64-bit
/// wrap (`-1` shows as `18446744073709551615`).
fn sym_int(v: i64) -> Value {
    if v >= 0 {
        Value::Int(v)
    } else {
        Value::Printed((v as u64).to_string())
    }
}

/// The length of `start:stop:step` over a dimension of `n`.
fn slice_len(n: i64, start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> i64 {
    let step = step.unwrap_or(1);
    if step <= 0 {
        return n;
    }
    let norm = |v: i64| if v < 0 { (v + n).max(0) } else { v.min(n) };
    let a = start.map_or(0, norm);
    let b = stop.map_or(n, norm);
    if b <= a {
        0
    } else {
        (b - a + step - 1) / step
    }
}

/// `x[i]` (`SelectBackward0`) and `x[a:b:c]` (`SliceBackward0`): the last indexing step's
/// dimension, index or bounds, and the size of what it indexed.
fn index_slots(node: &GradNode) -> Option<Vec<(&'static str, Slot)>> {
    let index = node
        .args
        .iter()
        .find(|(k, _)| k == "index")
        .map(|(_, v)| v)?;
    let items: Vec<&Value> = match index {
        Value::Tuple(items) => items.iter().collect(),
        other => vec![other],
    };
    let mut shape = node.operands.first()?.shape.clone();
    let mut dim = 0usize;
    let last = items.len().checked_sub(1)?;
    for (i, item) in items.into_iter().enumerate() {
        match item {
            Value::Int(v) if i == last => {
                return Some(vec![
                    ("dim", Slot::Plain(Value::Int(dim as i64))),
                    ("index", Slot::Plain(sym_int(*v))),
                    ("self_sym_sizes", Slot::Plain(ints(&shape))),
                ]);
            }
            Value::Int(_) if dim < shape.len() => {
                shape.remove(dim);
            }
            Value::Slice(a, b, c) if i == last => {
                return Some(vec![
                    ("dim", Slot::Plain(Value::Int(dim as i64))),
                    ("end", Slot::Plain(b.map_or(Value::Int(i64::MAX), sym_int))),
                    ("self_sym_sizes", Slot::Plain(ints(&shape))),
                    ("start", Slot::Plain(sym_int(a.unwrap_or(0)))),
                    ("step", Slot::Plain(Value::Int(c.unwrap_or(1)))),
                ]);
            }
            Value::Slice(a, b, c) if dim < shape.len() => {
                shape[dim] = slice_len(shape[dim], *a, *b, *c);
                dim += 1;
            }
            Value::None => {
                shape.insert(dim.min(shape.len()), 1);
                dim += 1;
            }
            _ => return None,
        }
    }
    None
}

/// The slots of a node not listed above: what its formula saves, and the arguments it keeps.
fn generic_slots(node: &GradNode) -> Vec<(&'static str, Slot)> {
    let Some(formula) = node.formula else {
        return vec![];
    };
    let mut out = Vec::new();
    for slot in formula.saves {
        if *slot == "result" {
            out.push(("result", Slot::Result));
        } else if let Some(i) = formula.inputs.iter().position(|s| s == slot) {
            out.push((*slot, Slot::Operand(i)));
        }
    }
    for name in formula.args {
        if let Some((_, v)) = node.args.iter().find(|(k, _)| k == name) {
            out.push((*name, Slot::Plain(v.clone())));
        }
    }
    out
}
