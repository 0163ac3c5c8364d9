//! What an in-place write through a view does to autograd (PyTorch's "rebase history",
//! `torch/csrc/autograd/VariableTypeUtils.h`). A view remembers the tensor at the root of its
//! chain of views (its `_base`) and how it was made. Writing it in place while autograd
//! records:
//! - is refused for the outputs of a function that returns several views (`split`,
//!   `chunk`, `unbind`), for a view made under `no_grad` and for a view of a leaf that
//!   requires grad, with PyTorch's messages, before anything is written;
//! - otherwise records the op's node on the view, then moves it under a `CopySlices` node on
//!   the base (whose backward copies the base's gradient, runs the op's node on the view's
//!   slice of it and writes the result back), and gives the view an `AsStridedBackward0`
//!   node on the base: the base's gradient now flows through the write.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::core::tensor::{ScriptError, Tensor};
use crate::interp::torch::autograd::formulas::{Backward, Formula};
use crate::interp::torch::autograd::objects::FnRef;
use crate::interp::torch::autograd::{tracks_grad, GradNode, Operand, Saved};
use crate::interp::value::{TensorObject, TensorRef, Value};
use crate::interp::{Evaluator, R};

/// How a view was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewCreation {
    /// By a view op with autograd recording.
    Default,
    /// As output `index` of a function that returns several views (its node's op name,
    /// `Split`, `SplitWithSizes`, `Unbind`).
    MultiOutput { op: String, index: usize },
    /// Under `no_grad`, of a tensor that requires grad; `multi` for the outputs of a
    /// function returning several.
    NoGrad { multi: bool },
}

/// What a view was made from: see [`crate::interp::value::TensorObject::view_of`].
#[derive(Clone, Debug)]
pub struct ViewOf {
    /// The root of its chain of views, held weakly: a view does not keep its base object
    /// alive here (the storage they share lives anyway), and a write through a view whose
    /// base is gone is recorded on the view alone, its gradient the same.
    pub base: Weak<RefCell<TensorObject>>,
    /// How it was made.
    pub creation: ViewCreation,
}

impl ViewOf {
    /// The base, if it is still alive.
    pub(crate) fn base(&self) -> Option<TensorRef> {
        self.base.upgrade()
    }
}

/// The ops whose outputs are several views of their input.
const MULTI_OUTPUT: &[&str] = &["split", "split_with_sizes", "chunk", "unbind"];

/// The op name PyTorch's messages give a view's node (`SplitBackward0` -> `Split`).
fn op_of_node(name: &str) -> String {
    name.trim_end_matches(|c: char| c.is_ascii_digit())
        .trim_end_matches("Backward")
        .to_string()
}

impl Evaluator {
    /// After view op `op` made `out` from `input`: each output on the input's storage is
    /// marked a view of the input's base.
    pub(crate) fn note_views(&mut self, op: &str, input: Option<&Value>, out: &Value) {
        let Some(Value::Tensor(input)) = input else {
            return;
        };
        let Ok(source) = input.try_borrow() else {
            return;
        };
        let (base, inherited) = match source.view_of.as_ref().and_then(|v| Some((v.base()?, v))) {
            Some((base, v)) => (base, Some(v.creation.clone())),
            None => (Rc::clone(input), None),
        };
        let storage = source.tensor.storage;
        let base_tracks = tracks_grad(&source);
        drop(source);
        let multi = MULTI_OUTPUT.contains(&op);
        let mut outputs = Vec::new();
        crate::interp::torch::autograd::tensors_in(out, &mut outputs);
        for (index, t) in outputs.iter().enumerate() {
            if Rc::ptr_eq(t, input) {
                continue;
            }
            let Ok(mut object) = t.try_borrow_mut() else {
                continue;
            };
            if object.tensor.storage != storage || object.copied_from.is_some() {
                continue;
            }
            // (The script's `no_grad`, not the evaluator's own layers turning grad off while
            // they compute.)
            let made = if self.torch.autograd.script_no_grad && base_tracks {
                ViewCreation::NoGrad { multi }
            } else if multi {
                let op = object
                    .grad_fn
                    .as_ref()
                    .map_or_else(|| "Split".to_string(), |n| op_of_node(&n.name));
                ViewCreation::MultiOutput { op, index }
            } else {
                ViewCreation::Default
            };
            // A view of a view keeps the stricter of the two ways it was made.
            let creation = match (&inherited, made) {
                (Some(c @ ViewCreation::NoGrad { .. }), ViewCreation::Default) => c.clone(),
                (Some(ViewCreation::MultiOutput { .. }), ViewCreation::Default) => {
                    let op = object
                        .grad_fn
                        .as_ref()
                        .map_or_else(|| "Select".to_string(), |n| op_of_node(&n.name));
                    ViewCreation::MultiOutput { op, index }
                }
                (_, made) => made,
            };
            object.view_of = Some(ViewOf {
                base: Rc::downgrade(&base),
                creation,
            });
        }
    }

