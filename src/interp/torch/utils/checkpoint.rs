//! `torch.utils.checkpoint` (`torch/utils/checkpoint.py`): `checkpoint(function, *args,
//! use_reentrant=...)` and `checkpoint_sequential(functions, segments, input, ...)`.
//!
//! - Without `use_reentrant`, PyTorch warns (once per place, as Python's default filter
//!   shows a warning) and takes the reentrant variant.
//! - Reentrant (`CheckpointFunction.apply`): the function runs with grad mode off; its tensor
//!   output gets the node `CheckpointFunctionBackward`, which saves the tensor inputs (and
//!   the generator's state, `preserve_rng_state=True`). Its backward runs the forward again
//!   on detached inputs with grad mode on and the generator as it was (restored after), then
//!   `backward()` through that graph: parameters get their `.grad` there, and the inputs'
//!   gradients are what reached the detached inputs. The recomputed statements are sub-steps
//!   of the `backward()` that ran them.
//! - Non-reentrant: the function runs under saved-tensor hooks of its own frame (its
//!   output's node is its last op's, `TanhBackward0`); what its nodes save is recomputed at
//!   the first unpack ([`super::checkpoint_frame`]); its gradients are the plain graph's.
//!
//! `checkpoint_sequential` checkpoints `segments - 1` runs of the sequence and runs the last
//! plainly, as PyTorch does.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::core::tensor::random::CpuGenerator;
use crate::core::tensor::ScriptError;
use crate::interp::torch::autograd::backward::Run;
use crate::interp::torch::autograd::formulas::Backward;
use crate::interp::torch::autograd::{
    tracks_grad, Formula, GradNode, Operand, Saved, SavedObject, SavedTensor,
};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// The warning of `checkpoint` without `use_reentrant`.
const CHECKPOINT_WARNING: &str = "UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In a future release, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.";

/// The warning of `checkpoint_sequential` without `use_reentrant`.
const SEQUENTIAL_WARNING: &str = "UserWarning: torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In a future release, we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.";

/// `check_backward_validity`'s warning (reentrant, no input requires grad).
const NO_GRAD_INPUTS: &str =
    "UserWarning: None of the inputs have requires_grad=True. Gradients will be None";

/// The keyword arguments `checkpoint` takes for itself; the others go to the function.
const OWN_KEYWORDS: &[&str] = &[
    "use_reentrant",
    "preserve_rng_state",
    "context_fn",
    "determinism_check",
    "debug",
    "early_stop",
    "respect_saved_tensors_hooks",
];

/// How many generator states the reentrant nodes of a process keep at most (the oldest go
/// first; a node whose state went recomputes with the generator as it is).
const KEPT_STATES: usize = 4096;

thread_local! {
    /// The generator as each reentrant checkpoint's forward found it, by key (the node keeps
    /// the key as its argument `rng`).
    static FORWARD_STATES: RefCell<Vec<(i64, CpuGenerator)>> = const { RefCell::new(Vec::new()) };
    static NEXT_KEY: Cell<i64> = const { Cell::new(0) };
}

fn keep_state(generator: &CpuGenerator) -> i64 {
    let key = NEXT_KEY.with(|k| {
        let key = k.get() + 1;
        k.set(key);
        key
    });
    FORWARD_STATES.with(|states| {
        let mut states = states.borrow_mut();
        if states.len() >= KEPT_STATES {
            states.remove(0);
        }
        states.push((key, generator.clone()));
    });
    key
}

/// The generator as the forward of checkpoint `key` found it, if it is still kept.
pub(crate) fn forward_state(key: i64) -> Option<CpuGenerator> {
    FORWARD_STATES.with(|states| {
        states
            .borrow()
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, g)| g.clone())
    })
}

/// `CheckpointFunctionBackward`: it saves the tensor inputs; its backward recomputes.
static CHECKPOINT_FUNCTION: Formula = Formula {
    inputs: &[],
    saves: &["inputs"],
    args: &[],
    backward: reentrant_backward,
};

/// What a checkpoint runs: one function on the arguments, or a run of a sequence's
/// functions, each on the previous one's output.
#[derive(Clone)]
enum Callable {
    Function(Value),
    Chain(Vec<Value>),
}

impl Callable {
    /// As a node keeps it.
    fn to_args(&self) -> (String, Value) {
        match self {
            Callable::Function(f) => ("function".into(), f.clone()),
            Callable::Chain(fs) => ("chain".into(), Value::List(fs.clone())),
        }
    }

    fn from_node(node: &GradNode) -> Option<Callable> {
        node.args.iter().find_map(|(k, v)| match (k.as_str(), v) {
            ("function", f) => Some(Callable::Function(f.clone())),
            ("chain", Value::List(fs)) => Some(Callable::Chain(fs.clone())),
            _ => None,
        })
    }
}

