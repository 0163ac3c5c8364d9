//! The non-reentrant checkpoint (`_checkpoint_without_reentrant_generator`): the function
//! runs under `saved_tensors_hooks` of its own frame, so the nodes it records keep a holder
//! (an index) instead of each tensor they save, and those tensors are freed after the
//! forward. The first unpack (in `backward()`, or reading `grad_fn._saved_*`) runs the
//! function again on the same inputs, with grad mode on and the generator as the forward
//! found it (restored after), under the frame's recomputation hook, which keeps the tensors
//! the recomputed nodes save, in the same order; each unpack then reads its tensor. A tensor
//! freed since (after the statement that recomputed it) is recomputed again at its next
//! unpack, as PyTorch recomputes for each backward of a graph kept with `retain_graph=True`. The recomputed statements are
//! sub-steps of the statement that unpacked.

use std::cell::RefCell;
use std::rc::Rc;

use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::ModuleDef;
use crate::interp::torch::optim::{attr, set_attr};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// `_CheckpointFrame`: one non-reentrant checkpoint's state, whose methods are its hooks.
pub(crate) static CLASSES: &[ModuleDef] = &[ModuleDef {
    name: "_CheckpointFrame",
    path: "torch.utils.checkpoint",
    base: None,
    init: None,
    forward: None,
    extra_repr: None,
    methods: &[
        ("pack", |_, o, _, _| {
            let Value::Int(n) = attr(o, "_count") else {
                return Ok(Value::None);
            };
            set_attr(o, "_count", Value::Int(n + 1));
            Ok(Value::Int(n))
        }),
        ("unpack", |ev, o, pos, _| {
            let Some(Value::Int(i)) = pos.first() else {
                return Err(ScriptError::Type(
                    "checkpoint's unpack hook expects its holder".into(),
                ));
            };
            ev.checkpoint_unpack(o, *i)
        }),
        ("recompute_pack", |_, o, pos, _| {
            let Some(Value::Tensor(t)) = pos.first() else {
                return Ok(pos.first().cloned().unwrap_or(Value::None));
            };
            let detached = Value::tensor(t.borrow().tensor.clone(), "detach", None);
            let mut items = match attr(o, "_recomputed") {
                Value::List(items) => items,
                _ => Vec::new(),
            };
            items.push(detached.clone());
            set_attr(o, "_recomputed", Value::List(items));
            Ok(detached)
        }),
        ("recompute_unpack", |_, _, pos, _| {
            Ok(pos.into_iter().next().unwrap_or(Value::None))
        }),
    ],
    class_methods: &[],
}];

impl Evaluator {
    /// A new frame for a checkpoint of `callable` (a function, or a list of functions run
    /// in turn) on `args` and `kwargs`.
    pub(crate) fn checkpoint_frame(
        &mut self,
        callable: Value,
        chain: bool,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        rng: Option<i64>,
    ) -> R<Rc<Instance>> {
        let class = self
            .nn_class("_CheckpointFrame")
            .ok_or_else(|| ScriptError::Runtime("the checkpoint frame is missing".into()))?;
        let kwargs: Vec<Value> = kwargs
            .into_iter()
            .map(|(k, v)| Value::Tuple(vec![Value::Str(k), v]))
            .collect();
        Ok(Rc::new(Instance {
            class,
            attrs: RefCell::new(vec![
                ("_callable".into(), callable),
                ("_chain".into(), Value::Bool(chain)),
                ("_args".into(), Value::Tuple(args)),
                ("_kwargs".into(), Value::List(kwargs)),
                ("_rng".into(), rng.map_or(Value::None, Value::Int)),
                ("_count".into(), Value::Int(0)),
                ("_recomputed".into(), Value::List(Vec::new())),
            ]),
            module: RefCell::new(None),
        }))
    }

    /// The frame's hooks as `saved_tensors_hooks` keeps them: `(pack, unpack)`, or the
    /// recomputation's pair.
    pub(crate) fn frame_hooks(
        &mut self,
        frame: &Rc<Instance>,
        recompute: bool,
    ) -> R<(Value, Value)> {
        let names = if recompute {
            ("recompute_pack", "recompute_unpack")
        } else {
            ("pack", "unpack")
        };
        let receiver = Value::Instance(Rc::clone(frame));
        Ok((
            self.attribute(receiver.clone(), names.0)?,
            self.attribute(receiver, names.1)?,
        ))
    }