    /// Before an in-place write into `target` that autograd records (`requires_grad`: the
    /// write reads a tensor that requires grad, in grad mode): PyTorch's refusals of writes
    /// through views. `node` names the view a write through indexing makes (`Select`).
    pub(crate) fn check_in_place_view(
        &self,
        target: &Value,
        requires_grad: bool,
        node: Option<&str>,
    ) -> R<()> {
        let Value::Tensor(t) = target else {
            return Ok(());
        };
        if !self.torch.grad_enabled {
            return Ok(());
        }
        let Ok(object) = t.try_borrow() else {
            return Ok(());
        };
        let Some(view) = &object.view_of else {
            return Ok(());
        };
        let Some(base) = view.base() else {
            return Ok(());
        };
        // A view made under `no_grad` does not require grad itself; its base may.
        let base_tracks = base.try_borrow().is_ok_and(|b| tracks_grad(&b));
        if !requires_grad && !base_tracks {
            return Ok(());
        }
        const MULTI: &str = "This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one.";
        match &view.creation {
            ViewCreation::MultiOutput { op, index } => {
                let (op, index) = match node {
                    Some(n) => (n.to_string(), 0),
                    None => (op.clone(), *index),
                };
                Err(ScriptError::Runtime(format!(
                    "Output {index} of {op} is a view and is being modified inplace. {MULTI}"
                )))
            }
            ViewCreation::NoGrad { multi } => {
                let why = if *multi {
                    MULTI
                } else {
                    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
                };
                Err(ScriptError::Runtime(format!(
                    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. {why}"
                )))
            }
            ViewCreation::Default => {
                let base = base.try_borrow();
                if base.is_ok_and(|b| b.requires_grad && b.grad_fn.is_none()) {
                    return Err(ScriptError::Runtime(
                        "a view of a leaf Variable that requires grad is being used in an in-place operation.".into(),
                    ));
                }
                Ok(())
            }
        }
    }

    /// After an in-place write recorded its node on view `t`: moves that node under a
    /// `CopySlices` on the base and gives the view an `AsStridedBackward0` on the base.
    pub(crate) fn rebase_view(&mut self, t: &TensorRef) {
        let (base, written, view) = {
            let Ok(object) = t.try_borrow() else {
                return;
            };
            let (Some(view), Some(node)) = (&object.view_of, &object.grad_fn) else {
                return;
            };
            if view.creation != ViewCreation::Default {
                return;
            }
            let Some(base) = view.base() else {
                return;
            };
            (base, Rc::clone(node), object.tensor.clone())
        };
        let Ok(base_object) = base.try_borrow() else {
            return;
        };
        let base_tensor = base_object.tensor.clone();
        // What the base was before the write: an object with its node, for the gradient.
        let previous = base_object.grad_fn.clone().map(|node| {
            let before = Value::tensor(base_tensor.clone(), "inplace", None);
            if let Value::Tensor(b) = &before {
                b.borrow_mut().grad_fn = Some(node);
            }
            before
        });
        drop(base_object);
        let mut operands = vec![match &previous {
            Some(Value::Tensor(p)) => Operand {
                tracked: Some(Rc::clone(p)),
                saved: Saved::Missing,
                shape: base_tensor.shape().to_vec(),
                dtype: Some(base_tensor.dtype),
            },
            _ => Operand {
                tracked: None,
                saved: Saved::Missing,
                shape: base_tensor.shape().to_vec(),
                dtype: Some(base_tensor.dtype),
            },
        }];
        operands.extend(written.operands.iter().skip(1).cloned());
        let geometry = geometry_args(&view, &base_tensor);
        let mut args = geometry.clone();
        args.push(("fn".into(), Value::GradFn(FnRef::Node(Rc::clone(&written)))));
        let copy_slices = GradNode::shared(GradNode::built(
            "CopySlices",
            &COPY_SLICES,
            operands,
            args,
            base_tensor.dtype,
            base_tensor.shape().to_vec(),
            self.torch.autograd.next_seq(),
        ));
        if let Ok(mut b) = base.try_borrow_mut() {
            b.grad_fn = Some(Rc::clone(&copy_slices));
        }
        // The view's node leads to the base as it is now (a later write gives the base
        // another node; this one keeps leading here, as PyTorch's `next_functions` do).
        let base_now = Value::tensor(base_tensor.clone(), "inplace", None);
        let Value::Tensor(base_now) = base_now else {
            return;
        };
        base_now.borrow_mut().grad_fn = Some(copy_slices);
        let as_strided = GradNode::shared(GradNode::built(
            "AsStridedBackward0",
            &AS_STRIDED_VIEW,
            vec![Operand {
                tracked: Some(base_now),
                saved: Saved::Missing,
                shape: base_tensor.shape().to_vec(),
                dtype: Some(base_tensor.dtype),
            }],
            geometry,
            view.dtype,
            view.shape().to_vec(),
            self.torch.autograd.next_seq(),
        ));
        if let Ok(mut object) = t.try_borrow_mut() {
            object.grad_fn = Some(as_strided);
        }
    }
}