impl Evaluator {
    /// Runs what a checkpoint runs.
    fn run_callable(
        &mut self,
        callable: &Callable,
        args: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        match callable {
            Callable::Function(f) => self.call(f.clone(), args, kw),
            Callable::Chain(fs) => {
                let mut x = args.into_iter().next().unwrap_or(Value::None);
                for f in fs {
                    x = self.call(f.clone(), vec![x], vec![])?;
                }
                Ok(x)
            }
        }
    }

    /// `torch.utils.checkpoint.checkpoint(function, *args, use_reentrant=None, ...)`.
    pub(crate) fn checkpoint(&mut self, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<Value> {
        let mut pos = pos.into_iter();
        let Some(function) = pos.next() else {
            return Err(ScriptError::Type(
                "checkpoint() missing 1 required positional argument: 'function'".into(),
            ));
        };
        let args: Vec<Value> = pos.collect();
        let (own, rest): (Vec<_>, Vec<_>) = kw
            .into_iter()
            .partition(|(k, _)| OWN_KEYWORDS.contains(&k.as_str()));
        let get = |name: &str| own.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let preserve = match get("preserve_rng_state") {
            Some(v) => self.truthy(&v)?,
            None => true,
        };
        let reentrant = match get("use_reentrant") {
            None | Some(Value::None) => {
                self.recorder.warn_once(CHECKPOINT_WARNING);
                true
            }
            Some(v) => self.truthy(&v)?,
        };
        if reentrant && !rest.is_empty() {
            let names: Vec<&str> = rest.iter().map(|(k, _)| k.as_str()).collect();
            return Err(ScriptError::Value(format!(
                "Unexpected keyword arguments: {}",
                names.join(",")
            )));
        }
        if !reentrant {
            let rng = preserve.then(|| keep_state(&self.torch.generator));
            let frame =
                self.checkpoint_frame(function.clone(), false, args.clone(), rest.clone(), rng)?;
            let callable = Callable::Function(function);
            return self.run_in_frame(&frame, |ev| ev.run_callable(&callable, args, rest));
        }
        let callable = Callable::Function(function);
        let special = ["context_fn", "debug", "respect_saved_tensors_hooks"];
        let given_special = special.iter().any(|name| {
            get(name).is_some_and(|v| {
                !matches!(
                    (*name, v),
                    ("debug", Value::Bool(false)) | ("respect_saved_tensors_hooks", Value::None)
                )
            })
        });
        if given_special {
            return Err(ScriptError::Value(
                "Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only supported when use_reentrant=False.".into(),
            ));
        }
        self.checkpoint_reentrant(callable, args, preserve)
    }

    /// `CheckpointFunction.apply(function, preserve_rng_state, *args)`.
    fn checkpoint_reentrant(
        &mut self,
        callable: Callable,
        args: Vec<Value>,
        preserve: bool,
    ) -> R<Value> {
        let tensors: Vec<TensorRef> = args
            .iter()
            .filter_map(|a| match a {
                Value::Tensor(t) => Some(Rc::clone(t)),
                _ => None,
            })
            .collect();
        let any_requires_grad = tensors.iter().any(|t| tracks_grad(&t.borrow()));
        if !any_requires_grad {
            self.recorder.warn(NO_GRAD_INPUTS.into());
        }
        let rng_key = preserve.then(|| keep_state(&self.torch.generator));
        let was = std::mem::replace(&mut self.torch.grad_enabled, false);
        let output = self.run_callable(&callable, args.clone(), vec![]);
        self.torch.grad_enabled = was;
        let output = output?;
        if !(self.torch.grad_enabled && any_requires_grad) {
            return Ok(output);
        }
        let outputs: Vec<TensorRef> = match &output {
            Value::Tensor(t) => vec![Rc::clone(t)],
            Value::Tuple(items) | Value::List(items) => items
                .iter()
                .filter_map(|v| match v {
                    Value::Tensor(t) => Some(Rc::clone(t)),
                    _ => None,
                })
                .collect(),
            _ => vec![],
        };
        if outputs.len() > 1 {
            return Err(ScriptError::NotImplemented(
                "Stridescope's checkpoint(use_reentrant=True) takes a function with one tensor output".into(),
            ));
        }
        let Some(out) = outputs.first() else {
            return Ok(output);
        };
        // An output that is an input is a new tensor object on the same storage.
        let (out, output) = if tensors.iter().any(|t| Rc::ptr_eq(t, out)) {
            let tensor = out.borrow().tensor.clone();
            let fresh = Value::tensor(tensor, "checkpoint", None);
            match fresh {
                Value::Tensor(f) => (Rc::clone(&f), replace_output(&output, out, &f)),
                _ => return Ok(output),
            }
        } else {
            (Rc::clone(out), output)
        };
        let operands: Vec<Operand> = tensors
            .iter()
            .map(|t| {
                let tensor = t.borrow().tensor.clone();
                Operand {
                    tracked: tracks_grad(&t.borrow()).then(|| Rc::clone(t)),
                    saved: Saved::Tensor(SavedTensor {
                        version: self.memory.version(tensor.storage),
                        tensor: tensor.clone(),
                        object: SavedObject::Input(Rc::clone(t)),
                    }),
                    shape: tensor.shape().to_vec(),
                    dtype: Some(tensor.dtype),
                }
            })
            .collect();
        let mut node_args = vec![callable.to_args(), ("args".into(), Value::Tuple(args))];
        if let Some(key) = rng_key {
            node_args.push(("rng".into(), Value::Int(key)));
        }
        let (dtype, shape) = {
            let o = out.borrow();
            (o.tensor.dtype, o.tensor.shape().to_vec())
        };
        let node = GradNode {
            name: "CheckpointFunctionBackward".into(),
            formula: Some(&CHECKPOINT_FUNCTION),
            operands,
            result: Saved::Missing,
            args: node_args,
            out_dtype: dtype,
            out_shape: shape,
            freed: Cell::new(false),
            seq: self.torch.autograd.next_seq(),
            custom: None,
            extras: Default::default(),
        };
        out.borrow_mut().grad_fn = Some(Rc::new(node));
        Ok(output)
    }

    /// `checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs)`.
    pub(crate) fn checkpoint_sequential(
        &mut self,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> R<Value> {
        let mut named: [Option<Value>; 4] = [None, None, None, None];
        let names = ["functions", "segments", "input", "use_reentrant"];
        if pos.len() > 4 {
            return Err(ScriptError::Type(format!(
                "checkpoint_sequential() takes from 3 to 4 positional arguments but {} were given",
                pos.len()
            )));
        }
        for (i, v) in pos.into_iter().enumerate() {
            named[i] = Some(v);
        }
        let mut extra = Vec::new();
        for (k, v) in kw {
            match names.iter().position(|n| *n == k) {
                Some(i) if named[i].is_some() => {
                    return Err(ScriptError::Type(format!(
                        "checkpoint_sequential() got multiple values for argument '{k}'"
                    )))
                }
                Some(i) => named[i] = Some(v),
                None => extra.push((k, v)),
            }
        }
        let missing: Vec<String> = names[..3]
            .iter()
            .zip(&named)
            .filter(|(_, v)| v.is_none())
            .map(|(n, _)| format!("'{n}'"))
            .collect();
        if !missing.is_empty() {
            let list = match missing.len() {
                1 => missing[0].clone(),
                2 => format!("{} and {}", missing[0], missing[1]),
                _ => format!("{}, {} and {}", missing[0], missing[1], missing[2]),
            };
            return Err(ScriptError::Type(format!(
                "checkpoint_sequential() missing {} required positional argument{}: {list}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" }
            )));
        }
        let [functions, segments, input, use_reentrant] = named;
        let reentrant = match use_reentrant {
            None | Some(Value::None) => {
                self.recorder.warn_once(SEQUENTIAL_WARNING);
                true
            }
            Some(v) => self.truthy(&v)?,
        };
        let preserve = match extra.iter().position(|(k, _)| k == "preserve_rng_state") {
            Some(i) => {
                let (_, v) = extra.remove(i);
                self.truthy(&v)?
            }
            None => true,
        };
        if !extra.is_empty() {
            let names: Vec<&str> = extra.iter().map(|(k, _)| k.as_str()).collect();
            return Err(ScriptError::Value(format!(
                "Unexpected keyword arguments: {}",
                names.join(",")
            )));
        }
        let functions = functions.unwrap_or(Value::None);
        let functions = if crate::interp::torch::nn::module::is_module(&functions) {
            let children = self.attribute(functions, "children")?;
            let children = self.call(children, vec![], vec![])?;
            self.iterate(&children)?
        } else {
            self.iterate(&functions)?
        };
        let segments = match segments {
            Some(Value::Int(s)) => s,
            Some(Value::Bool(b)) => i64::from(b),
            Some(other) => {
                return Err(ScriptError::Type(format!(
                    "unsupported operand type(s) for //: 'int' and '{}'",
                    other.type_name()
                )))
            }
            None => 0,
        };
        if segments == 0 {
            return Err(ScriptError::ZeroDivision(
                "integer division or modulo by zero".into(),
            ));
        }
        let n = functions.len() as i64;
        let size = n.div_euclid(segments);
        let mut input = input.unwrap_or(Value::None);
        let mut end: i64 = -1;
        let stop = size * (segments - 1);
        let mut start = 0;
        while size > 0 && start < stop {
            end = start + size - 1;
            let chain = Callable::Chain(functions[start as usize..=end as usize].to_vec());
            input = if reentrant {
                self.checkpoint_reentrant(chain, vec![input], preserve)?
            } else {
                let rng = preserve.then(|| keep_state(&self.torch.generator));
                let fs = functions[start as usize..=end as usize].to_vec();
                let frame =
                    self.checkpoint_frame(Value::List(fs), true, vec![input.clone()], vec![], rng)?;
                self.run_in_frame(&frame, |ev| ev.run_callable(&chain, vec![input], vec![]))?
            };
            start += size;
        }
        let from = (end + 1).clamp(0, n) as usize;
        let last = Callable::Chain(functions[from..].to_vec());
        self.run_callable(&last, vec![input], vec![])
    }
}

/// `output` with the tensor object `old` replaced by `new`.
fn replace_output(output: &Value, old: &TensorRef, new: &TensorRef) -> Value {
    let swap = |v: &Value| match v {
        Value::Tensor(t) if Rc::ptr_eq(t, old) => Value::Tensor(Rc::clone(new)),
        other => other.clone(),
    };
    match output {
        Value::Tuple(items) => Value::Tuple(items.iter().map(swap).collect()),
        Value::List(items) => Value::List(items.iter().map(swap).collect()),
        other => swap(other),
    }
}

/// `CheckpointFunction.backward`: the forward again on detached inputs, with grad mode on
/// and the generator as the forward found it, then `backward()` through it.
fn reentrant_backward(ev: &mut Evaluator, b: &Backward) -> R<Vec<Option<Value>>> {
    let node = b.node;
    let Some(callable) = Callable::from_node(node) else {
        return Ok(b.none());
    };
    let mut detached: Vec<Option<TensorRef>> = Vec::with_capacity(node.operands.len());
    let mut inputs = Vec::with_capacity(node.operands.len());
    for operand in &node.operands {
        let Saved::Tensor(s) = &operand.saved else {
            return Err(ScriptError::Runtime(
                crate::interp::torch::autograd::objects::FREED.into(),
            ));
        };
        ev.check_version(node, s)?;
        let value = Value::tensor(s.tensor.clone(), "detach", None);
        if let Value::Tensor(t) = &value {
            t.borrow_mut().requires_grad = operand.tracked.is_some();
            detached.push(Some(Rc::clone(t)));
        }
        inputs.push(value);
    }
    // The arguments as given, each tensor replaced by its detached copy.
    let given = node
        .args
        .iter()
        .find_map(|(k, v)| match (k.as_str(), v) {
            ("args", Value::Tuple(items)) => Some(items.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let mut fresh = inputs.into_iter();
    let args: Vec<Value> = given
        .into_iter()
        .map(|v| match v {
            Value::Tensor(_) => fresh.next().unwrap_or(Value::None),
            other => other,
        })
        .collect();
    let rng = node.args.iter().find_map(|(k, v)| match (k.as_str(), v) {
        ("rng", Value::Int(key)) => forward_state(*key),
        _ => None,
    });
    // `fork_rng(enabled=preserve_rng_state)`: without a kept state the recomputation draws
    // from the generator as it is, and leaves it moved.
    let surrounding = rng.map(|state| std::mem::replace(&mut ev.torch.generator, state));
    let was = std::mem::replace(&mut ev.torch.grad_enabled, true);
    let outputs = ev.run_callable(&callable, args, vec![]);
    ev.torch.grad_enabled = was;
    if let Some(surrounding) = surrounding {
        ev.torch.generator = surrounding;
    }
    let outputs = outputs?;
    let output = match &outputs {
        Value::Tensor(t) => Some(Rc::clone(t)),
        Value::Tuple(items) | Value::List(items) => items.iter().find_map(|v| match v {
            Value::Tensor(t) => Some(Rc::clone(t)),
            _ => None,
        }),
        _ => None,
    };
    let Some(output) = output.filter(|t| tracks_grad(&t.borrow())) else {
        return Err(ScriptError::Runtime(
            "none of output has requires_grad=True, this checkpoint() is not necessary".into(),
        ));
    };
    let run = Run {
        retain_graph: false,
        create_graph: false,
        inputs: None,
    };
    ev.run_engine(vec![(output, b.g())], &run)?;
    Ok(detached
        .into_iter()
        .zip(&node.operands)
        .map(|(d, operand)| {
            operand.tracked.as_ref()?;
            let g = d?.borrow().grad.clone()?;
            Some(Value::Tensor(g))
        })
        .collect())
}