    /// Runs the checkpointed function under the frame's hooks (the forward).
    pub(crate) fn run_in_frame(
        &mut self,
        frame: &Rc<Instance>,
        run: impl FnOnce(&mut Evaluator) -> R<Value>,
    ) -> R<Value> {
        let hooks = self.frame_hooks(frame, false)?;
        self.torch.autograd.saved_hooks.push(hooks);
        let out = run(self);
        self.torch.autograd.saved_hooks.pop();
        out
    }

    /// The unpack hook: the `i`-th saved tensor of the forward, recomputed when needed.
    fn checkpoint_unpack(&mut self, frame: &Rc<Instance>, i: i64) -> R<Value> {
        if let Some(t) = self.recomputed_tensor(frame, i) {
            return Ok(t);
        }
        self.recompute(frame)?;
        if let Some(t) = self.recomputed_tensor(frame, i) {
            return Ok(t);
        }
        let saved = match attr(frame, "_count") {
            Value::Int(n) => n,
            _ => 0,
        };
        let recomputed = match attr(frame, "_recomputed") {
            Value::List(items) => items.len(),
            _ => 0,
        };
        Err(ScriptError::Other {
            class: "CheckpointError".into(),
            message: format!(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and recomputation.\nNumber of tensors saved during forward: {saved}\nNumber of tensors saved during recomputation: {recomputed}"
            ),
        })
    }

    /// The recomputed tensor `i`, if it is there and not freed since (the storages of a
    /// recomputation are freed after the statement that ran it, so the next `backward()` of
    /// a graph kept with `retain_graph=True` recomputes again, as PyTorch's does).
    fn recomputed_tensor(&mut self, frame: &Rc<Instance>, i: i64) -> Option<Value> {
        let Value::List(items) = attr(frame, "_recomputed") else {
            return None;
        };
        let slot = items.get(usize::try_from(i).ok()?)?;
        match slot {
            Value::Tensor(t) if self.memory.is_live(t.borrow().tensor.storage) => {
                Some(slot.clone())
            }
            _ => None,
        }
    }

    /// The forward again, under the recomputation hook (whose pack hook returns the tensor
    /// it keeps, so the recomputed graph holds it while the recomputation runs).
    fn recompute(&mut self, frame: &Rc<Instance>) -> R<()> {
        set_attr(frame, "_recomputed", Value::List(Vec::new()));
        let hooks = self.frame_hooks(frame, true)?;
        let callable = attr(frame, "_callable");
        let chain = matches!(attr(frame, "_chain"), Value::Bool(true));
        let args = match attr(frame, "_args") {
            Value::Tuple(items) => items,
            _ => Vec::new(),
        };
        let kwargs: Vec<(String, Value)> = match attr(frame, "_kwargs") {
            Value::List(items) => items
                .into_iter()
                .filter_map(|kv| match kv {
                    Value::Tuple(mut kv) if kv.len() == 2 => {
                        let v = kv.pop()?;
                        match kv.pop()? {
                            Value::Str(k) => Some((k, v)),
                            _ => None,
                        }
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let rng = match attr(frame, "_rng") {
            Value::Int(key) => super::checkpoint::forward_state(key),
            _ => None,
        };
        // Without a kept state (`preserve_rng_state=False`) the generator moves.
        let surrounding = rng.map(|state| std::mem::replace(&mut self.torch.generator, state));
        self.torch.autograd.saved_hooks.push(hooks);
        let was = std::mem::replace(&mut self.torch.grad_enabled, true);
        let result = if chain {
            let fs = match callable {
                Value::List(fs) => fs,
                other => vec![other],
            };
            let mut x = args.into_iter().next().unwrap_or(Value::None);
            let mut out = Ok(());
            for f in fs {
                match self.call(f, vec![x.clone()], vec![]) {
                    Ok(v) => x = v,
                    Err(e) => {
                        out = Err(e);
                        break;
                    }
                }
            }
            out
        } else {
            self.call(callable, args, kwargs).map(|_| ())
        };
        self.torch.grad_enabled = was;
        self.torch.autograd.saved_hooks.pop();
        if let Some(surrounding) = surrounding {
            self.torch.generator = surrounding;
        }
        result
    }
}