/// The view's place in its base: size, stride and storage offset from the base's.
fn geometry_args(view: &Tensor, base: &Tensor) -> Vec<(String, Value)> {
    let ints = |v: &[i64]| Value::Tuple(v.iter().map(|&i| Value::Int(i)).collect());
    vec![
        ("size".into(), ints(view.shape())),
        ("stride".into(), ints(view.strides())),
        (
            "storage_offset".into(),
            Value::Int(view.layout.offset - base.layout.offset),
        ),
    ]
}

/// The geometry a node kept.
fn geometry(b: &Backward) -> (Vec<i64>, Vec<i64>, i64) {
    let ints = |name: &str| b.int_list(name);
    let offset = match b.arg("storage_offset") {
        Some(Value::Int(i)) => *i,
        _ => 0,
    };
    (ints("size"), ints("stride"), offset)
}

/// A zeroed tensor laid out as the base (its shape and strides), and the view's window of
/// it.
fn base_like(ev: &mut Evaluator, b: &Backward, base_strides: &[i64]) -> R<(Tensor, Tensor)> {
    let shape = b.shape(0);
    let dtype = b.node.out_dtype;
    let result = ev.empty_strided(&shape, base_strides, dtype, "CopySlices")?;
    let (size, stride, offset) = geometry(b);
    let window = ev.as_strided(&result, &size, &stride, Some(offset))?;
    Ok((result, window))
}

/// The base's strides (a dense layout of its shape when the base is gone).
fn base_strides(b: &Backward) -> Vec<i64> {
    let shape = b.shape(0);
    b.node
        .operands
        .first()
        .and_then(|o| o.tracked.as_ref())
        .and_then(|t| t.try_borrow().ok().map(|t| t.tensor.strides().to_vec()))
        .filter(|s| s.len() == shape.len())
        .unwrap_or_else(|| crate::core::tensor::layout::contiguous_strides(&shape))
}

/// `CopySlices`: the base's gradient copied, the view's slice of it given (cloned) to the
/// write's node, whose gradient for what the view held is written back into the slice.
static COPY_SLICES: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["size", "stride", "storage_offset", "fn"],
    backward: copy_slices,
};

fn copy_slices(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let Some(Value::GradFn(FnRef::Node(written))) = b.arg("fn").cloned() else {
        return Err(ScriptError::Runtime("CopySlices lost its node".into()));
    };
    let Some(formula) = written.formula else {
        return Err(crate::interp::torch::autograd::backward::unsupported(
            &written,
        ));
    };
    let strides = base_strides(b);
    let (result, window) = base_like(ev, b, &strides)?;
    let Some(g) = b.grad.as_tensor() else {
        return Err(ScriptError::Runtime("CopySlices got no gradient".into()));
    };
    ev.copy_into(&result, &g, false)?;
    let slice = Value::tensor(window.clone(), "as_strided", None);
    let slice_grad = ev.method(slice, "clone", vec![])?;
    let inner = (formula.backward)(
        ev,
        &Backward {
            node: &written,
            grad: &slice_grad,
        },
    )?;
    let mut out = b.none();
    let mut inner = inner.into_iter();
    match inner.next().flatten() {
        Some(Value::Tensor(v)) => {
            let v = v.borrow().tensor.clone();
            ev.copy_into(&window, &v, false)?;
        }
        _ => ev.fill(&window, crate::core::tensor::Scalar::Int(0))?,
    }
    out[0] = Some(Value::tensor(result, "CopySlices", None));
    for (slot, grad) in out.iter_mut().skip(1).zip(inner) {
        *slot = grad;
    }
    Ok(out)
}

/// `AsStridedBackward0` of a view rebased by a write: its gradient placed in a zeroed
/// tensor laid out as the base.
static AS_STRIDED_VIEW: Formula = Formula {
    inputs: &["self"],
    saves: &[],
    args: &["size", "stride", "storage_offset"],
    backward: as_strided_view,
};

fn as_strided_view(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let strides = base_strides(b);
    let (result, window) = base_like(ev, b, &strides)?;
    let Some(g) = b.grad.as_tensor() else {
        return Err(ScriptError::Runtime(
            "AsStridedBackward0 got no gradient".into(),
        ));
    };
    ev.copy_into(&window, &g, false)?;
    Ok(vec![Some(Value::tensor(
        result,
        "AsStridedBackward0",
        None,
    ))])
}
